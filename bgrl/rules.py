"""Game-over detection and scoring (RULES.md, "End of game and scoring"). numpy only."""

from __future__ import annotations

import numpy as np

from .board import NUM_CHECKERS, OPP_BAR

__all__ = ["SINGLE", "GAMMON", "BACKGAMMON", "game_result", "game_results", "is_race"]

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3


def game_results(boards: np.ndarray) -> np.ndarray:
    """Result for the side that has just played, for a batch of after-states.

    Parameters
    ----------
    boards : ndarray, int8, shape (N, 26)
        After-states from the side that just played (the mover).

    Returns
    -------
    ndarray, int8, shape (N,)
        0 if the mover has not borne off all 15 checkers (game goes on); otherwise the
        points won by the mover: 1 single game (the opponent has borne off at least one
        checker), 2 gammon (none borne off), 3 backgammon (none borne off and a checker
        still on the bar or in the mover's home board, points 1..6).
    """
    b = np.asarray(boards).astype(np.int16)
    mover_on_board = np.clip(b, 0, None).sum(axis=1)
    opp_on_board = np.clip(-b, 0, None).sum(axis=1)
    over = mover_on_board == 0
    opp_off = NUM_CHECKERS - opp_on_board
    deep = (b[:, OPP_BAR] < 0) | (b[:, 1:7] < 0).any(axis=1)
    res = np.where(opp_off > 0, SINGLE, np.where(deep, BACKGAMMON, GAMMON))
    return np.where(over, res, 0).astype(np.int8)


def game_result(board) -> int:
    """Scalar :func:`game_results` for one board (shape (26,)): 0, 1, 2 or 3."""
    return int(game_results(np.asarray(board)[None])[0])


def is_race(boards: np.ndarray) -> np.ndarray:
    """True where contact is over: every mover's checker is past every opponent's checker.

    boards int8 (N, 26) -> bool (N,). A checker on either bar means contact.
    """
    b = np.asarray(boards)
    idx = np.arange(26)
    mover_back = np.where(b > 0, idx, -1).max(axis=1)  # highest index holding a mover's checker
    opp_back = np.where(b < 0, idx, 99).min(axis=1)  # lowest index holding an opponent checker
    return mover_back < opp_back
