#!/usr/bin/env python
"""Encoding speed: positions/s of every bgrl.evaluation.encoding encoder at a given batch size.

    python scripts/bench/bench_encoding.py --batch 1024

Positions are sampled from 400 plies of 64 pubeval self-play games, so the shares of
positions with blots, bar checkers and races are those met in play. Each encoder is
timed for ``--seconds`` of this process's CPU time (``time.process_time``: on a shared,
busy machine wall time mostly measures the other processes) in ``--repeats`` rounds; the
best round is reported. Run it with one numpy thread (it uses no BLAS-heavy code anyway).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np


def positions(n: int, seed: int) -> np.ndarray:
    from bgrl.agents.registry import load_agent
    from bgrl.rules.board import START_BOARD, flip
    from bgrl.rules.movegen import generate

    rng = np.random.default_rng(seed)
    agent = load_agent("pubeval")
    boards = np.repeat(START_BOARD[None], 64, axis=0)
    out = []
    for _ in range(400):  # 400 plies of 64 games side by side: every stage of the game
        aft = generate(boards, rng.integers(1, 7, size=(64, 2)).astype(np.int8))
        nxt = aft.boards[agent.select(aft, rng)]
        over = np.clip(nxt[:, 1:26], 0, None).sum(axis=1) == 0
        boards = flip(nxt)
        out.append(boards[~over].copy())  # the positions met, side on roll first
        boards[over] = START_BOARD
    allpos = np.concatenate(out)
    return allpos[rng.choice(allpos.shape[0], n, replace=allpos.shape[0] < n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.batch < 1:
        ap.error("--batch must be >= 1")
    from bgrl.evaluation.encoding import ENCODERS, encode

    pos = positions(args.batch, args.seed)
    print(f"machine: {platform.machine()} {platform.system()}, python {platform.python_version()}, numpy {np.__version__}; "
          f"batch {args.batch}, best of {args.repeats} x {args.seconds:g} s of process CPU time")
    print(f"{'encoder':<10} {'features':>8} {'positions/s':>12} {'us/position':>12}")
    for name, nf in ENCODERS.items():
        encode(pos, name)
        best = float("inf")
        for _ in range(args.repeats):
            n, t0 = 0, time.process_time()
            while time.process_time() - t0 < args.seconds:
                encode(pos, name)
                n += 1
            best = min(best, (time.process_time() - t0) / n)
        print(f"{name:<10} {nf:>8} {args.batch / best:>12,.0f} {1e6 * best / args.batch:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
