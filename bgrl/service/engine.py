"""The one adapter between the serving front ends (HTTP, UBGI) and the engine's levels.

Every front end talks to :class:`Engine`: choose a play at a level (:meth:`Engine.move`),
rank the plays at a level (:meth:`Engine.hint`), evaluate a position (:meth:`Engine.evaluate`).
Nothing else in :mod:`bgrl.service` or :mod:`bgrl.service.ubgi` knows how a level is built.

Levels
------
The levels are those of the levels table (:data:`bgrl.agents.levels.LEVELS`, names
:data:`bgrl.agents.levels.LEVEL_NAMES`, default :data:`bgrl.agents.levels.DEFAULT_PLAY_LEVEL`),
each played by a :class:`bgrl.agents.levels.LevelAgent` over its network, shared by every
request. Hints are the level's noise-free ranking (:class:`bgrl.agents.hints.HintRanker`,
rows :class:`bgrl.agents.hints.RankedPlay`); the level's own reproducible noise
(:func:`bgrl.agents.levels.play_noise`, a hash of position, plays, level and seed) makes
the same request with the same seed give the same play.

Ply is counted as in gnubg (0-ply = the network on the after-states). The UBGI front end
adds one (UBGI 1-ply = gnubg 0-ply).

Jobs
----
:meth:`Engine.run_batch` answers typed jobs, many at once (the service's batching across
requests): :class:`MoveJob` (a play), :class:`RankJob` (ranked plays), :class:`ListJob`
(wildbg's list, or its JSON body) and :class:`EvalJob` (probabilities before the roll).
The one-call methods (:meth:`Engine.move`, ...) are batches of one.

Input errors raise :class:`ServiceError` with a short machine-readable ``code``. Engine work
can be told to stop (:mod:`bgrl.service.stopping`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgrl._resources import shipped_checkpoint
from bgrl._version import __version__
from bgrl.agents.hints import HintRanker, RankedPlay
from bgrl.agents.levels import DEFAULT_PLAY_LEVEL, LEVEL_NAMES, LEVELS, LevelAgent, reply_pruning
from bgrl.agents.registry import load_ranker
from bgrl.agents.search import MAX_PLY, after_state_probs
from bgrl.evaluation.match_equity import default_met
from bgrl.evaluation.networks import ManifestError, open_network
from bgrl.evaluation.probabilities import flip_probs
from bgrl.rules.board import Position, START_POSITION_ID, flip
from bgrl.rules.dice import parse_dice, validate_dice
from bgrl.rules.movegen import generate
from bgrl.rules.notation import Play, legal_plays_batch, plays_at
from bgrl.rules.outcome import check_not_over
from bgrl.rules.xgid import parse_xgid, parse_xgid_cube
from bgrl.service.stopping import FixedChunkEvaluator, StopPoints

__all__ = [
    "ENGINE_NAME",
    "MAX_SEED",
    "ServiceError",
    "LevelInfo",
    "MoveResult",
    "MoveJob",
    "RankJob",
    "ListJob",
    "EvalJob",
    "Engine",
    "plain_steps",
    "plain_notation",
    "step_dicts",
    "wildbg_move_json",
    "parse_position",
    "parse_position_cube",
    "parse_dice_value",
    "xgid_supported",
]

ENGINE_NAME = "bgrl"
MAX_SEED = 2**63 - 1


class ServiceError(ValueError):
    """Bad input to the engine: ``code`` (e.g. ``bad_position_id``), ``message`` (one line)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self):  # survives the trip back from a worker process
        return (ServiceError, (self.code, self.message))


def xgid_supported() -> bool:
    """Always True: the XGID reader (:mod:`bgrl.rules.xgid`) ships with bgrl. Kept for the
    ``xgid_supported`` field of ``/v1/version`` and for callers written before it shipped."""
    return True


# ----------------------------------------------------------------------------- input parsing
def _clip(text, n: int = 60) -> str:
    s = repr(text)
    return s if len(s) <= n else s[: n - 3] + "..."


def parse_position(gnubg_id: str | None = None, xgid: str | None = None, board=None) -> tuple[Position, tuple[int, int] | None]:
    """Position from exactly one of a gnubg Position ID, an XGID or a board of 26 ints
    (bgrl's board encoding, the side on roll's view; the same numbering as wildbg's
    ``p0..p25``: index 0 = the opponent's bar as a negative count, 1..24 = the mover's points,
    25 = the mover's bar). Returns ``(position, dice)``; dice come only from an XGID that has them.

    Raises ServiceError (codes ``bad_position_id``, ``bad_xgid``, ``bad_position``).
    """
    given = [x is not None for x in (gnubg_id, xgid, board)]
    if sum(given) != 1:
        raise ServiceError("bad_position", "give exactly one of gnubg_id, xgid or board")
    if gnubg_id is not None:
        try:
            return Position.from_id(gnubg_id), None
        except (TypeError, ValueError) as exc:
            raise ServiceError("bad_position_id", str(exc)) from None
    if xgid is not None:
        return _parse_xgid(xgid)
    try:
        vals = list(board)
    except TypeError:
        raise ServiceError("bad_position", f"board must be a list of 26 ints, got {_clip(board)}") from None
    if len(vals) != 26 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
        raise ServiceError("bad_position", f"board must be a list of 26 ints, got {_clip(vals)}")
    if any(abs(int(v)) > 15 for v in vals):
        raise ServiceError("bad_position", "board counts must lie in -15..15")
    try:
        return Position(np.array(vals, dtype=np.int64)), None
    except (TypeError, ValueError) as exc:
        raise ServiceError("bad_position", str(exc)) from None


def parse_position_cube(gnubg_id: str | None = None, xgid: str | None = None, board=None):
    """:func:`parse_position`, and the cube and match an XGID carries (its fields 2-3 and
    6-10: :func:`bgrl.rules.xgid.parse_xgid_cube`), for the routes that take a cube.

    Returns ``(position, dice, cube)``: ``cube`` is the XGID's :class:`bgrl.rules.cube.CubeState`
    from the side on roll (its cap included), None for a Position ID or a board.

    Raises ServiceError (codes ``bad_position_id``, ``bad_xgid``, ``bad_position``; ``bad_xgid``
    too for a match longer than the match equity table).
    """
    if xgid is None or gnubg_id is not None or board is not None:
        pos, dice = parse_position(gnubg_id, xgid, board)
        return pos, dice, None
    try:
        pos, dice, state = parse_xgid_cube(xgid)
        if state.is_match:
            default_met().check_length(state.match_length)
    except (TypeError, ValueError) as exc:
        raise ServiceError("bad_xgid", str(exc)) from None
    return pos, dice, state


def _parse_xgid(text: str) -> tuple[Position, tuple[int, int] | None]:
    try:
        return parse_xgid(text)
    except (TypeError, ValueError) as exc:
        msg = str(exc)
        try:  # refused only for its cube or score: say which routes read them
            parse_xgid_cube(text)
        except (TypeError, ValueError):
            pass
        else:
            msg += "; this route plays cubeless money: POST /v1/hint and /v1/cube read an XGID's cube and score"
        raise ServiceError("bad_xgid", msg) from None


def parse_dice_value(dice) -> tuple[int, int]:
    """Dice from ``[d1, d2]`` (ints 1..6) or text like ``"31"``, ``"3-1"``.

    Raises ServiceError ``bad_dice``.
    """
    try:
        if isinstance(dice, str):
            return parse_dice(dice)
        if isinstance(dice, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool) for d in dice):
            if any(abs(d) > 100 for d in dice):
                raise ValueError(f"each die must be 1..6, got {_clip(list(dice))}")
        return validate_dice(dice)
    except (TypeError, ValueError) as exc:
        raise ServiceError("bad_dice", str(exc)) from None


def _check_not_over(pos: Position) -> None:
    """:func:`bgrl.rules.outcome.check_not_over`, as ServiceError ``game_over``."""
    try:
        check_not_over(pos)
    except ValueError as exc:
        raise ServiceError("game_over", str(exc)) from None


# ----------------------------------------------------------------------------- notation for machines
def plain_steps(play: Play | None) -> list[tuple[int, int]]:
    """The checker moves of a play as ``(from, to)`` pairs in the mover's numbering,
    bar = 25, off = 0, one pair per die, in an order that can be applied one by one
    (highest source first; for one source the larger die first). ``[]`` for a pass."""
    if play is None:
        return []
    steps = [(int(s), max(int(d), 0)) for s, d, _hit in play.moves]
    return sorted(steps, key=lambda t: (-t[0], t[1]))


_STEPS_MEMO: dict = {}

try:  # the serve extra installs orjson
    from orjson import dumps as _json_bytes
except ImportError:  # pragma: no cover
    import json as _json

    def _json_bytes(obj) -> bytes:
        return _json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def step_dicts(play: Play | None) -> list[dict]:
    """:func:`plain_steps` as ``[{"from": f, "to": t}]``, remembered by the play's checker
    moves (the same few thousand plays come up again and again; read-only)."""
    if play is None:
        return []
    got = _STEPS_MEMO.get(play.moves)
    if got is None:
        if len(_STEPS_MEMO) > 100_000:
            _STEPS_MEMO.clear()
        got = _STEPS_MEMO[play.moves] = [{"from": a, "to": b} for a, b in plain_steps(play)]
    return got


_WILDBG_KEYS = ("win", "winG", "winBg", "loseG", "loseBg")


def wildbg_move_json(items) -> bytes:
    """The JSON body of wildbg's ``GET /move`` for :meth:`Engine.move_list`'s answer:
    ``{"moves": [{"play": [{"from", "to"}...], "probabilities": {"win", "winG", "winBg",
    "loseG", "loseBg"}}...]}``, probabilities rounded to 6 decimals (``numpy.round``, one
    call for the whole list)."""
    items = list(items)
    return _wildbg_body([play for play, _p in items], np.asarray([p for _play, p in items], dtype=np.float64))


def _wildbg_body(plays: list, probs: np.ndarray) -> bytes:
    """:func:`wildbg_move_json` of plays (``None`` for a pass) and their probabilities float (n, 5)."""
    rounded = np.round(np.asarray(probs, dtype=np.float64).reshape(len(plays), 5), 6).tolist()
    keys = _WILDBG_KEYS
    return _json_bytes({"moves": [{"play": step_dicts(play), "probabilities": dict(zip(keys, pr))}
                                  for play, pr in zip(plays, rounded)]})


def plain_notation(play: Play | None) -> str:
    """Plain notation (``24/18 13/12``, ``bar/22``, ``6/off``, ``pass``): one ``from/to``
    per die, no hit marks, no repeat counts (the UBGI ``bestmove`` payload)."""
    steps = plain_steps(play)
    if not steps:
        return "pass"
    name = lambda p: "bar" if p == 25 else ("off" if p == 0 else str(p))  # noqa: E731
    return " ".join(f"{name(s)}/{name(d)}" for s, d in steps)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class LevelInfo:
    """One level: name, ply (gnubg convention, 0 = the network), noise (sigma, points per
    game), where its definition came from, and the network it really plays: its name
    (``checkpoints/<network>.pt``), file name and sha256 (hex; ``model_sha256`` of an
    injected evaluator)."""

    name: str
    ply: int
    noise: float
    source: str
    network: str = "default"
    file: str = ""
    sha256: str = ""

    def as_dict(self) -> dict:
        return {"name": self.name, "ply": self.ply, "noise": self.noise, "source": self.source,
                "network": self.network, "file": self.file, "sha256": self.sha256}


@dataclass(frozen=True)
class MoveResult:
    """A chosen play (None = pass), the position after it (opponent on roll), level, ply, seed."""

    play: Play | None
    result_id: str
    level: str
    ply: int
    seed: int


# ----------------------------------------------------------------------------- jobs
@dataclass(frozen=True)
class MoveJob:
    """The level's play for one position and roll: answered by a :class:`MoveResult`.

    ``dice``: a pair of ints 1..6 or text like ``"31"`` (:func:`parse_dice_value`); ``seed``
    None draws a fresh one (reported in the result, so the play can be reproduced); ``ply``
    overrides the level's search depth (gnubg convention)."""

    pos: Position
    dice: object
    level: str = DEFAULT_PLAY_LEVEL
    seed: int | None = None
    ply: int | None = None


@dataclass(frozen=True)
class RankJob:
    """Every legal play ranked best first by the level's noise-free search: answered by
    ``(rows, legal)``, the :class:`bgrl.agents.hints.RankedPlay` rows cut to ``top`` (None or
    0: all) and the number of legal plays. ``dmp``: rank by winning chances only (one-point
    match); ``ply`` overrides the level's search depth."""

    pos: Position
    dice: object
    level: str = DEFAULT_PLAY_LEVEL
    top: int | None = None
    dmp: bool = False
    ply: int | None = None


@dataclass(frozen=True)
class ListJob:
    """wildbg's list: every play with the probabilities after it (side that played),
    ranked by the level's noise-free evaluation, a noisy level's own choice (or any level's
    when ``seed`` is given) first. Answered by ``[(play, probabilities float64 (5,))]``
    (``[(None, probs)]`` when no die can be played: the unchanged position's, opponent on
    roll), or with ``as_json`` by the JSON body of wildbg's ``GET /move`` (bytes,
    :func:`wildbg_move_json`)."""

    pos: Position
    dice: object
    level: str = DEFAULT_PLAY_LEVEL
    seed: int | None = None
    dmp: bool = False
    as_json: bool = False


@dataclass(frozen=True)
class EvalJob:
    """Outcome probabilities of the side on roll, before it rolls, at the level's ply:
    answered by ``(probabilities float64 (5,), ply)``."""

    pos: Position
    level: str = DEFAULT_PLAY_LEVEL


class Engine:
    """The levels loaded once, shared by every request; safe to call from several threads
    (no state changes after construction; the networks are only read).

    Parameters
    ----------
    evaluator : callable after-states int8 (M, 26) -> float (M, 5), optional
        Outcome probabilities of the side that played (bgrl.evaluation.evaluator protocol).
        Given: every level plays its own ply, filters and noise over this evaluator instead
        of its network (tests inject a fake here). None: the shipped networks, each
        verified by sha256 against ``checkpoints/manifest.json``.
    model_path : str or Path, optional
        The main network (default: the shipped ``checkpoints/default.pt``).
    model_sha256 : str, optional
        The digest reported when ``evaluator`` is injected (default ``"injected"``).

    Raises
    ------
    RuntimeError
        When a network file is missing or differs from the manifest.
    """

    def __init__(self, evaluator=None, model_path=None, model_sha256: str | None = None):
        self.model_path = Path(model_path) if model_path is not None else shipped_checkpoint("default")
        self._nets: dict[str, object] = {}
        self.warnings: list[str] = []
        if evaluator is not None:
            self.evaluator = evaluator if isinstance(evaluator, (FixedChunkEvaluator, StopPoints)) else StopPoints(evaluator)
            self.model_sha256 = model_sha256 or "injected"
            self.model_meta: dict = {"encoder": "injected"}
        else:
            self.evaluator, self.model_sha256, meta = self._load_network(self.model_path)
            self.model_meta = {k: meta.get(k) for k in ("encoder", "games_trained") if k in meta}
        self._nets["default"] = self.evaluator
        self.network_sha256: dict[str, str] = {"default": self.model_sha256}
        self.network_file: dict[str, str] = {"default": self.model_path.name}
        # The network each name really stands for ("default" where a level's network is not shipped).
        served_as: dict[str, str] = {"default": "default"}
        self.levels: dict[str, LevelInfo] = {}
        for name in LEVEL_NAMES:
            lv = LEVELS[name]
            if lv.network not in self._nets:
                path = shipped_checkpoint(lv.network)
                if evaluator is not None:
                    self._nets[lv.network] = self.evaluator
                    self.network_sha256[lv.network], self.network_file[lv.network] = self.model_sha256, path.name
                    served_as[lv.network] = lv.network
                elif path.is_file():  # verified against the manifest like the default network
                    self._nets[lv.network], self.network_sha256[lv.network], _ = self._load_network(path)
                    self.network_file[lv.network] = path.name
                    served_as[lv.network] = lv.network
                else:
                    self.warnings.append(f"network {lv.network!r} is not shipped ({path.name} missing); its levels use the default network")
                    served_as[lv.network] = "default"
                    self._nets[lv.network] = self.evaluator
            net = served_as[lv.network]
            note = f" [network {lv.network!r} not shipped: default network used]" if net != lv.network else ""
            self.levels[name] = LevelInfo(name, int(lv.ply), float(lv.noise), lv.definition() + note,
                                          net, self.network_file[net], self.network_sha256[net])
        # Warm up once so the first request does not pay for lazy initialisation (compiled
        # move generation with paths, notation tables, every network).
        start = Position.from_id(START_POSITION_ID)
        self.run_batch([MoveJob(start, (3, 1), name, 0) for name in LEVEL_NAMES] + [ListJob(start, (6, 6), LEVEL_NAMES[0]),
                                                                                   EvalJob(start, LEVEL_NAMES[0])])

    def _load_network(self, path: Path):
        if not path.is_file():
            raise RuntimeError(f"model file not found: {path}")
        try:
            loaded = open_network(path)
        except ManifestError as exc:
            raise RuntimeError(f"{exc}: refusing to serve it") from None
        if not loaded.listed:
            self.warnings.append(f"model {path.name} is not listed in manifest.json: its sha256 {loaded.sha256} could not be verified")
        return FixedChunkEvaluator(loaded.evaluator), loaded.sha256, loaded.meta

    # -- helpers
    def level(self, name: str) -> LevelInfo:
        """The :class:`LevelInfo` of level ``name``. Raises ServiceError ``bad_level``."""
        try:
            return self.levels[name]
        except (KeyError, TypeError):
            raise ServiceError("bad_level", f"unknown level {_clip(name)}: expected one of {', '.join(LEVEL_NAMES)}") from None

    def level_sha256(self, name: str) -> str:
        """sha256 (hex) of the network that plays level ``name`` (the ``model_sha256`` of
        its responses). Raises ServiceError ``bad_level``."""
        return self.level(name).sha256

    @staticmethod
    def max_ply() -> int:
        """Deepest search available (gnubg convention): :data:`bgrl.agents.search.MAX_PLY`."""
        return int(MAX_PLY)

    def info(self) -> dict:
        return {
            "engine": ENGINE_NAME,
            "version": __version__,
            # file/sha256: the default network (casual .. advanced); networks: sha256 of every
            # network loaded; files: their file names; each level names its own.
            "model": {"file": self.model_path.name, "sha256": self.model_sha256, **self.model_meta,
                      "networks": dict(self.network_sha256), "files": dict(self.network_file)},
            "levels": [lv.as_dict() for lv in self.levels.values()],
        }

    def _agent(self, name: str, seed: int = 0, ply: int | None = None) -> LevelAgent:
        """The LevelAgent of a level over its loaded network (cheap: the networks are shared);
        ``ply`` overrides the level's (its filters kept when they reach that deep)."""
        lv = LEVELS[name].with_ply(ply)
        return LevelAgent(lv, self._nets[lv.network], seed=seed, pruner=self._nets.get(lv.prune.network))

    def ranker(self, name: str, ply: int | None = None) -> HintRanker:
        """The noise-free ranker of level ``name`` over its loaded network
        (:func:`bgrl.agents.registry.load_ranker`; cheap: nothing is opened); ``ply`` overrides
        the level's."""
        return load_ranker(name, ply, networks=self._nets)

    def _check_ply(self, ply: int | None) -> None:
        if ply is not None and not 0 <= int(ply) <= self.max_ply():
            raise ServiceError("bad_ply", f"ply must be 0..{self.max_ply()} (gnubg convention), got {_clip(ply)}")

    # -- decisions: every public call is a batch of one (see run_batch)
    def _prep_rank(self, pos: Position, dice, level, ply, dmp) -> tuple:
        lv = self.level(level)
        d = parse_dice_value(dice)
        _check_not_over(pos)
        self._check_ply(ply)
        return (pos, d, lv.name, None if ply is None else int(ply), bool(dmp))

    def _prep_move(self, pos: Position, dice, level, seed, ply) -> tuple:
        lv = self.level(level)
        d = parse_dice_value(dice)
        _check_not_over(pos)
        self._check_ply(ply)
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
            raise ServiceError("bad_seed", f"seed must be an int in 0..2**63-1, got {_clip(seed)}")
        return (pos, d, lv.name, int(seed), None if ply is None else int(ply))

    def precheck(self, job) -> None:
        """The cheap checks :meth:`run_batch` makes of one job (level, dice, a finished
        game, ply, seed), raising its ServiceError; nothing is searched. The service runs
        them before admission, so that a bad request gets its 400 at once, not a 503 or a
        queue's wait under load. Other objects are left to :meth:`run_batch`."""
        if isinstance(job, RankJob):
            self._prep_rank(job.pos, job.dice, job.level, job.ply, job.dmp)
        elif isinstance(job, ListJob):
            self._prep_rank(job.pos, job.dice, job.level, None, job.dmp)
        elif isinstance(job, MoveJob):
            self._prep_move(job.pos, job.dice, job.level, 0 if job.seed is None else job.seed, job.ply)
        elif isinstance(job, EvalJob):
            self.level(job.level)
            _check_not_over(job.pos)

    def _rank_items(self, items: list[tuple], raw: frozenset = frozenset()) -> list:
        """Rankings of prepared decisions: one :meth:`HintRanker.rank_many` per (level, ply,
        dmp); for the indices in ``raw`` (wildbg lists) :meth:`HintRanker.search_many`'s
        ``(plays, probs, plies, order)`` or ``None`` instead of rows."""
        out: list = [None] * len(items)
        groups: dict[tuple, list[int]] = {}
        for i, (_pos, _d, name, ply, dmp) in enumerate(items):
            groups.setdefault((name, ply, dmp, i in raw), []).append(i)
        for (name, ply, dmp, bare), idx in groups.items():
            ranker = self.ranker(name, ply)
            # every decision's legal plays from one generator call (legal_plays, batched)
            plays = legal_plays_batch(generate(np.stack([items[i][0].board for i in idx]),
                                               np.array([items[i][1] for i in idx], dtype=np.int8), paths=True))
            many = ranker.search_many if bare else ranker.rank_many
            for i, rows in zip(idx, many([(items[i][0], items[i][1]) for i in idx], plays=plays, dmp=dmp)):
                out[i] = rows
        return out

    def _move_items(self, items: list[tuple]) -> list[MoveResult]:
        """Plays of prepared decisions: per (level, ply) one generate call and one search
        for all of them, each decision's noise from its own seed."""
        out: list = [None] * len(items)
        groups: dict[tuple, list[int]] = {}
        for i, (_pos, _d, name, _seed, ply) in enumerate(items):
            groups.setdefault((name, ply), []).append(i)
        for (name, ply), idx in groups.items():
            lv = self.level(name)
            shown_ply = lv.ply if ply is None else ply
            aft = generate(np.stack([items[i][0].board for i in idx]), np.array([items[i][1] for i in idx], dtype=np.int8), paths=True)
            live = aft.dice_used > 0
            for g, i in enumerate(idx):
                if not live[g]:  # no die can be played: the turn passes
                    pos, _d, _n, seed, _p = items[i]
                    out[i] = MoveResult(None, Position(flip(pos.board)).position_id, name, shown_ply, seed)
            if not live.any():
                continue
            keep = np.flatnonzero(live)
            if not live.all():  # search only the decisions with a play
                aft = generate(np.stack([items[idx[g]][0].board for g in keep]),
                               np.array([items[idx[g]][1] for g in keep], dtype=np.int8), paths=True)
            ks = self._agent(name, ply=ply).select(aft, seeds=np.array([items[idx[g]][3] for g in keep], dtype=np.int64))
            for g, play in zip(keep, plays_at(aft, ks)):
                i = idx[g]
                out[i] = MoveResult(play, play.position_id, name, shown_ply, items[i][3])
        return out

    def run_batch(self, jobs) -> list:
        """Answer many jobs at once: the service's batching across requests.

        Parameters
        ----------
        jobs : sequence of :class:`MoveJob`, :class:`RankJob`, :class:`ListJob`, :class:`EvalJob`.

        Returns
        -------
        list, one entry per job: its answer (see each job's class), or the
        :class:`ServiceError` it raised (the error is returned, not raised, so that one bad
        request does not fail the batch).

        All rank work (hints, rankings, wildbg lists) goes through one
        :meth:`HintRanker.rank_many` per (level, ply, dmp); all moves through one
        generate call and one search per (level, ply); evaluations through one
        :func:`bgrl.agents.search.after_state_probs` per level. Every decision's answer
        is a function of that decision alone (the networks are evaluated in fixed-size
        chunks, :class:`bgrl.service.stopping.FixedChunkEvaluator`, and the noise is keyed
        by each request's seed): a request gets the same answer alone or in any batch.
        """
        out: list = [None] * len(jobs)
        ranks: list[tuple] = []
        moves: list[tuple] = []
        evals: list[tuple] = []
        plan: list = [None] * len(jobs)  # (index into ranks, index into moves or evals)
        raw: list[int] = []  # ranks wanted as numbers only (wildbg JSON bodies)
        for j, job in enumerate(jobs):
            try:
                if isinstance(job, MoveJob):
                    moves.append(self._prep_move(job.pos, job.dice, job.level, job.seed, job.ply))
                    plan[j] = (None, len(moves) - 1)
                elif isinstance(job, RankJob):
                    ranks.append(self._prep_rank(job.pos, job.dice, job.level, job.ply, job.dmp))
                    plan[j] = (len(ranks) - 1, None)
                elif isinstance(job, ListJob):
                    ranks.append(self._prep_rank(job.pos, job.dice, job.level, None, job.dmp))
                    if job.as_json:
                        raw.append(len(ranks) - 1)
                    m = None
                    if self.level(job.level).noise > 0 or job.seed is not None:
                        moves.append(self._prep_move(job.pos, job.dice, job.level, job.seed, None))
                        m = len(moves) - 1
                    plan[j] = (len(ranks) - 1, m)
                elif isinstance(job, EvalJob):
                    lv = self.level(job.level)
                    _check_not_over(job.pos)
                    evals.append((job.pos, lv.name))
                    plan[j] = (None, len(evals) - 1)
                else:
                    raise ServiceError("bad_job", f"unknown engine job {_clip(job)}")
            except ServiceError as exc:
                out[j] = exc
        ranked = self._rank_items(ranks, frozenset(raw)) if ranks else []
        moved = self._move_items(moves) if moves else []
        evaluated = self._evaluate_items(evals) if evals else []
        for j, (job, p) in enumerate(zip(jobs, plan)):
            if p is None:
                continue
            r, m = p
            if isinstance(job, MoveJob):
                out[j] = moved[m]
            elif isinstance(job, EvalJob):
                out[j] = evaluated[m]
            elif isinstance(job, RankJob):
                rows = ranked[r]
                out[j] = ((rows[:job.top] if job.top else rows), len(rows))
            elif job.as_json:  # the answer itself: small to send back, nothing left to build
                got = ranked[r]
                if got is None:  # no die can be played: the position's own values
                    out[j] = _wildbg_body([None], np.asarray(self.evaluator(job.pos.board[None]), dtype=np.float64))
                else:
                    plays, probs, _plies, order = got
                    order = order.tolist()
                    if m is not None:
                        chosen = moved[m].play.position_id
                        order = sorted(order, key=lambda i: plays[i].position_id != chosen)  # stable: the choice first
                    out[j] = _wildbg_body([plays[i] for i in order], probs[order])
            else:  # a wildbg list
                rows = ranked[r]
                if not rows:
                    out[j] = [(None, np.asarray(self.evaluator(job.pos.board[None]), dtype=np.float64)[0])]
                else:
                    if m is not None:
                        chosen = moved[m].play
                        rows = sorted(rows, key=lambda row: row.play.position_id != chosen.position_id)  # stable: the choice first
                    out[j] = [(row.play, row.probabilities.to_array()) for row in rows]
        return out

    def _evaluate_items(self, items: list[tuple]) -> list[tuple[np.ndarray, int]]:
        out: list = [None] * len(items)
        groups: dict[str, list[int]] = {}
        for i, (_pos, name) in enumerate(items):
            groups.setdefault(name, []).append(i)
        for name, idx in groups.items():
            lv = self.level(name)
            # The opponent "has just played" into this position: its probabilities, flipped.
            after = np.stack([flip(items[i][0].board) for i in idx])
            p = after_state_probs(self._nets[LEVELS[name].network], after, lv.ply,
                                  reply_pruning(lv.ply, LEVELS[name].prune, networks=self._nets))
            for k, i in enumerate(idx):
                out[i] = (flip_probs(p[k]), lv.ply)
        return out

    def _one(self, job):
        r = self.run_batch([job])[0]
        if isinstance(r, ServiceError):
            raise r
        return r

    def hint(self, pos: Position, dice, level: str = DEFAULT_PLAY_LEVEL, top: int | None = None, dmp: bool = False,
             ply: int | None = None) -> list[RankedPlay]:
        """Every legal play ranked best first by the level's noise-free search.

        Parameters
        ----------
        pos : Position
        dice : pair of ints 1..6 or text like ``"31"`` (read by :func:`parse_dice_value`)
        level : str, a level name
        top : int, optional; at most this many rows (None or 0: all)
        dmp : bool; rank by winning chances only (one-point match: gammons do not count;
            ``equity`` is then ``2 * win - 1``)
        ply : int 0..3, optional; overrides the level's search depth (gnubg convention)

        Returns
        -------
        list of :class:`bgrl.agents.hints.RankedPlay`: plays cut by a move filter keep the
        shallower ply they reached and come after the deeper ones, as in gnubg; ``[]``
        when no die can be played.

        Raises
        ------
        ServiceError
            For a finished game, bad dice, an unknown level or ply.
        """
        return self._one(RankJob(pos, dice, level, top, dmp, ply))[0]

    def ranked(self, pos: Position, dice, level: str = DEFAULT_PLAY_LEVEL, top: int | None = None) -> tuple[list[RankedPlay], int]:
        """:meth:`hint` cut to ``top`` rows, and the number of legal plays."""
        return self._one(RankJob(pos, dice, level, top))

    def move_list(self, pos: Position, dice, level: str = DEFAULT_PLAY_LEVEL, seed: int | None = None,
                  dmp: bool = False) -> list[tuple[Play | None, np.ndarray]]:
        """wildbg's list: every play with the probabilities after it (side that played),
        float64 (5,) each, ranked by the level's noise-free evaluation, except that a noisy
        level's own choice (or any level's when ``seed`` is given) comes first.
        ``[(None, probs)]`` when no die can be played (the probabilities of the unchanged
        position, opponent on roll)."""
        return self._one(ListJob(pos, dice, level, seed, dmp))

    def move(self, pos: Position, dice, level: str = DEFAULT_PLAY_LEVEL, seed: int | None = None, ply: int | None = None) -> MoveResult:
        """The level's play for one position and roll (``ply`` overrides the level's search
        depth, gnubg convention). ``seed`` None draws a fresh seed (reported in the result,
        so the play can be reproduced).

        Raises ServiceError for a finished game, bad dice, an unknown level, ply or seed.
        """
        return self._one(MoveJob(pos, dice, level, seed, ply))

    def evaluate(self, pos: Position, level: str = DEFAULT_PLAY_LEVEL) -> tuple[np.ndarray, int]:
        """Outcome probabilities float64 (5,) of the side on roll, before it rolls, at the
        level's ply, and that ply.

        Raises ServiceError ``game_over`` for a finished game, ``bad_level``.
        """
        return self._one(EvalJob(pos, level))
