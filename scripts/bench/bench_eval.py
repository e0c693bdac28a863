#!/usr/bin/env python
"""td198g evaluation speed: features, encoding, network probabilities and hint latency,
the numpy code (as before bgrl.evaluation.features_nb / bgrl.evaluation.encoding_nb) beside the compiled one.

    nice python scripts/bench/bench_eval.py [--batches 20,400,8000] [--seconds 0.3] [--hint-positions 10]

Everything runs in one process, one torch thread, so the ratios compare like with like on
a shared machine. Positions: side-on-roll positions from 16 self-play games of the shipped
default network (every stage of the game). Per row and batch size: the best of
``--repeats`` rounds of ``--seconds`` of process CPU time (``time.process_time``), as
milliseconds per call.

Rows ("numpy" = the old code path: :func:`bgrl.evaluation.encoding.encode_numpy` and
:func:`bgrl.evaluation.features.both_sides`, the references, patched in where the code now calls the
compiled versions):

* ``features numpy`` / ``features numba``: the 18 td198g features alone;
* ``encode td198r``/``td198g``, numpy and compiled;
* ``NetEvaluator td198g``: the network's probabilities (``position_probs``, ``exact=False``:
  encode + forward pass); ``TableNetEvaluator td198g``: table-lookup first layer;
  ``TableNetEvaluator td198r`` (the shipped default network) for comparison.

Then the hint (:func:`bgrl.agents.hints.rank_plays`, gnubg's move filters) with the shipped td198g
network at 0, 1 and 2 ply, before (NetEvaluator, numpy) and now (``network_evaluator``, i.e.
TableNetEvaluator), on the same contact positions: mean CPU ms per hint; and, for
comparison, the shipped default (td198r) network's hint now.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))


def game_positions(n: int, seed: int) -> np.ndarray:
    from bgrl.agents.registry import load_agent
    from positions import agent_game_positions

    boards, _ = agent_game_positions(load_agent("default"), np.random.default_rng(seed), n, parallel=16)
    return boards


@contextlib.contextmanager
def numpy_features():
    """Make NetEvaluator / TableNetEvaluator use the numpy encoder and features (the old code path)."""
    from bgrl.evaluation import encoding
    from bgrl.evaluation import evaluator
    from bgrl.evaluation import table
    from bgrl.evaluation import features

    saved = evaluator.encode, table.both_sides
    evaluator.encode, table.both_sides = encoding.encode_numpy, features.both_sides
    try:
        yield
    finally:
        evaluator.encode, table.both_sides = saved


def per_call_ms(fn, seconds: float, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        calls, t0 = 0, time.process_time()
        while True:
            fn()
            calls += 1
            el = time.process_time() - t0
            if el >= seconds:
                break
        best = min(best, el / calls)
    return best * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", default="20,400,8000", help="comma-separated batch sizes (default 20,400,8000)")
    ap.add_argument("--seconds", type=float, default=0.3, help="CPU seconds per round (default 0.3)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds per figure, best kept (default 3)")
    ap.add_argument("--hint-positions", type=int, default=10, help="positions per ply for the hint (0: skip; default 10)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        batches = [int(x) for x in args.batches.split(",")]
    except ValueError:
        ap.error("--batches must be comma-separated integers")
    if min(batches) < 1 or args.seconds <= 0 or args.repeats < 1 or args.hint_positions < 0:
        ap.error("--batches, --seconds and --repeats must be positive, --hint-positions >= 0")
    torch.set_num_threads(1)

    from bgrl.evaluation import features

    from bgrl.evaluation import features_nb
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.encoding import encode, encode_numpy
    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.evaluation.table import TableNetEvaluator, network_evaluator
    from bgrl._resources import resolve_checkpoint

    net_g, meta_g = load_network(resolve_checkpoint("td198g"))
    net_r, meta_r = load_network(resolve_checkpoint("default"))
    assert meta_g["encoder"] == "td198g" and meta_r["encoder"] == "td198r"
    # exact=False: the network on every position (the hint below uses the default, exact=True)
    plain_g, fast_g = NetEvaluator(net_g, "td198g", exact=False), TableNetEvaluator(net_g, "td198g", exact=False)
    fast_r = TableNetEvaluator(net_r, "td198r", exact=False)
    pool = game_positions(max(batches), args.seed)
    print(f"machine: {platform.machine()}, python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}, "
          f"1 thread, numba {'on' if features_nb.AVAILABLE else 'MISSING'}; td198g net {meta_g['n_inputs']}-{meta_g['hidden']}-5; "
          f"best of {args.repeats} x {args.seconds:g} s CPU; ms per call")
    rows = [
        ("features numpy", lambda b: features.both_sides(b), False),
        ("features numba", lambda b: features_nb.both_sides(b), False),
        ("encode td198r numpy", lambda b: encode_numpy(b, "td198r"), False),
        ("encode td198r", lambda b: encode(b, "td198r"), False),
        ("encode td198g numpy", lambda b: encode_numpy(b, "td198g"), False),
        ("encode td198g", lambda b: encode(b, "td198g"), False),
        ("NetEvaluator td198g (numpy)", plain_g.position_probs, True),
        ("NetEvaluator td198g", plain_g.position_probs, False),
        ("TableNetEvaluator td198g (numpy)", fast_g.position_probs, True),
        ("TableNetEvaluator td198g", fast_g.position_probs, False),
        ("TableNetEvaluator td198r", fast_r.position_probs, False),
    ]
    print(f"{'':<42}" + "".join(f"{'N=' + str(n):>10}" for n in batches))
    for name, fn, old in rows:
        figs = []
        for n in batches:
            b = np.ascontiguousarray(pool[:n])
            with numpy_features() if old else contextlib.nullcontext():
                figs.append(per_call_ms(lambda: fn(b), args.seconds, args.repeats))
        print(f"{name:<42}" + "".join(f"{x:>10.3f}" for x in figs), flush=True)

    if args.hint_positions:
        from workloads import contact_decisions  # tests/workloads.py (tests/ is on sys.path)

        from bgrl.rules.board import Position
        from bgrl.agents.hints import rank_plays
        from bgrl.agents.search import GNUBG_FILTERS

        decisions = contact_decisions(3 * args.hint_positions, args.seed)
        now = network_evaluator(net_g, "td198g")
        print(f"\nhint (rank_plays, gnubg filters), td198g network, {args.hint_positions} contact positions per ply: mean CPU ms")
        ref = network_evaluator(net_r, "td198r")
        print(f"{'ply':>3}  {'before':>10}  {'now':>10}  {'before/now':>10}  {'td198r now':>10}   (now: {type(now).__name__}; "
              f"td198r: the shipped default network)")
        for ply in (0, 1, 2):
            sets = decisions[ply::3]
            res = {}
            for label, ev, old in (("before", NetEvaluator(net_g, "td198g"), True), ("now", now, False), ("td198r", ref, False)):
                with numpy_features() if old else contextlib.nullcontext():
                    rank_plays(Position.from_board(sets[0][0]), sets[0][1], ev, ply=ply, filters=GNUBG_FILTERS)  # warm-up
                    t = []
                    for board, dice in sets:
                        pos = Position.from_board(board)
                        c = time.thread_time()
                        rank_plays(pos, dice, ev, ply=ply, filters=GNUBG_FILTERS)
                        t.append((time.thread_time() - c) * 1e3)
                res[label] = statistics.fmean(t)
            print(f"{ply:>3}  {res['before']:>10.2f}  {res['now']:>10.2f}  {res['before'] / res['now']:>9.1f}x  {res['td198r']:>10.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
