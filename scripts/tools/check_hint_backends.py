"""Check that ``bgrl hint``'s torch-free evaluation gives today's answers.

    python scripts/tools/check_hint_backends.py [--positions 300] [--ply2 40] [--start 0]

For decisions of ``bgrl/data/benchmark.npz`` (positions and rolls from self-play, contact,
race and bear-off), ranks the plays with every level at its own ply, and with world-class at
2-ply, twice: with the networks read through torch (``backend="torch"``, the path of every
other command) and from their numpy twins (``backend="numpy"``, what ``bgrl hint`` uses;
bgrl.evaluation.table_np). Compares the ranking (the order of the plays) and the whole
printed table (``bgrl hint --top 0``: every equity and probability to 3 decimals; its equity
columns apart), and prints the largest difference of an unrounded equity. Exit status 1 if any printed table differs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=300, help="decisions per level at the level's ply")
    p.add_argument("--ply2", type=int, default=40, help="decisions ranked by world-class at 2-ply")
    p.add_argument("--start", type=int, default=0, help="first decision of benchmark.npz")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    from bgrl._resources import shipped_path
    from bgrl.agents.hints import HintRanker, vs_best
    from bgrl.agents.levels import LEVEL_NAMES, load_level
    from bgrl.cli._table import hint_text
    from bgrl.rules.board import Position

    data = np.load(shipped_path("benchmark.npz", "bgrl.data"), allow_pickle=False)
    ids, dice = data["position_id"], data["dice"]
    runs = [(lv, None, args.positions) for lv in LEVEL_NAMES] + [("world-class", 2, args.ply2)]
    bad = 0
    for level, ply, n in runs:
        agents = {b: load_level(level, backend=b) for b in ("torch", "numpy")}
        use_ply = agents["torch"].level.ply if ply is None else ply
        diff_text = diff_rank = diff_eq = 0
        worst = 0.0
        for i in range(args.start, args.start + n):
            pos = Position.from_id(str(ids[i]))
            d = (int(dice[i][0]), int(dice[i][1]))
            out = {}
            for b, agent in agents.items():
                ranked = HintRanker.from_agent(agent, use_ply).rank(pos, d)
                out[b] = (ranked, hint_text(pos, d, ranked, f"level {level}", use_ply, 0))
            (rt, tt), (rn, tn) = out["torch"], out["numpy"]
            if [r.play.position_id for r in rt] != [r.play.position_id for r in rn]:
                diff_rank += 1
            if [f"{r.equity:+.3f} {vs_best(r.equity_loss):+.3f}" for r in rt] != [
                    f"{r.equity:+.3f} {vs_best(r.equity_loss):+.3f}" for r in rn]:
                diff_eq += 1  # the equity and "vs best" columns
            if tt != tn:
                diff_text += 1
                print(f"  differs: {level} {use_ply}-ply {ids[i]} {d}", file=sys.stderr)
            worst = max(worst, max(abs(a.equity - b.equity) for a, b in zip(rt, rn)))
        bad += diff_text
        print(f"{level:>12} {use_ply}-ply: {n} decisions, ranking differs in {diff_rank}, printed equities in {diff_eq}, "
              f"printed table in {diff_text}, largest equity difference {worst:.1e}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
