"""Exact outcome probabilities where they are cheap: one entry point for the evaluator,
search and training targets.

Two exact sources, tried in order:

* :func:`bgrl.evaluation.bearoff.exact_probs`: no-contact bear-offs (both sides with all remaining
  checkers on their home points), from the one-sided bear-off database;
* :func:`bgrl.evaluation.onechecker.exact_probs`: one checker a side, contact included (value
  iteration).

Where both apply (one checker each, both at home, no contact) they agree to 1e-8
(tests/evaluation/test_bearoff.py). numpy only.
"""

from __future__ import annotations

import numpy as np

from bgrl.evaluation import bearoff

from bgrl.evaluation import onechecker

__all__ = ["exact_probs"]


def exact_probs(boards) -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of the side on roll where known.

    boards : int array (N, 26), the side on roll's view (:mod:`bgrl.rules.board`).
    Returns ``known`` bool (N,) and ``probs`` float64 (N, 5) in
    :data:`bgrl.evaluation.probabilities.OUTPUTS` order (NaN where not known).
    Raises ValueError if ``boards`` is not an integer array of shape (N, 26).
    """
    known, probs = bearoff.exact_probs(boards)
    rest = np.flatnonzero(~known)
    if rest.size:
        k2, p2 = onechecker.exact_probs(np.asarray(boards)[rest])
        if k2.any():
            known[rest[k2]] = True
            probs[rest[k2]] = p2[k2]
    return known, probs
