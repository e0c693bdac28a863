#!/usr/bin/env python
"""Benchmark the legal-play generators: bgrl's batched numpy generator against the slow
reference, GNU Backgammon (gnubg_nn.moves) and OpenSpiel, printed as one table.

    python scripts/bench/bench_movegen.py --seconds 2

* bgrl: ``bgrl.rules.movegen.generate(boards, dice, validate=False)`` at batch sizes 1, 64,
  1024, 8192 over the same positions from random games (random dice), on the numpy code
  (``bgrl.evaluation.compiled.disabled()``) and on the compiled kernels (issue 39: the
  one-position and the batch generator of ``bgrl.evaluation.movegen_nb``, the same after-states);
* reference: ``tests/reference_movegen.py`` (plain Python, one position at a time);
* gnubg: ``gnubg_nn.moves`` per position (board conversion done beforehand), if installed;
* OpenSpiel: ``pyspiel.load_game("backgammon")``: list the legal actions and apply each
  (``state.child``) to get every full-turn result -- a doubles turn is two OpenSpiel
  decisions, so each first-half child is expanded again.  OpenSpiel cannot be loaded with
  our positions easily, so it runs on positions reached in OpenSpiel random games, and its
  results are not de-duplicated (actions, not distinct after-states).

Each measurement repeats for ``--seconds`` of this process's CPU time (time.process_time: one
thread; time spent waiting for a core on a shared machine is not counted).  Ratios are bgrl's positions/s
(compiled, batch 8192, and batch 1) divided by the row's.  Also printed: peak traced memory of one
generate call on a batch of 8192 (tracemalloc), the core count and the numpy version.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

BATCH_SIZES = (1, 64, 1024, 8192)


def timed(step, n_items: int, seconds: float):
    """Call ``step(i)`` for i = 0, 1, ... (cycling over n_items) until ``seconds`` pass.

    ``step`` returns (positions, after-states) it handled.  Returns (pos/s, states/s)."""
    pos = states = 0
    i = 0
    t0 = time.process_time()
    while True:
        p, s = step(i % n_items)
        pos += p
        states += s
        i += 1
        el = time.process_time() - t0
        if el >= seconds:
            return pos / el, states / el


def bench_bgrl(boards, dice, batch: int, seconds: float):
    from bgrl.rules.movegen import generate

    n_batches = max(1, len(boards) // batch)
    chunks = [(boards[k * batch : (k + 1) * batch], dice[k * batch : (k + 1) * batch]) for k in range(n_batches)]
    generate(*chunks[0], validate=False)  # warm-up

    def step(i):
        b, d = chunks[i]
        res = generate(b, d, validate=False)
        return b.shape[0], res.boards.shape[0]

    return timed(step, n_batches, seconds)


def bench_reference(boards, dice, seconds: float):
    from reference_movegen import reference_afterstates

    items = [(b.tolist(), (int(d[0]), int(d[1]))) for b, d in zip(boards, dice)]

    def step(i):
        return 1, len(reference_afterstates(*items[i]))

    return timed(step, len(items), seconds)


def bench_gnubg(boards, dice, seconds: float):
    try:
        import gnubg_nn
    except ImportError:
        return None, "gnubg_nn not installed (pip install -e '.[gnubg]')"
    from bgrl.gnubg.adapter import to_gnubg

    items = [(to_gnubg(b), int(d[0]), int(d[1])) for b, d in zip(boards, dice)]
    moves = gnubg_nn.moves

    def step(i):
        pair, d1, d2 = items[i]
        return 1, max(1, len(moves(pair, d1, d2)))  # a pass (empty tuple) counts as 1

    return timed(step, len(items), seconds), "gnubg_nn.moves per position (our positions)"


def openspiel_positions(n: int, seed: int):
    """Decision states from OpenSpiel backgammon random games (first half-turns only)."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        prev_player = None
        while not s.is_terminal() and len(out) < n:
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[rng.integers(len(outcomes))][0])
                prev_player = None
                continue
            p = s.current_player()
            if p != prev_player:  # start of a turn (not the second half of a double)
                out.append(s.clone())
            prev_player = p
            acts = s.legal_actions()
            s.apply_action(acts[rng.integers(len(acts))])
    return out


def bench_openspiel(n_positions: int, seconds: float, seed: int):
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return None, "open_spiel not installed (pip install -e '.[bench]')"
    states = openspiel_positions(n_positions, seed)

    def expand(state):
        player = state.current_player()
        count = 0
        for a in state.legal_actions():
            c = state.child(a)
            if not c.is_terminal() and not c.is_chance_node() and c.current_player() == player:
                count += expand(c)  # doubles: the second half of the turn
            else:
                count += 1
        return max(count, 1)

    def step(i):
        return 1, expand(states[i])

    return timed(step, len(states), seconds), "legal_actions + child per action, OpenSpiel random-game positions"


def peak_memory(boards, dice) -> float:
    from bgrl.rules.movegen import generate

    b, d = boards[:8192], dice[:8192]
    generate(b, d, validate=False)
    tracemalloc.start()
    tracemalloc.reset_peak()
    res = generate(b, d, validate=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del res
    return peak / 2**20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement (default 2)")
    ap.add_argument("--positions", type=int, default=32768, help="positions from random games (default 32768)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = max(args.positions, max(BATCH_SIZES))

    print(f"machine: {platform.machine()} {platform.system()}, os.cpu_count()={os.cpu_count()}, "
          f"usable cores={len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}; "
          f"python {platform.python_version()}, numpy {np.__version__}")
    rng = np.random.default_rng(args.seed)
    from positions import random_game_positions  # tests/positions.py (tests/ is on sys.path)

    boards, dice = random_game_positions(rng, n, parallel=256)
    print(f"{n} positions from bgrl random games with random dice; {args.seconds:g} s per measurement\n")

    rows = []  # (name, pos/s, states/s, note)
    import numba  # noqa: F401 - "auto": the compiled kernels run once numba is imported
    from bgrl.evaluation import compiled

    have = compiled.ensure()
    for bs in BATCH_SIZES:
        with compiled.disabled():
            ps, ss = bench_bgrl(boards, dice, bs, args.seconds)
        rows.append((f"generate, numpy  B={bs}", ps, ss, "batched numpy, validate=False"))
    if have:  # the compiled kernels (bgrl.evaluation.movegen_nb): the same after-states, in the same order
        for bs in BATCH_SIZES:
            ps, ss = bench_bgrl(boards, dice, bs, args.seconds)
            rows.append((f"generate, compiled  B={bs}", ps, ss, "numba kernels, validate=False"))
    ours_big = rows[-1][1]
    ours_one = rows[-len(BATCH_SIZES)][1]
    ps, ss = bench_reference(boards, dice, args.seconds)
    rows.append(("reference (tests/)", ps, ss, "plain Python, one position at a time"))
    res, note = bench_gnubg(boards, dice, args.seconds)
    rows.append(("gnubg_nn.moves", *(res if res else (None, None)), note))
    res, note = bench_openspiel(2000, args.seconds, args.seed)
    rows.append(("OpenSpiel backgammon", *(res if res else (None, None)), note))

    head = f"{'generator':<28}{'positions/s':>14}{'after-states/s':>16}{'B=8192 / this':>15}{'B=1 / this':>12}  note"
    print(head)
    print("-" * len(head))
    for name, ps, ss, note in rows:
        if ps is None:
            print(f"{name:<28}{'n/a':>14}{'n/a':>16}{'':>15}{'':>12}  {note}")
            continue
        print(f"{name:<28}{ps:>14,.0f}{ss:>16,.0f}{ours_big / ps:>14.1f}x{ours_one / ps:>11.2f}x  {note}")
    print()
    print(f"peak traced memory (tracemalloc) of one generate call, batch 8192: {peak_memory(boards, dice):.1f} MiB")
    print("OpenSpiel after-states are its full-turn actions (doubles: both halves), not de-duplicated;")
    print("its positions come from OpenSpiel random games (it cannot load our positions easily).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
