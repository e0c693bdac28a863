"""Self-play training throughput: games/s and after-states valued/s, with and without
learning, and each part's share of the time (issue 8).

Every configuration plays from the same network (the shipped one by default, so games
have realistic lengths) after a warm-up that spreads the lockstep games over all stages
of a game. The configurations are measured in turns, in short slices, several rounds,
so a machine whose load changes during the run affects them alike: compare the ratios.
Two rates are printed: per wall-clock second and per CPU second of this process (the
CPU-second rate is what one otherwise idle core would reach; on a loaded machine the
wall-clock rate is lower). The load average is printed before and after.

    python scripts/bench/bench_train.py                  # 32, 128 and 512 games in lockstep vs the dense trainer at 32
    python scripts/bench/bench_train.py --parallel 256 --rounds 5 --seconds 4
    python scripts/bench/bench_train.py --parallel 32 128 512 --before   # issue 39: compiled vs the numpy path
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the dense reference trainer lives with the tests


def _configs(args):
    from bgrl.evaluation.networks import load_network
    from bgrl.training import _kernels
    from bgrl.training.td import TDLambda
    from reference_td import DenseTraceTDLambda

    def net():
        from bgrl._resources import resolve_checkpoint

        n, meta = load_network(resolve_checkpoint(args.checkpoint) if args.checkpoint != "default" else _shipped())
        return n, meta["encoder"]

    def make(kind, G, learn=True, kernel=None):
        n, enc = net()
        alpha = args.alpha / G
        rng = np.random.default_rng(args.seed)
        if kind == "dense":
            return DenseTraceTDLambda(n, enc, G, alpha, 0.7, rng)
        td = TDLambda(n, enc, G, alpha, 0.7, rng, exact=_exact() if args.bearoff else None, kernel=kernel)
        td.learn = learn
        return td

    out = [(f"dense traces (before), {args.old_parallel} games, learning", lambda: make("dense", args.old_parallel))]
    for G in args.parallel:
        out.append((f"fast, {G} games, learning", lambda G=G: make("fast", G)))
        if args.before:
            out.append((f"fast, {G} games, learning{BEFORE}", lambda G=G: make("fast", G)))
        out.append((f"fast, {G} games, play only", lambda G=G: make("fast", G, learn=False)))
        if args.torch_fallback or not _kernels.AVAILABLE:
            out.append((f"fast without numba, {G} games, learning", lambda G=G: make("fast", G, kernel=False)))
    return out


#: The suffix of a configuration run on the numpy path (bgrl.evaluation.compiled.disabled(): the
#: numpy generator, table rows and table build, as before issue 39): the same games, bit for bit.
BEFORE = " (numpy path, before)"


def _shipped():
    from bgrl._resources import shipped_checkpoint

    return shipped_checkpoint()


def _exact():
    from bgrl.evaluation.bearoff import exact_probs

    return exact_probs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--parallel", type=int, nargs="+", default=[32, 128, 512],
                   help="games in lockstep for the fast trainer, one configuration each (default 32 128 512)")
    p.add_argument("--old-parallel", type=int, default=32, help="games in lockstep for the dense trainer (default 32, its old default)")
    p.add_argument("--checkpoint", default="default", help="network to play with (default: the shipped one)")
    p.add_argument("--alpha", type=float, default=1e-3, help="step size summed over the games (default 1e-3; speed does not depend on it)")
    p.add_argument("--seconds", type=float, default=5.0, help="length of one measured slice (default 5)")
    p.add_argument("--rounds", type=int, default=3, help="slices per configuration, taken in turns (default 3)")
    p.add_argument("--warmup-steps", type=int, default=120, help="steps played before measuring (default 120)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-bearoff", dest="bearoff", action="store_false", help="value bear-offs by the network, not the exact database")
    p.add_argument("--torch-fallback", action="store_true", help="also measure the fast trainer without its compiled kernel")
    p.add_argument("--before", action="store_true",
                   help="also run each fast learning configuration on the numpy path (compiled kernels off, as "
                        "before issue 39), in turns with the others; its speed-up is printed")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # deliberate: see bgrl.training.td
    from bgrl.evaluation import compiled

    load0 = os.getloadavg()
    configs = []
    for name, factory in _configs(args):
        td = factory()
        for _ in range(args.warmup_steps):
            td.step()
        configs.append({"name": name, "td": td, "wall": 0.0, "cpu": 0.0, "games": 0, "plies": 0, "evals": 0,
                        "parts": dict.fromkeys(getattr(td, "timings", {}), 0.0)})
    for _ in range(args.rounds):
        for c in configs:
            td = c["td"]
            parts0 = dict(getattr(td, "timings", {}))
            ev0 = td.positions_evaluated
            w0, c0 = time.perf_counter(), time.process_time()
            games = steps = 0
            with compiled.disabled() if c["name"].endswith(BEFORE) else contextlib.nullcontext():
                while time.perf_counter() - w0 < args.seconds:
                    games += len(td.step()["finished"])
                    steps += 1
            c["wall"] += time.perf_counter() - w0
            c["cpu"] += time.process_time() - c0
            c["games"] += games
            c["plies"] += steps * td.G
            c["evals"] += td.positions_evaluated - ev0
            for k in c["parts"]:
                c["parts"][k] += td.timings[k] - parts0[k]
    load1 = os.getloadavg()

    base = configs[0]
    rows = []
    for c in configs:
        tot = sum(c["parts"].values())
        rows.append({
            "config": c["name"],
            "games_per_s": c["games"] / c["wall"],
            "games_per_cpu_s": c["games"] / c["cpu"],
            "plies_per_s": c["plies"] / c["wall"],
            "after_states_per_s": c["evals"] / c["wall"],
            "after_states_per_cpu_s": c["evals"] / c["cpu"],
            "vs_dense_wall": (c["games"] / c["wall"]) / (base["games"] / base["wall"]) if base["games"] else float("nan"),
            "vs_dense_cpu": (c["games"] / c["cpu"]) / (base["games"] / base["cpu"]) if base["games"] else float("nan"),
            "cpu_share_of_wall": c["cpu"] / c["wall"],
            "parts": {k: v / tot for k, v in c["parts"].items()} if tot else {},
            "games": c["games"],
        })
    info = {
        "machine": f"{platform.machine()} {platform.system()}, os.cpu_count()={os.cpu_count()}; python {platform.python_version()}, "
                   f"numpy {np.__version__}, torch {torch.__version__}, threads {torch.get_num_threads()}",
        "load_average_before": [round(x, 2) for x in load0],
        "load_average_after": [round(x, 2) for x in load1],
        "rounds": args.rounds, "seconds_per_slice": args.seconds,
    }
    if args.json:
        print(json.dumps({"info": info, "results": rows}, indent=1))
        return 0
    print(info["machine"])
    print(f"load average (1, 5, 15 min) before {info['load_average_before']}, after {info['load_average_after']}; "
          f"{args.rounds} rounds of {args.seconds:g} s per configuration, in turns")
    print()
    hdr = f"{'configuration':42} {'games/s':>8} {'games/cpu-s':>11} {'after-states/s':>14} {'/cpu-s':>9} {'x dense':>8} {'x dense cpu':>11}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['config']:42} {r['games_per_s']:8.1f} {r['games_per_cpu_s']:11.1f} {r['after_states_per_s']:14,.0f} "
              f"{r['after_states_per_cpu_s']:9,.0f} {r['vs_dense_wall']:7.2f}x {r['vs_dense_cpu']:10.2f}x")
    print()
    print("share of the fast trainer's step time per part (td.timings, wall clock):")
    for r in rows:
        if r["parts"]:
            print(f"  {r['config']:42} " + "  ".join(f"{k} {100 * v:4.1f}%" for k, v in r["parts"].items()))
    print()
    by_name = {r["config"]: r for r in rows}
    for r in rows:
        if r["config"].endswith(BEFORE) and r["config"][: -len(BEFORE)] in by_name:
            now = by_name[r["config"][: -len(BEFORE)]]
            print(f"{now['config']}: {now['games_per_cpu_s'] / r['games_per_cpu_s']:.2f}x the games per CPU second "
                  f"of the numpy path (before issue 39)")
    print("games/s: per wall-clock second; games/cpu-s: per CPU second of this process (what an idle core gives).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
