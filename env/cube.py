"""The doubling cube in the environments (option ``cube=True``): state, actions, features.

:class:`CubeTable` keeps the cube and the match score of one game (and of the match, over
games) for the environments of :mod:`bgrl.env.backgammon` and :mod:`bgrl.env.pettingzoo`;
the rules are :class:`bgrl.rules.cube.CubeState`'s (who may double, the Crawford game, the
cap). Nothing here changes the default cubeless environments.

Cube actions come after the :data:`bgrl.env.backgammon.MAX_PLAYS` play indices:
``MAX_PLAYS + i`` is :data:`CUBE_ACTIONS` ``[i]``: ``no double`` (roll), ``double``,
``take``, ``pass``. The observation gains :data:`CUBE_FEATURES` float32 units in [0, 1],
from the acting side: ``log2(cube value) / 15``, the owner one-hot (centred, the acting
side, its opponent), the points each side still needs divided by 25 (0 in a money game),
Crawford game, post-Crawford game, and the phase (a cube decision before the roll; answering
a double).

:class:`JanowskiCube` is a built-in opponent's cube play (moved here from
:mod:`bgrl.env.backgammon`, which still exports it).
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.cube import DEFAULT_MAX_CUBE, CubeState

__all__ = ["CUBE_ACTIONS", "CUBE_FEATURES", "CubeTable", "JanowskiCube", "check_cube_options"]

CUBE_ACTIONS = ("no double", "double", "take", "pass")
CUBE_FEATURES = 10
MAX_MATCH = 25
_SIDES = ("white", "black")


def check_cube_options(cube, match_length) -> tuple[bool, int]:
    """``(cube, match_length)`` checked: ``cube`` a bool, ``match_length`` an int 0..25 (0 =
    money) and only with ``cube=True``. ValueError (one line) otherwise."""
    if not isinstance(cube, (bool, np.bool_)):
        raise ValueError(f"cube must be True or False, got {cube!r}")
    if isinstance(match_length, bool) or not isinstance(match_length, (int, np.integer)) or not 0 <= match_length <= MAX_MATCH:
        raise ValueError(f"match_length must be an int 0..{MAX_MATCH} (0 = money game), got {match_length!r}")
    if match_length and not cube:
        raise ValueError("match_length needs cube=True (a match is played with the doubling cube)")
    return bool(cube), int(match_length)


class CubeTable:
    """Cube value and owner of the current game, and the match score.

    match_length : 0 for money games (each game is scored alone), else N: the score carries
    over from game to game (:meth:`new_game`) until a side has N points.
    """

    def __init__(self, match_length: int = 0, max_value: int = DEFAULT_MAX_CUBE):
        self.match_length = int(match_length)
        self.max_value = int(max_value)
        self.score = {"white": 0, "black": 0}
        self.crawford_done = False
        self.new_match()

    def new_match(self) -> None:
        self.score = {"white": 0, "black": 0}
        self.crawford_done = False
        self.crawford = False
        self._fresh()

    def _fresh(self) -> None:
        self.value = 1
        self.owner: str | None = None

    @property
    def match_over(self) -> bool:
        return bool(self.match_length) and max(self.score.values()) >= self.match_length

    def new_game(self) -> None:
        """The next game: a new match when there is none or the last one is over; the Crawford
        game when a side has just reached N-1 points for the first time."""
        if not self.match_length or self.match_over:
            self.new_match()
            return
        at = max(self.score.values()) == self.match_length - 1
        self.crawford = at and not self.crawford_done
        self.crawford_done = self.crawford_done or at
        self._fresh()

    def state(self, side: str) -> CubeState:
        """The CubeState from ``side`` (as if it were on roll)."""
        other = "black" if side == "white" else "white"
        owner = 0 if self.owner is None else (1 if self.owner == side else -1)
        score = (self.score[side], self.score[other]) if self.match_length else (0, 0)
        return CubeState(value=self.value, owner=owner, match_length=self.match_length, score=score,
                         crawford=self.crawford, max_value=self.max_value)

    def may_double(self, side: str) -> bool:
        return self.state(side).may_double()

    def take(self, taker: str) -> None:
        self.value *= 2
        self.owner = taker

    def finish(self, winner: str, points: int) -> int:
        """Score a game won by ``winner`` with ``points`` (1..3 for a play, the cube value for a
        pass: already multiplied); returns the points added to the match."""
        self.score[winner] += int(points)
        return int(points)

    def features(self, side: str, phase: str) -> np.ndarray:
        """float32 (CUBE_FEATURES,) from ``side`` (module docstring); phase 'play', 'decide' or 'answer'."""
        other = "black" if side == "white" else "white"
        f = np.zeros(CUBE_FEATURES, dtype=np.float32)
        f[0] = np.log2(self.value) / 15.0
        f[1 + (0 if self.owner is None else 1 if self.owner == side else 2)] = 1.0
        if self.match_length:
            f[4] = max(0, self.match_length - self.score[side]) / MAX_MATCH
            f[5] = max(0, self.match_length - self.score[other]) / MAX_MATCH
            one_away = max(self.score.values()) == self.match_length - 1
            f[6] = float(self.crawford)
            f[7] = float(one_away and not self.crawford)
        f[8] = float(phase == "decide")
        f[9] = float(phase == "answer")
        return f

    def as_dict(self) -> dict:
        return {"value": self.value, "owner": self.owner, "match_length": self.match_length,
                "score": dict(self.score), "crawford": self.crawford, "match_over": self.match_over}


class JanowskiCube:
    """A built-in opponent's cube play: Janowski's model on its evaluator at 0-ply
    (:func:`bgrl.agents.cube.cube_hint`), or, for an opponent without an evaluator, never
    double and always take (:meth:`for_agent`)."""

    def __init__(self, evaluator=None):
        self.evaluator = evaluator

    @classmethod
    def for_agent(cls, agent) -> "JanowskiCube":
        return cls(getattr(agent, "evaluator", None))

    def _decision(self, position, cube):
        from bgrl.agents.cube import cube_hint

        return cube_hint(self.evaluator, position, cube, 0)[0]

    def doubles(self, position, cube) -> bool:
        """Whether the side on roll of ``position`` doubles (cube from its side)."""
        if self.evaluator is None:
            return False
        return self._decision(position, cube).decision in ("double, take", "double, pass")

    def takes(self, position, cube) -> bool:
        """Whether the opponent of the doubler (on roll in ``position``) takes."""
        if self.evaluator is None:
            return True
        return bool(self._decision(position, cube).take)
