"""Pieces shared by the environments of :mod:`bgrl.env` (single, vector, PettingZoo): the
observation bounds, the action space whose ``sample()`` is legal, the checks of actions,
reset options, render modes and colours, and the opponent loader.

They were defined in :mod:`bgrl.env.backgammon`, which still exports every name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bgrl.evaluation.encoding import ENCODER, num_features

__all__ = ["WHITE", "BLACK", "feature_bounds", "LegalPlaySpace", "action_index", "ResetNeeded", "check_reset_options",
           "check_render_mode", "colour_arg", "load_opponent", "use_compiled_kernels"]

WHITE, BLACK = "white", "black"


def feature_bounds(name: str = ENCODER) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``(low, high)`` float32 bounds of :func:`bgrl.evaluation.encoding.encode` output.

    td198 units: a point's first three units are 0/1, the fourth ``(n - 3) / 2 <= 6``;
    bar / 2 <= 7.5; off / 15 <= 1; turn units 0/1. td198r adds race flag 0/1, pips / 167 each
    <= 375 / 167 (15 checkers on the bar) and (opponent - mover pips) / 50 in +-375 / 50.
    """
    n = num_features(name)
    low = np.zeros(n, dtype=np.float64)
    high = np.ones(n, dtype=np.float64)
    for base in (0, 98):
        high[base + 3 : base + 96 : 4] = 6.0
        high[base + 96] = 7.5
    if n > 198:
        high[199] = high[200] = 375 / 167.0
        low[201], high[201] = -375 / 50.0, 375 / 50.0
    return low.astype(np.float32), high.astype(np.float32)


class LegalPlaySpace(spaces.Discrete):
    """``Discrete(n)`` whose mask-less :meth:`sample` draws a *legal* play of the env's current
    position (uniformly), so ``env.action_space.sample()`` is a valid random agent.

    With ``mask=`` or ``probability=`` it behaves exactly like :class:`gymnasium.spaces.Discrete`.
    Batched copies made by vector envs (``batch_space``) are plain ``MultiDiscrete`` spaces:
    sample those with the stacked ``info["action_mask"]``.
    """

    def __init__(self, n: int, seed: int | np.random.Generator | None = None):
        super().__init__(n, seed=seed)
        self._legal_count: int | None = None
        self._legal_choices: np.ndarray | None = None  # legal indices that are not a prefix (cube actions)

    def sample(self, mask=None, probability=None):  # noqa: D102 - documented on the class
        if mask is None and probability is None and self._legal_choices is not None:
            return self.start + np.int64(self._legal_choices[self.np_random.integers(len(self._legal_choices))])
        if mask is None and probability is None and self._legal_count:
            return self.start + np.int64(self.np_random.integers(self._legal_count))
        return super().sample(mask=mask, probability=probability)

    def __eq__(self, other) -> bool:  # compare like a Discrete (vector envs check spaces agree)
        return isinstance(other, spaces.Discrete) and self.n == other.n and self.start == other.start

    def __hash__(self) -> int:
        return hash((self.n, int(self.start)))


def action_index(action, n_legal: int, *, expected: str, illegal: Callable[[int, int], str]) -> int:
    """Check an action of the single-game environments and return it as an ``int``.

    action : an integer scalar (Python ``int`` or a 0-d NumPy integer); ``n_legal`` the
        number of legal plays of the roll. ``expected`` names what the index refers to in
        the error (e.g. ``"info['legal_plays']"``); ``illegal(a, k)`` builds the message
        for an index ``a`` outside ``0..k - 1``.
    Raises ValueError (one line) for a non-integer (bool, float, array, string, None)
    or an index out of range. Shared by :class:`BackgammonEnv`,
    :class:`BackgammonSelfPlayEnv` and :class:`bgrl.env.pettingzoo.BackgammonAECEnv`.
    """
    try:
        a = np.asarray(action)
        if a.shape != () or a.dtype.kind not in "iu":
            raise TypeError
        a = int(a)
    except (TypeError, ValueError):
        raise ValueError(f"action must be an integer index into {expected}, got {action!r}") from None
    if not 0 <= a < n_legal:
        raise ValueError(illegal(a, n_legal))
    return a


class ResetNeeded(gym.error.ResetNeeded, RuntimeError):
    """``step()`` before the first ``reset()``, or after the game ended: Gymnasium's
    :class:`gymnasium.error.ResetNeeded`, and a RuntimeError as before."""


def check_reset_options(options, allowed, strict: bool = True) -> dict:
    """``reset``'s ``options`` checked: None (no options) or a dict whose keys are among
    ``allowed`` (with ``strict``; else other keys are ignored, as PettingZoo's API test asks).
    Returns a dict. Raises TypeError for another type, ValueError naming an unknown key and
    the known ones."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"reset options must be a dict or None, got {type(options).__name__} {options!r:.60}")
    unknown = sorted(str(k) for k in options if k not in allowed) if strict else []
    if unknown:
        known = ", ".join(repr(k) for k in allowed) or "none"
        raise ValueError(f"unknown reset option(s) {unknown}; expected some of {known}")
    return dict(options)


def check_render_mode(render_mode: str | None, modes) -> None:
    """Raise ValueError unless ``render_mode`` is None or one of ``modes``."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")


def colour_arg(agent_color: str) -> str:
    """``agent_color`` checked: ``"white"``, ``"black"`` or ``"alternate"``; ValueError otherwise."""
    if agent_color not in (WHITE, BLACK, "alternate"):
        raise ValueError(f"agent_color must be 'white', 'black' or 'alternate', got {agent_color!r}")
    return agent_color


def load_opponent(opponent):
    """An agent object from a spec ('random', 'pubeval', 'default', a path) or an agent itself."""
    if hasattr(opponent, "select"):
        return opponent
    from bgrl.agents.base import DEFAULT_CHECKPOINT
    from bgrl.agents.registry import load_agent

    spec = "default" if opponent is None else str(opponent)
    if spec == "default" and not Path(DEFAULT_CHECKPOINT).is_file():
        raise ValueError(
            f"opponent='default' needs the shipped network {DEFAULT_CHECKPOINT}, which is missing; "
            "train one (`bgrl train`) or pass opponent='pubeval', 'random' or a checkpoint path"
        )
    return load_agent(spec)


def use_compiled_kernels() -> None:
    """The single environments generate one position's plays per step: load the compiled
    one-position generator (:mod:`bgrl.evaluation.compiled`, importing numba here unless
    ``BGRL_COMPILED=0``), about 3x the plays per second of the numpy path for one position.
    The after-states and their order are the same either way. Cheap after the first call."""
    from bgrl.evaluation import compiled

    if compiled.is_disabled() or compiled.active():
        return
    try:
        import numba  # noqa: F401 - "auto" mode runs the kernels once numba is imported
    except ImportError:  # pragma: no cover - numba is a core dependency
        return
    compiled.ensure()
