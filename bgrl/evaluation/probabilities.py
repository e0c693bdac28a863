"""Outcome probabilities and cubeless equity, numpy only.

The five outcome probabilities of one side, in this order (gnubg's convention):

  0 win, 1 win_gammon, 2 win_backgammon, 3 lose_gammon, 4 lose_backgammon

``win_gammon`` includes backgammons, ``lose_gammon`` includes lost backgammons.
Cubeless equity in points per game (money, no cube):
``2*win - 1 + win_gammon - lose_gammon + win_backgammon - lose_backgammon``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.outcome import is_race

__all__ = ["OUTPUTS", "Probabilities", "equity", "flip_probs", "make_consistent", "bound_probs", "terminal_probs"]

OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
# flip_probs(p)[i] = sign * p[_FLIP_IDX[i]] + offset
_FLIP_IDX = np.array([0, 3, 4, 1, 2])


def equity(p: np.ndarray) -> np.ndarray:
    """Cubeless equity (points per game) from probabilities (..., 5) -> (...)."""
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def flip_probs(p: np.ndarray) -> np.ndarray:
    """The same outcome distribution seen from the other side. (..., 5) -> (..., 5)."""
    q = p[..., _FLIP_IDX].copy()
    q[..., 0] = 1.0 - p[..., 0]
    return q


def make_consistent(p: np.ndarray) -> np.ndarray:
    """Clip into [0, 1] and enforce win >= win_gammon >= win_backgammon and
    (1 - win) >= lose_gammon >= lose_backgammon. Returns a new array."""
    q = np.clip(p, 0.0, 1.0)
    q[..., 1] = np.minimum(q[..., 1], q[..., 0])
    q[..., 2] = np.minimum(q[..., 2], q[..., 1])
    q[..., 3] = np.minimum(q[..., 3], 1.0 - q[..., 0])
    q[..., 4] = np.minimum(q[..., 4], q[..., 3])
    return q


@dataclass(frozen=True)
class Probabilities:
    """Outcome probabilities of one side, each in [0, 1]."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_array(cls, p) -> "Probabilities":
        return cls(*(float(x) for x in np.asarray(p, dtype=np.float64)))

    def to_array(self) -> np.ndarray:
        return np.array([self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon])

    def equity(self) -> float:
        """Cubeless equity in points per game."""
        return float(equity(self.to_array()))

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in OUTPUTS}


def bound_probs(after_states: np.ndarray, probs: np.ndarray, *, race: np.ndarray | None = None,
                on_board: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Zero the outcomes a position can no longer reach (docs/rules.md scoring), in place.

    Once the opponent has borne off a checker the mover cannot win a gammon (nor a
    backgammon), and once the mover has borne off one it cannot lose one. In a race a
    backgammon needs checkers already in the winner's home board (no checker can be hit
    back there any more), so without them it is out of reach.

    Parameters
    ----------
    after_states : ndarray, int8, shape (M, 26)
        Positions from the side that has just played (the mover).
    probs : ndarray, float, shape (M, 5)
        Outcome probabilities of the mover (:data:`OUTPUTS` order); changed in place.
    race : ndarray, bool, shape (M,), optional
        :func:`bgrl.rules.outcome.is_race` of ``after_states``, when the caller has it.
    on_board : (ndarray, ndarray), int, shapes (M,) and (M,), optional
        The mover's and the opponent's checkers still in play (on points or on the bar:
        15 minus those borne off), when the caller has them.

    Returns
    -------
    ndarray
        ``probs``.
    """
    b = after_states
    if on_board is None:
        mover_on = np.maximum(b, 0).sum(axis=1)
        opp_on = -np.minimum(b, 0).sum(axis=1)
    else:
        mover_on, opp_on = on_board
    if race is None:
        race = is_race(b)
    probs[opp_on < 15, 1:3] = 0.0
    probs[mover_on < 15, 3:5] = 0.0
    opp_in_mover_home = (b[:, 1:7] < 0).any(axis=1)
    mover_in_opp_home = (b[:, 19:25] > 0).any(axis=1)
    probs[race & ~opp_in_mover_home, 2] = 0.0
    probs[race & ~mover_in_opp_home, 4] = 0.0
    return probs


def terminal_probs(results: np.ndarray) -> np.ndarray:
    """Exact probabilities of the winner of finished games.

    Parameters
    ----------
    results : ndarray, int, shape (M,)
        Points won, 1 (single game), 2 (gammon) or 3 (backgammon), as
        :func:`bgrl.rules.outcome.game_results` gives them.

    Returns
    -------
    ndarray, float64, shape (M, 5)
        Probabilities of the winner, :data:`OUTPUTS` order (each 0 or 1).
    """
    r = np.asarray(results)
    p = np.zeros((r.shape[0], 5))
    p[:, 0] = r >= 1
    p[:, 1] = r >= 2
    p[:, 2] = r >= 3
    return p
