"""Named playing levels: a table of settings (network, ply, move filter, noise), not classes.

``LEVELS`` maps each name (``beginner`` ... ``grandmaster``) to a :class:`Level`. A level is
played by :class:`LevelAgent`: every legal play is valued by :func:`bgrl.agents.search.search_plays`
at the level's ply (move filters between plies), Gaussian equity noise of the level's
standard deviation is added to the deepest-valued plays, and the best is played. Hints
(:meth:`LevelAgent.hint`) use the same search without noise.

Noise is reproducible (gnubg's "deterministic noise" idea): the noise of a play is a
function of (the position, the set of legal plays, which the roll determines, the play,
the level and the agent's seed), computed by hashing them, so the same (position, dice,
level, seed) always gives the same play, in a match or one call at a time, on any thread.

The measured strength of each level (matches, error rates) lives in the shipped data file
``checkpoints/levels.json``, written by :mod:`bgrl.arena.ladder` (``python scripts/tools/ladder.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from bgrl.agents.base import Agent, check_decision
from bgrl.agents.hints import HintRanker, RankedPlay
from bgrl.rules.movegen import AfterStates
from bgrl._resources import shipped_checkpoint, shipped_path
from bgrl.agents.search import GNUBG_FILTERS, MAX_PLY, MIN_PRUNED_PLY, MoveFilter, ReplyPruning, check_keep, check_ply, group_argmax, search_plays
from bgrl.evaluation.probabilities import equity

__all__ = ["Level", "Pruning", "DEFAULT_PRUNING", "LEVELS", "LEVEL_NAMES", "DEFAULT_HINT_LEVEL", "DEFAULT_PLAY_LEVEL", "JUDGE_LEVEL", "STRONGEST_NETWORK", "LevelAgent", "load_level", "reply_pruning", "hint", "play_noise", "measured_levels", "MEASURED_FILE"]

#: Name of the measured-figures file inside the package ``bgrl.checkpoints``.
MEASURED_FILE = "levels.json"


@dataclass(frozen=True)
class Pruning:
    """The reply pruning of a level's searches of 2-ply and deeper
    (:class:`bgrl.agents.search.ReplyPruning`, gnubg's pruning nets).

    network : str, a shipped network name: the cheap evaluator that ranks each roll's replies;
    keep : int >= 1, how many of them the level's own network then values.
    """

    network: str
    keep: int = 5

    def __post_init__(self):
        check_keep(self.keep, "Pruning")


#: The pruning of every search of 2-ply or deeper: the ``default`` network (80 hidden units,
#: td198r inputs; about 0.4 us a position against 3 us for distilled7's 640) ranks each roll's
#: replies and the level's network values the best 5. Chosen by ``scripts/bench/bench_prune.py``.
DEFAULT_PRUNING = Pruning("default", 5)


@dataclass(frozen=True)
class Level:
    """One playing level.

    name : str, the level's name (``bgrl.load_agent(name)``);
    network : str, a shipped network name (``checkpoints/<network>.pt``);
    ply : int 0..3, search depth in gnubg's convention (0 = the network alone);
    filters : tuple of :class:`bgrl.agents.search.MoveFilter`, between plies (unused at 0-ply);
    noise : float >= 0, standard deviation of the equity noise (points per game) added to
        each play's value before choosing (gnubg's levels: 0.060/0.050/0.040/0.015/0);
    note : str, one line on what the level is meant to be;
    prune : :class:`Pruning`, how its searches of 2-ply and deeper prune the replies, every
        reply choice of such a search, its 1-ply stage's too (default :data:`DEFAULT_PRUNING`;
        searches at 0- and 1-ply value every reply).
    """

    name: str
    network: str
    ply: int
    filters: tuple = field(default=GNUBG_FILTERS)
    noise: float = 0.0
    note: str = ""
    prune: Pruning = DEFAULT_PRUNING

    def pruned(self, ply: int | None = None) -> bool:
        """Whether a search of this level at ``ply`` (default: its own) prunes the replies."""
        return (self.ply if ply is None else check_ply(ply)) >= MIN_PRUNED_PLY

    def __post_init__(self):
        if not isinstance(self.prune, Pruning):
            raise TypeError(f"level {self.name}: prune must be a Pruning, got {type(self.prune).__name__}")
        if not 0 <= self.ply <= MAX_PLY:
            raise ValueError(f"level {self.name}: ply must be 0..{MAX_PLY}, got {self.ply}")
        if self.noise < 0:
            raise ValueError(f"level {self.name}: noise must be >= 0, got {self.noise}")

    def with_ply(self, ply: int | None) -> "Level":
        """This level searched at ``ply`` instead (None: unchanged): its move filters are kept
        when they reach that deep, else gnubg's normal filters
        (:data:`bgrl.agents.search.GNUBG_FILTERS`) are used. Raises ValueError for a ply
        outside 0..3."""
        if ply is None:
            return self
        ply = check_ply(ply)
        if ply == self.ply:
            return self
        filters = self.filters if len(self.filters) >= min(ply, len(GNUBG_FILTERS)) else GNUBG_FILTERS
        return replace(self, ply=ply, filters=filters)

    def definition(self) -> str:
        """Short text, e.g. ``default net, 2-ply, filter 8/0.16 2/0.04, noise 0``."""
        parts = [f"{self.network} net", f"{self.ply}-ply"]
        if self.ply > 0:
            parts.append("filter " + " ".join(f"{f.keep}/{f.window:g}" for f in self.filters[: self.ply]))
        if self.pruned():
            parts.append(f"prune {self.prune.network}/{self.prune.keep}")
        parts.append(f"noise {self.noise:g}")
        return ", ".join(parts)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "network": self.network,
            "ply": self.ply,
            "filters": [[f.keep, f.window] for f in self.filters[: self.ply]],
            "noise": self.noise,
            "note": self.note,
            **({"prune": [self.prune.network, self.prune.keep]} if self.pruned() else {}),
        }


_F1 = (MoveFilter(8, 0.16),)

# The table. Chosen by measurement (README "Levels"; figures in checkpoints/levels.json).
LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("beginner", "early", 0, (), 0.0, "a network after 3,000 self-play games (consistent strategic weakness), 0-ply"),
        Level("casual", "default", 0, (), 0.030, "the default network (TD, td198r inputs), 0-ply, with equity noise"),
        Level("intermediate", "default", 0, (), 0.0, "the default network (TD, td198r inputs), 0-ply"),
        Level("advanced", "td198g", 0, (), 0.0, "the best pure TD(lambda) network (td198g inputs), 0-ply"),
        Level("expert", "distilled2", 0, (), 0.0, "the network the strongest one was distilled from, 0-ply (gnubg's expert is 0-ply too)"),
        Level("world-class", "distilled7", 1, _F1, 0.0, "the strongest shipped network (640 hidden units), 1-ply, gnubg's 0-ply filter"),
        Level("grandmaster", "distilled7", 2, GNUBG_FILTERS, 0.0, "the strongest shipped network (640 hidden units), 2-ply, "
              "gnubg's filters 8/0.16 then 2/0.04 (gnubg's world-class setting searches 2-ply too), each roll's replies "
              "pruned by the default network (its best 5 valued), as gnubg prunes with its pruning nets"),
    )
}
LEVEL_NAMES = tuple(LEVELS)
#: The strongest shipped network (the lowest 0-ply error rate on the shipped benchmark,
#: checkpoints/manifest.json): the network of ``world-class`` and ``grandmaster``.
#: ``scripts/bench/vs_gnubg.py`` plays this network in its 0- and 1-ply pairings.
#: Read from the table, so it follows ``world-class`` when that level moves to another network.
STRONGEST_NETWORK = LEVELS["world-class"].network
#: The level used when none is named: ``bgrl hint``, :func:`bgrl.agents.levels.hint`, the
#: hints of ``bgrl play`` and the web board, the service's requests and UBGI sessions. One
#: default everywhere: the strongest level that answers within about a second (1-ply).
DEFAULT_HINT_LEVEL = "world-class"
#: The playing level of an engine session when none is named (UBGI's ``engine.level``, the
#: service's ``/v1/move``): the fastest strong play, a 0-ply network.
DEFAULT_PLAY_LEVEL = "expert"
#: The judge of resignations, draws and reviews in ``bgrl play`` and on the web board (never
#: the level that played), and the web board's default hint level: the strongest 1-ply level.
#: ``grandmaster`` (2-ply) judges better but reviews a game about six times more slowly; it
#: can be chosen wherever a hint or review level is taken.
JUDGE_LEVEL = "world-class"

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
_COLS = np.random.default_rng(0x626772_6C65766C).integers(1, 2**63 - 1, size=26, dtype=np.uint64) | np.uint64(1)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, element-wise on uint64 (wrapping arithmetic)."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _row_hash(boards: np.ndarray) -> np.ndarray:
    x = (np.asarray(boards, dtype=np.int64) + 16).astype(np.uint64)
    with np.errstate(over="ignore"):
        return _mix((x * _COLS).sum(axis=1, dtype=np.uint64))


def _text_key(text: str, seed: int) -> np.uint64:
    h = hashlib.blake2b(f"{text}\0{int(seed)}".encode(), digest_size=8).digest()
    return np.uint64(int.from_bytes(h, "little"))


def play_noise(after: AfterStates, level: str, seed) -> np.ndarray:
    """Standard normal noise for every play of a batch, reproducible.

    after : AfterStates of B decisions; level : str; seed : int, or int (B,) one seed per
    decision (the service batches requests that carry different seeds).
    Returns float64 (M,): a deterministic function of (position, its set of legal
    after-states, the after-state, level, seed), so of (position, dice, play, level, seed):
    a decision's noise does not depend on the other decisions of the batch.
    """
    starts = after.offsets[:-1]
    if np.ndim(seed) == 0:
        key = _text_key(level, int(seed))
    else:
        key = np.array([_text_key(level, int(s)) for s in np.asarray(seed).reshape(-1)], dtype=np.uint64)
    h_after = _row_hash(after.boards)
    with np.errstate(over="ignore"):
        h_set = np.add.reduceat(h_after, starts, dtype=np.uint64)  # order-free hash of the plays
        h_dec = _mix(_row_hash(after.positions) + h_set * np.uint64(0x9E3779B97F4A7C15) + key)
        k1 = _mix(h_after ^ h_dec[after.parent])
        k2 = _mix(k1 + np.uint64(0x9E3779B97F4A7C15))
    u1 = ((k1 >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53
    u2 = (k2 >> np.uint64(11)).astype(np.float64) / 2.0**53
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


class LevelAgent(Agent):
    """Plays a :class:`Level`: search at its ply, reproducible equity noise, best play.

    Parameters
    ----------
    level : Level
    evaluator : callable after-states int8 (M, 26) -> probabilities (M, 5) (bgrl.evaluation.evaluator)
    seed : int, mixed into the noise (same seed -> same plays)

    ``select`` batches the search over all decisions it is given (matches pass every game
    in lockstep). The rng argument of ``select``/``choose_play`` is accepted for the agent
    protocol and not used: the noise comes from the hash (see :func:`play_noise`).
    Thread safety: no state changes after construction; the network is only read (torch
    inference mode), so one agent may be called from several threads at once, no lock.
    """

    uses_rng = False  # the noise comes from a hash (play_noise)

    def __init__(self, level: Level, evaluator, seed: int = 0, meta: dict | None = None, pruner=None, backend: str = "torch"):
        self.level = level
        self.evaluator = evaluator
        self.seed = int(seed)
        self.name = level.name
        self.meta = meta or {}
        self._pruner = pruner  # the evaluator of level.prune.network; None: the shipped one (reply_pruning)
        self._backend = backend

    def pruning(self, ply: int | None = None) -> ReplyPruning | None:
        """The reply pruning of this agent's search at ``ply`` (default: its level's), or None
        below 2-ply (:meth:`Level.pruned`). The pruning network is the one given as ``pruner``,
        else the shipped ``level.prune.network``, opened once per process."""
        lv = self.level
        given = None if self._pruner is None else {lv.prune.network: self._pruner}
        return reply_pruning(lv.ply if ply is None else ply, lv.prune, self._backend, given)

    def select(self, after: AfterStates, rng=None, seeds=None) -> np.ndarray:
        """Index int64 (B,) into ``after.boards`` of the play chosen for each decision.
        ``seeds``: optional int (B,), one noise seed per decision instead of ``self.seed``
        (a decision's choice depends only on it and its seed, not on the rest of the batch)."""
        lv = self.level
        if lv.ply == 0 and lv.noise <= 0 and after.offsets.shape[0] == 2:
            # one decision at 0-ply (choose_play): the evaluator alone, the first best play, as search_plays gives it
            eq = equity(np.asarray(self.evaluator(after.boards), dtype=np.float64).reshape(-1, 5))
            return np.array([int(np.argmax(eq))], dtype=np.int64)
        res = search_plays(self.evaluator, after.boards, after.offsets, lv.ply, lv.filters, prune=self.pruning())
        if lv.noise <= 0:
            return res.best

        counts = np.diff(after.offsets)
        parent = np.repeat(np.arange(counts.size), counts)
        gdepth = np.maximum.reduceat(res.ply, after.offsets[:-1])
        noisy = res.equity + lv.noise * play_noise(after, lv.name, self.seed if seeds is None else seeds)
        return group_argmax(np.where(res.ply == gdepth[parent], noisy, -np.inf), after.offsets)

    def hint(self, position, dice, ply: int | None = None, top: int | None = None):
        """Every legal play ranked by this level's noise-free search.

        Parameters
        ----------
        position : bgrl.rules.board.Position
        dice : pair of ints 1..6
        ply : int 0..3, optional
            Overrides the level's ply (its filters are kept when they reach that deep).
        top : int >= 0, optional
            Only the best ``top`` rows (None or 0: all); notation is built for those only.

        Returns
        -------
        list of :class:`bgrl.agents.hints.RankedPlay`, best first; ``[]`` when the turn passes.

        Raises
        ------
        TypeError, ValueError
            See :meth:`bgrl.agents.hints.HintRanker.rank`.
        """
        return HintRanker.from_agent(self, ply).rank(position, dice, top=top)


#: (network, backend) -> (evaluator, meta): each shipped network is opened once per process
#: (a shipped file does not change under a running process; evaluators are only read).
_OPENED: dict[tuple[str, str], tuple] = {}
#: (level, ply) -> the noise-free HintRanker of :func:`hint`, built once per process.
_RANKERS: dict[tuple[str, int | None], HintRanker] = {}


def _evaluator(network: str, backend: str = "torch"):
    """(evaluator, meta) of a shipped network, shared (read-only, so safe to share) and
    checked against the manifest (:func:`bgrl.evaluation.networks.open_network`) when first
    opened. ``"auto"`` is resolved at each call (it depends on whether torch is imported),
    through ``open_network``'s own cache."""
    got = _OPENED.get((network, backend))
    if got is None:
        from bgrl.evaluation.networks import open_network

        loaded = open_network(shipped_checkpoint(network), backend=backend)
        got = (loaded.evaluator, loaded.meta)
        if backend != "auto":
            _OPENED[(network, backend)] = got
    return got


def load_level(name: str, seed: int = 0, backend: str = "torch") -> LevelAgent:
    """The agent of a named level. ValueError naming the levels for an unknown name.

    ``backend``: how its network is evaluated, ``"torch"``, ``"numpy"`` (no torch import)
    or ``"auto"`` (:func:`bgrl.evaluation.networks.open_network`)."""
    lv = LEVELS.get(str(name))
    if lv is None:
        raise ValueError(f"unknown level {name!r}: expected one of {', '.join(LEVEL_NAMES)}")
    ev, meta = _evaluator(lv.network, backend)
    return LevelAgent(lv, ev, seed=seed, meta=meta, backend=backend)


def reply_pruning(ply: int, pruning: Pruning = DEFAULT_PRUNING, backend: str = "torch", networks=None) -> ReplyPruning | None:
    """The :class:`bgrl.agents.search.ReplyPruning` of a search at ``ply``: None below 2-ply,
    else ``pruning``'s network (from ``networks``, a ``{name: evaluator}`` already opened,
    where it is there; else the shipped one, opened once per process with ``backend``)."""
    if check_ply(ply) < MIN_PRUNED_PLY:
        return None
    ev = networks.get(pruning.network) if networks is not None else None
    if ev is None:
        ev = _evaluator(pruning.network, backend)[0]
    return ReplyPruning(ev, int(pruning.keep))


def measured_levels(path: str | Path | None = None) -> dict:
    """The measured figures (``checkpoints/levels.json``), or {} when none were measured."""
    p = Path(path) if path is not None else shipped_path(MEASURED_FILE)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the measured levels file {p}: {exc}") from None


def hint(position, dice, level: str | None = None, ply: int | None = None, top: int | None = None) -> list[RankedPlay]:
    """Every legal play ranked by a level's noise-free search: the one-call hint.

    Parameters
    ----------
    position : bgrl.rules.board.Position
        From the side on roll (read text with :func:`bgrl.read_position`).
    dice : pair of ints 1..6
        E.g. ``(5, 3)`` (read text with :func:`bgrl.parse_dice`).
    level : str, optional
        A level name (:data:`bgrl.agents.levels.LEVEL_NAMES`); default
        :data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL` (``"world-class"``).
    ply : int 0..3, optional
        Overrides the level's search depth (gnubg's convention).
    top : int >= 0, optional
        At most this many rows (None or 0: all).

    Returns
    -------
    list of RankedPlay, best first; ``[]`` when no die can be played.

    Raises
    ------
    TypeError
        For text or other non-parsed position or dice.
    ValueError
        For an unknown level, a ply outside 0..3, a negative ``top``, bad dice or a finished game.

    Examples
    --------
    >>> import bgrl
    >>> rows = bgrl.hint(bgrl.Position.start(), (3, 1))  # doctest: +SKIP
    >>> rows[0].play.notation, rows[0].rank  # doctest: +SKIP
    ('8/5 6/5', 1)
    """
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0):
        raise ValueError(f"top must be an int >= 0 (0 = all plays), got {top!r}")
    check_decision(position, dice)
    name = DEFAULT_HINT_LEVEL if level is None else level
    key = (str(name), None if ply is None else check_ply(ply))
    ranker = _RANKERS.get(key)
    if ranker is None:
        ranker = HintRanker.from_agent(load_level(name), ply)
        _RANKERS[key] = ranker
    return ranker.rank(position, dice, top=int(top) if top else None)
