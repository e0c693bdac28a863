"""A Stable-Baselines3 ``VecEnv`` over the native vector env (:mod:`bgrl.env.vector`).

Needs the ``examples`` extra (``stable-baselines3``; ``sb3-contrib`` for ``MaskablePPO``).

:class:`BackgammonSB3VecEnv` runs N games of :class:`bgrl.env.vector.BackgammonVectorEnv` in
lockstep as arrays (one batched move generation, encoding and opponent call per step, no
Python loop over games) and speaks SB3's ``VecEnv`` protocol, so SB3 and sb3-contrib
algorithms train on it directly, in place of a ``DummyVecEnv`` of N single envs:

>>> from sb3_contrib import MaskablePPO
>>> from bgrl.env.sb3 import BackgammonSB3VecEnv
>>> venv = BackgammonSB3VecEnv(8, opponent="random", action_mode="checker")
>>> model = MaskablePPO("MlpPolicy", venv).learn(10_000)

Protocol (SB3 2.x):

- ``reset()`` returns the observations ``(N, ...)``; ``venv.seed(s)`` before it gives game
  ``i`` the dice stream of seed ``s + i`` (as a single env reset with that seed);
  ``set_options({"position": ..., "dice": ...})`` or a list of N dicts applies
  :mod:`bgrl.env.state`'s reset options to the next reset.
- ``step(actions)`` returns ``(obs, rewards float32 (N,), dones bool (N,), infos)``; a game
  that ends is reset in the same step (SB3's convention, unlike the native env's next-step
  autoreset): its row of ``obs`` is the new game's first observation, and its info holds
  ``terminal_observation`` (the last one), ``TimeLimit.truncated`` (always False: games end
  only by bearing off), ``winner`` and ``points``. The other infos are empty dicts.
- Action masks for sb3-contrib's ``MaskablePPO``: ``env_method("action_masks")`` gives one
  bool row per game (what ``sb3_contrib.common.maskable.utils.get_action_masks`` reads), and
  ``action_masks()`` the ``(N, n)`` array.
- ``get_attr`` / ``set_attr`` / ``env_method`` address the one native env (``indices`` pick
  the games' rows of an answer that has one row per game); ``env_is_wrapped`` is False for
  every game; ``render`` / ``get_images`` draw nothing.

Observations (``observation=``):

- ``"features"`` (default): the native env's, :func:`bgrl.evaluation.encoding.encode` of
  each game from the agent's side (checker mode: plus the dice left).
- ``"after_states"`` (play mode only): int8 ``(MAX_PLAYS + 1, 26)`` per game, row 0 the
  agent's board, row ``1 + i`` the after-state action ``i`` leads to, zero rows after the
  last legal play: for an after-state policy (``scripts/examples/sb3_maskable_ppo.py``).

The keyword arguments (``opponent``, ``agent_color``, ``self_play``, ``encoder``,
``action_mode``) are :class:`BackgammonVectorEnv`'s; ``notation`` defaults to False here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from bgrl._extras import require
from bgrl.env.backgammon import MAX_PLAYS
from bgrl.env.vector import BackgammonVectorEnv

VecEnv = require("stable_baselines3.common.vec_env", "examples", "bgrl.env.sb3").VecEnv

__all__ = ["BackgammonSB3VecEnv", "OBSERVATIONS", "after_state_observations"]

#: The observation kinds :class:`BackgammonSB3VecEnv` offers.
OBSERVATIONS = ("features", "after_states")

ROWS = MAX_PLAYS + 1  # "after_states": row 0 the board before the play, rows 1..k the legal after-states


def after_state_observations(info: dict) -> np.ndarray:
    """The ``"after_states"`` observations of a native vector env's ``info``: int8
    ``(N, MAX_PLAYS + 1, 26)``, row 0 of game ``i`` its ``info["board"]``, rows ``1 .. k_i`` its
    legal after-states in action order, the rest zero (a game that has just ended: no rows)."""
    groups = info["after_states"]
    offsets = np.asarray(groups.offsets)
    counts = np.diff(offsets)
    obs = np.zeros((counts.size, ROWS, 26), dtype=np.int8)
    obs[:, 0] = info["board"]
    game = np.repeat(np.arange(counts.size), counts)
    obs[game, 1 + np.arange(offsets[-1]) - offsets[:-1][game]] = groups.boards
    return obs


class BackgammonSB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` of ``num_envs`` games of the native vector env (module docstring).

    ``venv`` is the :class:`bgrl.env.vector.BackgammonVectorEnv` underneath (its ``after_states()``,
    ``clone_state()``, ``_episodes`` and the rest are there)."""

    def __init__(self, num_envs: int = 8, *, observation: str = "features", **env_kwargs: Any):
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        env_kwargs.setdefault("notation", False)
        self.venv = BackgammonVectorEnv(num_envs, **env_kwargs)
        if observation == "after_states" and self.venv.action_mode != "play":
            raise ValueError("observation='after_states' needs action_mode='play' (a checker step has no after-state list)")
        self.observation = observation
        if observation == "after_states":
            obs_space = spaces.Box(low=-15, high=15, shape=(ROWS, 26), dtype=np.int8)
        else:
            obs_space = self.venv.single_observation_space
        super().__init__(self.venv.num_envs, obs_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._info: dict | None = None

    # ------------------------------------------------------------------ the VecEnv protocol
    def _observe(self, obs: np.ndarray, info: dict) -> np.ndarray:
        self._info = info
        return after_state_observations(info) if self.observation == "after_states" else obs

    def reset(self):
        seeds = None if all(s is None for s in self._seeds) else [0 if s is None else int(s) for s in self._seeds]
        options: dict[str, Any] = {}
        if any(self._options):  # per-game reset options: one value per game (None: as usual)
            for key in sorted({k for o in self._options for k in o}):
                options[key] = [o.get(key) for o in self._options]
        obs, info = self.venv.reset(seed=seeds, options=options or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._observe(obs, info)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions = np.asarray(self._actions).reshape(self.num_envs)
        self._actions = None
        if actions.dtype.kind not in "iu":  # SB3 hands Discrete actions as int64; a float array of whole numbers too
            if not np.array_equal(actions, np.round(actions)):
                raise ValueError(f"actions must be whole numbers, got {actions!r:.80}")
            actions = actions.astype(np.int64)
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = self._observe(obs, info)
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": final[i], "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "winner": str(info["winner"][i]), "points": int(info["points"][i])}
            obs, info = self.venv.reset(options={"reset_mask": dones})  # SB3 resets in the same step
        return self._observe(obs, info), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_images(self):
        return [None] * self.num_envs

    def action_masks(self) -> np.ndarray:
        """bool ``(N, n)``: the legal actions of every game (all False for none; not reached,
        since a game that ends is reset in the same step)."""
        return self.venv.action_masks()

    def _per_game(self, value, indices) -> list:
        idx = list(self._get_indices(indices))
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == self.num_envs:
            return [value[i] for i in idx]
        return [value for _ in idx]

    def get_attr(self, attr_name: str, indices=None) -> list:
        """The attribute of the native env (``action_masks``: this VecEnv's method), once per game
        in ``indices``; an array with one row per game is split by game. AttributeError if missing."""
        if attr_name == "action_masks":
            return self._per_game(self.action_masks, indices)
        return self._per_game(getattr(self.venv, attr_name), indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set the native env's attribute (it holds all the games: ``indices`` must cover them)."""
        if len(list(self._get_indices(indices))) != self.num_envs:
            raise ValueError("the native vector env holds all the games in one object: set_attr sets them all (indices=None)")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """Call the native env's method once (``action_masks``: this VecEnv's) and give its answer
        per game in ``indices`` (rows of an answer with one row per game)."""
        target = self if method_name == "action_masks" else self.venv
        return self._per_game(getattr(target, method_name)(*method_args, **method_kwargs), indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
