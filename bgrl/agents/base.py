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

from bgrl.evaluation import compiled
from bgrl.rules.board import Position
from bgrl.rules.movegen import AfterStates, generate
from bgrl.rules.dice import validate_dice
from bgrl.rules.notation import Play, legal_plays_batch, play_from_notation
from bgrl.rules.outcome import check_not_over
from bgrl._resources import shipped_checkpoint
from bgrl.evaluation.probabilities import equity
from bgrl.evaluation.pubeval import is_race, pubeval_scores

__all__ = ["group_argmax", "check_decision", "one_position", "plays_of", "Agent", "RandomAgent", "PubevalAgent",
           "NetAgent", "PlayChooserAgent", "DEFAULT_CHECKPOINT"]

DEFAULT_CHECKPOINT = shipped_checkpoint("default")


def group_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Index of the maximum of each group ``values[offsets[i]:offsets[i+1]]``, in O(M).

    The one numpy owner of the "best play of each position" choice (search, levels, the cube,
    rollouts, training and the examples call it); :func:`bgrl.training._kernels.group_argmax`
    is its compiled twin for the TD trainer (tested to agree).

    Parameters
    ----------
    values : float array (M,)
    offsets : int array (B+1,), ``offsets[0] == 0``, ``offsets[-1] == M``, every group non-empty

    Returns
    -------
    int64 (B,): indices into ``values``. Ties go to the first index; a NaN is never chosen
    while its group holds a number, even -inf (a group of NaNs only gives its first index).

    Raises
    ------
    ValueError
        for values that are not a 1-D array of real numbers (an (M, 1) column included), or
        offsets that are not 1-D integers from 0 to M with every group non-empty.
    """
    v = np.asarray(values)
    if v.ndim != 1 or v.dtype.kind not in "fiu":
        raise ValueError(f"values must be a 1-D array of real numbers (M,), got dtype {v.dtype}, shape {v.shape}")
    off = np.asarray(offsets)
    if off.ndim != 1 or off.size < 1 or off.dtype.kind not in "iu":
        raise ValueError(f"offsets must be a 1-D integer array (B+1,), got dtype {off.dtype}, shape {off.shape}")
    off = off.astype(np.int64)
    counts = np.diff(off)
    if off[0] != 0 or off[-1] != v.shape[0] or (counts.size and counts.min() < 1):
        raise ValueError(f"offsets must rise strictly from 0 to {v.shape[0]} (every group non-empty), "
                         f"got {off[:8].tolist()}{' ...' if off.size > 8 else ''}")
    starts = off[:-1]
    if counts.size == 0:
        return np.empty(0, dtype=np.int64)
    gmax = np.maximum.reduceat(v, starts)
    if v.dtype.kind == "f" and np.isnan(gmax).any():  # reduceat propagates NaN: the maximum of the numbers instead
        gmax = np.maximum.reduceat(np.where(np.isnan(v), -np.inf, v), starts)
    # each group's first hit (a NaN equals nothing: never a hit); M ends the list, so a group of
    # NaNs, whose search lands past its own end, keeps its first index
    is_max = np.append(np.flatnonzero(v == np.repeat(gmax, counts)), v.shape[0])
    best = is_max[np.searchsorted(is_max, starts)]
    return np.where(best < off[1:], best, starts)


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


def one_position(position, dice) -> AfterStates | None:
    """The legal plays of one decision, for the one-position fast paths (``choose_play``, a
    hint): one generator call with move paths, compiled where
    :func:`bgrl.evaluation.compiled.ensure` says so (the same after-states either way).

    Checks the arguments as :func:`check_decision` and the game as
    :func:`bgrl.rules.outcome.check_not_over` (TypeError, ValueError). Returns the
    AfterStates of the one position (``generate(..., paths=True)``), or None when no die can
    be played. Name only the rows you show: :func:`plays_of`.
    """
    pos, d = check_decision(position, dice)
    check_not_over(pos)
    compiled.ensure()
    after = generate(pos.board[None], np.array([d], dtype=np.int8), validate=False, paths=True)
    return None if after.dice_used[0] == 0 else after


def plays_of(after: AfterStates, rows) -> list[Play]:
    """The :class:`Play` of chosen rows of one position's AfterStates (with paths), in the
    order of ``rows``: equal to those entries of :func:`bgrl.rules.notation.legal_plays`, with
    notation and Position IDs built for these rows only (one batch)."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    sub = AfterStates(boards=after.boards[rows], parent=np.zeros(rows.size, dtype=np.int64),
                      dice_used=after.dice_used[:1], offsets=np.array([0, rows.size], dtype=np.int64),
                      positions=after.positions[:1], paths=after.paths[rows], dice=after.dice)
    return legal_plays_batch(sub)[0] if rows.size else []


class Agent:
    """Base class: subclasses implement :meth:`select`.

    ``uses_rng``: whether :meth:`select` draws from its ``rng`` (True unless a subclass says
    otherwise); :meth:`choose_play` makes a fresh generator only for agents that do.
    """

    name = "agent"
    uses_rng = True

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
            For agents that draw random numbers (default: a fresh one, made only when the
            agent ``uses_rng``).

        Returns
        -------
        Play or None : one of :func:`bgrl.rules.notation.legal_plays`, None if no die can be played.

        Raises
        ------
        TypeError, ValueError
            See :func:`check_decision`; ValueError for a finished game.
        """
        after = one_position(position, dice)
        if after is None:
            return None
        if rng is None and getattr(self, "uses_rng", True):  # GnubgAgent borrows this method
            rng = np.random.default_rng()
        return plays_of(after, [int(self.select(after, rng)[0])])[0]


class RandomAgent(Agent):
    """Uniformly random among the distinct legal after-states."""

    name = "random"

    def select(self, after, rng):
        counts = after.counts
        return after.offsets[:-1] + (rng.random(counts.size) * counts).astype(np.int64)


class PubevalAgent(Agent):
    """Tesauro's pubeval (see :mod:`bgrl.evaluation.pubeval`): highest linear score."""

    name = "pubeval"
    uses_rng = False

    def select(self, after, rng):
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

    @property
    def uses_rng(self) -> bool:
        return self.noise > 0

    def equities(self, after: AfterStates) -> np.ndarray:
        return equity(self.evaluator(after.boards))

    def select(self, after, rng):
        eq = self.equities(after)
        if self.noise > 0:
            eq = eq + rng.normal(0.0, self.noise, size=eq.shape)
        return group_argmax(eq, after.offsets)


class PlayChooserAgent(Agent):
    """A user's agent that picks one play at a time, as an :class:`Agent` (batched ``select``).

    Parameters
    ----------
    chooser : object with ``choose_play(position, dice, rng)``, or a callable
        ``f(position, dice, rng)``: ``position`` a :class:`bgrl.rules.board.Position` (the side on
        roll), ``dice`` a pair of ints 1..6 (high die first), ``rng`` a numpy Generator. It
        returns the play: a :class:`bgrl.rules.notation.Play` (one of
        :func:`bgrl.rules.notation.legal_plays`), a play's notation (``"8/5 6/5"``) or the
        after-state board (int (26,), the mover's view).
    name : str, shown in reports and errors (e.g. the ``module:object`` spec).

    ``select`` calls the chooser once for each position of the batch that has at least two
    distinct legal after-states (a forced play or a pass needs no choice).

    Raises
    ------
    ValueError
        (from ``select``) when the chooser returns a play that is not legal, naming the agent,
        the position (gnubg Position ID), the dice and the play; when the chooser raises
        (naming the agent, the position, the dice and the exception); or when the batch carries no
        dice (after-states not made by :func:`bgrl.rules.movegen.generate`).
    """

    def __init__(self, chooser, name: str = "agent"):
        fn = getattr(chooser, "choose_play", None)
        if fn is None:
            if not callable(chooser):
                raise TypeError(f"agent {name}: expected an object with choose_play(position, dice, rng) or a callable, "
                                f"got {type(chooser).__name__}")
            fn = chooser
        self._choose = fn
        self.name = name

    def _index(self, board, dice, group: np.ndarray, play) -> int:
        pos = Position(board)
        where = f"in position {pos.position_id} with dice {dice[0]}{dice[1]}"
        if play is None:
            raise ValueError(f"agent {self.name} returned no play (None) {where}, where a legal play exists")
        if isinstance(play, str):
            try:
                play = play_from_notation(pos, dice, play)
            except ValueError as exc:
                raise ValueError(f"agent {self.name} returned an illegal play {play!r:.40} {where}: "
                                 f"{getattr(exc, 'reason', None) or exc}") from None
        after = getattr(play, "after_state", play)
        try:
            row = np.asarray(after, dtype=np.int8).reshape(26)
        except (TypeError, ValueError):
            raise ValueError(f"agent {self.name} returned {type(play).__name__} {play!r:.40} {where}: expected a Play, "
                             "a play's notation or an after-state board (26,)") from None
        hits = np.flatnonzero((group == row).all(axis=1))
        if hits.size == 0:
            shown = getattr(play, "notation", None) or f"(after-state board {row.tolist()})"
            raise ValueError(f"agent {self.name} returned an illegal play {shown} {where}: it is not one of the "
                             f"{group.shape[0]} legal plays")
        return int(hits[0])

    def select(self, after: AfterStates, rng: np.random.Generator) -> np.ndarray:
        if after.dice is None:
            raise ValueError(f"agent {self.name} chooses one play at a time and needs each position's roll: "
                             "expected after-states from bgrl.rules.movegen.generate (with their dice)")
        out = after.offsets[:-1].copy()
        for i in np.flatnonzero(after.counts > 1):
            d = (int(max(after.dice[i])), int(min(after.dice[i])))
            group = after.group(int(i))
            pos = Position(after.positions[i])
            try:
                play = self._choose(pos, d, rng)
            except Exception as exc:  # noqa: BLE001 - a user agent's failure is reported in one line
                raise ValueError(f"agent {self.name} raised {type(exc).__name__} in position {pos.position_id} with dice "
                                 f"{d[0]}{d[1]}: {exc}".replace("\n", " ")) from None
            out[i] += self._index(after.positions[i], d, group, play)
        return out
