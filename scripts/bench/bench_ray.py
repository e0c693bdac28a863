"""Throughput of ``bgrl train --backend ray`` with 1 and 2 actors against one local process (issue 12).

Measures games/s of: the default online trainer (``--backend local``, one process), the
same synchronous-rounds algorithm in one process (``--backend local-rounds``), and Ray
with 1 and 2 actors (``--backend ray``, a local Ray instance with ``num_cpus`` = actors).
All play from the shipped network (realistic game lengths), learning as in training.
Ray figures exclude the actors' start (one warm-up round first).

Two kinds of figure, because a shared, loaded machine slows every process by a varying
amount: games per wall-clock second, and games per CPU second (the CPU time of every
process involved: learner plus actors), with the rate N actors would reach on N idle
cores (``projected``: the round's games over the busiest actor's CPU time plus the
learner's). The load average is printed before and after: compare the ratios.

    python scripts/bench/bench_ray.py                       # 3 timed rounds of 64 games, tasks of 32, 16 at once
    python scripts/bench/bench_ray.py --rounds 5 --round-games 128
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch


def _net(checkpoint):
    from bgrl.evaluation.networks import load_network
    from bgrl._resources import shipped_checkpoint

    net, meta = load_network(shipped_checkpoint() if checkpoint == "default" else checkpoint)
    return net, meta["encoder"]


def bench_online(args):
    from bgrl.evaluation.exact import exact_probs
    from bgrl.training.td import TDLambda

    net, enc = _net(args.checkpoint)
    td = TDLambda(net, enc, args.parallel, args.alpha / args.parallel, 0.7, np.random.default_rng(1), exact=exact_probs)
    for _ in range(150):  # spread the lockstep games over all stages of a game
        td.step()
    games, w0, c0 = 0, time.perf_counter(), time.process_time()
    while games < args.rounds * args.round_games:
        games += len(td.step()["finished"])
    w, c = time.perf_counter() - w0, time.process_time() - c0
    return {"games": games, "wall": w, "cpu": c, "projected": games / c}


def _rounds(args, runner, actor_cpu=None):
    from bgrl.training.rounds import RoundsTrainer

    net, enc = _net(args.checkpoint)
    tr = RoundsTrainer(net, args.round_games, args.task_games, args.alpha / args.round_games, 0.7, 1, runner,
                       lockstep=args.lockstep)
    tr.step()  # warm-up (Ray: the actors start and load the bear-off database)
    a0 = actor_cpu() if actor_cpu else None
    games, w0, c0 = 0, time.perf_counter(), time.process_time()
    for _ in range(args.rounds):
        games += len(tr.step()["finished"])
    w, c = time.perf_counter() - w0, time.process_time() - c0
    out = {"games": games, "wall": w, "cpu": c, "learner_cpu": c}
    if actor_cpu:
        per = [b - a for a, b in zip(a0, actor_cpu())]
        out["cpu"] = c + sum(per)
        out["actor_cpu"] = per
        out["projected"] = games / (max(per) + c)
    else:
        out["projected"] = games / c
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="timed rounds per configuration (default 3)")
    p.add_argument("--round-games", type=int, default=64, help="games per round (default 64)")
    p.add_argument("--task-games", type=int, default=32, help="games per task (default 32)")
    p.add_argument("--lockstep", type=int, default=16, help="games at once within a task (default 16)")
    p.add_argument("--parallel", type=int, default=32, help="lockstep games of the online trainer (default 32)")
    p.add_argument("--alpha", type=float, default=0.1, help="alpha (divided by the games summed per update)")
    p.add_argument("--checkpoint", default="default", help="network to play with (default: the shipped one)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    from bgrl.training.ray_backend import RayRunner
    from bgrl.training.rounds import LocalRunner

    _, enc = _net(args.checkpoint)
    hidden = _net(args.checkpoint)[0].hidden
    print(f"load average before: {os.getloadavg()}  cpus: {os.cpu_count()}")
    res = {"local online (1 process)": bench_online(args)}
    res["local rounds (1 process)"] = _rounds(args, LocalRunner(enc, hidden, 0.7, 1, True))
    for n in (1, 2):
        ray.init(num_cpus=n, object_store_memory=80 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
        r = RayRunner(enc, hidden, 0.7, 1, True, actors=n)
        try:
            res[f"ray, {n} actor{'s' if n > 1 else ''}"] = _rounds(
                args, r, actor_cpu=lambda r=r: ray.get([a.cpu_seconds.remote() for a in r.actors]))
        finally:
            r.close()
            ray.shutdown()
    print(f"load average after:  {os.getloadavg()}")
    base_w = res["local online (1 process)"]["games"] / res["local online (1 process)"]["wall"]
    base_r = res["local rounds (1 process)"]["games"] / res["local rounds (1 process)"]["wall"]
    base_p = res["local online (1 process)"]["projected"]
    print(f"{'configuration':28} {'games':>6} {'games/s':>8} {'x online':>9} {'x rounds':>9} {'games/CPU-s':>12} "
          f"{'projected':>10} {'x online':>9}")
    for name, o in res.items():
        gw = o["games"] / o["wall"]
        print(f"{name:28} {o['games']:6d} {gw:8.1f} {gw / base_w:9.2f} {gw / base_r:9.2f} {o['games'] / o['cpu']:12.1f} "
              f"{o['projected']:10.1f} {o['projected'] / base_p:9.2f}")
    for name, o in res.items():
        if "actor_cpu" in o:
            print(f"{name}: learner CPU {o['learner_cpu']:.2f} s, actors' CPU " + ", ".join(f"{v:.2f}" for v in o["actor_cpu"])
                  + f" s, wall {o['wall']:.2f} s")
    print("games/s: wall clock; games/CPU-s: over the CPU time of learner + actors; projected: games over "
          "(busiest actor's CPU + learner's CPU), the rate with one idle core per actor")


if __name__ == "__main__":
    main()
