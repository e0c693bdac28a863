"""Hints: every legal play ranked by an n-ply search, best first. The one ranker and its row.

:class:`HintRanker` is the one ranker of candidate plays: ``ranker(position, dice) ->
list[RankedPlay]`` (also :meth:`HintRanker.rank`), and :meth:`HintRanker.rank_many` for many
decisions with one search. ``bgrl hint``, ``bgrl play``'s hint, ``bgrl review``,
``POST /v1/hint`` and :meth:`bgrl.agents.levels.LevelAgent.hint` all rank through it, and
:func:`hint` is the one-call entry of the Python API. Rows are :class:`RankedPlay`.

Order and ranks. Plays that passed every move filter are valued at the ranker's ply and
come first; the others keep the shallower ply they reached, as gnubg's hint shows them
(deeper ply first, then equity; ties keep canonical order). Plays that tie share a rank
("1224" competition ranking, :func:`shared_ranks`): a play's rank is 1 + the number of
plays ranked strictly above it, those valued at a deeper ply, or at the same ply with an
equity higher by more than :data:`TIE_TOL`. So a play tied with the best (zero loss) is
ranked 1 whatever its place in the list, and with a single ply this is ``1 + #plays with
strictly higher equity``.

The engine takes parsed values: a :class:`bgrl.rules.board.Position` and a roll ``(d1, d2)``.
Text (Position IDs, XGIDs, ``"53"``) is read at the edges (the CLI, the service).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bgrl.agents.base import check_decision, one_position, plays_of
from bgrl.agents.search import GNUBG_FILTERS, MIN_PRUNED_PLY, after_state_probs, check_ply, search_plays
from bgrl.evaluation.probabilities import Probabilities, equity
from bgrl.rules.notation import Play, legal_plays
from bgrl.rules.outcome import check_not_over

__all__ = ["TIE_TOL", "RankedPlay", "HintRanker", "rank_plays", "rank_order", "ranked_rows", "shared_ranks",
           "with_shared_ranks", "vs_best"]

#: equities closer than this (points per game) tie
TIE_TOL = 1e-9


def shared_ranks(equity, ply=None, tol: float = TIE_TOL) -> np.ndarray:
    """Ranks of plays, ties shared, in any input order.

    Parameters
    ----------
    equity : float (n,)
        Points per game.
    ply : int (n,), optional
        The depth each play was valued at (None: all the same).
    tol : float >= 0
        Equities within ``tol`` of each other tie.

    Returns
    -------
    int64 (n,) : ``1 + #{j : ply[j] > ply[i] or (ply[j] == ply[i] and equity[j] > equity[i] + tol)}``.

    Raises
    ------
    ValueError
        If the shapes differ or ``tol < 0``.
    """
    e = np.asarray(equity, dtype=np.float64).reshape(-1)
    d = np.zeros(e.shape, dtype=np.int64) if ply is None else np.asarray(ply, dtype=np.int64).reshape(-1)
    if d.shape != e.shape:
        raise ValueError(f"equity and ply must have the same length, got {e.shape[0]} and {d.shape[0]}")
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol}")
    above = (d[None, :] > d[:, None]) | ((d[None, :] == d[:, None]) & (e[None, :] > e[:, None] + tol))
    return 1 + above.sum(axis=1, dtype=np.int64)


def with_shared_ranks(rows: list, tol: float = TIE_TOL) -> list:
    """The same rows in the same order, each with its :func:`shared_ranks` rank.

    rows : list of dataclasses with ``rank``, ``equity`` and optionally ``ply`` (e.g.
    :class:`RankedPlay`; rows without ``ply`` count as 0-ply). Returns a new list; rows whose
    rank is already right are kept as they are.
    """
    rows = list(rows)
    if not rows:
        return rows
    ranks = shared_ranks([r.equity for r in rows], [getattr(r, "ply", 0) for r in rows], tol)
    return [r if r.rank == k else replace(r, rank=int(k)) for r, k in zip(rows, ranks)]


def vs_best(equity_loss: float) -> float:
    """The "vs best" figure shown for a play: minus its equity loss (points per game),
    rounded to the three decimals shown, so a tie prints +0.000, never -0.000.

    Here, beside the row, because both the CLI's tables (:mod:`bgrl.cli._table`) and the
    review report (:func:`bgrl.records.review_report.format_review`, a layer below the CLI) show it.
    """
    return 0.0 - round(float(equity_loss), 3) + 0.0


@dataclass(frozen=True)
class RankedPlay:
    """A play with its evaluation: the one row of a ranking (hints, reviews, the service).

    Attributes
    ----------
    rank : int
        1 = best; plays that tie share a rank (:func:`shared_ranks`).
    play : bgrl.rules.notation.Play
    equity : float
        Cubeless equity of the side that played, points per game, after the play (with
        ``dmp`` rankings: ``2 * win - 1``, the value in a one-point match).
    equity_loss : float
        Best equity minus this one (>= 0 among plays valued at the same ply; negative for
        a play valued at a shallower ply that happens to look better).
    probabilities : bgrl.evaluation.probabilities.Probabilities
        Of the side that played, after the play.
    ply : int
        The search depth this play was valued at (plays cut by a move filter keep a shallower one).
    """

    rank: int
    play: Play
    equity: float
    equity_loss: float
    probabilities: Probabilities
    ply: int = 0

    @property
    def position_id(self) -> str:
        """Position ID after the play (the opponent on roll)."""
        return self.play.position_id

    def as_dict(self) -> dict:
        """The JSON row of ``bgrl hint --json`` and ``bgrl review --json`` (values rounded to 6 decimals)."""
        return {
            "rank": self.rank,
            "play": self.play.notation,
            "position_id": self.play.position_id,
            "ply": self.ply,
            "equity": round(self.equity, 6),
            "equity_loss": round(self.equity_loss, 6),
            "probabilities": {k: round(v, 6) for k, v in self.probabilities.as_dict().items()},
        }


def rank_order(probs: np.ndarray, plies: np.ndarray, values: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sort of one decision's plays, best first, without building rows (the one owner of
    the hint order: :func:`ranked_rows` and the service's wildbg list both use it).

    Parameters
    ----------
    probs : float (n, 5)
        Outcome probabilities of the side that played, after each play.
    plies : int (n,)
        The depth each play was valued at.
    values : float (n,), optional
        What plays are ranked by (default: the cubeless equity of ``probs``, points per game).

    Returns
    -------
    (order int64 (n,), val float64 (n,), depth int64 (n,)) : ``order`` sorts by deeper ply
    first, then higher value (stable: ties keep the input order).
    """
    n = np.asarray(probs).size // 5
    probs = np.asarray(probs, dtype=np.float64).reshape(n, 5)
    val = equity(probs) if values is None else np.asarray(values, dtype=np.float64).reshape(n)
    depth = np.asarray(plies, dtype=np.int64).reshape(n)
    return np.lexsort((-val, -depth)), val, depth


def ranked_rows(plays: list, probs: np.ndarray, plies: np.ndarray, values: np.ndarray | None = None) -> list[RankedPlay]:
    """The rows of one decision, best first: the one sort (:func:`rank_order`), rank and row build.

    Parameters
    ----------
    plays : list of Play, length n
    probs, plies, values
        As :func:`rank_order`: float (n, 5) probabilities of the side that played, int (n,)
        depths, optional float (n,) values to rank by.

    Returns
    -------
    list of RankedPlay : sorted by deeper ply first, then higher value (stable: ties keep the
    order of ``plays``); ranks shared by ties; ``equity`` = the value, ``equity_loss`` = the
    first row's value minus this one. ``[]`` for no plays.
    """
    if not plays:
        return []
    return _rows(lambda rows: [plays[i] for i in rows], len(plays), probs, plies, values)


def _rows(plays_at, n: int, probs, plies, values=None, top: int | None = None) -> list[RankedPlay]:
    """:func:`ranked_rows` of ``n`` plays whose :class:`Play` objects ``plays_at(indices)``
    builds on demand: only the first ``top`` rows (None or 0: all) are built, ranked among all."""
    probs = np.asarray(probs, dtype=np.float64).reshape(n, 5)
    order, val, depth = rank_order(probs, plies, values)
    ranks = shared_ranks(val[order], depth[order]).tolist()
    best = val[order[0]]
    shown = order[:top] if top else order
    val_l, loss_l, depth_l = val.tolist(), (best - val).tolist(), depth.tolist()
    idx = shown.tolist()
    plays = plays_at(idx)
    prob_l = probs[shown].tolist()
    return [RankedPlay(rank=ranks[r], play=plays[r], equity=val_l[i], equity_loss=loss_l[i],
                       probabilities=Probabilities(*prob_l[r]), ply=depth_l[i])
            for r, i in enumerate(idx)]


def _dmp_values(probs: np.ndarray) -> np.ndarray:
    """The value of a play in a one-point match (gammons do not count): ``2 * win - 1``."""
    return 2.0 * probs[:, 0] - 1.0


class HintRanker:
    """The one hint ranker: every legal play valued by an n-ply search without noise.

    ``ranker(position, dice)`` (= :meth:`rank`) ranks one decision; :meth:`rank_many` ranks
    a list of decisions with one search over all of them (in chunks of decisions at 1-ply
    and deeper, to bound memory; at 0-ply one evaluator call in all); :meth:`value_at`
    values chosen plays at a given ply, so that a play made but cut by a move filter can be
    judged at the same depth as the best play (as gnubg's analysis does).

    Parameters
    ----------
    evaluator : callable
        After-states int8 (M, 26) -> outcome probabilities float (M, 5) of the side that
        played (:mod:`bgrl.evaluation.evaluator`).
    ply : int 0..3
        Search depth in gnubg's convention (0 = the evaluator alone).
    filters : sequence of :class:`bgrl.agents.search.MoveFilter`, optional
        Move filters between plies (default and when empty: :data:`bgrl.agents.search.GNUBG_FILTERS`).
    name : str, optional
        A label for reports, e.g. ``"level expert (distilled-r1 net, 0-ply, without noise)"``
        (default ``"<ply>-ply"``).

    Attributes
    ----------
    search_calls : int
        Number of searches run (one per :meth:`rank`, one per chunk of :meth:`rank_many`).

    Raises
    ------
    ValueError
        For a ply outside 0..3.

    Thread safety: only ``search_calls`` changes after construction; the evaluator is only read.
    """

    #: decisions per search call at each ply (memory: a 2-ply decision expands to ~20,000 positions)
    CHUNK = {0: 1 << 30, 1: 48, 2: 6, 3: 1}
    #: the :class:`bgrl.agents.levels.Level` searched (set by :meth:`from_agent`; None for a network alone)
    level = None
    #: the network's name or file name, where :func:`bgrl.agents.registry.load_ranker` made the ranker
    network: str | None = None

    def __init__(self, evaluator, ply: int = 0, filters=None, name: str | None = None, prune=None):
        self.ply = check_ply(ply)
        self.evaluator = evaluator
        self.filters = tuple(filters) if filters else GNUBG_FILTERS
        # bgrl.agents.search.ReplyPruning of the search (only at 2-ply and deeper: None below), every
        # reply choice of it pruned, its 1-ply stage's too (value_at likewise, so rows agree)
        self.prune = prune if self.ply >= MIN_PRUNED_PLY else None
        self.name = name or f"{self.ply}-ply"
        self.search_calls = 0

    @classmethod
    def from_agent(cls, agent, ply: int | None = None, name: str | None = None) -> "HintRanker":
        """The noise-free ranker of a level agent (:class:`bgrl.agents.levels.LevelAgent`).

        Parameters
        ----------
        agent : LevelAgent, or any object with ``evaluator`` and ``level`` (a
            :class:`bgrl.agents.levels.Level`)
        ply : int 0..3, optional
            Overrides the level's ply (:meth:`bgrl.agents.levels.Level.with_ply`: the
            level's filters are kept when they reach that deep, else gnubg's normal ones).
        name : str, optional
            Default: ``"level <name> (<definition without the noise>, without noise)"``.
        """
        lv = agent.level.with_ply(ply)
        if name is None:
            parts = [x for x in lv.definition().split(", ") if not x.startswith("noise")]
            name = f"level {lv.name} ({', '.join(parts)}, without noise)"
        prune = agent.pruning(lv.ply) if hasattr(agent, "pruning") else None
        ranker = cls(agent.evaluator, lv.ply, lv.filters, name=name, prune=prune)
        ranker.level = lv
        return ranker

    def __call__(self, position, dice, top: int | None = None) -> list[RankedPlay]:
        return self.rank(position, dice, top=top)

    def rank(self, position, dice, dmp: bool = False, top: int | None = None) -> list[RankedPlay]:
        """Every legal play of one decision, best first.

        One position's fast path: one generator call (compiled where
        :func:`bgrl.evaluation.compiled.ensure` says so) gives the plays and their move paths;
        the search values them; a :class:`Play` (notation, Position ID) is built only for the
        rows returned. The rows are those of :meth:`rank_many` for this one decision.

        Parameters
        ----------
        position : bgrl.rules.board.Position
            From the side on roll.
        dice : pair of ints 1..6
        dmp : bool
            Rank by the value in a one-point match, ``2 * win - 1`` (gammons do not count),
            instead of the cubeless equity; the search itself is unchanged.
        top : int >= 0, optional
            Only the best ``top`` rows (None or 0: all), ranked among all the plays.

        Returns
        -------
        list of RankedPlay : see the module docstring for the order; ``[]`` when no die can be played.

        Raises
        ------
        TypeError
            For text or other non-parsed arguments (:func:`bgrl.agents.base.check_decision`).
        ValueError
            For bad dice, a finished game (:func:`bgrl.rules.outcome.check_not_over`) or a
            negative ``top``.
        """
        if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0):
            raise ValueError(f"top must be an int >= 0 (0 = all plays), got {top!r}")
        after = one_position(position, dice)
        if after is None:
            return []
        pr, depth = self._search(after.boards, after.offsets)
        return _rows(lambda rows: plays_of(after, rows), after.boards.shape[0], pr, depth,
                     _dmp_values(pr) if dmp else None, top)

    def rank_many(self, items, plays: list[list[Play]] | None = None, dmp: bool = False,
                  progress=None) -> list[list[RankedPlay]]:
        """Rank every decision of ``items`` as :meth:`rank` does, with one search for all.

        Parameters
        ----------
        items : sequence of (Position, (d1, d2))
        plays : list of lists of Play, optional
            The legal plays of each decision, when the caller has them already
            (:func:`bgrl.rules.notation.legal_plays`, canonical order).
        dmp : bool
            See :meth:`rank`.
        progress : optional callable(n_decisions_done), called after each searched chunk
            (e.g. a tqdm bar's ``update``); decisions without a play count at the end.

        Returns
        -------
        list of lists of RankedPlay, one per item, in the order of ``items``.

        Raises
        ------
        TypeError, ValueError
            As :meth:`rank`, for any item.
        """
        out: list[list[RankedPlay]] = []
        for ps, got in zip(*self._plays_and_search(items, plays, progress)):
            if got is None:
                out.append([])
            else:
                pr, depth = got
                out.append(ranked_rows(ps, pr, depth, _dmp_values(pr) if dmp else None))
        return out

    def search_many(self, items, plays: list[list[Play]] | None = None, dmp: bool = False,
                    progress=None) -> list[tuple[list[Play], np.ndarray, np.ndarray, np.ndarray] | None]:
        """:meth:`rank_many`'s search and sort without the rows: for callers that need only
        the order and the numbers (the service's wildbg list), not a RankedPlay per play.

        Parameters and errors as :meth:`rank_many`.

        Returns
        -------
        list, one entry per item: ``None`` where no die can be played, else ``(plays,
        probs float64 (n, 5), plies int64 (n,), order int64 (n,))`` with ``plays`` in
        canonical order and ``order`` the ranking (:func:`rank_order`; by the one-point
        match value with ``dmp``): ``[plays[i] for i in order]`` are :meth:`rank_many`'s rows' plays.
        """
        out: list = []
        for ps, got in zip(*self._plays_and_search(items, plays, progress)):
            if got is None:
                out.append(None)
            else:
                pr, depth = got
                order, _val, d = rank_order(pr, depth, _dmp_values(pr) if dmp else None)
                out.append((ps, pr, d, order))
        return out

    def _plays_and_search(self, items, plays, progress) -> tuple[list, list]:
        """Every decision's plays and its searched (probs, plies), ``None`` for no play."""
        items = [check_decision(p, d) for p, d in items]
        if plays is None:
            plays = []
            for pos, d in items:
                check_not_over(pos)
                plays.append(legal_plays(pos, d))
        out: list = [None] * len(plays)
        todo = [i for i, ps in enumerate(plays) if ps]
        step = self.CHUNK[self.ply]
        for c in range(0, len(todo), step):
            chunk = todo[c:c + step]
            sizes = np.array([len(plays[i]) for i in chunk])
            offsets = np.concatenate([[0], np.cumsum(sizes)])
            boards = np.stack([p.after_state for i in chunk for p in plays[i]])
            probs, depth = self._search(boards, offsets)
            for j, i in enumerate(chunk):
                lo, hi = offsets[j], offsets[j + 1]
                out[i] = (probs[lo:hi], depth[lo:hi])
            if progress is not None:
                progress(len(chunk))
        if progress is not None and len(plays) > len(todo):
            progress(len(plays) - len(todo))
        return plays, out

    def _search(self, boards: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities float64 (M, 5) and plies int8 (M,) of grouped after-states int8 (M, 26)."""
        self.search_calls += 1
        if self.ply == 0:  # search_plays at 0-ply is the evaluator alone: skip its bookkeeping
            probs = np.asarray(self.evaluator(boards), dtype=np.float64).reshape(boards.shape[0], 5)
            return probs, np.zeros(boards.shape[0], dtype=np.int8)
        res = search_plays(self.evaluator, boards, offsets, self.ply, self.filters, search_forced=True, prune=self.prune)
        return res.probs, res.ply

    def value_at(self, after_states: np.ndarray, plies) -> np.ndarray:
        """Values of after-states, each at its own ply (one search per distinct ply).

        after_states : int8 (n, 26), each from the side that has just played;
        plies : int (n,), 0..3. Returns float64 (n, 5): outcome probabilities of the side that played.
        """
        a = np.asarray(after_states, dtype=np.int8).reshape(-1, 26)
        plies = np.asarray(plies, dtype=np.int64)
        out = np.zeros((a.shape[0], 5))
        for d in np.unique(plies):
            idx = np.flatnonzero(plies == d)
            step = self.CHUNK[int(d)] * 8
            for c in range(0, idx.size, step):
                part = idx[c:c + step]
                out[part] = after_state_probs(self.evaluator, a[part], int(d), self.prune)
        return out


def rank_plays(position, dice, evaluator, ply: int = 0, filters=GNUBG_FILTERS) -> list[RankedPlay]:
    """Rank all legal plays of ``position`` with roll ``dice`` by an n-ply search.

    The function form of :class:`HintRanker` (``HintRanker(evaluator, ply, filters).rank``).

    Parameters
    ----------
    position : bgrl.rules.board.Position
    dice : pair of ints 1..6
    evaluator : callable after-states int8 (M, 26) -> probabilities (M, 5) of the side that played
    ply : int 0..3
        Search depth (gnubg's convention, :mod:`bgrl.agents.search`).
    filters : move filters between plies.

    Returns
    -------
    list of RankedPlay, best first (module docstring); ``[]`` when no die can be played.

    Raises
    ------
    TypeError, ValueError
        See :meth:`HintRanker.rank`.
    """
    return HintRanker(evaluator, ply, filters).rank(position, dice)
