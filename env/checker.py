"""The fixed-meaning action mode, ``action_mode="checker"``: one checker moved by one die per step.

In the default mode (``action_mode="play"``) an action is an index into the roll's list of
legal plays, so its meaning changes every turn. In checker mode every action always means the
same thing, as in OpenSpiel and pgx:

    action = 6 * source + (die - 1)          ``Discrete(156)``: 26 sources x 6 dice

``source`` is the mover's point in its own numbering: 1..24 a point, 25 the bar (0, the
opponent's bar, is never legal); ``die`` the die played (1..6). The checker goes to
``source - die`` (0 or less: borne off), hitting a blot there. :func:`checker_action` and
:func:`checker_move` convert.

A turn is as many steps as the roll's plays have checker moves (``dice_used``: 1 or 2 for a
non-double, up to 4 for a double); the turn passes when the roll is used up. The mask marks
exactly the steps that begin (continue) a legal full play: a step is legal when the checker
move is legal and the dice left can still all be played afterwards (for a double: the
:func:`bgrl.rules.movegen.generate` count of the moves still possible), with the
higher-die rule when only one die of a non-double can be played. So the full plays reachable
step by step are exactly the generator's legal plays of the roll (tested on the golden rules
cases of ``tests/rules/test_movegen.py`` and on random positions).

An action of ``Discrete(156)`` that the mask rules out ends the game in the single environments
(:class:`CheckerMode`): the side that played it loses a single game (1 point, reward -1 to it;
``info["illegal_action"]`` names the action), as in pgx. So every action of the space is a
valid input to ``step`` (gymnasium's ``check_env`` plays an action sampled in another state),
and a learner without masks is told what it did. Anything outside the space (another integer, a
float, an array) raises ``ValueError``; the vector environment and the PettingZoo environment
refuse a masked-out action with ``ValueError`` too.

The observation gains :data:`DICE_FEATURES` units: how many dice of each face (1..6) are left
to play this turn (0..4), so the dice are in the observation.

:class:`CheckerTurns` keeps the turns in progress of N games as arrays (no loop over games): the
single environments use it with N = 1, the vector environment with N games.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import MOVER_BAR, OPP_BAR, flip
from bgrl.rules.movegen import generate
from bgrl.env.common import LegalPlaySpace, action_index, feature_bounds

__all__ = ["ACTION_MODES", "CHECKER_ACTIONS", "DICE_FEATURES", "FORFEIT", "CheckerTurns", "checker_action",
           "checker_move", "check_action_mode", "single_moves"]

ACTION_MODES = ("play", "checker")
#: ``Discrete(CHECKER_ACTIONS)``: 26 sources (0..25) x 6 dice.
CHECKER_ACTIONS = 26 * 6
#: Units appended to the observation in checker mode: the dice left per face 1..6 (0..4).
DICE_FEATURES = 6
#: What :meth:`CheckerMode._checker_step` returns for an action the mask rules out (the game is lost).
FORFEIT = "forfeit"
_SRC = np.arange(26)


def check_action_mode(action_mode, cube: bool = False) -> str:
    """``action_mode`` checked: ``"play"`` or ``"checker"`` (cubeless only). ValueError otherwise."""
    if action_mode not in ACTION_MODES:
        raise ValueError(f"action_mode must be 'play' (an index into the roll's plays) or 'checker' (one checker, one die "
                         f"per step), got {action_mode!r}")
    if action_mode == "checker" and cube:
        raise ValueError("action_mode='checker' is cubeless: use cube=False (or action_mode='play' with the cube)")
    return action_mode


def checker_action(source: int, die: int) -> int:
    """The checker-mode action moving a checker from ``source`` (1..24, 25 = the bar) by ``die``."""
    return 6 * int(source) + int(die) - 1


def checker_move(action: int) -> tuple[int, int]:
    """``(source, die)`` of a checker-mode action (inverse of :func:`checker_action`)."""
    source, d = divmod(int(action), 6)
    return source, d + 1


def single_moves(boards: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Which sources may move a checker by one die: bool ``(R, 26)`` for boards int8 ``(R, 26)``
    (mover's view) and faces int ``(R,)`` 1..6 (docs/rules.md, one die at a time: a checker on the bar
    enters first; no landing on two or more opposing checkers; bearing off with every checker
    home, an exact die from its point, a larger die only from the highest point)."""
    b = boards.astype(np.int16)
    r = b.shape[0]
    dst = _SRC[None, :] - faces.astype(np.int64)[:, None]  # (R, 26)
    has = b > 0
    has[:, OPP_BAR] = False
    on_bar = b[:, MOVER_BAR] > 0
    has[on_bar, :MOVER_BAR] = False
    land = np.take_along_axis(b, np.clip(dst, 1, 24), axis=1) >= -1
    home = ~(b[:, 7:26] > 0).any(axis=1)
    occupied = b[:, 1:7] > 0
    highest = np.where(occupied.any(axis=1), 6 - np.argmax(occupied[:, ::-1], axis=1), 0)  # highest home point held
    bear = home[:, None] & ((dst == 0) | ((dst < 0) & (_SRC[None, :] == highest[:, None])))
    return has & np.where(dst >= 1, land, bear) if r else np.zeros((0, 26), dtype=bool)


def apply_moves(boards: np.ndarray, sources: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The boards after moving one checker from ``sources`` by ``faces`` (legal moves), int8 copies."""
    new = boards.astype(np.int8, copy=True)
    rows = np.arange(new.shape[0])
    new[rows, sources] -= 1
    dst = sources - faces
    on = dst >= 1
    r_on, d_on = rows[on], dst[on]
    hit = new[r_on, d_on] == -1
    new[r_on, d_on] += 1
    new[r_on[hit], d_on[hit]] = 1
    new[r_on[hit], OPP_BAR] -= 1
    return new


class CheckerTurns:
    """The turns in progress of N games, one checker move per step.

    ``boards`` int8 (N, 26): the board so far (mover's view); ``left`` int8 (N, 6): dice left
    per face; ``moves_made`` (N,); ``mask`` bool (N, CHECKER_ACTIONS) (all False for a game not
    in a turn).
    """

    def __init__(self, n: int):
        self.boards = np.zeros((n, 26), dtype=np.int8)
        self.left = np.zeros((n, 6), dtype=np.int8)
        self.moves_made = np.zeros(n, dtype=np.int64)
        self.mask = np.zeros((n, CHECKER_ACTIONS), dtype=bool)

    def start(self, games: np.ndarray, boards: np.ndarray, dice: np.ndarray, dice_used: np.ndarray) -> None:
        """Begin the turns of ``games`` (int (G,)): boards int8 (G, 26) from the mover's side,
        dice (G, 2) and the generator's ``dice_used`` (G,) (>= 1: rolls with no play pass)."""
        games = np.asarray(games, dtype=np.int64)
        dice = np.asarray(dice, dtype=np.int64)
        used = np.asarray(dice_used, dtype=np.int64)
        hi, lo = dice.max(axis=1), dice.min(axis=1)
        left = np.zeros((games.size, 6), dtype=np.int8)
        rows = np.arange(games.size)
        dbl = hi == lo
        left[rows[dbl], hi[dbl] - 1] = used[dbl]
        both = ~dbl & (used >= 2)
        left[rows[both], hi[both] - 1] = 1
        left[rows[both], lo[both] - 1] = 1
        one = ~dbl & (used == 1)
        if one.any():  # one die of a non-double: the higher one when it can be played (docs/rules.md)
            hi_ok = single_moves(boards[one], hi[one]).any(axis=1)
            left[rows[one], np.where(hi_ok, hi[one], lo[one]) - 1] = 1
        self.boards[games] = boards
        self.left[games] = left
        self.moves_made[games] = 0
        self._refresh(games)

    def stop(self, games: np.ndarray) -> None:
        """No turn in progress for ``games`` (the game ended or waits)."""
        self.left[games] = 0
        self.mask[games] = False

    def _refresh(self, games: np.ndarray) -> None:
        """The masks of ``games``: legal single moves after which the dice left can all be played."""
        self.mask[games] = False
        g, f = np.nonzero(self.left[games] > 0)
        if g.size == 0:
            return
        gi, faces = games[g], f + 1
        legal = single_moves(self.boards[gi], faces)
        r, src = np.nonzero(legal)
        if r.size == 0:
            return
        rest = self.left[gi[r]].astype(np.int64)
        rest[np.arange(r.size), faces[r] - 1] -= 1
        need = rest.sum(axis=1)  # dice left after this move: all of one face
        ok = need == 0
        todo = np.flatnonzero(need > 0)
        if todo.size:
            child = apply_moves(self.boards[gi[r[todo]]], src[todo], faces[r[todo]])
            nxt = np.argmax(rest[todo] > 0, axis=1) + 1
            one = need[todo] == 1
            can = np.zeros(todo.size, dtype=bool)
            if one.any():
                can[one] = single_moves(child[one], nxt[one]).any(axis=1)
            if (~one).any():  # two or more of a double: the generator's count of the moves possible
                many = generate(child[~one], np.repeat(nxt[~one], 2).reshape(-1, 2), validate=False)
                can[~one] = many.dice_used >= need[todo][~one]
            ok[todo] = can
        self.mask[gi[r[ok]], 6 * src[ok] + faces[r[ok]] - 1] = True

    def apply(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Play one legal action per game of ``games``; returns bool (G,): True where the roll is
        used up (``boards[games]`` is then the after-state of the full play, and the turn ends)."""
        games = np.asarray(games, dtype=np.int64)
        src, d = np.divmod(np.asarray(actions, dtype=np.int64), 6)
        self.boards[games] = apply_moves(self.boards[games], src, d + 1)
        self.left[games, d] -= 1
        self.moves_made[games] += 1
        done = self.left[games].sum(axis=1) == 0
        self.mask[games[done]] = False
        if (~done).any():
            self._refresh(games[~done])
        return done

    def features(self, games=None) -> np.ndarray:
        """The dice left per face, float32 (G, 6) (the observation's last units)."""
        left = self.left if games is None else self.left[games]
        return left.astype(np.float32)

    def illegal(self, game: int, action: int) -> str:
        """A one-line reason why ``action`` is not legal now in ``game`` (for ValueError messages)."""
        src, die = checker_move(action) if 0 <= action < CHECKER_ACTIONS else (None, None)
        dice = [f + 1 for f in range(6) for _ in range(int(self.left[game, f]))]
        legal = [f"{checker_move(a)[0]}/{checker_move(a)[1]}" for a in np.flatnonzero(self.mask[game])]
        what = f"source {src}, die {die}" if src is not None else f"outside 0..{CHECKER_ACTIONS - 1}"
        return (f"illegal checker action {action} ({what}): dice left {dice}, legal (source/die): "
                f"{' '.join(legal) or 'none'}; action = 6 * source + die - 1")


class CheckerMode:
    """Checker-mode plumbing of the single environments (:mod:`bgrl.env.backgammon`): one
    :class:`CheckerTurns` of one game, its spaces, and the step of one checker."""

    _checker: CheckerTurns | None = None
    action_mode = "play"

    def _init_checker(self, action_mode) -> None:
        from gymnasium import spaces

        self.action_mode = check_action_mode(action_mode, getattr(self, "cube", False))
        if self.action_mode != "checker":
            return
        self._checker = CheckerTurns(1)
        low, high = feature_bounds(self.encoder)
        self.observation_space = spaces.Box(low=np.concatenate([low, np.zeros(DICE_FEATURES, np.float32)]),
                                            high=np.concatenate([high, np.full(DICE_FEATURES, 4, np.float32)]), dtype=np.float32)
        self.action_space = LegalPlaySpace(CHECKER_ACTIONS)

    def _checker_start(self) -> None:
        """A new roll to play (``_set_turn``): the turn's first steps."""
        t = self._checker
        t.start(np.zeros(1, np.int64), self._board[None], np.array([self._dice]), np.array([self._dice_used]))
        self.action_space._legal_count = None
        self.action_space._legal_choices = np.flatnonzero(t.mask[0])

    def _checker_step(self, action) -> np.ndarray | str | None:
        """Move one checker; the after-state of the full play when the roll is used up, else None;
        :data:`FORFEIT` (the game lost: :meth:`_forfeit`) for an action the mask rules out.
        ValueError for anything outside the action space, ResetNeeded when no game is on."""
        self._check_not_over()
        t = self._checker
        a = action_index(action, CHECKER_ACTIONS, expected="the checker actions (6 * source + die - 1)",
                         illegal=lambda a, k: t.illegal(0, a))
        if not t.mask[0, a]:
            self._forfeit(a)
            return FORFEIT
        if t.apply(np.zeros(1, np.int64), np.array([a]))[0]:
            return t.boards[0].copy()
        self.action_space._legal_choices = np.flatnonzero(t.mask[0])
        return None

    _illegal_action: int | None = None  # the masked-out action that lost the game (info["illegal_action"])

    def _forfeit(self, action: int) -> None:
        """The side on roll played ``action``, which the mask rules out: it loses a single game
        (1 point). The checkers it moved this turn go back; the board is kept from the winner's
        side, the winner "on roll" (as when a play ends the game)."""
        self._checker.stop(np.zeros(1, np.int64))
        self._board = flip(self._board)
        self._white_on_roll = not self._white_on_roll
        self._over, self._winner, self._points = True, self._on_roll, 1
        self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
        self._illegal_action = int(action)
