"""Game phases: the one classifier of positions into contact, crashed, race and bear-off.

Strong engines give each phase its own evaluator (GNU Backgammon: contact, crashed and race
networks, bear-off databases; DESIGN.md). bgrl's classes, for a position in
:mod:`bgrl.rules.board` encoding (either side on roll: every test is symmetric):

==========  ====  ================================================================================
phase       code  definition
==========  ====  ================================================================================
contact     0     contact is still possible (:func:`bgrl.rules.outcome.is_race` is false) and
                  neither side is crashed
race        1     no contact (:func:`bgrl.rules.outcome.is_race`), some checker outside its home board
bear-off    2     no contact and every checker of both sides in its home board or borne off
crashed     3     contact, and one side has few checkers left in play outside its deepest
                  points (:func:`crashed`)
==========  ====  ================================================================================

Every bear-off position has an exact value in the bear-off database
(:mod:`bgrl.evaluation.exact`), so a bear-off network is never asked while exact values are
on, and self-play data (:func:`bgrl.training.distill.collect_positions`) holds none.

Codes 0-2 are those of the error-rate benchmark's ``phase`` field
(:data:`bgrl.arena.benchmark.PHASES`, which counts crashed positions as contact).

The crashed test follows the definition of GNU Backgammon's position classifier (the
``CLASS_CRASHED`` class of its ``eval.c``; described, not copied): a side is crashed when at
most six of its checkers are in play once those piled deep on its ace point (and, when both
are piled, its two point) are set aside. Precisely, with ``n`` the side's checkers not yet
borne off (the bar included), ``a`` and ``t`` those on its own 1 and 2 points:
``n <= 6``, or, if ``a > 1``, ``n - a <= 6`` or (``t > 1`` and ``n - a - t + 1 <= 6``), or,
if ``a <= 1``, ``n - t + 1 <= 6``.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import MOVER_BAR, OPP_BAR
from bgrl.rules.outcome import is_race

__all__ = ["CONTACT", "RACE", "BEAROFF", "CRASHED", "PHASE_NAMES", "CRASHED_CHECKERS", "classify", "crashed",
           "phase_name", "PhaseEvaluator"]

CONTACT, RACE, BEAROFF, CRASHED = 0, 1, 2, 3
#: code -> name, in code order
PHASE_NAMES = ("contact", "race", "bearoff", "crashed")
#: the checkers in play (outside the piled deep points) at or below which a side is crashed
CRASHED_CHECKERS = 6


def _as_batch(boards) -> tuple[np.ndarray, bool]:
    b = np.asarray(boards)
    if b.ndim == 1:
        b = b[None]
        single = True
    else:
        single = False
    if b.ndim != 2 or b.shape[1] != 26:
        raise ValueError(f"expected boards of shape (N, 26) or (26,), got {np.asarray(boards).shape}")
    if b.dtype.kind not in "iu":
        raise ValueError(f"expected integer boards (int8, bgrl.rules.board), got dtype {b.dtype}")
    if b.size and (b.min() < -15 or b.max() > 15):
        raise ValueError("expected boards of checker counts in -15..15 (bgrl.rules.board)")
    return b.astype(np.int16), single


def _side_crashed(n: np.ndarray, a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The crashed test of one side from its checkers in play ``n``, on its ace point ``a``
    and on its two point ``t`` (int (N,) each)."""
    k = CRASHED_CHECKERS
    piled = (n - a <= k) | ((t > 1) & (n - a - t + 1 <= k))
    loose = n - t + 1 <= k
    return (n <= k) | np.where(a > 1, piled, loose)


def crashed(boards) -> np.ndarray:
    """Whether either side is crashed (module docstring), whatever the contact.

    boards : int (N, 26) or (26,), :mod:`bgrl.rules.board` encoding -> bool (N,) (a numpy
    bool for one board). Raises ValueError for another shape.
    """
    b, single = _as_batch(boards)
    mover = np.maximum(b[:, 1:25], 0)
    opp = np.maximum(-b[:, 1:25], 0)
    n_m = mover.sum(axis=1) + np.maximum(b[:, MOVER_BAR], 0)
    n_o = opp.sum(axis=1) + np.maximum(-b[:, OPP_BAR], 0)
    # the mover's ace and two points are its points 1 and 2; the opponent's are the mover's 24 and 23
    out = _side_crashed(n_m, mover[:, 0], mover[:, 1]) | _side_crashed(n_o, opp[:, 23], opp[:, 22])
    return out[0] if single else out


def classify(boards) -> np.ndarray:
    """The phase code of each position (module docstring's table).

    boards : int (N, 26) or (26,), :mod:`bgrl.rules.board` encoding, either side on roll ->
    int8 (N,) of :data:`CONTACT`, :data:`RACE`, :data:`BEAROFF`, :data:`CRASHED` (a numpy
    int8 for one board). Raises ValueError for another shape, a dtype other than integers, or
    counts outside -15..15.
    """
    b, single = _as_batch(boards)
    race = is_race(b)
    mover_home = (b[:, 7:25] <= 0).all(axis=1) & (b[:, MOVER_BAR] <= 0)
    opp_home = (b[:, 1:19] >= 0).all(axis=1) & (b[:, OPP_BAR] >= 0)
    ph = np.full(b.shape[0], CONTACT, dtype=np.int8)
    ph[~race & crashed(b)] = CRASHED
    ph[race] = RACE
    ph[race & mover_home & opp_home] = BEAROFF
    return ph[0] if single else ph


def phase_name(board) -> str:
    """The phase name of one position int (26,) (``"contact"``, ``"race"``, ``"bearoff"``,
    ``"crashed"``). Raises ValueError for another shape (a batch: use :func:`classify`)."""
    if np.ndim(board) != 1:
        raise ValueError(f"phase_name takes one board of shape (26,), got shape {np.shape(board)}; use classify for a batch")
    return PHASE_NAMES[int(classify(board))]


class PhaseEvaluator:
    """One evaluator per game phase: each after-state goes to the network of its phase.

    ``evaluator(after_states)`` maps int8 (M, 26) after-states (the side that has just
    played) to float64 (M, 5) outcome probabilities of that side (the
    :mod:`bgrl.evaluation.evaluator` protocol). The rows are split by :func:`classify` (the
    phase of an after-state is the phase of the position the opponent is on roll in: the
    classes are symmetric); the rows of a phase in ``by_phase`` go to its evaluator, every
    other row to ``main``. Each evaluator applies its own finished-game values, exact values
    and consistency rules, so the split changes nothing where values are exact.

    Parameters
    ----------
    main : evaluator
        The evaluator of every phase not in ``by_phase`` (and whose ``exact`` and
        ``exact_values`` this one reports, for :func:`bgrl.agents.search.exact_rows`).
    by_phase : dict of int -> evaluator
        Phase code (:data:`CONTACT`, :data:`RACE`, :data:`BEAROFF`, :data:`CRASHED`) -> the
        evaluator of that phase's positions, e.g. ``{RACE: race_evaluator}``.
    names : dict of int -> str, optional
        What each phase's network is called, for :meth:`describe`.

    Raises
    ------
    ValueError
        For a phase code outside 0..3.

    Read-only: safe to call from several threads when its evaluators are.
    """

    def __init__(self, main, by_phase: dict, names: dict | None = None):
        bad = [k for k in by_phase if k not in range(len(PHASE_NAMES))]
        if bad:
            raise ValueError(f"phase codes must be 0..{len(PHASE_NAMES) - 1} ({', '.join(PHASE_NAMES)}), got {bad}")
        self.main = main
        self.by_phase = dict(by_phase)
        self.names = dict(names or {})
        self.exact = getattr(main, "exact", False)
        self.exact_values = getattr(main, "exact_values", None)
        self.encoder = getattr(main, "encoder", None)

    def describe(self) -> str:
        """The phases and their networks in one line, e.g. ``race: distilled-race``."""
        return ", ".join(f"{PHASE_NAMES[k]}: {self.names.get(k, type(ev).__name__)}" for k, ev in sorted(self.by_phase.items()))

    def _split(self, boards: np.ndarray, call: str) -> np.ndarray:
        b = np.ascontiguousarray(boards, dtype=np.int8)
        ph = classify(b) if b.shape[0] else np.zeros(0, dtype=np.int8)
        out = None
        rest = np.ones(b.shape[0], dtype=bool)
        for code, ev in self.by_phase.items():
            rows = ph == code
            if rows.any():
                vals = getattr(ev, call)(b[rows])
                if out is None:
                    out = np.empty((b.shape[0], vals.shape[1]), dtype=np.float64)
                out[rows] = vals
                rest &= ~rows
        if out is None:
            return getattr(self.main, call)(b)
        if rest.any():
            out[rest] = getattr(self.main, call)(b[rest])
        return out

    def __call__(self, after_states: np.ndarray) -> np.ndarray:
        """Probabilities float64 (M, 5) of the side that has just played, for after-states int8 (M, 26)."""
        return self._split(after_states, "__call__")

    def position_probs(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities float64 (N, 5) of the side on roll for positions int8 (N, 26) (not over)."""
        return self._split(boards, "position_probs")
