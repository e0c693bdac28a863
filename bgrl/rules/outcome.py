"""Game-over detection and scoring (docs/rules.md, "End of game and scoring"). numpy only."""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import MOVER_BAR, NUM_CHECKERS, OPP_BAR, borne_off

__all__ = ["SINGLE", "GAMMON", "BACKGAMMON", "RESULT_NAMES", "RESULT_VALUES", "RESULT_TITLES", "game_result", "game_results", "is_race", "check_not_over"]

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3
#: The one table of result names: points of a game's result (cube 1) -> its name.
RESULT_NAMES = {SINGLE: "single", GAMMON: "gammon", BACKGAMMON: "backgammon"}
#: Its inverse: name -> points (for a resignation's value).
RESULT_VALUES = {name: points for points, name in RESULT_NAMES.items()}
#: Its display form for a sentence ("a single game", "a gammon"), derived from RESULT_NAMES.
#: The points a result scores with the cube are :meth:`bgrl.rules.cube.CubeState.points`.
RESULT_TITLES = {points: "single game" if name == "single" else name for points, name in RESULT_NAMES.items()}


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
    mover_on_board = np.maximum(b, 0).sum(axis=1)
    opp_on_board = np.maximum(-b, 0).sum(axis=1)
    over = mover_on_board == 0
    opp_off = NUM_CHECKERS - opp_on_board
    deep = (b[:, OPP_BAR] < 0) | (b[:, 1:7] < 0).any(axis=1)
    res = np.where(opp_off > 0, SINGLE, np.where(deep, BACKGAMMON, GAMMON))
    return np.where(over, res, 0).astype(np.int8)


def game_result(board) -> int:
    """Scalar :func:`game_results` for one board (shape (26,)): 0, 1, 2 or 3."""
    return int(game_results(np.asarray(board)[None])[0])


def is_race(boards: np.ndarray) -> np.ndarray:
    """Whether each position is a race (no contact possible any more).

    A race: both bars are empty and every one of the mover's checkers lies on a lower
    point (mover's numbering) than every one of the opponent's checkers. A side with no
    checkers left on the board counts as passed. Symmetric: ``is_race(flip(b)) == is_race(b)``.

    boards : integer (N, 26) or (26,) -> bool (N,) (a numpy bool for a single board).
    """
    b = np.asarray(boards)
    single = b.ndim == 1
    if single:
        b = b[None]
    pts = b[:, 1:25]
    idx = np.arange(1, 25, dtype=np.int16)
    mover_back = np.where(pts > 0, idx, 0).max(axis=1)  # 0 when none on the board
    opp_back = np.where(pts < 0, idx, 25).min(axis=1)  # 25 when none on the board
    race = (b[:, MOVER_BAR] == 0) & (b[:, OPP_BAR] == 0) & (mover_back < opp_back)
    return race[0] if single else race


def check_not_over(position) -> None:
    """Raise if the game of ``position`` is over: the one game-over check of a decision.

    Parameters
    ----------
    position : bgrl.rules.board.Position
        The position before a decision, from the side on roll.

    Raises
    ------
    ValueError
        When either side has borne off all 15 checkers (no decision is left to make); the
        message names the Position ID.
    """
    mover_off, opp_off = borne_off(np.asarray(position.board))
    if int(mover_off) == NUM_CHECKERS or int(opp_off) == NUM_CHECKERS:
        raise ValueError(f"the game is over in position {position.position_id}: "
                         f"one side has borne off all {NUM_CHECKERS} checkers")
