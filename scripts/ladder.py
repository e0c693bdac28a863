"""Measure the level ladder and write the figures file ``checkpoints/levels.json``.

    python scripts/ladder.py                       # the full table (hours on one core)
    python scripts/ladder.py --jobs 2              # the same, matches spread over 2 processes
    python scripts/ladder.py --scale 0.2           # every game count x 0.2 (a quick look)

Plays, with paired dice and colours alternating (:func:`bgrl.arena.duel.play_match`, the code
behind ``bgrl match``):

* beginner against random;
* every level against pubeval;
* every level against the level below it;
* world-class against gnubg 0-ply, when the ``gnubg`` agent exists (``pip install -e
  ".[gnubg]"`` and the ``gnubg`` spec of :func:`bgrl.agents.registry.load_agent`);

and, when the error-rate benchmark is available (:mod:`bgrl.arena.benchmark` and its data file),
each level's error rate in millipoints per decision judged by gnubg 2-ply.

Every match is recorded with the ``bgrl match`` command that reproduces it. Game counts per
match (``--games-*``) default to what the README's table used; ``--scale`` multiplies them.
The file is written atomically, keeping the figures of matches not rerun (``--only``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "checkpoints" / "levels.json"

# games per match, by the cost of the more expensive side
DEFAULT_GAMES = {"0-ply": 10000, "1-ply": 5000, "2-ply": 2000, "gnubg": 1000}


def _cost(name: str) -> str:
    from bgrl.agents.levels import LEVELS

    lv = LEVELS.get(name)
    return f"{lv.ply}-ply" if lv is not None else "0-ply"


def plan(args) -> list[dict]:
    """The matches: dicts with key, a, b, games, seed, kind."""
    from bgrl.agents.levels import LEVEL_NAMES

    def games(*names, kind=None):
        g = getattr(args, "games_" + (kind or max((_cost(n) for n in names), key=lambda c: int(c[0]))).replace("-", "_"))
        return max(2, int(round(g * args.scale / 2)) * 2)

    out = [{"key": "beginner/random", "a": "beginner", "b": "random", "level": "beginner", "kind": "vs_lower"}]
    for i, name in enumerate(LEVEL_NAMES):
        out.append({"key": f"{name}/pubeval", "a": name, "b": "pubeval", "level": name, "kind": "vs_pubeval"})
        if i > 0:
            out.append({"key": f"{name}/{LEVEL_NAMES[i - 1]}", "a": name, "b": LEVEL_NAMES[i - 1], "level": name, "kind": "vs_lower"})
    if args.gnubg:
        top = LEVEL_NAMES[-1]
        out.append({"key": f"{top}/gnubg", "a": top, "b": "gnubg", "level": top, "kind": "vs_gnubg", "cost": "gnubg"})
    for m in out:
        m["games"] = games(m["a"], m["b"], kind=m.get("cost"))
        m["seed"] = args.seed
    if args.only:
        out = [m for m in out if any(s in m["key"] for s in args.only)]
    return out


def run_match(m: dict) -> dict:
    import torch

    torch.set_num_threads(1)
    from bgrl.agents.registry import load_agent
    from bgrl.arena.duel import play_match

    t0 = time.process_time()
    r = play_match(load_agent(m["a"]), load_agent(m["b"]), m["games"], seed=m["seed"], names=(m["a"], m["b"]))
    d = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.as_dict().items()}
    d["cpu_seconds"] = round(time.process_time() - t0, 1)
    d["command"] = f"bgrl match {m['a']} {m['b']} --games {m['games']} --seed {m['seed']}"
    print(f"{m['key']:<28} {d['ppg']:+.3f} ± {d['ci95']:.3f}  ({d['games']} games, {d['cpu_seconds']:.0f} s cpu)", flush=True)
    return d


def error_rates(names, path=None) -> dict:
    """Each level's error rate on the shipped benchmark, or {} when it is not available."""
    try:
        from bgrl.arena.benchmark import error_rate, load_benchmark
    except ImportError:
        print("error rates: bgrl.arena.benchmark is not available; skipped", file=sys.stderr)
        return {}
    try:
        bench = load_benchmark(path)
    except (OSError, ValueError) as exc:
        print(f"error rates: no benchmark data ({exc}); skipped", file=sys.stderr)
        return {}
    from bgrl.agents.registry import load_agent

    out = {}
    for name in names:
        r = error_rate(load_agent(name), bench)
        out[name] = r
        print(f"error rate {name:<14} {r.get('all', r)}", flush=True)
    return out


def write_atomic(path: Path, obj: dict) -> None:
    from bgrl._fileio import write_text_atomic

    write_text_atomic(path, json.dumps(obj, indent=2) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for kind, g in DEFAULT_GAMES.items():
        p.add_argument(f"--games-{kind}", type=int, default=g, help=f"games per match whose costlier side is {kind} (default {g})")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every game count (default 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="matches in parallel processes (default 1)")
    p.add_argument("--only", nargs="*", default=None, help="rerun only matches whose key contains one of these (e.g. expert/)")
    p.add_argument("--no-gnubg", dest="gnubg", action="store_false", help="skip world-class vs gnubg 0-ply")
    p.add_argument("--no-error-rates", dest="error_rates", action="store_false")
    p.add_argument("--benchmark", default=None, help="error-rate benchmark file (default: the shipped one)")
    p.add_argument("--out", type=Path, default=OUT, help=f"figures file (default {OUT.relative_to(ROOT)})")
    args = p.parse_args(argv)
    if args.scale <= 0 or args.jobs < 1:
        p.error("--scale must be > 0 and --jobs >= 1")
    if args.gnubg:
        try:
            from bgrl.agents.registry import load_agent

            load_agent("gnubg")
        except Exception as exc:  # the optional extra or the gnubg agent is missing
            print(f"world-class vs gnubg: skipped ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})", file=sys.stderr)
            args.gnubg = False
    from bgrl.agents.levels import LEVEL_NAMES, LEVELS, measured_levels

    matches = plan(args)
    t0 = time.time()
    cmd = "python scripts/ladder.py " + " ".join(argv if argv is not None else sys.argv[1:])
    from bgrl._resources import shipped_checkpoint

    nets = sorted({LEVELS[n].network for n in LEVEL_NAMES})

    def save(done: list[tuple[dict, dict]], rates: dict | None = None) -> None:
        """Merge what is measured so far into the figures file (after every match)."""
        old = measured_levels(args.out) if args.out.exists() else {}
        levels = {n: dict(old.get("levels", {}).get(n, {})) for n in LEVEL_NAMES}
        for m, r in done:
            levels[m["level"]][m["kind"]] = r
            if m["kind"] == "vs_lower":
                levels[m["level"]]["lower"] = m["b"]
        for name, r in (rates or {}).items():
            levels[name]["error_rate"] = round(float(r["all"]), 2) if isinstance(r, dict) and "all" in r else r
            if isinstance(r, dict):
                levels[name]["error_rate_detail"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}
        for name in LEVEL_NAMES:
            levels[name]["definition"] = LEVELS[name].as_dict()
        write_atomic(args.out, {
            "format": "bgrl-levels-1",
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "command": cmd,
            "runs": [r for r in old.get("runs", []) if r != cmd] + [cmd],
            "machine": f"{platform.machine()}, python {platform.python_version()}, torch 1 thread per process",
            "networks": {n: hashlib.sha256(shipped_checkpoint(n).read_bytes()).hexdigest()[:16] for n in nets},
            "wall_seconds": round(time.time() - t0, 1),
            "levels": levels,
        })

    done: list[tuple[dict, dict]] = []
    if args.jobs == 1:
        for m in matches:
            done.append((m, run_match(m)))
            save(done)
    else:
        from concurrent.futures import as_completed

        order = sorted(range(len(matches)), key=lambda i: -matches[i]["games"] * (1 + 20 * LEVELS[matches[i]["a"]].ply))
        with ProcessPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(run_match, matches[i]): matches[i] for i in order}
            for f in as_completed(futs):
                done.append((futs[f], f.result()))
                save(done)
    if args.error_rates:
        save(done, error_rates(LEVEL_NAMES, args.benchmark))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
