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

    python scripts/bench/bench_hint.py --one-position [--positions 400] [--seed 0] [--level expert]

One position at a time (issue 39): ``bgrl.hint(pos, dice, level=LEVEL, ply=0, top=10)`` (every
play ranked, the top 10 named) and ``agent.choose_play(pos, dice)`` on their one-position fast
paths (compiled generator and forward pass, notation for the shown rows only, the level opened
once), beside the numpy path as it was before them (kept below: the level opened at each call,
every play named, the batch ranker, the numpy generator and evaluator) and, where gnubg-nn is
installed, ``best_move(..., n=0, list=1)`` and ``best_move(..., n=0)``. Distinct contact
positions, half for the hints and half for the plays (gnubg-nn caches evaluations), each
timed once per engine, the engines in turn; CPU time per call; ratios are speeds (``before /
new``: how many times faster; ``gnubg / new``: bgrl's speed as a share of gnubg's).
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


def numpy_hint(pos, dice, level: str, top: int | None = 10):
    """``bgrl.hint(pos, dice, level=level, ply=0, top=top)`` as it ran before the one-position
    fast path: the level opened at each call, every play named (``legal_plays``), the batch
    ranker (``rank_many``), the rows cut at ``top`` afterwards. Run it inside
    ``bgrl.evaluation.compiled.disabled()`` for the numpy generator and evaluator."""
    from bgrl._resources import shipped_checkpoint
    from bgrl.agents.base import check_decision
    from bgrl.agents.hints import HintRanker
    from bgrl.agents.levels import LEVELS, LevelAgent
    from bgrl.evaluation.networks import open_network

    check_decision(pos, dice)
    lv = LEVELS[level]
    loaded = open_network(shipped_checkpoint(lv.network), backend="torch")
    rows = HintRanker.from_agent(LevelAgent(lv, loaded.evaluator, meta=loaded.meta), 0).rank_many([(pos, dice)])[0]
    return rows[:top] if top else rows


def numpy_choose_play(agent, pos, dice, rng=None):
    """``agent.choose_play(pos, dice)`` as it ran before the one-position fast path: every play
    named, a second generator call, a fresh generator, a level's choice through ``search_plays``,
    the chosen board looked up among the plays."""
    import numpy as np

    from bgrl.agents.base import check_decision
    from bgrl.agents.search import search_plays
    from bgrl.rules.movegen import generate
    from bgrl.rules.notation import legal_plays

    pos, d = check_decision(pos, dice)
    plays = legal_plays(pos, d)
    if not plays:
        return None
    rng = rng if rng is not None else np.random.default_rng()
    aft = generate(pos.board[None], np.array([d], dtype=np.int8))
    lv = getattr(agent, "level", None)
    if lv is not None and lv.noise <= 0:  # LevelAgent.select before: the search at every ply
        k = int(search_plays(agent.evaluator, aft.boards, aft.offsets, lv.ply, lv.filters).best[0])
    else:
        k = int(agent.select(aft, rng)[0])
    chosen = aft.boards[k].tobytes()
    return next(p for p in plays if p.after_state.tobytes() == chosen)


def one_position(args) -> int:
    """The one-position table (see the module docstring)."""
    import bgrl
    from bgrl.agents.levels import load_level
    from bgrl.evaluation import compiled
    from bgrl.gnubg.adapter import to_gnubg
    from bgrl.rules.board import Position

    try:
        import gnubg_nn as g
    except ImportError:
        g = None
    agent = load_level(args.level)
    decisions = contact_decisions(args.positions + 1, args.seed)
    warm_b, warm_d = decisions.pop()
    warm = Position.from_board(warm_b)
    for _ in range(3):  # everything loaded and compiled before timing
        bgrl.hint(warm, warm_d, level=args.level, ply=0, top=10)
        agent.choose_play(warm, warm_d)
        with compiled.disabled():
            numpy_hint(warm, warm_d, args.level)
            numpy_choose_play(agent, warm, warm_d)
        if g is not None:
            g.best_move(to_gnubg(warm_b), warm_d[0], warm_d[1], n=0, s=b"X", list=1)
    assert compiled.active(), "the compiled kernels did not load (numba, or BGRL_COMPILED=0)"
    times = {k: [] for k in ("hint new", "hint before", "hint gnubg", "play new", "play before", "play gnubg")}

    def cpu(fn):
        c = time.thread_time()
        fn()
        return (time.thread_time() - c) * 1e3

    def off(fn):
        with compiled.disabled():
            return cpu(fn)

    for j, (board, dice) in enumerate(decisions):
        pos, pair = Position.from_board(board), to_gnubg(board)
        if j % 2 == 0:
            runs = [("hint new", lambda: cpu(lambda: bgrl.hint(pos, dice, level=args.level, ply=0, top=10))),
                    ("hint before", lambda: off(lambda: numpy_hint(pos, dice, args.level))),
                    ("hint gnubg", lambda: cpu(lambda: g.best_move(pair, dice[0], dice[1], n=0, s=b"X", list=1)))]
        else:
            runs = [("play new", lambda: cpu(lambda: agent.choose_play(pos, dice))),
                    ("play before", lambda: off(lambda: numpy_choose_play(agent, pos, dice))),
                    ("play gnubg", lambda: cpu(lambda: g.best_move(pair, dice[0], dice[1], n=0, s=b"X")))]
        if g is None:
            runs = runs[:2]
        for k in range(len(runs)):  # the engines in turn, a different one first at each position
            name, fn = runs[(j // 2 + k) % len(runs)]
            times[name].append(fn())
    mean = {k: statistics.fmean(v) for k, v in times.items() if v}
    print(f"level {args.level} ({agent.level.network} network, 0-ply); machine: {platform.machine()}, "
          f"python {platform.python_version()}, torch {torch.__version__}, 1 thread; {len(decisions)} contact positions "
          f"with a choice (seed {args.seed}), half for each row; mean CPU ms per call"
          + ("" if g is not None else "; gnubg-nn not installed"))
    print(f"{'':<32}  {'new':>7}  {'before':>7}  {'gnubg':>7}  {'before/new':>10}  {'gnubg/new':>9}")
    for key, label in (("hint", "0-ply hint, top 10 named"), ("play", "choose_play at 0-ply")):
        new, before, gn = mean[f"{key} new"], mean[f"{key} before"], mean.get(f"{key} gnubg")
        gcol = f"{gn:>7.3f}" if gn is not None else f"{'-':>7}"
        rcol = f"{gn / new:>8.2f}x" if gn is not None else f"{'-':>9}"
        print(f"{label:<32}  {new:>7.3f}  {before:>7.3f}  {gcol}  {before / new:>9.2f}x  {rcol}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=None,
                   help="positions in all, split over the three plies (default 60), or over the two rows with "
                        "--one-position (default 400)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--level", default="expert",
                   help="whose network and move filters search the hints (default expert; grandmaster: the top level's)")
    p.add_argument("--one-position", action="store_true",
                   help="time one-position 0-ply hints and choose_play: new, the numpy path before, gnubg-nn")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.positions is None:
        args.positions = 400 if args.one_position else 60
    if args.one_position:
        from bgrl.agents.levels import LEVELS

        if args.level not in LEVELS:
            p.error(f"unknown level {args.level!r}")
        return one_position(args)
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
