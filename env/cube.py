"""The doubling cube in the environments (option ``cube=True``): actions, features, info.

The cube and the match score of the environments of :mod:`bgrl.env.backgammon` and
:mod:`bgrl.env.pettingzoo` are a :class:`bgrl.rules.match.Match`, the one cube-and-score
state machine of bgrl (the double -> take / pass exchange, the Crawford game, a dead cube, the
cap, the points of a result): :func:`cube_match` makes one, :func:`next_cube_game` starts each
game, and this module reads the observation units (:func:`cube_features`) and
``info["cube"]`` (:func:`cube_info`) from it. Nothing here changes the default cubeless
environments.

Cube actions come after the :data:`bgrl.env.common.MAX_PLAYS` play indices:
``MAX_PLAYS + i`` is :data:`CUBE_ACTIONS` ``[i]``: ``no double`` (roll), ``double``,
``take``, ``pass``. The observation gains :data:`CUBE_FEATURES` float32 units in [0, 1],
from the acting side: ``log2(cube value) / 15``, the owner one-hot (centred, the acting
side, its opponent), the points each side still needs divided by 25 (0 in a money game),
Crawford game, post-Crawford game, and the phase (a cube decision before the roll; answering
a double).

:class:`JanowskiCube` is a built-in opponent's cube play (moved here from
:mod:`bgrl.env.backgammon`, which still exports it). :class:`CubeMode` is the cube's plumbing in
the single environments of :mod:`bgrl.env.backgammon` (as :class:`bgrl.env.checker.CheckerMode`
is checker mode's): the match, the spaces with the cube actions, the cube steps and the games they
end.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from bgrl.env.common import BLACK, MAX_PASSES, MAX_PLAYS, WHITE, LegalPlaySpace, action_index, feature_bounds
from bgrl.rules.board import Position
from bgrl.rules.match import Match, MatchRules, other

__all__ = ["CUBE_ACTIONS", "CUBE_FEATURES", "CubeMode", "JanowskiCube", "check_cube_options", "cube_match",
           "next_cube_game", "cube_features", "cube_info"]

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


class CubeMode:
    """The cube (``cube=True``) in the single environments (:mod:`bgrl.env.backgammon`): the
    match (``_table``, a :class:`~bgrl.rules.match.Match`, None when cubeless), the phase of the
    turn, the spaces with the :data:`CUBE_ACTIONS`, and the cube steps. ``_advance_cube``,
    ``_cube_step``, ``_end`` and ``_scored`` play against the built-in opponent
    (``bgrl/Backgammon-v0``); ``_self_play_cube_step`` is self-play's cube step. The environment
    gives the rolls, the generator and the turns (``_roll``, ``_generate``, ``_set_turn``,
    ``_pass``, ``_apply``, ``_check_not_over``)."""

    _table = None  # the game's bgrl.rules.match.Match when the cube is in play
    _phase = "play"  # "play", "decide" (a cube decision before the roll) or "answer" (a double offered)
    _first_turn = True

    def _init_cube(self, cube, match_length, encoder) -> None:
        self.cube, self.match_length = check_cube_options(cube, match_length)
        self._table = cube_match(self.match_length) if self.cube else None
        if self.cube:
            low, high = feature_bounds(encoder)
            low = np.concatenate([low, np.zeros(CUBE_FEATURES, dtype=np.float32)])
            high = np.concatenate([high, np.ones(CUBE_FEATURES, dtype=np.float32)])
            self.observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
            self.action_space = LegalPlaySpace(MAX_PLAYS + 4)

    def _cube_phase(self, phase: str) -> None:
        """Enter a cube step ('decide' or 'answer'): no dice, the two cube actions legal."""
        self._phase = phase
        self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
        self.action_space._legal_count = None
        lo = MAX_PLAYS + (0 if phase == "decide" else 2)
        self.action_space._legal_choices = np.array([lo, lo + 1])

    def _roll_once(self) -> bool:
        """Roll for the side on roll: True with its play to make, False (turn passed) otherwise."""
        self._first_turn = False
        dice = self._roll()
        after = self._generate(dice)
        if after.dice_used[0]:
            self._phase = "play"
            self._set_turn(dice, after)
            return True
        self._pass()
        return False

    def _check_cube_action(self, action) -> int:
        self._check_not_over()
        lo = MAX_PLAYS + (0 if self._phase == "decide" else 2)
        names = ("no double", "double") if self._phase == "decide" else ("take", "pass")
        what = "a cube decision before the roll" if self._phase == "decide" else "an answer to a double"
        msg = (f"this is {what}, so the action must be {lo} ({names[0]}) or {lo + 1} ({names[1]}) "
               "(info['action_mask'] marks them)")
        a = action_index(action, MAX_PLAYS + 4, expected="the actions", illegal=lambda a, k: f"illegal action {a}: {msg}")
        if a not in (lo, lo + 1):
            raise ValueError(f"illegal action {a}: {msg}")
        return a

    # ---------------------------------------------------------------- against the built-in opponent
    def _end(self, gs) -> float:
        """The game ends by a pass (``gs``: the match's GameScore of it); the agent's reward."""
        self._over, self._winner, self._points = True, gs.winner, gs.points
        self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
        self._phase = "play"
        return float(gs.points if gs.winner == self._agent else -gs.points)

    def _scored(self, pts: int) -> float:
        """Points of a finished play (the match scores the result at the cube); the agent's reward."""
        self._points = self._table.end_game(self._winner, pts).points
        return float(self._points if self._winner == self._agent else -self._points)

    def _advance_cube(self) -> float:
        """With the cube: play on until the agent acts (a cube step or a play) or the game ends."""
        for _ in range(MAX_PASSES):
            side = self._on_roll
            may = not self._first_turn and self._table.may_double(side)
            if side == self._agent:
                if may:
                    self._cube_phase("decide")
                    return 0.0
                if self._roll_once():
                    return 0.0
                continue
            if may and self.opponent_cube.doubles(Position(self._board), self._table.cube_for(side)):
                self._table.offer(side)
                self._cube_phase("answer")
                return 0.0
            self._first_turn = False
            dice = self._roll()
            after = self._generate(dice)
            if not after.dice_used[0]:
                self._pass()
                continue
            k = int(self.opponent.select(after, self.np_random)[0])
            pts = self._apply(after.boards[k])
            if pts:
                return self._scored(pts)
        raise RuntimeError("no side could move for 1000 consecutive rolls")  # pragma: no cover

    def _cube_step(self, a: int) -> float:
        """The agent's cube action ``a`` (checked); its reward."""
        other_side = BLACK if self._agent == WHITE else WHITE
        if self._phase == "decide":
            if a == MAX_PLAYS:  # no double: roll
                return 0.0 if self._roll_once() else self._advance_cube()
            cube = self._table.offer(self._agent)
            if not self.opponent_cube.takes(Position(self._board), cube):
                return self._end(self._table.answer(other_side, "pass"))
            self._table.answer(other_side, "take")
            return 0.0 if self._roll_once() else self._advance_cube()
        if a == MAX_PLAYS + 3:  # the agent passes the opponent's double
            return self._end(self._table.answer(self._agent, "pass"))
        self._table.answer(self._agent, "take")
        self._phase = "play"
        # the opponent, who doubled, now rolls and plays
        self._first_turn = False
        dice = self._roll()
        after = self._generate(dice)
        if not after.dice_used[0]:
            self._pass()
            return self._advance_cube()
        k = int(self.opponent.select(after, self.np_random)[0])
        pts = self._apply(after.boards[k])
        return self._scored(pts) if pts else self._advance_cube()

    # ---------------------------------------------------------------- self-play
    def _self_play_cube_step(self, a: int) -> float:
        """Self-play: the acting side's cube action ``a`` (checked); its reward."""
        if self._phase == "decide":
            if a == MAX_PLAYS:  # no double: roll
                if not self._roll_once():
                    self._next_turn()
            else:
                self._table.offer(self._on_roll)
                self._cube_phase("answer")
        elif a == MAX_PLAYS + 2:  # take: the doubler rolls
            self._table.answer(self._actor, "take")
            if not self._roll_once():
                self._next_turn()
        else:  # pass: the doubler wins the cube value
            gs = self._table.answer(self._actor, "pass")
            self._over, self._winner, self._points = True, gs.winner, gs.points
            self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
            self._phase = "play"
            return -float(gs.points)
        return 0.0
