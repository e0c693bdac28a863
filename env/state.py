"""Start from any position, choose the dice, copy a game: what search (expectimax, MCTS) and
curricula need from the environments.

- ``reset(options={"position": ID_or_XGID, "dice": [d1, d2]})`` in every environment:
  :func:`reset_position` reads the options with :func:`bgrl.rules.xgid.read_position`, the
  one reader of typed positions (a gnubg Position ID or an XGID, from the side on roll).
  A position where neither side can ever move (:class:`bgrl.rules.board.DeadPositionError`),
  an unreadable one, or a finished game is a ``ValueError`` (one line) raised before the
  environment changes.
- :class:`SearchMixin` gives the single environments (``env.unwrapped``) ``set_dice``
  (the roll the side on roll plays now), ``set_next_dice`` (the rolls thrown next, inside
  ``step``: the opponent's and the following ones) and ``clone_state`` /
  ``restore_state`` (a deep copy of the game, dice stream and random generators included).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from bgrl.rules.board import DeadPositionError, Position, borne_off
from bgrl.rules.dice import parse_dice, validate_dice
from bgrl.rules.xgid import read_position

__all__ = ["POSITION_OPTIONS", "EnvState", "StateCopy", "SearchMixin", "reset_position", "reset_positions"]

#: The reset options every environment takes for a chosen start.
POSITION_OPTIONS = ("position", "dice")


def _board_of(value, what: str) -> np.ndarray:
    """The board (int8 (26,), side on roll) and dice of one ``position`` option value."""
    if isinstance(value, Position):
        pos, dice = value, None
    elif isinstance(value, str):
        try:
            pos, dice = read_position(value)
        except DeadPositionError as e:
            raise ValueError(f"reset option {what} {value!r:.60} is a dead position: {e}") from None
        except ValueError as e:
            raise ValueError(f"reset option {what} {value!r:.60} cannot be read: {e}") from None
    else:
        raise ValueError(f"reset option {what} must be a gnubg Position ID or an XGID (str) or a "
                         f"bgrl.rules.board.Position, got {type(value).__name__} {value!r:.60}")
    mover_off, opp_off = borne_off(pos.board)
    if int(mover_off) == 15 or int(opp_off) == 15:
        raise ValueError(f"reset option {what} {value!r:.60} is a finished game (a side has borne off its 15 checkers); "
                         "expected a position a game can go on from")
    return pos.board.copy(), dice


def _dice_of(value, what: str) -> tuple[int, int]:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    try:
        return parse_dice(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"reset option {what} must be a pair of ints 1..6 such as [3, 1], got {value!r:.60} ({e})") from None


def reset_position(options: dict) -> tuple[np.ndarray | None, tuple[int, int] | None]:
    """``(board, dice)`` from ``options["position"]`` and ``options["dice"]`` (either may be
    absent: None). ``board`` is int8 (26,) from the side on roll; ``dice`` the first roll of the
    game, else the XGID's dice, else None (rolled as usual). ValueError (one line) otherwise."""
    board = dice = None
    if options.get("position") is not None:
        board, dice = _board_of(options["position"], "'position'")
    if options.get("dice") is not None:
        dice = _dice_of(options["dice"], "'dice'")
    return board, dice


def reset_positions(options: dict, n: int) -> tuple[list, list]:
    """:func:`reset_position` for the N games of a vector env: each option is one value for
    all games or a list/tuple of N values (None: that game starts as usual). Returns two lists of
    N items (board or None, dice or None)."""
    def per_game(key, single):
        v = options.get(key)
        if v is None:
            return [None] * n
        if isinstance(v, (list, tuple)) and len(v) == n and not single(v):
            return list(v)
        return [v] * n  # one value for every game (checked below)

    positions = per_game("position", lambda v: isinstance(v, (str, Position)))
    dice = per_game("dice", lambda v: isinstance(v, str) or (isinstance(v, (list, tuple, np.ndarray)) and len(v) == 2
                                                            and all(isinstance(x, (int, np.integer)) for x in v)))
    boards, rolls = [], []
    for i in range(n):
        b, d = _board_of(positions[i], f"'position'[{i}]") if positions[i] is not None else (None, None)
        if dice[i] is not None:
            d = _dice_of(dice[i], f"'dice'[{i}]")
        boards.append(b)
        rolls.append(d)
    return boards, rolls


@dataclass(frozen=True)
class EnvState:
    """A copy of one environment's game (:meth:`SearchMixin.clone_state`); opaque: give it back
    to :meth:`SearchMixin.restore_state` of an environment of the same kind."""

    kind: str
    data: dict


class StateCopy:
    """``clone_state`` / ``restore_state``: copies of an environment's game (single and vector envs)."""

    #: attributes a copy shares with the environment instead of copying (immutable or configuration)
    _shared_attrs = frozenset({"opponent", "opponent_cube", "observation_space", "action_space", "spec", "metadata",
                               "render_mode", "encoder", "notation", "agent_color", "cube", "match_length",
                               "action_mode", "single_observation_space", "single_action_space", "self_play", "num_envs"})

    def clone_state(self) -> EnvState:
        """A deep copy of the game: board, side on roll, dice and legal plays, the dice stream's
        place, the queued rolls, the cube, checker-mode progress and the random generators
        (``np_random``, the action space's), so that a restored copy plays on exactly as this
        one would. The opponent and the spaces are shared, not copied."""
        data = {k: copy.deepcopy(v) for k, v in vars(self).items() if k not in self._shared_attrs}
        space = self.action_space
        data["__space__"] = copy.deepcopy({k: getattr(space, k) for k in ("_legal_count", "_legal_choices", "_np_random")
                                           if hasattr(space, k)})
        return EnvState(type(self).__name__, data)

    def restore_state(self, state: EnvState) -> None:
        """Put back a copy made by :meth:`clone_state` (the copy stays usable: restore it as often
        as needed). ValueError for a copy of another kind of environment."""
        if not isinstance(state, EnvState) or state.kind != type(self).__name__:
            got = state.kind if isinstance(state, EnvState) else type(state).__name__
            raise ValueError(f"restore_state takes an EnvState from {type(self).__name__}.clone_state(), got {got}")
        data: dict[str, Any] = copy.deepcopy(state.data)
        for k, v in data.pop("__space__").items():
            setattr(self.action_space, k, v)
        self.__dict__.update(data)


class SearchMixin(StateCopy):
    """Dice and copies for search, for the single environments (``env.unwrapped``)."""

    _dice_queue: tuple = ()

    def _queued_roll(self) -> np.ndarray | None:
        """The next roll set by :meth:`set_next_dice` or a reset option (int8 (2,)), or None."""
        if not self._dice_queue:
            return None
        first, self._dice_queue = self._dice_queue[0], self._dice_queue[1:]
        return np.array(first, dtype=np.int8)

    def set_next_dice(self, *rolls) -> None:
        """The next rolls of the game, in order, before the dice stream resumes: the rolls thrown
        inside the following ``step`` calls (the opponent's roll, then the agent's, and so on;
        a roll with no legal play uses one up too). ``set_next_dice((6, 5), (3, 1))``; with no
        argument the queue is emptied. The stream is not advanced by these rolls; a ``reset``
        empties the queue. ValueError for anything but pairs of ints 1..6."""
        try:
            self._dice_queue = tuple(validate_dice(r) for r in rolls)
        except (TypeError, ValueError) as e:
            raise ValueError(f"set_next_dice takes pairs of ints 1..6 such as (6, 5), got {rolls!r:.60} ({e})") from None

    def set_dice(self, d1: int, d2: int):
        """Make the side on roll play ``d1``-``d2`` instead of the roll it was shown; returns
        ``(obs, info)`` with its legal plays (and, in checker mode, the new mask).

        For expectimax over the 21 rolls: ``s = env.unwrapped.clone_state()``, then per roll
        ``restore_state(s)``, ``set_dice(d1, d2)``. ValueError (one line) when the game is over,
        in a cube step, after a checker move of this turn (checker mode), or when the roll has
        no legal play (then the turn would pass: the after-state is the position itself).
        """
        self._check_not_over()
        if self._phase != "play":
            raise ValueError(f"set_dice: this is a cube step ({self._phase!r}), not a roll")
        if getattr(self, "_checker", None) is not None and self._checker.moves_made[0]:
            raise ValueError("set_dice: a checker has already moved this turn; set the dice before the first step of the turn")
        try:
            dice = np.array(validate_dice((d1, d2)), dtype=np.int8)
        except (TypeError, ValueError) as e:
            raise ValueError(f"set_dice takes two ints 1..6, got {d1!r}, {d2!r} ({e})") from None
        after = self._generate(dice)
        if not after.dice_used[0]:
            raise ValueError(f"set_dice: the roll {int(dice.max())}-{int(dice.min())} has no legal play here "
                             "(the turn would pass; the position itself is the after-state)")
        self._set_turn(dice, after)
        return self._obs(), self._info()
