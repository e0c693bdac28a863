"""Reply pruning in 2-ply searches: how often it changes the answer, what that costs, what it saves.

For contact decisions from self-play games (``tests/workloads.py``'s ``contact_decisions``),
each play of the decision is searched at 2-ply by the level's network (gnubg's filters), once
with every reply valued and once with each roll's replies pruned
(:class:`bgrl.agents.search.ReplyPruning`: a cheap network ranks them, the level's network
values the best ``keep``). Printed per pruning network and ``keep``:

* the share of decisions whose best play is the same, and the unpruned 2-ply equity given up
  (points per game, by the unpruned search's values: the mean over all decisions, and over
  those whose best play changed);
* the mean and largest absolute difference of the best play's 2-ply equity;
* the reply choices themselves: how often the pruned choice is the unpruned one, and the
  0-ply equity (the level's network) given up per choice;
* CPU milliseconds per decision, pruned and not, in the same run.

Example::

    python scripts/bench/bench_prune.py --positions 60 --keep 3 4 5 6
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from bgrl.agents.levels import LEVELS, DEFAULT_PRUNING, Pruning, load_level, reply_pruning  # noqa: E402
from bgrl.agents.search import GNUBG_FILTERS, best_replies, search_plays  # noqa: E402
from bgrl.evaluation.probabilities import equity  # noqa: E402
from bgrl.rules.board import flip  # noqa: E402
from bgrl.rules.dice import ROLLS  # noqa: E402
from bgrl.rules.movegen import generate  # noqa: E402
from workloads import contact_decisions  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="grandmaster", help="level whose network searches (default grandmaster)")
    ap.add_argument("--pruners", nargs="+", default=[DEFAULT_PRUNING.network], help="shipped networks that prune")
    ap.add_argument("--keep", nargs="+", type=int, default=[3, 4, 5, 6], help="replies kept per roll")
    ap.add_argument("--positions", type=int, default=40, help="contact decisions (default 40)")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)

    lv = LEVELS[args.level]
    ev = load_level(args.level).evaluator
    decisions = contact_decisions(args.positions, args.seed)
    print(f"level {lv.name}: network {lv.network}, 2-ply, filters {' '.join(f'{f.keep}/{f.window:g}' for f in GNUBG_FILTERS)}; "
          f"{len(decisions)} contact decisions (seed {args.seed})")

    def search(prune):
        out, spent = [], 0.0
        for board, dice in decisions:
            aft = generate(board[None], np.array([dice]))
            t = time.process_time()
            res = search_plays(ev, aft.boards, aft.offsets, 2, GNUBG_FILTERS, prune=prune)
            spent += time.process_time() - t
            out.append((int(res.best[0]), res.equity.copy(), res.ply.copy()))
        return out, 1e3 * spent / len(decisions)

    search(None)  # warm
    full, full_ms = search(None)

    # reply choices: the replies to each decision's plays, every roll
    aft = generate(np.stack([b for b, _ in decisions]), np.array([d for _, d in decisions]))
    opp = flip(aft.boards)
    rep = generate(np.repeat(opp, len(ROLLS), axis=0), np.tile(ROLLS, (opp.shape[0], 1)), validate=False)
    eq0 = equity(np.asarray(ev(rep.boards), dtype=np.float64))
    from bgrl.agents.search import group_argmax

    true_best = group_argmax(eq0, rep.offsets)
    print(f"reply choices: {rep.offsets.size - 1:,} rolls, {rep.boards.shape[0]:,} replies "
          f"({rep.boards.shape[0] / (rep.offsets.size - 1):.1f} a roll)")
    print(f"unpruned 2-ply: {full_ms:.1f} ms CPU a decision\n")
    print(f"{'pruner':<12} {'keep':>4}  {'same best play':>14}  {'equity lost':>11}  {'where changed':>13}  {'|d eq| mean':>11}  {'max':>7}  "
          f"{'same reply':>10}  {'reply loss':>10}  {'ms':>6}  {'speed-up':>8}")
    for name in args.pruners:
        for keep in args.keep:
            prune = reply_pruning(2, Pruning(name, keep))
            got, ms = search(prune)
            same = lost = 0.0
            diffs = []
            for (b0, e0, p0), (b1, e1, _p1) in zip(full, got):
                same += b0 == b1
                lost += e0[b0] - e0[b1]
                diffs.append(abs(e1[b1] - e0[b0]))
            pb, _ = best_replies(ev, rep.boards, rep.offsets, prune)
            hit = float(np.mean(pb == true_best))
            loss = float(np.mean(eq0[true_best] - eq0[pb]))
            n = len(full)
            changed = n - int(same)
            where = f"{lost / changed:.5f}" if changed else "-"
            print(f"{name:<12} {keep:>4}  {same / n:>13.1%}  {lost / n:>11.5f}  {where:>13}  {statistics.fmean(diffs):>11.5f}  "
                  f"{max(diffs):>7.4f}  {hit:>9.1%}  {loss:>10.5f}  {ms:>6.1f}  {full_ms / ms:>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
