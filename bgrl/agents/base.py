"""Agents: choose one legal play per position, batched.

Protocol (DESIGN.md, habit 8): an agent has ``select(after: AfterStates, rng) -> int64 (B,)``
returning, for every position of a batch, the index (into ``after.boards``) of the chosen
after-state; ``choose_play(position, dice, rng=None) -> Play | None`` is the one-position
convenience built on it (None when the turn passes).

Agents: ``random`` (uniform over distinct legal plays), ``pubeval`` (Tesauro's linear
evaluator, :mod:`bgrl.evaluation.pubeval`), and network agents from a checkpoint (0-ply, with optional
equity noise for weaker levels).
"""

from __future__ import annotations


import numpy as np

from bgrl.rules.board import Position
from bgrl.rules.movegen import AfterStates, generate
from bgrl.rules.dice import validate_dice
from bgrl.rules.notation import Play, legal_plays
from bgrl._resources import shipped_checkpoint

__all__ = ["group_argmax", "check_decision", "Agent", "RandomAgent", "PubevalAgent", "NetAgent", "DEFAULT_CHECKPOINT"]

DEFAULT_CHECKPOINT = shipped_checkpoint("default")


def group_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index of the maximum of each group ``values[offsets[i]:offsets[i+1]]``.

    values float (M,), offsets int (B+1,) with non-empty groups -> int64 (B,).
    Ties go to the first index.
    """
    counts = np.diff(offsets)
    parent = np.repeat(np.arange(counts.size), counts)
    order = np.lexsort((-values, parent))
    return order[offsets[:-1]]


def check_decision(position, dice) -> tuple[Position, tuple[int, int]]:
    """Check the arguments of a one-position call (``choose_play``, a hint ranker).

    The engine takes parsed values only; text (a Position ID, an XGID, ``"53"``) is read at
    the edges: :func:`bgrl.rules.xgid.read_position` and :func:`bgrl.rules.dice.parse_dice`.

    Parameters
    ----------
    position : bgrl.rules.board.Position
        The position, from the side on roll.
    dice : pair of ints 1..6
        The roll, e.g. ``(5, 3)`` (order irrelevant).

    Returns
    -------
    (Position, (int, int)) : the position and the roll as a pair of Python ints.

    Raises
    ------
    TypeError
        For a position that is not a :class:`Position` (a string among them) or dice that
        are not a pair of ints (a string among them); the message names what was expected.
    ValueError
        For dice outside 1..6 or not two of them.
    """
    if not isinstance(position, Position):
        hint = " (read text with bgrl.read_position)" if isinstance(position, str) else ""
        raise TypeError(f"position must be a bgrl Position, got {type(position).__name__} {position!r:.60}{hint}")
    if isinstance(dice, (str, bytes)):
        raise TypeError(f"dice must be a pair of ints 1..6 such as (5, 3), got the string {dice!r:.20} "
                        "(read text with bgrl.parse_dice)")
    if dice is None:
        raise TypeError("dice must be a pair of ints 1..6 such as (5, 3), got None")
    return position, validate_dice(dice)


class Agent:
    """Base class: subclasses implement :meth:`select`."""

    name = "agent"

    def select(self, after: AfterStates, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def choose_play(self, position, dice, rng: np.random.Generator | None = None) -> Play | None:
        """Choose a play for one position.

        Parameters
        ----------
        position : bgrl.rules.board.Position
            From the side on roll (text is read at the edges: :func:`bgrl.read_position`).
        dice : pair of ints 1..6
        rng : numpy Generator, optional
            For agents that draw random numbers (default: a fresh one).

        Returns
        -------
        Play or None : one of :func:`bgrl.rules.notation.legal_plays`, None if no die can be played.

        Raises
        ------
        TypeError, ValueError
            See :func:`check_decision`; ValueError for a finished game.
        """
        pos, d = check_decision(position, dice)
        plays = legal_plays(pos, d)
        if not plays:
            return None
        rng = rng if rng is not None else np.random.default_rng()
        aft = generate(pos.board[None], np.array([d], dtype=np.int8))
        k = int(self.select(aft, rng)[0])
        chosen = aft.boards[k].tobytes()
        return next(p for p in plays if p.after_state.tobytes() == chosen)


class RandomAgent(Agent):
    """Uniformly random among the distinct legal after-states."""

    name = "random"

    def select(self, after, rng):
        counts = after.counts
        return after.offsets[:-1] + (rng.random(counts.size) * counts).astype(np.int64)


class PubevalAgent(Agent):
    """Tesauro's pubeval (see :mod:`bgrl.evaluation.pubeval`): highest linear score."""

    name = "pubeval"

    def select(self, after, rng):
        from bgrl.evaluation.pubeval import is_race, pubeval_scores

        # pubeval.c takes the race flag from the position before the play.
        race = is_race(after.positions)[after.parent]
        return group_argmax(pubeval_scores(after.boards, race=race), after.offsets)


class NetAgent(Agent):
    """Highest cubeless equity under a network (0-ply), optionally with Gaussian noise.

    Parameters
    ----------
    evaluator : callable after-states int8 (M, 26) -> probabilities (M, 5)
    noise : float, standard deviation (points per game) of noise added to each play's
        equity before choosing (gnubg's levels use 0.015..0.060); 0 = deterministic.
    """

    def __init__(self, evaluator, noise: float = 0.0, name: str = "net", meta: dict | None = None):
        self.evaluator = evaluator
        self.noise = float(noise)
        self.name = name
        self.meta = meta or {}

    def equities(self, after: AfterStates) -> np.ndarray:
        from bgrl.evaluation.probabilities import equity

        return equity(self.evaluator(after.boards))

    def select(self, after, rng):
        eq = self.equities(after)
        if self.noise > 0:
            eq = eq + rng.normal(0.0, self.noise, size=eq.shape)
        return group_argmax(eq, after.offsets)
