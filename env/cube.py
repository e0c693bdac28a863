"""The doubling cube in the environments (option ``cube=True``): actions, features, info.

The cube and the match score of the environments of :mod:`bgrl.env.backgammon` and
:mod:`bgrl.env.pettingzoo` are a :class:`bgrl.rules.match.Match`, the one cube-and-score
state machine of bgrl (the double -> take / pass exchange, the Crawford game, a dead cube, the
cap, the points of a result): :func:`cube_match` makes one, :func:`next_cube_game` starts each
game, and this module reads the observation units (:func:`cube_features`) and
``info["cube"]`` (:func:`cube_info`) from it. Nothing here changes the default cubeless
environments.

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

from bgrl.rules.match import Match, MatchRules, other

__all__ = ["CUBE_ACTIONS", "CUBE_FEATURES", "JanowskiCube", "check_cube_options", "cube_match", "next_cube_game",
           "cube_features", "cube_info"]

CUBE_ACTIONS = ("no double", "double", "take", "pass")
CUBE_FEATURES = 10
MAX_MATCH = 25


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


def cube_match(match_length: int) -> Match:
    """A new :class:`bgrl.rules.match.Match` for an environment: money play (``match_length``
    0; no Jacoby rule, no beavers) or an N-point match, at 0-0 with its first game in play."""
    return Match(MatchRules(match_length=int(match_length)))


def next_cube_game(match: Match | None, new_match: bool = False) -> Match:
    """The match of the environment's next game (its ``reset``): a new match (:func:`cube_match`)
    when asked, in money play (each money game is scored alone) or when the match is over;
    else the same match with its next game in play (:meth:`Match.next_game`, the Crawford game
    when a side has just reached N-1), or the game in play started again when it had not ended
    (:meth:`Match.restart_game`)."""
    if match is None or new_match or not match.rules.is_match or match.over:
        return cube_match(0 if match is None else match.rules.match_length)
    match.restart_game()
    return match


def cube_features(match: Match, side: str, phase: str) -> np.ndarray:
    """float32 (CUBE_FEATURES,) from ``side`` (module docstring); phase 'play', 'decide' or 'answer'."""
    f = np.zeros(CUBE_FEATURES, dtype=np.float32)
    f[0] = np.log2(match.cube_value) / 15.0
    owner = match.cube_owner
    f[1 + (0 if owner is None else 1 if owner == side else 2)] = 1.0
    n = match.rules.match_length
    if n:
        f[4] = match.away(side) / MAX_MATCH
        f[5] = match.away(other(side)) / MAX_MATCH
        one_away = max(match.score.values()) == n - 1
        f[6] = float(match.crawford)
        f[7] = float(one_away and not match.crawford)
    f[8] = float(phase == "decide")
    f[9] = float(phase == "answer")
    return f


def cube_info(match: Match) -> dict:
    """``info["cube"]``: ``value``, ``owner`` (a colour or None), ``match_length`` (0 money),
    ``score`` (colour -> points: in a match the points won, at most N; in money play the
    game's points, + for the winner and - for the loser), ``crawford``, ``match_over``."""
    return {"value": match.cube_value, "owner": match.cube_owner, "match_length": match.rules.match_length,
            "score": dict(match.score), "crawford": match.crawford, "match_over": match.over}


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
