"""A single money game with colours, for the terminal game and the environments.

The engine works from the side on roll; this class adds the user-facing edge: which colour
is on roll (White takes the first turn, docs/rules.md), the game's end by bearing off,
resignation or agreed draw, and the points each colour scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.board import START_BOARD, Position, flip
from bgrl.rules.movegen import generate
from bgrl.rules.dice import validate_dice
from bgrl.rules.outcome import RESULT_VALUES, game_result

__all__ = ["Game", "GameOver", "WHITE", "BLACK", "RESIGN_VALUES", "MAX_PLIES"]

WHITE, BLACK = "white", "black"
RESIGN_VALUES = RESULT_VALUES  # single/gammon/backgammon -> 1/2/3 (bgrl.rules.outcome)

#: The bound on the plies (turns, passes included) of one game, for every loop that plays a
#: game forward (sessions, matches, rollouts): a real game lasts about 60 plies, and one that
#: runs past this ends with a RuntimeError rather than spinning. Dead-locked set-ups, where
#: no side can ever move, are refused earlier, by :func:`bgrl.rules.board.validate_board`.
MAX_PLIES = 2000


@dataclass(frozen=True)
class GameOver:
    """How a game ended. winner is WHITE, BLACK or None (agreed draw); points >= 0."""

    winner: str | None
    points: int
    how: str  # "bear-off", "resign" or "draw"

    def points_for(self, colour: str) -> int:
        if self.winner is None:
            return 0
        return self.points if self.winner == colour else -self.points


class Game:
    """Mutable game state. ``board`` is from the side on roll (int8 (26,))."""

    def __init__(self, board: np.ndarray | None = None, white_on_roll: bool = True):
        self.board = (START_BOARD if board is None else Position(board).board).copy()
        self.white_on_roll = white_on_roll
        self.over: GameOver | None = None
        self.plies = 0

    @property
    def on_roll(self) -> str:
        return WHITE if self.white_on_roll else BLACK

    @property
    def position(self) -> Position:
        return Position(self.board)

    def after_states(self, dice) -> np.ndarray:
        """Legal after-states (k, 26) for the roll; one row equal to the board = pass."""
        d = validate_dice(dice)
        return generate(self.board[None], np.array([d], dtype=np.int8)).group(0)

    def apply(self, after_state: np.ndarray, dice) -> GameOver | None:
        """Play the after-state (must be legal for ``dice``) and pass the turn.

        Raises ValueError if the game is over or the after-state is not legal; RuntimeError
        once the game has run :data:`MAX_PLIES` plies.
        """
        if self.over is not None:
            raise ValueError("the game is over")
        if self.plies >= MAX_PLIES:
            raise RuntimeError(f"the game exceeded {MAX_PLIES} plies; it is stopped rather than played on")
        legal = self.after_states(dice)
        a = np.asarray(after_state, dtype=np.int8)
        if not (legal == a[None]).all(axis=1).any():
            raise ValueError("illegal play: the after-state is not one of the legal plays for this roll")
        res = game_result(a)
        mover = self.on_roll
        self.plies += 1
        if res:
            self.board = a.copy()
            self.over = GameOver(mover, res, "bear-off")
            return self.over
        self.board = flip(a)
        self.white_on_roll = not self.white_on_roll
        return None

    def resign(self, colour: str, value: str | int = "single") -> GameOver:
        """``colour`` resigns; the other side wins ``value`` (single/gammon/backgammon or 1-3)."""
        if self.over is not None:
            raise ValueError("the game is over")
        pts = RESIGN_VALUES.get(value, value) if isinstance(value, str) else int(value)
        if pts not in (1, 2, 3):
            raise ValueError(f"resignation value must be single, gammon or backgammon (1-3), got {value!r}")
        if colour not in (WHITE, BLACK):
            raise ValueError(f"colour must be 'white' or 'black', got {colour!r}")
        self.over = GameOver(BLACK if colour == WHITE else WHITE, int(pts), "resign")
        return self.over

    def agree_draw(self) -> GameOver:
        """End the game as an agreed draw (no points)."""
        if self.over is not None:
            raise ValueError("the game is over")
        self.over = GameOver(None, 0, "draw")
        return self.over
