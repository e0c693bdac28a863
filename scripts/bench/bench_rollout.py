"""Rollout speed: 1,296 full trials of a middle-game position at 0-ply, one core.

    python scripts/bench/bench_rollout.py [--trials 1296] [--level expert] [--vr both|on|off] [--seed 0]

One process, ``torch.set_num_threads(1)``, the network loaded and warmed before timing.
The position is a contact middle game reached by 14 plies of the expert level's self-play
from the start (dice from ``numpy.random.default_rng(16)``): ``jOfgAFjGnsGAAw``, the side
on roll 140 pips, the other 166, checkers on the bar and blots on both sides. Every trial is
played to its end (or to an exact bear-off value), by the level's noise-free checker play.

Printed per run: wall-clock and CPU seconds (``time.process_time``; on a shared machine the
fairer figure), trial plies (decisions) per second, after-states evaluated per second, the
equity with its standard error, and the mean trial length. With variance reduction every
ply plays all 21 rolls of every trial (the luck estimate), about 21 times the evaluations;
with both runs the script also prints how many trials without it give the same standard
error (it falls as 1/sqrt(trials)) and their CPU time, the fair comparison of the two.
Target (issue 16): 1,296 trials in <= 10 s on one core.
"""

from __future__ import annotations

import argparse
import platform
import time

import torch

POSITION = "jOfgAFjGnsGAAw"


class Counting:
    """An evaluator wrapper that counts the after-states it values."""

    def __init__(self, evaluator):
        self.evaluator = evaluator
        self.exact = getattr(evaluator, "exact", False)
        self.rows = 0

    def __call__(self, after_states):
        self.rows += len(after_states)
        return self.evaluator(after_states)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=1296, help="trials (default 1296)")
    p.add_argument("--level", default="expert", help="the level whose network plays (its 0-ply; default expert)")
    p.add_argument("--vr", choices=["both", "on", "off"], default="both", help="variance reduction (default both runs)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.trials < 1:
        p.error(f"--trials must be >= 1, got {args.trials}")
    torch.set_num_threads(1)

    from bgrl.agents.levels import load_level
    from bgrl.agents.rollout import rollout_boards
    from bgrl.rules.board import Position

    agent = load_level(args.level)
    ev = Counting(agent.evaluator)
    board = Position.from_id(POSITION).board[None]
    rollout_boards(ev, board, trials=8, seed=args.seed, truncate=4)  # warm up (numba, torch)
    print(f"bgrl rollout benchmark: {POSITION}, level {args.level}'s network at 0-ply, {args.trials} full trials, "
          f"seed {args.seed}; {platform.machine()}, Python {platform.python_version()}, torch {torch.__version__}, 1 thread")
    runs = {}
    for vr in ([True, False] if args.vr == "both" else [args.vr == "on"]):
        ev.rows = 0
        w, c = time.perf_counter(), time.process_time()
        res = rollout_boards(ev, board, trials=args.trials, seed=args.seed, ply=0, variance_reduction=vr)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        plies = float(res.mean_plies[0]) * args.trials
        print(f"  variance reduction {'on ' if vr else 'off'}: {wall:6.1f} s wall, {cpu:6.1f} s CPU; "
              f"{plies / cpu:,.0f} trial plies/s, {ev.rows / cpu:,.0f} after-states evaluated/s (CPU); "
              f"equity {float(res.equity[0]):+.3f} ± {float(res.equity_se[0]):.3f}, mean trial {res.mean_plies[0]:.1f} plies")
        runs[vr] = (cpu, float(res.equity_se[0]))
    if len(runs) == 2:
        (c_on, se_on), (c_off, se_off) = runs[True], runs[False]
        # the standard error falls as 1/sqrt(trials): trials without variance reduction for the same error
        need = args.trials * (se_off / se_on) ** 2
        print(f"  same standard error ({se_on:.4f}) without variance reduction: about {need:,.0f} trials, "
              f"{c_off * need / args.trials:.1f} s CPU, against {c_on:.1f} s with it "
              f"({c_off * need / args.trials / c_on:.2f}x)")
    print("  target: 1,296 trials in <= 10 s on one core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
