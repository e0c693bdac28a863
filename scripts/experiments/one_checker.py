"""The evaluator against the exact one-checker solver (bgrl.evaluation.onechecker), before and after
the fix (the network alone vs the network with exact values, NetEvaluator(exact=...)).

    .venv/bin/python scripts/experiments/one_checker.py [--checkpoint PATH]

Over every position with one checker a side (601, side on roll) and each of the 21 rolls,
every legal play is evaluated. Printed for each evaluator:

* mean |error| of the win probability after a play (the side that played), over the
  plays that do not end the game (those are exact for both);
* sign errors: plays whose cubeless equity has the wrong sign (exact equity = 2 P(win) - 1);
* equity lost by the evaluator's choices against the best play (exact values), averaged
  over the 601 x 21 decisions weighted by the roll's probability, the plain mean over the
  decisions with more than one distinct play, the maximum, and the number of decisions
  that lose anything.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from bgrl.agents.base import DEFAULT_CHECKPOINT, group_argmax
from bgrl.rules.board import flip
from bgrl.evaluation.networks import load_network
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.probabilities import equity
from bgrl.rules.movegen import generate
from bgrl.evaluation.onechecker import one_checker_boards, table
from bgrl.rules.outcome import game_results

ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int8)
ROLL_W = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0


def measure(evaluator, aft, exact_win, over) -> dict:
    probs = evaluator(aft.boards)
    live = ~over
    err = np.abs(probs[:, 0] - exact_win)[live]
    eq = equity(probs)
    exact_eq = 2.0 * exact_win - 1.0
    sign_err = (np.sign(eq) != np.sign(exact_eq))[live]
    choice = group_argmax(eq, aft.offsets)
    best = np.maximum.reduceat(exact_eq, aft.offsets[:-1])
    lost = best - exact_eq[choice]
    w = np.tile(ROLL_W, lost.shape[0] // len(ROLLS)) / (lost.shape[0] // len(ROLLS))
    return {
        "mean_abs_win_error": float(err.mean()),
        "sign_errors": int(sign_err.sum()),
        "plays": int(live.sum()),
        "mean_equity_lost": float((w * lost).sum()),
        "max_equity_lost": float(lost.max()),
        "losing_decisions": int((lost > 1e-12).sum()),
        "choices": int((aft.counts > 1).sum()),
        "mean_lost_choices": float(lost[aft.counts > 1].mean()),
        "decisions": int(lost.shape[0]),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT), help="network (.pt), default: the shipped one")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    net, meta = load_network(args.checkpoint)

    boards, _, _ = one_checker_boards()
    n = boards.shape[0]
    aft = generate(np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1)))
    over = game_results(aft.boards) > 0
    nxt = flip(aft.boards)
    v = table().value
    exact_win = np.where(over, 1.0, 1.0 - v[np.argmax(nxt > 0, axis=1), np.argmin(nxt, axis=1)])
    print(f"one checker a side: {n} positions x {len(ROLLS)} rolls = {n * len(ROLLS)} decisions, "
          f"{aft.boards.shape[0]} plays ({int((~over).sum())} not ending the game), "
          f"{int((aft.counts > 1).sum())} decisions with a choice; checkpoint {args.checkpoint}")
    print(f"{'evaluator':<28} {'mean|dP(win)|':>13} {'sign errors':>14} {'mean eq lost':>13} {'(choices)':>10} {'max eq lost':>12} {'losing':>8}")
    for name, ev in (("network alone (before)", NetEvaluator(net, meta["encoder"], exact=False)),
                     ("network + exact (after)", NetEvaluator(net, meta["encoder"], exact=True))):
        r = measure(ev, aft, exact_win, over)
        print(f"{name:<28} {r['mean_abs_win_error']:>13.4f} {r['sign_errors']:>6d}/{r['plays']:<7d} "
              f"{r['mean_equity_lost']:>13.4f} {r['mean_lost_choices']:>10.4f} {r['max_equity_lost']:>12.4f} {r['losing_decisions']:>8d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
