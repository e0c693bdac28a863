"""Hint latency: ours (``LevelAgent.hint``, n-ply search) beside gnubg-nn's hint, same positions.

    python scripts/bench/bench_hint.py [--positions 60] [--seed 0]

One process, one thread, everything loaded before timing (latency inside a running
process). Positions: contact positions (not races) with at least two legal plays, from
self-play games of the shipped network; each ply gets its own third of them, so neither
engine's evaluation cache is warmed by another ply's run (gnubg-nn caches evaluations,
DESIGN.md). Ours: the full hint (every legal play with notation, ranked; the expert
level's network by default, ``--level NAME`` another's, and gnubg's normal move filters, 8 plays within 0.16 then 2 within 0.04).
gnubg-nn: ``best_move(board, d1, d2, n=ply, list=1)`` (its ranked list with its own move
filters; called only where there is a choice, as its n-ply ``best_move`` crashes on some
single-play positions).

Both wall-clock and CPU time (``time.thread_time``) are measured per call; on a shared
machine the CPU time is the fairer figure. Needs the ``gnubg`` extra.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from workloads import contact_decisions  # noqa: E402  (tests/workloads.py)

TARGET_MS = {0: 1.0, 1: 10.0, 2: 100.0}


def timed(fn):
    w, c = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - w) * 1e3, (time.thread_time() - c) * 1e3


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=60, help="positions in all, split over the three plies (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--level", default="expert",
                   help="whose network and move filters search the hints (default expert; grandmaster: the top level's)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    from bgrl.rules.board import Position
    from bgrl.gnubg.adapter import require_gnubg, to_gnubg
    from bgrl.agents.levels import load_level

    g = require_gnubg()
    try:
        agent = load_level(args.level)
    except ValueError as exc:
        p.error(str(exc))
    decisions = contact_decisions(args.positions + 1, args.seed)
    warm_b, warm_d = decisions.pop()
    for ply in (0, 1, 2):  # warm both engines up on a position not timed
        agent.hint(Position.from_board(warm_b), warm_d, ply=ply)
        g.best_move(to_gnubg(warm_b), warm_d[0], warm_d[1], n=ply, s=b"X", list=1)
    print(f"level {args.level} ({agent.level.network} network); "
          f"machine: {platform.machine()}, {platform.python_version()}, torch {torch.__version__}, 1 thread; "
          f"{len(decisions)} contact positions with a choice (seed {args.seed}), one third per ply")
    print(f"{'ply':>3}  {'n':>3}  {'ours wall':>10}  {'ours cpu':>9}  {'gnubg wall':>10}  {'gnubg cpu':>9}  {'ours/gnubg':>10}  {'target':>7}")
    print(f"{'':>3}  {'':>3}  {'median ms':>10}  {'mean ms':>9}  {'median ms':>10}  {'mean ms':>9}  {'(cpu)':>10}  {'ms':>7}")
    for ply in (0, 1, 2):
        ours_w, ours_c, gn_w, gn_c = [], [], [], []
        for board, dice in decisions[ply::3]:
            pos = Position.from_board(board)
            w, c = timed(lambda: agent.hint(pos, dice, ply=ply))
            ours_w.append(w)
            ours_c.append(c)
            pair = to_gnubg(board)
            w, c = timed(lambda: g.best_move(pair, dice[0], dice[1], n=ply, s=b"X", list=1))
            gn_w.append(w)
            gn_c.append(c)
        oc, gc = statistics.fmean(ours_c), statistics.fmean(gn_c)
        print(f"{ply:>3}  {len(ours_c):>3}  {statistics.median(ours_w):>10.2f}  {oc:>9.2f}  {statistics.median(gn_w):>10.2f}  "
              f"{gc:>9.2f}  {oc / gc:>9.2f}x  {TARGET_MS[ply]:>7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
