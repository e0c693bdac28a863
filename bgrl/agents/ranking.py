"""Shared ranks of ranked plays: plays that tie share a rank ("1224" competition ranking).

A play's rank is 1 + the number of plays ranked strictly above it: those valued at a
deeper ply (plays cut by a move filter keep a shallower ply and come after the deeper
ones, as in gnubg's hint), or at the same ply with an equity higher by more than
:data:`TIE_TOL`. So a play tied with the best (zero loss) is ranked 1 whatever its place
in the list, and with a single ply this is ``1 + #plays with strictly higher equity``.
Hints (``bgrl hint``, ``POST /v1/hint``, ``bgrl play``'s hint) and reviews (``bgrl
review``, text and JSON) number plays this way.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

__all__ = ["TIE_TOL", "shared_ranks", "with_shared_ranks", "vs_best", "VALUE_HEADER", "value_cells"]

#: equities closer than this (points per game) tie
TIE_TOL = 1e-9


def shared_ranks(equity, ply=None, tol: float = TIE_TOL) -> np.ndarray:
    """Ranks of plays, ties shared, in any input order.

    equity : float (n,), points per game; ply : int (n,), the depth each play was valued
    at (None: all the same); tol : equities within ``tol`` of each other tie.
    Returns int64 (n,): ``1 + #{j : ply[j] > ply[i] or (ply[j] == ply[i] and
    equity[j] > equity[i] + tol)}``. Raises ValueError if the shapes differ or ``tol < 0``.
    """
    e = np.asarray(equity, dtype=np.float64).reshape(-1)
    d = np.zeros(e.shape, dtype=np.int64) if ply is None else np.asarray(ply, dtype=np.int64).reshape(-1)
    if d.shape != e.shape:
        raise ValueError(f"equity and ply must have the same length, got {e.shape[0]} and {d.shape[0]}")
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    above = (d[None, :] > d[:, None]) | ((d[None, :] == d[:, None]) & (e[None, :] > e[:, None] + tol))
    return 1 + above.sum(axis=1, dtype=np.int64)


def with_shared_ranks(rows: list, tol: float = TIE_TOL) -> list:
    """``rows`` (dataclasses with ``rank``, ``equity`` and optionally ``ply``, e.g.
    :class:`bgrl.agents.hints.RankedPlay`), same order, each with its :func:`shared_ranks` rank."""
    rows = list(rows)
    if not rows:
        return rows
    ranks = shared_ranks([r.equity for r in rows], [getattr(r, "ply", 0) for r in rows], tol)
    return [r if r.rank == k else replace(r, rank=int(k)) for r, k in zip(rows, ranks)]


def vs_best(equity_loss: float) -> float:
    """The "vs best" figure shown for a play: minus its equity loss, rounded to the three
    decimals shown, so a tie prints +0.000, never -0.000."""
    return 0.0 - round(float(equity_loss), 3) + 0.0


#: Column heads of :func:`value_cells` (hint tables of ``bgrl hint`` and ``bgrl play``).
VALUE_HEADER = f"{'equity':>7}  {'vs best':>7}  {'win':>5}  {'wg':>5}  {'wbg':>5}  {'lose':>5}  {'lg':>5}  {'lbg':>5}"


def value_cells(row) -> str:
    """A ranked play's equity, "vs best" and five probabilities (win, lose derived) as
    table cells under :data:`VALUE_HEADER`; ``row`` is a :class:`bgrl.agents.hints.RankedPlay`."""
    p = row.probabilities
    return (f"{row.equity:+7.3f}  {vs_best(row.equity_loss):+7.3f}  {p.win:5.3f}  {p.win_gammon:5.3f}  "
            f"{p.win_backgammon:5.3f}  {1.0 - p.win:5.3f}  {p.lose_gammon:5.3f}  {p.lose_backgammon:5.3f}")
