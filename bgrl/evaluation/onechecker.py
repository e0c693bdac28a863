"""Exact values of endgames with one checker a side (contact included).

A *one-checker position* has exactly one checker of each side on the board (on a point
or on the bar; 14 of each side borne off).  From the side on roll (the mover,
:mod:`bgrl.rules.board` layout) the mover's checker lies on index ``m`` in 1..25 (25 = its
bar) and the opponent's on index ``o`` in 0..24 (0 = its bar), ``m != o``: 601
positions.  Hits are possible (the hit checker goes to its bar and re-enters), so the
game graph has cycles; no gammon is possible (each side has borne off 14 checkers).

The win probability ``V(m, o)`` of the side on roll solves the Bellman equation

    V(s) = sum_r w_r * max_{plays a of roll r} [1 if a bears off the last checker
                                                 else 1 - V(flip(a))]

(``w_r`` = 1/36 for doubles, 2/36 otherwise; legal plays from :func:`bgrl.rules.movegen.generate`).
:func:`solve` finds it by value iteration (Bellman, 1957) from ``V = 1/2`` until the
largest change is below ``1e-14``; the 601 x 21 after-states are generated once.

This module imports numpy only; the table is built on first use (well under a second).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.board import BOARD_SIZE, MOVER_BAR, OPP_BAR, flip

__all__ = ["OneCheckerTable", "solve", "table", "is_one_checker", "exact_probs", "one_checker_boards"]

_ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int8)
_ROLL_W = np.where(_ROLLS[:, 0] == _ROLLS[:, 1], 1.0 / 36.0, 2.0 / 36.0)


def one_checker_boards() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every one-checker position: ``(boards int8 (601, 26), m int64 (601,), o int64 (601,))``,
    ``m`` the mover's checker index (1..25), ``o`` the opponent's (0..24)."""
    m, o = np.meshgrid(np.arange(1, MOVER_BAR + 1), np.arange(OPP_BAR, BOARD_SIZE - 1), indexing="ij")
    m, o = m.ravel(), o.ravel()
    keep = m != o
    m, o = m[keep], o[keep]
    b = np.zeros((m.shape[0], BOARD_SIZE), dtype=np.int8)
    rows = np.arange(m.shape[0])
    b[rows, m] = 1
    b[rows, o] = -1
    return b, m, o


@dataclass(frozen=True)
class OneCheckerTable:
    """Win probabilities of the side on roll.

    value : float64 (26, 25); ``value[m, o]`` for the mover's checker on index ``m``
        (1..25) and the opponent's on ``o`` (0..24); NaN where ``m == o`` or ``m == 0``.
    iterations : number of value-iteration sweeps; residual : last largest change.
    """

    value: np.ndarray
    iterations: int
    residual: float


def solve(tol: float = 1e-14, max_iter: int = 100_000) -> OneCheckerTable:
    """Value iteration over all 601 one-checker positions (module docstring).

    Raises RuntimeError if it has not converged to ``tol`` after ``max_iter`` sweeps.
    """
    from bgrl.rules.movegen import generate

    boards, m, o = one_checker_boards()
    n = boards.shape[0]
    aft = generate(np.repeat(boards, len(_ROLLS), axis=0), np.tile(_ROLLS, (n, 1)), validate=False)
    a = aft.boards
    won = (a > 0).sum(axis=1) == 0
    nxt = flip(a)  # opponent on roll
    nm = np.where(won, 0, np.argmax(nxt > 0, axis=1))
    no = np.argmin(nxt, axis=1)  # the opponent-of-the-next-mover's checker (the negative entry)
    value = np.full((BOARD_SIZE, BOARD_SIZE - 1), np.nan)
    v = np.full(n, 0.5)
    flat = np.full((BOARD_SIZE, BOARD_SIZE - 1), -1, dtype=np.int64)
    flat[m, o] = np.arange(n)
    succ = flat[nm, no]
    if (succ[~won] < 0).any():
        raise AssertionError("a one-checker play led outside the one-checker positions")
    succ[won] = 0
    starts = aft.offsets[:-1]
    w = np.tile(_ROLL_W, n)
    residual = np.inf
    it = 0
    while residual > tol:
        if it >= max_iter:
            raise RuntimeError(f"one-checker value iteration did not converge (residual {residual:.3g} after {it} sweeps)")
        play_val = np.where(won, 1.0, 1.0 - v[succ])
        best = np.maximum.reduceat(play_val, starts)
        new = (w * best).reshape(n, len(_ROLLS)).sum(axis=1)
        residual = float(np.abs(new - v).max())
        v = new
        it += 1
    value[m, o] = v
    value.setflags(write=False)
    return OneCheckerTable(value=value, iterations=it, residual=residual)


_TABLE: OneCheckerTable | None = None


def table() -> OneCheckerTable:
    """The solved table, computed once per process."""
    global _TABLE
    if _TABLE is None:
        _TABLE = solve()
    return _TABLE


def is_one_checker(boards) -> np.ndarray:
    """bool (N,): each side has exactly one checker on the board (bars included).
    boards : int (N, 26) from the side on roll."""
    b = np.asarray(boards)
    bt = np.ascontiguousarray(b.T)  # reductions over the short axis are slow in numpy
    one = (bt.max(axis=0) == 1) & (bt.min(axis=0) == -1)  # cheap filter first
    if one.any():
        c = b[one]
        one[one] = ((c > 0).sum(axis=1) == 1) & ((c < 0).sum(axis=1) == 1)
    return one


def exact_probs(boards) -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of one-checker positions.

    boards : int array (N, 26), the side on roll's view (:mod:`bgrl.rules.board`).
    Returns ``known`` bool (N,) (:func:`is_one_checker`) and ``probs`` float64 (N, 5) in
    :data:`bgrl.evaluation.probabilities.OUTPUTS` order: ``[V, 0, 0, 0, 0]`` where known, NaN elsewhere.
    Raises ValueError if ``boards`` is not an integer array of shape (N, 26).
    """
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != BOARD_SIZE or b.dtype.kind not in "iu":
        raise ValueError(f"boards must be an integer array of shape (N, 26), got {b.dtype} {b.shape}")
    known = is_one_checker(b)
    probs = np.full((b.shape[0], 5), np.nan)
    if known.any():
        k = b[known]
        m = np.argmax(k > 0, axis=1)
        o = np.argmin(k, axis=1)
        probs[known] = 0.0
        probs[known, 0] = table().value[m, o]
    return known, probs
