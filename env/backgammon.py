"""Gymnasium environments: ``bgrl/Backgammon-v0`` and ``bgrl/BackgammonSelfPlay-v0``.

Both are thin shells over the engine's one flow (DESIGN.md): the legal after-states of a
roll come from :func:`bgrl.rules.movegen.generate`, observations from :func:`bgrl.evaluation.encoding.encode`,
results from :func:`bgrl.rules.outcome.game_result`, the built-in opponent from
:func:`bgrl.agents.registry.load_agent`, text from :func:`bgrl.rules.render.render`. Nothing here re-implements
a rule.

An action is an index into the canonical list of the legal after-states of the rolled dice
(the order of ``generate(...).group(0)``; ``info["after_states"][i]`` is the position action
``i`` leads to and ``info["legal_plays"][i]`` its notation). The action space is
``Discrete(MAX_PLAYS)``; ``info["action_mask"]`` marks the legal indices (always a prefix
``0 .. k-1``). A roll with no legal play is never shown to the agent: the turn passes inside
``reset``/``step``.

Dice come from a counter-based stream (:mod:`bgrl.rules.dice`) keyed by the ``reset`` seed (an
unseeded reset continues it), so the vector env (:mod:`bgrl.env.vector`) can roll the same
dice for its game ``i`` when seeded ``s`` as this env seeded ``s + i``.

The two modes beside the default are mixins of their own modules: the doubling cube
(``cube=True``) :class:`bgrl.env.cube.CubeMode`, one checker per step (``action_mode="checker"``)
:class:`bgrl.env.checker.CheckerMode`. ``MAX_PLAYS`` and its derivation live in
:mod:`bgrl.env.common` (exported here too).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.dice import roll_dice, seed_keys
from bgrl.evaluation.encoding import ENCODER, encode
from bgrl.env.common import (BLACK, MAX_PASSES, MAX_PLAYS, MAX_PLAYS_DICE, MAX_PLAYS_POSITION_ID, WHITE,  # noqa: F401
                             AfterStateRows, LegalPlaySpace, ResetNeeded, batch_encoder, plays_of_one, action_index,
                             check_render_mode, check_reset_options, colour_arg, feature_bounds, load_opponent,
                             use_compiled_kernels)
from bgrl.env.checker import FORFEIT, CheckerMode
from bgrl.env.cube import CubeMode, JanowskiCube, cube_features, cube_info, next_cube_game
from bgrl.env.state import POSITION_OPTIONS, SearchMixin, reset_position
from bgrl.rules.movegen import AfterStates, generate
from bgrl.rules.render import render as render_board
from bgrl.rules.outcome import game_result

_MASKS = np.zeros(2 * MAX_PLAYS, dtype=np.int8)
_MASKS[:MAX_PLAYS] = 1  # _MASKS[MAX_PLAYS - k: 2 * MAX_PLAYS - k]: the action mask of k legal plays

__all__ = [
    "MAX_PLAYS",
    "MAX_PLAYS_POSITION_ID",
    "MAX_PLAYS_DICE",
    "LegalPlaySpace",
    "BackgammonEnv",
    "BackgammonSelfPlayEnv",
    "feature_bounds",
    "action_index",
    "check_render_mode",
    "JanowskiCube",
]


class _BackgammonBase(SearchMixin, CheckerMode, CubeMode, gym.Env):
    """Shared state and plumbing. The board is kept from the side on roll (engine convention)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 2}

    def __init__(self, render_mode: str | None = None, encoder: str = ENCODER, notation: bool = True):
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.encoder = encoder
        self.notation = bool(notation)
        low, high = feature_bounds(encoder)
        self.observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = LegalPlaySpace(MAX_PLAYS)
        self._board = START_BOARD.copy()
        self._white_on_roll = True
        self._dice: tuple[int, int] | None = None
        self._after: np.ndarray = np.zeros((0, 26), dtype=np.int8)
        self._over = True
        self._winner: str | None = None
        self._points = 0
        self._dice_key: np.ndarray | None = None  # uint64 stream key (bgrl.rules.dice)
        self._dice_count = 0  # rolls taken from the stream

    # ------------------------------------------------------------------ engine plumbing
    @property
    def _on_roll(self) -> str:
        return WHITE if self._white_on_roll else BLACK

    def _roll(self) -> np.ndarray:
        if self._dice_queue:  # set_next_dice / reset(options={"dice": ...}): the stream waits
            return self._queued_roll()
        # a counter-based stream (bgrl.rules.dice): game i of the vector env seeded s rolls the same
        # dice as this env seeded s + i, with no loop over games there; drawn 64 rolls at a time
        c, key = self._dice_count, int(self._dice_key)
        block = self._roll_block
        if block is None or block[0] != key or not block[1] <= c < block[1] + 64:
            block = self._roll_block = (key, c, roll_dice(np.full(64, key, dtype=np.uint64), np.arange(c, c + 64)))
        self._dice_count += 1
        return block[2][c - block[1]].copy()

    _roll_block = None  # (key, first count, int8 (64, 2) rolls) of the stream

    def _generate(self, dice: np.ndarray) -> AfterStates:
        return generate(self._board[None], dice[None], validate=False)  # boards come from the engine

    def _apply(self, after: np.ndarray) -> int:
        """Play ``after`` for the side on roll; return the points it wins (0 = game goes on)."""
        # checkers left: the game goes on (the max of a list: cheaper than numpy's for 26 values)
        res = 0 if max(after.tolist()) > 0 else game_result(after)
        if res:
            self._board = after.copy()  # winner's view; the winner stays "on roll" for rendering
            self._over, self._winner, self._points = True, self._on_roll, res
            self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
            return res
        self._board = flip(after)
        self._white_on_roll = not self._white_on_roll
        return 0

    def _pass(self) -> None:
        self._board = flip(self._board)
        self._white_on_roll = not self._white_on_roll

    def _roll_playable(self) -> tuple[np.ndarray, AfterStates]:
        """Roll for the side on roll, passing the turn while no die can be played."""
        for _ in range(MAX_PASSES):
            dice = self._roll()
            after = generate(self._board[None], dice[None], validate=False)  # _generate, inlined
            if after.dice_used[0]:
                return dice, after
            self._pass()
        raise RuntimeError("no side could move for 1000 consecutive rolls")  # pragma: no cover

    def _next_play(self) -> None:
        """Cubeless play mode: roll for the side on roll, passing the turn while no die can be
        played, and make the roll its turn (:meth:`_roll_playable` and :meth:`_set_turn` in one,
        the plays read by :func:`bgrl.env.common.plays_of_one`: the same rolls, plays and order)."""
        for _ in range(MAX_PASSES):
            dice = self._roll()
            rows, used = plays_of_one(self._board, dice)
            if used:
                d0, d1 = int(dice[0]), int(dice[1])
                self._dice = (d0, d1) if d0 >= d1 else (d1, d0)  # shown high die first everywhere
                rows.flags.writeable = False  # info["after_states"] shows them without a copy
                self._after, self._dice_used = rows, used
                space = self.action_space
                space._legal_count, space._legal_choices = rows.shape[0], None
                return
            self._pass()
        raise RuntimeError("no side could move for 1000 consecutive rolls")  # pragma: no cover

    def _set_turn(self, dice: np.ndarray, after: AfterStates) -> None:
        d0, d1 = int(dice[0]), int(dice[1])
        self._dice = (d0, d1) if d0 >= d1 else (d1, d0)  # shown high die first everywhere
        # one position: its after-states are the whole (fresh) batch, kept read-only because
        # info["after_states"] shows them without a copy
        rows = after.boards if after.offsets.size == 2 else after.group(0).copy()
        rows.flags.writeable = False
        self._after = rows
        self._dice_used = int(after.dice_used[0])
        if self._after.shape[0] > MAX_PLAYS:  # pragma: no cover - MAX_PLAYS is the proven maximum
            raise RuntimeError(f"{self._after.shape[0]} legal plays exceed MAX_PLAYS={MAX_PLAYS}")
        self.action_space._legal_count = int(self._after.shape[0])
        self.action_space._legal_choices = None
        if self._checker is not None:
            self._checker_start()

    _started = False  # set by the first reset()

    def _check_not_over(self) -> None:
        if not self._started:
            raise ResetNeeded("call reset() before the first step()")
        if self._over:
            raise ResetNeeded("the game is over: call reset() before step()")

    def _check_action(self, action) -> int:
        t = type(action)
        if (t is int or t is np.int64) and self._started and not self._over and 0 <= action < self._after.shape[0]:
            return int(action)  # the common case; anything else is checked in full below
        self._check_not_over()
        return action_index(
            action, self._after.shape[0], expected="info['legal_plays']",
            illegal=lambda a, k: f"illegal action {a}: this roll {self._dice} has {k} legal plays, so the action must be "
            f"0..{k - 1} (info['action_mask'] marks them); the action space holds {MAX_PLAYS} indices",
        )

    def _chosen(self, action) -> np.ndarray | str | None:
        """The after-state an action plays, checked; in checker mode None until the roll is used up,
        and FORFEIT for a masked-out action (the game lost)."""
        if self._checker is not None:
            return self._checker_step(action)
        return self._after[self._check_action(action)]

    def _mask(self) -> np.ndarray:
        if self._checker is not None:
            return self._checker.mask[0].astype(np.int8)
        if self._table is None:  # a prefix of ones: a slice of _MASKS (half the cost of zeros and a fill)
            k = self._after.shape[0]
            return _MASKS[MAX_PLAYS - k: 2 * MAX_PLAYS - k].copy()
        m = np.zeros(MAX_PLAYS + 4, dtype=np.int8)
        if self._over:
            return m
        if self._phase == "play":
            m[: self._after.shape[0]] = 1
        else:
            lo = MAX_PLAYS + (0 if self._phase == "decide" else 2)
            m[lo: lo + 2] = 1
        return m

    def _notation(self) -> list[str]:
        if not self.notation or self._over or self._dice is None:  # None: a cube step, no roll
            return []
        from bgrl.rules.notation import notations

        return notations(self._board, self._dice, self._after, self._dice_used)

    def _obs_board(self) -> np.ndarray:
        raise NotImplementedError

    def _shown_board(self) -> np.ndarray:
        """The observed board: in checker mode, mid-turn, the board after the checkers moved so far."""
        if self._checker is not None and not self._over and self._checker.left[0].any():
            return self._checker.boards[0]
        return self._obs_board()

    _encode_batch = None  # (encoder name, bgrl.env.common.batch_encoder of it)

    def _obs(self) -> np.ndarray:
        if self._checker is None:
            enc = self._encode_batch
            if enc is None or enc[0] != self.encoder:  # built once (the encoder is set in __init__)
                enc = self._encode_batch = (self.encoder, batch_encoder(self.encoder))
            return enc[1](self._obs_board()[None])[0]
        return np.concatenate([encode(self._shown_board()[None], self.encoder)[0], self._checker.features()[0]])

    def _base_info(self) -> dict[str, Any]:
        info = {
            "dice": self._dice,
            "legal_plays": self._notation() if self.notation else [],
            # a sequence of (26,) rows, not one (k, 26) array: vector envs stack same-shaped arrays
            # only; np.stack(info["after_states"]) or env.unwrapped.after_states() gives (k, 26)
            "after_states": AfterStateRows(self._after),
            "action_mask": self._mask(),
            "board": (self._obs_board() if self._checker is None else self._shown_board()).copy(),
        }
        if self._checker is not None:
            info["dice_left"] = self._checker.features()[0].astype(np.int64)
        if self._over:
            info["winner"], info["points"] = self._winner, self._points
            if self._illegal_action is not None:  # checker mode: a masked-out action lost the game
                info["illegal_action"] = self._illegal_action
        return info

    def _new_game(self, seed: int | None) -> None:
        """Start position, White on roll; a seeded reset also reseeds the action space."""
        use_compiled_kernels()
        if seed is not None:
            self.action_space.seed(int(self.np_random.integers(2**31)))
            self._dice_key, self._dice_count = seed_keys(int(seed)), 0
        elif self._dice_key is None:  # first, unseeded reset: a key from gymnasium's random seeding
            self._dice_key, self._dice_count = seed_keys(int(self.np_random.integers(2**63))), 0
        # later unseeded resets keep rolling the same stream
        self._started = True
        self._board, self._white_on_roll = START_BOARD.copy(), True
        self._over, self._winner, self._points = False, None, 0
        self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
        self._dice_queue = ()
        self._illegal_action = None
        if self._checker is not None:
            self._checker.stop(np.zeros(1, np.int64))

    def _start_at(self, start: tuple, white_on_roll: bool) -> None:
        """``reset(options={"position": ..., "dice": ...})`` (read by :func:`reset_position`
        before anything changed): the game starts there, ``white_on_roll`` deciding the colour of
        the side on roll; the dice are its first roll."""
        board, dice = start
        if board is not None:
            self._board, self._white_on_roll = board.copy(), white_on_roll
        self._dice_queue = (dice,) if dice is not None else ()

    def after_states(self) -> np.ndarray:
        """The legal after-states of the current roll, int8 ``(k, 26)`` from the mover's side;
        row ``i`` is where action ``i`` leads (empty at the end of a game)."""
        return self._after.copy()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions, (MAX_PLAYS,) or in checker mode (156,) (sb3-contrib
        MaskablePPO convention)."""
        return self._mask().astype(bool)

    # ------------------------------------------------------------------ rendering
    def _text(self) -> str:
        return render_board(self._board, self._white_on_roll, self._dice)

    def render(self):
        """``ansi``: return the board text (White's numbering); ``human``: print it."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self._text()
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None


class BackgammonEnv(_BackgammonBase):
    """## Description

    Money-game backgammon (cubeless, gammons and backgammons count; docs/rules.md) for one agent
    against a built-in opponent. White takes the first turn. Each step is one whole play (both
    dice, or all four for doubles); the opponent replies inside the same step.

    ## Action Space

    ``Discrete(MAX_PLAYS)``: an index into the canonical list of distinct legal plays of the rolled
    dice (the after-states of :func:`bgrl.rules.movegen.generate`, in its order). Only indices
    ``0 .. k-1`` are legal, ``k = len(info["legal_plays"])``; ``info["action_mask"]`` (int8,
    shape ``(MAX_PLAYS,)``) marks them. ``MAX_PLAYS`` is the largest number of distinct legal plays
    of any position and roll. An illegal index raises ``ValueError``.
    ``env.action_space.sample()`` (no mask) draws a uniformly random legal play.

    ## Observation Space

    ``Box(float32, (F,))``: :func:`bgrl.evaluation.encoding.encode` of the position from the agent's side,
    the agent on roll (``td198r`` by default: F = 202, Tesauro's 198 units + 4 race features).
    The dice are not part of the observation; they are in ``info["dice"]``, and the legal
    after-states in ``info["after_states"]``.

    ## Rewards

    0 on every step except the last: +1/+2/+3 when the agent wins a single game / gammon /
    backgammon, -1/-2/-3 when it loses one (points from the agent's side).

    ## Starting State

    The standard starting position, White on roll. If the agent plays Black, the opponent's
    first play is made inside ``reset``. Rolls with no legal play pass automatically (the other
    side keeps playing), so every returned observation has at least one legal play.
    ``reset(options={"position": ID_or_XGID, "dice": [d1, d2]})`` starts from that position
    instead, the agent on roll with those dice (:mod:`bgrl.env.state`; ``set_dice``,
    ``set_next_dice``, ``clone_state`` and ``restore_state`` serve search).

    ## Episode End

    Terminates when a side has borne off all 15 checkers. There is no truncation (wrap with
    ``gymnasium.wrappers.TimeLimit`` for one).

    ## Info

    ``dice`` (tuple of two ints; None at the end), ``legal_plays`` (notation in the agent's
    numbering, e.g. ``"13/10 10/5"``, same order as the actions), ``after_states`` (a tuple of
    k int8 ``(26,)`` boards: the board after each play, from the agent's side; also
    ``env.unwrapped.after_states()`` as one ``(k, 26)`` array), ``action_mask``, ``board``
    (int8 ``(26,)`` engine board from the agent's side), ``agent_color`` (``"white"``/``"black"``);
    at the end also ``winner`` and ``points``.

    ## Arguments

    - ``opponent``: ``"random"``, ``"pubeval"``, a checkpoint path, ``"default"`` (the shipped
      network checkpoints/default.pt; ValueError if it is missing) or an object with
      ``select(after_states, rng)`` (see :mod:`bgrl.agents.base`).
    - ``agent_color``: ``"white"``, ``"black"`` or ``"alternate"`` (White on the first episode,
      then switching on every reset; a seeded reset starts again from White, so the same seed
      gives the same game). ``reset(options={"agent_color": ...})`` overrides it for one episode.
    - ``render_mode``: None, ``"ansi"`` (``render()`` returns the board text, White's numbering)
      or ``"human"`` (prints it).
    - ``encoder``: feature encoding name (default :data:`bgrl.evaluation.encoding.ENCODER`).
    - ``notation``: build ``info["legal_plays"]`` (default True; False is faster, the list is then
      empty).
    - ``cube``, ``match_length``: the doubling cube and N-point matches, with the actions,
      masks, observation units, rewards (times the cube value) and ``info["cube"]`` /
      ``info["phase"]`` of ``bgrl/BackgammonSelfPlay-v0`` (see there); the agent gets a cube
      step before each of its rolls where it may double, and an answer step (take, pass)
      when the opponent doubles. ``opponent_cube``: the opponent's cube play, an object with
      ``doubles(position, cube) -> bool`` and ``takes(position, cube) -> bool`` (position
      and :class:`bgrl.rules.cube.CubeState` from the doubler's side); by default an opponent
      with an ``evaluator`` (the networks, the levels) decides by Janowski's model at 0-ply
      (:func:`bgrl.agents.cube.cube_hint`), any other never doubles and always takes.
    - ``action_mode``: ``"play"`` (default, above) or ``"checker"``: each step moves one checker
      by one die, ``Discrete(156)``, action ``6 * source + die - 1``, the dice left in the
      observation (:mod:`bgrl.env.checker`); cubeless. There an action of the space that the
      mask rules out loses the game (reward -1, terminated, ``info["winner"]`` the opponent,
      ``info["points"]`` 1, ``info["illegal_action"]`` the action), so gymnasium's ``check_env``
      (which plays an action sampled before its seeded reset) passes with every colour; an
      action outside the space raises ``ValueError``.

    ## Version History

    - v0: initial version.
    """

    def __init__(
        self,
        opponent="default",
        agent_color: str = "alternate",
        render_mode: str | None = None,
        encoder: str = ENCODER,
        notation: bool = True,
        cube: bool = False,
        match_length: int = 0,
        opponent_cube=None,
        action_mode: str = "play",
    ):
        super().__init__(render_mode=render_mode, encoder=encoder, notation=notation)
        self.agent_color = colour_arg(agent_color)
        self.opponent = load_opponent(opponent)
        self._episodes = 0
        self._agent = WHITE
        self._init_cube(cube, match_length, encoder)
        self._init_checker(action_mode)
        if opponent_cube is not None and not (hasattr(opponent_cube, "doubles") and hasattr(opponent_cube, "takes")):
            raise ValueError("opponent_cube must have doubles(position, cube) and takes(position, cube)")
        self.opponent_cube = opponent_cube if opponent_cube is not None else JanowskiCube.for_agent(self.opponent)

    def _obs_board(self) -> np.ndarray:
        if self._over and self._winner != self._agent:
            return flip(self._board)  # the board is kept from the winner's side at the end
        if not self._over and self._phase == "answer":
            return flip(self._board)  # the opponent is on roll, having doubled
        return self._board

    def _obs(self) -> np.ndarray:
        obs = super()._obs()
        if self._table is None:
            return obs
        return np.concatenate([obs, cube_features(self._table, self._agent, "play" if self._over else self._phase)])

    def _info(self) -> dict[str, Any]:
        info = {**self._base_info(), "agent_color": self._agent}
        if self._table is not None:
            info["cube"] = cube_info(self._table)
            info["phase"] = "over" if self._over else self._phase
        return info

    def _advance(self) -> float:
        """Play until the agent has a roll with a legal play or the game ends; return its reward."""
        if self._table is not None:
            return self._advance_cube()
        while True:
            dice, after = self._roll_playable()
            if self._on_roll == self._agent:
                self._set_turn(dice, after)
                return 0.0
            k = int(self.opponent.select(after, self.np_random)[0])
            pts = self._apply(after.boards[k])
            if pts:
                return -float(pts)

    #: The keys ``reset(options=...)`` takes; others raise ValueError.
    reset_options = ("agent_color", "new_match") + POSITION_OPTIONS

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = check_reset_options(options, self.reset_options)  # before anything changes
        colour = colour_arg(options.get("agent_color", self.agent_color))
        start = reset_position(options)
        super().reset(seed=seed)
        self._new_game(seed)
        if seed is not None:
            self._episodes = 0  # a seeded reset restarts the alternation: same seed, same game
        if colour == "alternate":
            colour = WHITE if self._episodes % 2 == 0 else BLACK
        self._episodes += 1
        self._agent = colour
        self._start_at(start, colour == WHITE)  # a chosen position: the agent is on roll
        if self._table is not None:
            self._table = next_cube_game(self._table, bool(options.get("new_match")) or seed is not None)
            self._phase, self._first_turn = "play", True
        self._advance()  # cannot end the game from the start
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        if self._table is not None and self._phase != "play":
            reward = self._cube_step(self._check_cube_action(action))
        elif (after := self._chosen(action)) is None:
            reward = 0.0  # checker mode: the roll is not used up yet
        elif after is FORFEIT:
            reward = -1.0  # checker mode: a masked-out action lost the game
        else:
            pts = self._apply(after)
            if self._table is not None:
                reward = self._scored(pts) if pts else self._advance()
            else:
                reward = float(pts) if pts else self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._over, False, self._info()


class BackgammonSelfPlayEnv(_BackgammonBase):
    """## Description

    Money-game backgammon (cubeless; docs/rules.md) where the agent plays both sides: each step is
    one whole play by the side on roll. White takes the first turn.

    ## Action Space

    ``Discrete(MAX_PLAYS)``: an index into the canonical list of distinct legal plays of the side
    on roll for the rolled dice (order of :func:`bgrl.rules.movegen.generate`), legal indices marked by
    ``info["action_mask"]``; an illegal index raises ``ValueError``. ``env.action_space.sample()``
    (no mask) draws a uniformly random legal play.

    ## Observation Space

    ``Box(float32, (F,))``: :func:`bgrl.evaluation.encoding.encode` of the position from the side on roll
    (``td198r`` by default, F = 202). After the last play: from the winner's side.

    ## Rewards

    From the side that has just moved: 0 while the game goes on, +1/+2/+3 when its play wins a
    single game / gammon / backgammon (only the mover can end the game).

    ## Starting State

    The standard starting position, White on roll with a roll that has a legal play. Rolls with
    no legal play pass automatically (the same side may then move twice in a row;
    ``info["to_move"]`` tells who is on roll). ``reset(options={"position": ..., "dice": ...})``
    starts from a chosen position, White on roll (:mod:`bgrl.env.state`).

    ## Episode End

    Terminates when a side has borne off all 15 checkers; no truncation.

    ## Info

    ``dice``, ``legal_plays`` (notation, the mover's numbering), ``after_states`` (tuple of k int8
    ``(26,)`` boards, mover's view; ``env.unwrapped.after_states()`` stacks them), ``action_mask``, ``board`` (int8 ``(26,)`` from the side on roll), ``to_move``
    (``"white"``/``"black"``), ``current_player`` (0 = White, 1 = Black); at the end also
    ``winner`` and ``points``.

    ## Arguments

    - ``render_mode``: None, ``"ansi"`` or ``"human"``.
    - ``encoder``: feature encoding name (default :data:`bgrl.evaluation.encoding.ENCODER`).
    - ``notation``: build ``info["legal_plays"]`` (default True).
    - ``cube``: play with the doubling cube (default False: cubeless, as above). Then the
      action space is ``Discrete(MAX_PLAYS + 4)``: ``MAX_PLAYS + i`` is
      :data:`bgrl.env.cube.CUBE_ACTIONS` ``[i]`` (``no double``, ``double``, ``take``,
      ``pass``). The cube and score are a :class:`bgrl.rules.match.Match` (a double is its
      ``offer``, a take or pass its ``answer``). Before its roll, a side that may double
      (:meth:`~bgrl.rules.match.Match.may_double`: not the opponent's cube, not the Crawford
      game, not a dead cube, under the cap; never before the opening roll) gets a cube step
      (mask: no double, double; ``info["dice"]`` None); after a double its opponent acts
      (mask: take, pass; ``info["to_move"]`` the taker); a take doubles the cube and gives it
      to the taker, a pass ends the game for the cube value. The
      observation is ``Box(float32, (F + 10,))``: the encoding from the acting side and the
      :data:`bgrl.env.cube.CUBE_FEATURES` cube units (value, owner, score, Crawford, phase).
      Rewards are points times the cube value, from the acting side (a pass: minus the cube
      value). ``info["cube"]``: value, owner, match_length, score, crawford, match_over.
    - ``match_length``: N > 0 plays an N-point match (needs ``cube=True``): the score carries
      over from one episode (game) to the next, with the Crawford rule; a reset after the
      match is over (or ``reset(options={"new_match": True})``) starts a new match at 0-0.
    - ``action_mode``: ``"play"`` (default) or ``"checker"`` (one checker, one die per step;
      :mod:`bgrl.env.checker`), as ``bgrl/Backgammon-v0``: a masked-out action of the space
      loses the game for the side that played it (reward -1 to it).

    ## Version History

    - v0: initial version.
    """

    def __init__(self, render_mode: str | None = None, encoder: str = ENCODER, notation: bool = True,
                 cube: bool = False, match_length: int = 0, action_mode: str = "play"):
        super().__init__(render_mode=render_mode, encoder=encoder, notation=notation)
        self._init_cube(cube, match_length, encoder)
        self._init_checker(action_mode)

    # the side to act: the side on roll, or its opponent while answering a double
    @property
    def _actor(self) -> str:
        if self._phase == "answer":
            return BLACK if self._white_on_roll else WHITE
        return self._on_roll

    def _obs_board(self) -> np.ndarray:
        if self._phase == "answer":
            return flip(self._board)
        return self._board

    def _obs(self) -> np.ndarray:
        obs = super()._obs()
        if self._table is None:
            return obs
        side = self._winner if self._over else self._actor
        return np.concatenate([obs, cube_features(self._table, side, "play" if self._over else self._phase)])


    def _info(self) -> dict[str, Any]:
        info = self._base_info()
        info["to_move"] = actor = self._actor
        info["current_player"] = 0 if actor == WHITE else 1
        if self._table is not None:
            info["cube"] = cube_info(self._table)
            info["phase"] = "over" if self._over else self._phase
        return info

    def _next_turn(self) -> None:
        if self._table is None:
            if self._checker is None:
                self._next_play()
            else:
                self._set_turn(*self._roll_playable())
            return
        # with the cube: a cube step for a side that may double, else roll; a roll with no
        # legal play passes the turn to the other side's cube step
        for _ in range(MAX_PASSES):
            if not self._first_turn and self._table.may_double(self._on_roll):
                self._cube_phase("decide")
                return
            if self._roll_once():
                return
        raise RuntimeError("no side could move for 1000 consecutive rolls")  # pragma: no cover

    #: The keys ``reset(options=...)`` takes; others raise ValueError.
    reset_options = ("new_match",) + POSITION_OPTIONS

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = check_reset_options(options, self.reset_options)  # before anything changes
        start = reset_position(options)
        super().reset(seed=seed)
        self._new_game(seed)
        self._start_at(start, True)  # a chosen position: White on roll
        if self._table is not None:
            self._table = next_cube_game(self._table, bool(options.get("new_match")) or seed is not None)
            self._phase, self._first_turn = "play", True
        self._next_turn()
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        if self._table is None and self._checker is None:  # the common case: one whole play, cubeless
            pts = self._apply(self._after[self._check_action(action)])
            if not pts:
                self._next_play()
            if self.render_mode == "human":
                self.render()
            return self._obs(), float(pts), self._over, False, self._info()
        if self._table is None or self._phase == "play":
            if self._table is not None and not self._over:
                a = action_index(action, self._after.shape[0], expected="info['legal_plays']",
                                 illegal=lambda a, k: f"illegal action {a}: this roll {self._dice} has {k} legal plays, "
                                 f"so the action must be 0..{k - 1} (info['action_mask'] marks them)")
                after = self._after[a]
            else:
                after = self._chosen(action)
            if after is FORFEIT:  # checker mode: a masked-out action lost the game for the mover
                if self.render_mode == "human":
                    self.render()
                return self._obs(), -1.0, True, False, self._info()
            pts = 0 if after is None else self._apply(after)  # None: checker mode, the roll not used up
            reward = float(pts)
            if self._table is not None and pts:
                self._points = self._table.end_game(self._winner, pts).points
                reward = float(self._points)
            if not pts and after is not None:
                self._next_turn()
        else:
            reward = self._self_play_cube_step(self._check_cube_action(action))
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._over, False, self._info()
