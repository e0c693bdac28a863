"""PettingZoo AEC environment: two agents, ``"white"`` and ``"black"``, play money-game backgammon.

Needs the optional extra ``bgrl[pettingzoo]`` (PettingZoo >= 1.24). The rules core is the
engine's (:func:`bgrl.rules.movegen.generate`, :func:`bgrl.rules.outcome.game_result`, :mod:`bgrl.rules.dice`), as
in the Gymnasium environments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from bgrl._extras import require

AECEnv = require("pettingzoo", "pettingzoo", "bgrl.env.pettingzoo").AECEnv

from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.dice import roll_dice, seed_keys
from bgrl.evaluation.encoding import ENCODER, encode
from bgrl.env.backgammon import (BLACK, MAX_PLAYS, WHITE, BackgammonSelfPlayEnv, ResetNeeded, action_index, check_render_mode,
                                 check_reset_options, feature_bounds, use_compiled_kernels)
from bgrl.env.checker import CHECKER_ACTIONS, DICE_FEATURES, CheckerTurns, check_action_mode
from bgrl.env.cube import CUBE_FEATURES, check_cube_options, cube_features
from bgrl.env.state import POSITION_OPTIONS, reset_position
from bgrl.rules.movegen import generate
from bgrl.rules.render import render as render_board
from bgrl.rules.outcome import game_result

__all__ = ["BackgammonAECEnv", "env"]


class BackgammonAECEnv(AECEnv):
    """## Description

    Money-game backgammon (cubeless, gammons and backgammons count; docs/rules.md) between two
    agents, ``"white"`` and ``"black"``, in PettingZoo's AEC (turn-based) API. White takes the
    first turn. Each ``step`` is one whole play of the agent on roll; the next roll is thrown
    inside ``step`` (and the first inside ``reset``). A roll with no legal play passes the turn
    automatically, so the same agent may be selected twice in a row.

    ## Action Space

    ``Discrete(MAX_PLAYS)`` (2226, the proven maximum number of distinct plays) per agent: an
    index into the canonical list of legal after-states of the rolled dice (order of
    :func:`bgrl.rules.movegen.generate`). The observation's ``action_mask`` marks the legal indices; an
    illegal index raises ``ValueError``.

    ## Observation Space

    ``Dict(observation=Box(float32, (F,)), action_mask=Box(int8 0..1, (MAX_PLAYS,)))``:
    :func:`bgrl.evaluation.encoding.encode` of the position from the observing agent's side (``td198r``,
    F = 202); the mask is all zeros for the agent not on roll and at the end.

    ## Rewards

    0 until the end; then +1/+2/+3 to the winner (single game, gammon, backgammon) and the
    negative to the loser.

    ## Starting State and Seeding

    The starting position, White on roll with a roll it can play. ``reset(seed=s)`` fixes the
    dice (the stream of :mod:`bgrl.rules.dice` with seed ``s``: the same dice as
    ``bgrl/BackgammonSelfPlay-v0`` reset with ``s``); an unseeded reset continues the stream.

    ## Episode End

    Both agents terminate when one has borne off all 15 checkers; no truncation.

    ## Info

    Per agent, with ``infos="full"`` (the default): ``dice`` (the roll to play, for the agent on
    roll; None otherwise), ``after_states`` (int8 ``(k, 26)``, mover's view, for the agent on
    roll; empty otherwise), ``board`` (int8 ``(26,)`` from that agent's side); at the end
    ``winner`` and ``points``.

    With ``infos="arrays"`` every info holds the same keys with the same shapes and dtypes on
    every step, as libraries that store infos in fixed tensors need (TorchRL's
    ``PettingZooWrapper`` builds its specs from the first ``reset``): ``dice`` int8 ``(2,)``
    (high die first; zeros for the agent not on roll and at the end), ``board`` int8 ``(26,)``,
    ``points`` int64 ``()`` (0 until the end, then this agent's reward: +-1/2/3).

    ## Arguments

    - ``render_mode``: None, ``"ansi"`` or ``"human"``.
    - ``encoder``: feature encoding name (default :data:`bgrl.evaluation.encoding.ENCODER`).
    - ``infos``: ``"full"`` (default) or ``"arrays"`` (fixed-shape numeric infos, above);
      ValueError otherwise.
    - ``cube``, ``match_length``: the doubling cube and N-point matches, as in
      ``bgrl/BackgammonSelfPlay-v0`` (:class:`bgrl.env.backgammon.BackgammonSelfPlayEnv`, whose
      rules this env then runs): actions ``Discrete(MAX_PLAYS + 4)`` (the last four: no
      double, double, take, pass; the mask marks those legal), observation ``Box(F + 10)``
      with the cube units of :mod:`bgrl.env.cube` from the observing agent, rewards the
      points won times the cube value (a pass: the doubler wins the cube value). The agent
      selected is the one to act: the side on roll, or its opponent answering a double.
      ``infos[agent]["cube"]`` and ``["phase"]`` tell the cube and the phase (``infos="full"`` only:
      ``infos="arrays"`` with the cube is a ValueError).
    - ``action_mode``: ``"play"`` (default) or ``"checker"`` (cubeless): one checker, one die
      per step, ``Discrete(156)``, the dice left in the observation's last 6 units
      (:mod:`bgrl.env.checker`); the agent on roll steps until its roll is used up.

    ``reset(options={"position": ..., "dice": ...})`` starts from a chosen position and roll,
    White on roll (:mod:`bgrl.env.state`).

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "bgrl_backgammon_v0", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, encoder: str = ENCODER, infos: str = "full",
                 cube: bool = False, match_length: int = 0, action_mode: str = "play"):
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        if infos not in ("full", "arrays"):
            raise ValueError(f"infos must be 'full' or 'arrays', got {infos!r}")
        self.info_mode = infos

        self.cube, self.match_length = check_cube_options(cube, match_length)
        self.action_mode = check_action_mode(action_mode, self.cube)
        self._checker = CheckerTurns(1) if self.action_mode == "checker" else None
        self._queue: tuple = ()  # the first roll set by reset(options={"dice": ...})
        if self.cube and infos != "full":
            raise ValueError("infos='arrays' is not available with cube=True (use infos='full')")
        self.render_mode = render_mode
        self.encoder = encoder
        self.possible_agents = [WHITE, BLACK]
        self._sp = None
        self._has_reset = False
        self._key: np.ndarray | None = None
        self._count = 0
        self._rng = np.random.default_rng()
        if self.cube:
            self._sp = BackgammonSelfPlayEnv(encoder=encoder, notation=False, cube=True, match_length=self.match_length)
            n_act = MAX_PLAYS + 4
            self._obs_spaces = {a: spaces.Dict({"observation": self._sp.observation_space,
                                                "action_mask": spaces.Box(low=0, high=1, shape=(n_act,), dtype=np.int8)})
                                for a in self.possible_agents}
            self._act_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
            self._cube_features = CUBE_FEATURES
            self._winner, self._points = None, 0
            return
        low, high = feature_bounds(encoder)
        n_act = MAX_PLAYS
        if self._checker is not None:  # one checker, one die per step; the dice left in the observation
            low = np.concatenate([low, np.zeros(DICE_FEATURES, np.float32)])
            high = np.concatenate([high, np.full(DICE_FEATURES, 4, np.float32)])
            n_act = CHECKER_ACTIONS
        self._obs_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n_act,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._act_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
        self._board = START_BOARD.copy()
        self._white_on_roll = True
        self._dice: tuple[int, int] | None = None
        self._after = np.zeros((0, 26), dtype=np.int8)
        self._winner: str | None = None
        self._points = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    # ------------------------------------------------------------------ engine plumbing
    @property
    def _on_roll(self) -> str:
        return WHITE if self._white_on_roll else BLACK

    def _roll_playable(self) -> None:
        for _ in range(1000):
            if self._queue:
                dice, self._queue = np.array(self._queue[0], dtype=np.int8), self._queue[1:]
            else:
                dice = roll_dice(self._key[None], np.array([self._count]))[0]
                self._count += 1
            after = generate(self._board[None], dice[None], validate=False)
            if after.dice_used[0]:
                self._dice = (int(max(dice)), int(min(dice)))  # high die first, as the Gymnasium envs
                self._after = after.group(0).copy()
                if self._checker is not None:
                    self._checker.start(np.zeros(1, np.int64), self._board[None], dice[None], after.dice_used)
                return
            self._board = flip(self._board)
            self._white_on_roll = not self._white_on_roll
        raise RuntimeError("no side could move for 1000 consecutive rolls")  # pragma: no cover

    def _board_of(self, agent: str) -> np.ndarray:
        board = self._board
        if self._checker is not None and self._winner is None and self._checker.left[0].any():
            board = self._checker.boards[0]  # checker mode, mid-turn: the checkers moved so far
        return board if agent == self._on_roll else flip(board)

    # ------------------------------------------------------------------ the cube (delegated)
    def _cube_observe(self, agent: str) -> dict[str, np.ndarray]:
        sp = self._sp
        if not sp._over and agent == sp._actor:
            return {"observation": sp._obs(), "action_mask": sp._mask()}
        board = sp._board if agent == (sp._winner if sp._over else sp._on_roll) else flip(sp._board)
        obs = np.concatenate([encode(board[None], self.encoder)[0],
                              cube_features(sp._table, agent, "play" if sp._over else sp._phase)])
        return {"observation": obs, "action_mask": np.zeros(MAX_PLAYS + 4, dtype=np.int8)}

    def _cube_infos(self, info: dict) -> None:
        sp = self._sp
        for a in self.agents:
            mine = not sp._over and a == sp._actor
            d = {"dice": info["dice"] if mine else None,
                 "after_states": sp.after_states() if mine else np.zeros((0, 26), dtype=np.int8),
                 "board": self._cube_observe_board(a), "cube": info["cube"], "phase": info["phase"]}
            if sp._over:
                d.update(winner=sp._winner, points=sp._points)
            self.infos[a] = d

    def _cube_observe_board(self, agent: str) -> np.ndarray:
        sp = self._sp
        side = sp._winner if sp._over else sp._on_roll
        return (sp._board if agent == side else flip(sp._board)).copy()

    def _cube_reset(self, seed, options) -> None:
        _, info = self._sp.reset(seed=seed, options=options)
        self.agent_selection = info["to_move"]
        self._cube_infos(info)

    def _cube_step(self, action) -> None:
        agent = self.agent_selection
        _, r, term, _, info = self._sp.step(action)  # ValueError (one line) for an illegal action
        self._cumulative_rewards[agent] = 0
        other = BLACK if agent == WHITE else WHITE
        self.rewards = {agent: r, other: -r} if term else {a_: 0 for a_ in self.agents}
        if term:
            self.terminations = {a_: True for a_ in self.agents}
            self._winner, self._points = self._sp._winner, self._sp._points
        else:
            self.agent_selection = info["to_move"]
        self._cube_infos(info)
        self._accumulate_rewards()

    def _check_reset(self, what: str) -> None:
        if not self._has_reset:
            raise ResetNeeded(f"call reset() before {what}")

    def last(self, observe: bool = True):
        self._check_reset("last()")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_reset("observe()")
        if agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}; expected one of {self.possible_agents}")
        if self._sp is not None:
            return self._cube_observe(agent)
        obs = encode(self._board_of(agent)[None], self.encoder)[0]
        if self._checker is not None:
            mine = self._winner is None and agent == self._on_roll
            mask = (self._checker.mask[0] & mine).astype(np.int8)
            return {"observation": np.concatenate([obs, self._checker.features()[0]]), "action_mask": mask}
        mask = np.zeros(MAX_PLAYS, dtype=np.int8)
        if self._winner is None and agent == self._on_roll:
            mask[: self._after.shape[0]] = 1
        return {"observation": obs, "action_mask": mask}

    def _set_infos(self) -> None:
        if self.info_mode == "arrays":
            for a in self.agents:
                mine = self._winner is None and a == self._on_roll
                self.infos[a] = {
                    "dice": np.array(self._dice if mine else (0, 0), dtype=np.int8),
                    "board": self._board_of(a).copy(),
                    "points": np.int64(0 if self._winner is None else (self._points if a == self._winner else -self._points)),
                }
            return
        for a in self.agents:
            mine = self._winner is None and a == self._on_roll
            info: dict[str, Any] = {
                "dice": self._dice if mine else None,
                "after_states": self._after.copy() if mine else np.zeros((0, 26), dtype=np.int8),
                "board": self._board_of(a).copy(),
            }
            if self._winner is not None:
                info.update(winner=self._winner, points=self._points)
            self.infos[a] = info

    # ------------------------------------------------------------------ AEC API
    #: The keys ``reset(options=...)`` uses (``new_match``: with the cube, start a new match;
    #: ``position`` and ``dice``: start there, White on roll, see :mod:`bgrl.env.state`);
    #: others are ignored (PettingZoo's API test passes its own), but options must be a dict.
    reset_options = ("new_match",) + POSITION_OPTIONS

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = check_reset_options(options, self.reset_options, strict=False)  # TypeError before anything changes
        if self._sp is not None:
            options = {k: v for k, v in options.items() if k in self.reset_options}
        board, dice = reset_position(options)  # ValueError before anything changes
        use_compiled_kernels()
        self._has_reset = True
        if seed is not None:
            self._key, self._count = seed_keys(int(seed)), 0
            self._rng = np.random.default_rng(seed)
        elif self._key is None:
            self._key, self._count = seed_keys(int(self._rng.integers(2**63))), 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self._sp is not None:
            self._cube_reset(seed, options)
            if self.render_mode == "human":
                self.render()
            return
        self._board, self._white_on_roll = (START_BOARD if board is None else board).copy(), True
        self._winner, self._points = None, 0
        self._queue = () if dice is None else (dice,)
        self._roll_playable()
        self.agent_selection = self._on_roll
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        self._check_reset("step()")
        if not self.agents:  # the game ended and every agent has stepped out (step(None))
            raise ResetNeeded("the game is over and every agent has left it: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._sp is not None:
            self._cube_step(action)
            if self.render_mode == "human":
                self.render()
            return
        if self._checker is not None:
            after = self._checker_step(agent, action)
            if after is None:  # the roll is not used up: the same agent moves on
                self._cumulative_rewards[agent] = 0
                self.rewards = {a_: 0 for a_ in self.agents}
                self._set_infos()
                self._accumulate_rewards()
                if self.render_mode == "human":
                    self.render()
                return
        else:
            a = action_index(
                action, self._after.shape[0], expected="the legal plays",
                illegal=lambda a, k: f"illegal action {a} for {agent}: the roll {self._dice} has {k} legal plays (0..{k - 1})",
            )
            after = self._after[a]
        self._cumulative_rewards[agent] = 0
        pts = game_result(after)
        if pts:
            self._board = after.copy()  # the winner's view; the winner stays "on roll"
            self._winner, self._points = agent, pts
            self._dice, self._after = None, np.zeros((0, 26), dtype=np.int8)
            other = BLACK if agent == WHITE else WHITE
            self.rewards = {agent: pts, other: -pts}
            self.terminations = {a_: True for a_ in self.agents}
        else:
            self._board = flip(after)
            self._white_on_roll = not self._white_on_roll
            self._roll_playable()
            self.rewards = {a_: 0 for a_ in self.agents}
            self.agent_selection = self._on_roll
        self._set_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _checker_step(self, agent: str, action) -> np.ndarray | None:
        t = self._checker
        a = action_index(action, CHECKER_ACTIONS, expected="the checker actions (6 * source + die - 1)",
                         illegal=lambda a, k: f"{agent}: {t.illegal(0, a)}")
        if not t.mask[0, a]:
            raise ValueError(f"{agent}: {t.illegal(0, a)}")
        return t.boards[0].copy() if t.apply(np.zeros(1, np.int64), np.array([a]))[0] else None

    def render(self):
        """``ansi``: the board text (White's numbering); ``human``: print it."""
        if self.render_mode is None:
            return None
        if self._sp is not None:
            sp = self._sp
            text = render_board(sp._board, sp._white_on_roll, sp._dice)
        else:
            text = render_board(self._board, self._white_on_roll, self._dice)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass


def env(**kwargs) -> BackgammonAECEnv:
    """PettingZoo-style constructor: ``bgrl.env.pettingzoo.env()`` (same as :func:`bgrl.env.pettingzoo_env`)."""
    return BackgammonAECEnv(**kwargs)
