"""Agents: choose one legal play per position, batched.

Protocol (DESIGN.md, habit 8): an agent has ``select(after: AfterStates, rng) -> int64 (B,)``
returning, for every position of a batch, the index (into ``after.boards``) of the chosen
after-state; ``choose_play(position, dice, rng=None) -> Play | None`` is the one-position
convenience built on it (None when the turn passes).

Agents: ``random`` (uniform over distinct legal plays), ``pubeval`` (Tesauro's linear
evaluator, :mod:`bgrl.pubeval`), and network agents from a checkpoint (0-ply, with optional
equity noise for weaker levels).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .movegen import AfterStates, generate
from .notation import Play, legal_plays
from .resources import shipped_checkpoint

__all__ = ["group_argmax", "Agent", "RandomAgent", "PubevalAgent", "NetAgent", "load_agent", "DEFAULT_CHECKPOINT"]

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


class Agent:
    """Base class: subclasses implement :meth:`select`."""

    name = "agent"

    def select(self, after: AfterStates, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def choose_play(self, position, dice, rng: np.random.Generator | None = None) -> Play | None:
        """Choose a play for one position.

        position : Position, gnubg Position ID or XGID (str); dice : pair of ints 1..6 or text
        like ``"53"`` (:func:`bgrl.xgid.position_and_dice`).
        Returns one of :func:`bgrl.notation.legal_plays` (None if no die can be played).
        """
        from .xgid import position_and_dice

        pos, d = position_and_dice(position, dice)
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
    """Tesauro's pubeval (see :mod:`bgrl.pubeval`): highest linear score."""

    name = "pubeval"

    def select(self, after, rng):
        from .pubeval import is_race, pubeval_scores

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
        from .model import equity

        return equity(self.evaluator(after.boards))

    def select(self, after, rng):
        eq = self.equities(after)
        if self.noise > 0:
            eq = eq + rng.normal(0.0, self.noise, size=eq.shape)
        return group_argmax(eq, after.offsets)


def load_agent(spec: str | Path | None = None, noise: float = 0.0, seed: int = 0) -> Agent:
    """Build an agent from a spec.

    spec : ``"random"``, ``"pubeval"``, a level name (``"beginner"``, ``"casual"``,
        ``"intermediate"``, ``"advanced"``, ``"expert"``, ``"world-class"``; see
        :mod:`bgrl.levels`), a checkpoint path, a run folder (its ``final.pt``, else
        ``latest.pt``), or None / ``"default"`` for the shipped network
        (checkpoints/default.pt) at 0-ply; ``"gnubg"`` / ``"gnubg:N"`` for GNU Backgammon
        at 0 / N plies (:mod:`bgrl.gnubg_agent`, needs the ``gnubg`` extra).
    seed : int, the noise seed of a level agent (same seed -> same plays).

    A level agent also has ``hint(position, dice)``.

    Raises
    ------
    ValueError
        for an unknown spec; :class:`bgrl.checkpoint.CheckpointError` for a bad checkpoint.
    """
    if spec is None or str(spec) == "default":
        spec = DEFAULT_CHECKPOINT
    s = str(spec)
    if not s.strip():
        raise ValueError("an agent spec must not be empty: expected random, pubeval, a level name, a shipped network name, gnubg[:N], or a checkpoint path")
    if s == "random":
        return RandomAgent()
    if s == "pubeval":
        return PubevalAgent()
    from .levels import LEVELS, load_level

    if s in LEVELS:
        return load_level(s, seed=seed)
    if s == "gnubg" or s.startswith("gnubg:"):
        from .gnubg_agent import GnubgAgent, parse_gnubg_spec

        plies = parse_gnubg_spec(s)
        try:
            return GnubgAgent(plies)
        except ImportError:
            raise ValueError(f"agent {s!r} needs GNU Backgammon's evaluator (PyPI gnubg-nn), an optional extra: "
                             "pip install -e '.[gnubg]'") from None
    from .resources import resolve_checkpoint

    p = resolve_checkpoint(s)  # a run folder means its final.pt, else latest.pt
    if p.suffix == ".pt" or p.exists():
        from .checkpoint import load_network
        from .evaluator import NetEvaluator

        net, meta = load_network(p)
        return NetAgent(NetEvaluator(net, meta["encoder"]), noise=noise, name=p.name, meta=meta)
    raise ValueError(f"unknown agent {s!r}: expected 'random', 'pubeval', 'default', a level ({', '.join(LEVELS)}), "
                     "'gnubg', 'gnubg:N' or a checkpoint path (.pt)")
