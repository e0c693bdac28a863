"""Pieces shared by the environments of :mod:`bgrl.env` (single, vector, PettingZoo): the
observation bounds, the size of the play action space (:data:`MAX_PLAYS`, with its derivation),
the action space whose ``sample()`` is legal, the checks of actions, reset options, render
modes and colours, and the opponent loader.

They were defined in :mod:`bgrl.env.backgammon`, which still exports every name.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence
from typing import Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from bgrl.evaluation.encoding import ENCODER, num_features
from bgrl.rules import movegen as _movegen
from bgrl.agents import base as agent_base
from bgrl.agents.registry import load_agent
from bgrl.evaluation import compiled

__all__ = ["WHITE", "BLACK", "MAX_PLAYS", "MAX_PLAYS_POSITION_ID", "MAX_PLAYS_DICE", "MAX_PASSES", "feature_bounds",
           "LegalPlaySpace", "action_index", "ResetNeeded", "check_reset_options", "check_render_mode", "colour_arg",
           "load_opponent", "use_compiled_kernels", "AfterStateRows", "plays_of_one", "batch_encoder"]

WHITE, BLACK = "white", "black"

#: The largest number of distinct legal plays (after-states) of any position and roll: 2226,
#: reached by the position ``MAX_PLAYS_POSITION_ID`` (the mover's 15 checkers on 24 23 21 20 18
#: 16 15 13 12 10 9 7 6 4 3, i.e. pairs of points with one-point gaps) with 1-1.
#:
#: No exact published figure was found: GNU Backgammon sizes its move list with MAX_MOVES = 3060
#: (eval.h), which is C(18, 4), the number of ways to share 4 checker moves among 15 checkers, a
#: bound, not a reachable count. The exact maximum was derived here: with doubles and no checker
#: on the bar and no bearing off, a play is determined by its *flow* (how many checkers cross
#: each gap between consecutive points d apart), distinct flows give distinct results (the final
#: position and the hit blots are functions of the flow, and vice versa), and every flow with
#: out-flow <= checkers + in-flow at each point is playable; an exact dynamic program over the
#: 24 points (Pareto frontiers of flow counts, 0..4 checkers per point) gives the maxima
#: 2226 / 2138 / 2052 / 1965 / 1869 / 1761 for 1-1 ... 6-6, and a randomized search with
#: bgrl.rules.movegen found the same values. The other cases are far lower: with a checker on the bar
#: the entry is forced, leaving at most the best 3-move count (<= 600); when bearing off can
#: occur during the play at most 3 checkers are outside the home board (bound <= 446 with bearing
#: off relaxed to always allowed); a non-double play is a pair of checkers (<= 15 * 15 = 225).
#: Opposing points (2+ checkers) only remove plays; blots only change which results hit.
MAX_PLAYS = 2226
MAX_PLAYS_POSITION_ID = "BAAQhVJKKSkFAA"
MAX_PLAYS_DICE = (1, 1)

#: Guard of the single environments: this many consecutive passes (both sides closed out) cannot
#: arise from the start, so reaching it raises RuntimeError.
MAX_PASSES = 1000


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


class AfterStateRows(Sequence):
    """``info["after_states"]`` of the single environments: a read-only sequence of the k legal
    after-states of the roll, item ``i`` the int8 ``(26,)`` board action ``i`` leads to (mover's
    view). It behaves as the tuple of rows it replaces (``len``, indexing, iteration,
    ``np.stack``, ``zip``) but holds one read-only ``(k, 26)`` array (``.boards``), so building
    it costs nothing per play; ``np.asarray(info["after_states"])`` gives a writable copy of it."""

    __slots__ = ("boards",)

    def __init__(self, boards: np.ndarray):
        self.boards = boards

    def __len__(self) -> int:
        return self.boards.shape[0]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self.boards[i])
        return self.boards[i]

    def __iter__(self):
        return iter(self.boards)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("AfterStateRows: the rows are read-only; np.asarray makes a copy")
        return self.boards.copy() if dtype is None else self.boards.astype(dtype)

    def __eq__(self, other) -> bool:
        if isinstance(other, AfterStateRows):
            other = other.boards
        elif isinstance(other, (tuple, list)):
            if len(other) != len(self):
                return False
            other = np.asarray(other).reshape(len(self), -1)
        else:
            return NotImplemented
        return self.boards.shape == np.shape(other) and bool(np.array_equal(self.boards, other))

    __hash__ = None  # mutable-looking sequence: not hashable, as a tuple of arrays is not

    def __repr__(self) -> str:
        return f"AfterStateRows({len(self)} after-states)"

    def __reduce__(self):
        return (AfterStateRows, (self.boards.copy(),))


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
    spec = "default" if opponent is None else str(opponent)
    if spec == "default" and not Path(agent_base.DEFAULT_CHECKPOINT).is_file():  # read at the call (tests point it elsewhere)
        raise ValueError(
            f"opponent='default' needs the shipped network {agent_base.DEFAULT_CHECKPOINT}, which is missing; "
            "train one (`bgrl train`) or pass opponent='pubeval', 'random' or a checkpoint path"
        )
    return load_agent(spec)


def use_compiled_kernels() -> None:
    """The single environments generate one position's plays per step: load the compiled
    one-position generator (:mod:`bgrl.evaluation.compiled`, importing numba here unless
    ``BGRL_COMPILED=0``), about 3x the plays per second of the numpy path for one position.
    The after-states and their order are the same either way. Cheap after the first call."""
    if compiled.is_disabled() or compiled.active():
        return
    try:
        import numba  # noqa: F401 - "auto" mode runs the kernels once numba is imported
    except ImportError:  # pragma: no cover - numba is a core dependency
        return
    compiled.ensure()


#: :func:`bgrl.evaluation.movegen_nb.generate_one_rows` once the compiled kernels run (None before):
#: read by :func:`plays_of_one`.
_ONE_ROWS = None


def _one_rows():
    """The compiled one-position generator's rows function, once :mod:`bgrl.evaluation.compiled`
    has loaded it (:func:`use_compiled_kernels`); None while it has not (or is switched off)."""
    global _ONE_ROWS
    if _ONE_ROWS is None and compiled.active():
        from bgrl.evaluation import movegen_nb  # loaded already by compiled.ensure(): numba stays unimported here

        _ONE_ROWS = movegen_nb.generate_one_rows
    return _ONE_ROWS


def plays_of_one(board: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, int]:
    """The legal after-states of one position and roll, int8 ``(k, 26)`` (a fresh array, the
    order of :func:`bgrl.rules.movegen.generate`), and the dice the plays use (0: no legal play).

    ``generate(board[None], dice[None], validate=False)`` for one position, read straight from
    the compiled one-position generator it runs
    (:func:`bgrl.evaluation.movegen_nb.generate_one_rows`) without building an
    :class:`~bgrl.rules.movegen.AfterStates`: the single environments' hot path (a third of a
    self-play step). Falls back to :func:`generate` whenever that generator is not loaded, not
    the one registered (``movegen_nb.unregister()``, :func:`bgrl.evaluation.compiled.disabled`)
    or declines a position; the results are the same either way (tests/env/test_env_speed.py)."""
    if board.dtype != np.int8 or not board.flags.c_contiguous:
        board = np.ascontiguousarray(board, dtype=np.int8)
    rows_of = _ONE_ROWS or _one_rows()
    if rows_of is not None:
        res = rows_of(board, int(dice[0]), int(dice[1]))
        if res is not None:
            return res
    after = _movegen.generate(board[None], dice[None], validate=False)
    return after.boards, int(after.dice_used[0])


def batch_encoder(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """``boards -> encode(boards, name)`` (:func:`bgrl.evaluation.encoding.encode`, int8 ``(N, 26)``
    to float32 ``(N, F)``) with the name checked and the compiled encoder looked up once: the
    single environments encode one board per step, where that lookup is a tenth of the cost."""
    from bgrl.evaluation import encoding, encoding_nb

    n_feat = num_features(name)  # ValueError for an unknown encoder, here rather than at a step
    if not encoding_nb.AVAILABLE:  # pragma: no cover - numba missing
        return lambda boards: encoding.encode(boards, name)
    units = encoding.POINT_UNITS
    kernel = encoding_nb.encode
    return lambda boards: kernel(boards, name, n_feat, units)
