#!/usr/bin/env python
"""Build the error-rate benchmark (bgrl/data/benchmark.npz) from GNU Backgammon games.

1. Games: both sides are GNU Backgammon 0-ply (gnubg-nn ``best_move``'s 0-ply list) with
   Gaussian equity noise, its standard deviation drawn per side and game from
   ``--noise`` (default 0, 0.02, 0.04, 0.06 points: gnubg's own expert .. beginner range),
   so the positions are varied but stay the kind good players reach. White moves first
   (docs/rules.md); dice from ``--seed``.
2. Decisions: each decision with a choice (at least two distinct legal plays; gnubg-nn's
   n-ply call must not see single-play positions) is kept with probability ``--keep``;
   repeated (position, roll) pairs are kept once.
3. Scoring: every legal play gets gnubg 0-ply equity and, by default
   (``--filter-count 0``, how the shipped file was built), gnubg 2-ply equity
   (``gnubg_nn.probabilities`` of the result with the opponent on roll, negated; cubeless
   money equity). For faster builds, ``--filter-count K`` scores at 2-ply only the best K
   plays by 0-ply equity within ``--filter-window`` of the 0-ply best (always at least
   two), as gnubg's move filters do; a play outside the filter then gets the estimate
   ``min(equity_0ply + shift, worst 2-ply equity of the filtered plays)`` where ``shift``
   is the mean (2-ply - 0-ply) of the filtered plays, and ``ply = 0`` marks it.

    python scripts/tools/build_benchmark.py --decisions 3000 --filter-count 0 --seed 1

builds the shipped file (its ``meta`` records the command and the wall time; a 2-ply
evaluation costs about 17 ms of one core, and a decision has about 20 plays). Prints
timings; writes the file atomically; exit status 2 without the gnubg extra.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np


def play_games(n_decisions: int, keep: float, noises, seed: int, log=print):
    """Collect decisions (board int8 (26,), dice (2,)) from noisy gnubg 0-ply games."""
    from bgrl.rules.board import START_BOARD, flip, position_id
    from bgrl.agents.gnubg import GnubgAgent
    from bgrl.rules.movegen import generate
    from bgrl.rules.outcome import game_results

    rng = np.random.default_rng(seed)
    agents = {s: GnubgAgent(0, noise=s) for s in noises}
    seen: set = set()
    out: list = []
    games = 0
    while len(out) < n_decisions:
        sides = [agents[float(rng.choice(noises))] for _ in range(2)]
        board = START_BOARD.copy()
        turn = 0
        while True:
            d = rng.integers(1, 7, size=2)
            dice = np.array([[max(d), min(d)]], dtype=np.int8)
            aft = generate(board[None], dice)
            if aft.counts[0] >= 2 and rng.random() < keep:
                key = (position_id(board), int(dice[0, 0]), int(dice[0, 1]))
                if key not in seen:
                    seen.add(key)
                    out.append((board.copy(), dice[0].copy()))
            k = int(sides[turn % 2].select(aft, rng)[0])
            after = aft.boards[k]
            if game_results(after[None])[0]:
                break
            board = flip(after)
            turn += 1
        games += 1
    log(f"games played: {games}; decisions kept: {len(out)}")
    return out[:n_decisions], games


def score(decisions, filter_count: int, filter_window: float, log=print, time_only: bool = False):
    """Score every play; returns the arrays of bgrl.arena.benchmark's format (without meta)."""
    from bgrl.arena.benchmark import phase_of
    from bgrl.rules.board import flip, position_id
    from bgrl.agents.gnubg import gnubg_play_equities
    from bgrl.rules.movegen import generate

    boards = np.stack([b for b, _ in decisions]).astype(np.int8)
    dice = np.stack([d for _, d in decisions]).astype(np.int8)
    aft = generate(boards, dice)
    eq2 = np.empty(aft.boards.shape[0], dtype=np.float64)
    eq0 = gnubg_play_equities(aft.boards, 0)
    ply = np.zeros(aft.boards.shape[0], dtype=np.int8)
    best0 = np.empty(boards.shape[0], dtype=np.int64)
    t0 = time.perf_counter()
    n2 = 0
    for i in range(boards.shape[0]):
        lo, hi = int(aft.offsets[i]), int(aft.offsets[i + 1])
        e0 = eq0[lo:hi]
        order = np.argsort(-e0, kind="stable")
        best0[i] = order[0]
        if filter_count <= 0:
            sel = order
        else:
            within = order[e0[order] >= e0[order[0]] - filter_window]
            sel = within[: max(filter_count, 2)] if within.size >= 2 else order[:2]
        e2 = gnubg_play_equities(aft.boards[lo + sel], 2)
        n2 += sel.size
        eq2[lo + sel] = e2
        ply[lo + sel] = 2
        rest = np.setdiff1d(np.arange(hi - lo), sel)
        if rest.size:
            shift = float(np.mean(e2 - e0[sel]))
            eq2[lo + rest] = np.minimum(e0[rest] + shift, e2.min())
        if (i + 1) % 100 == 0 or i + 1 == boards.shape[0]:
            dt = time.perf_counter() - t0
            log(f"  scored {i + 1}/{boards.shape[0]} decisions, {n2} plays at 2-ply, {dt:.0f} s "
                f"({1000 * dt / n2:.1f} ms per 2-ply play)")
    seconds = time.perf_counter() - t0
    if time_only:
        return None, seconds, n2
    arrays = {
        "position_id": np.array([position_id(b) for b in boards]),
        "board": boards,
        "dice": dice,
        "phase": phase_of(boards),
        "offsets": aft.offsets.astype(np.int64),
        "after_id": np.array([position_id(flip(a)) for a in aft.boards]),
        "after_board": aft.boards.astype(np.int8),
        "equity": eq2.astype(np.float32),
        "ply": ply,
        "equity_0ply": eq0.astype(np.float32),
        "best_0ply": best0,
    }
    return arrays, seconds, n2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=2000, help="decisions with a choice (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of dice, noise and sampling (default 1)")
    ap.add_argument("--keep", type=float, default=0.2, help="probability of keeping a decision (default 0.2)")
    ap.add_argument("--noise", default="0,0.02,0.04,0.06", help="equity noise sd choices per side, comma separated")
    ap.add_argument("--filter-count", type=int, default=0, help="plays scored at 2-ply per decision (default 0 = all)")
    ap.add_argument("--filter-window", type=float, default=0.16, help="0-ply equity window of the filter (default 0.16)")
    ap.add_argument("--out", default=None, help="output file (default bgrl/data/benchmark.npz)")
    ap.add_argument("--time-only", action="store_true", help="score, print timings, write nothing")
    args = ap.parse_args(argv)
    if args.decisions < 1 or not 0 < args.keep <= 1:
        ap.error("--decisions must be >= 1 and --keep in (0, 1]")
    try:
        noises = sorted({float(x) for x in args.noise.split(",")})
    except ValueError:
        ap.error(f"--noise: expected comma-separated numbers, got {args.noise!r}")

    import torch

    torch.set_num_threads(1)
    from bgrl.arena.benchmark import Benchmark, save_benchmark, shipped_benchmark_path
    from bgrl.gnubg.adapter import require_gnubg

    try:
        require_gnubg()
    except ImportError as exc:
        print(f"build_benchmark: error: {exc}", file=sys.stderr)
        return 2
    from importlib.metadata import version

    t0 = time.perf_counter()
    decisions, games = play_games(args.decisions, args.keep, noises, args.seed)
    t_games = time.perf_counter() - t0
    arrays, t_score, n2 = score(decisions, args.filter_count, args.filter_window, time_only=args.time_only)
    print(f"games {t_games:.1f} s; scoring {t_score:.1f} s for {n2} plays at 2-ply")
    if args.time_only:
        return 0
    meta = {
        "format": "bgrl-benchmark-1",
        "command": "python scripts/tools/build_benchmark.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "decisions": len(decisions),
        "games": games,
        "seed": args.seed,
        "keep": args.keep,
        "noise": noises,
        "filter_count": args.filter_count,
        "filter_window": args.filter_window,
        "plays": int(arrays["offsets"][-1]),
        "plays_2ply": int(n2),
        "seconds_games": round(t_games, 1),
        "seconds_scoring": round(t_score, 1),
        "gnubg_nn": version("gnubg-nn"),
        "machine": f"{platform.machine()} {platform.system()}, python {platform.python_version()}",
    }
    out = save_benchmark(args.out or shipped_benchmark_path(), Benchmark(**arrays, meta=meta))
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB): {json.dumps(meta)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
