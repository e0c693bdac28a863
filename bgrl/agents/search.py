"""n-ply search in GNU Backgammon's convention, batched.

Plies (gnubg's convention, DESIGN.md "Words"):

* **0-ply** value of an after-state: the evaluator on it (the network sees the opponent on
  roll; finished games are exact).
* **n-ply** value (n >= 1) of an after-state ``A`` (the mover has just played): for each of
  the opponent's 21 distinct rolls (doubles weight 1/36, the others 2/36) the opponent
  picks its best reply by 0-ply equity, and that reply is valued at (n-1)-ply from the
  opponent's side and turned back to the mover's. A roll the opponent cannot play leaves
  the board as it is (a pass). Finished games (``A`` with the mover borne off) are exact
  at every ply, and so are positions with an exact value when the evaluator uses them
  (``evaluator.exact``, :mod:`bgrl.evaluation.exact`). This is how gnubg's ``EvaluatePositionFull`` recurses, and DESIGN.md's note
  on gnubg-nn: "a play's n-ply value is minus the n-ply evaluation of the result with the
  opponent on roll".

Move filters, in gnubg's style (gnubg manual, "Move filters"): before a play is searched at
depth d, the candidates of each decision are ranked by their (d-1)-ply equity and at most
``keep`` of them within ``window`` points of the best go deeper; the rest keep their
shallower value and ply. :data:`GNUBG_FILTERS` are gnubg's "normal" filters: 8 plays within
0.16 at 0-ply, then 2 within 0.04 at 1-ply.

Pruning of the replies, in gnubg's style (its "pruning neural nets", gnubg manual, "Evaluation
settings"): in a search of 2-ply or deeper most of the arithmetic goes into choosing the
opponent's best reply of each roll by 0-ply equity, about 20 candidates each, to value only
the chosen one. With a :class:`ReplyPruning`, a cheap evaluator ranks the candidates of each
roll first and only its best ``keep`` are valued by the search's evaluator, which then picks
among them (a roll with at most ``keep`` plays is valued whole). The reply found is the same
whenever the cheap ranking puts the true best among its first ``keep``
(``scripts/bench/bench_prune.py`` measures how often, and what the misses cost).

Everything is array work: one depth of the search over all candidates x 21 rolls x replies
is one :func:`bgrl.rules.movegen.generate` call and one evaluator call, whatever the number of
decisions in the batch (so matches batch the search over all games in lockstep).

Evaluators follow :mod:`bgrl.evaluation.evaluator`'s protocol: after-states int8 (M, 26) ->
probabilities float (M, 5) of the side that played. They must be safe to call from
several threads if the search is (``NetEvaluator`` is: it keeps no per-call state).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.board import flip
from bgrl.rules.dice import ROLL_WEIGHTS, ROLLS
from bgrl.evaluation.probabilities import equity, flip_probs, terminal_probs
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results
from bgrl.evaluation.exact import exact_probs
from bgrl.agents.base import group_argmax  # re-exported: callers of the search import it from here

__all__ = [
    "MoveFilter",
    "GNUBG_FILTERS",
    "SearchResult",
    "group_argmax",
    "check_ply",
    "after_state_probs",
    "search_plays",
    "apply_filter",
    "exact_rows",
    "ReplyPruning",
    "MIN_PRUNED_PLY",
    "check_keep",
    "best_replies",
]

MAX_PLY = 3
#: After-states searched per generate/evaluator call at 1-ply and deeper (each expands to
#: about 21 x 20 replies, ~0.3 MB apiece); larger batches are cut into chunks of this size.
CHUNK = 256




@dataclass(frozen=True)
class MoveFilter:
    """Which plays of one decision go one ply deeper.

    keep : int >= 1, at most this many plays (the best by the shallower equity);
    window : float >= 0, points per game: only plays within this much of the best.
    """

    keep: int
    window: float

    def __post_init__(self):
        if int(self.keep) < 1:
            raise ValueError(f"MoveFilter.keep must be >= 1, got {self.keep}")
        if not float(self.window) >= 0:
            raise ValueError(f"MoveFilter.window must be >= 0 points, got {self.window}")


#: gnubg's "normal" move filters: before 1-ply keep 8 within 0.16; before 2-ply keep 2 within 0.04.
GNUBG_FILTERS = (MoveFilter(8, 0.16), MoveFilter(2, 0.04))


#: Searches of this ply and deeper prune their replies (levels, hints, rollouts); shallower ones value every reply.
MIN_PRUNED_PLY = 2


def check_keep(keep, what: str) -> None:
    """ValueError naming ``what`` unless ``keep`` is an int >= 1 (a pruning's replies kept per roll)."""
    if isinstance(keep, (bool, np.bool_)) or not isinstance(keep, (int, np.integer)) or keep < 1:
        raise ValueError(f"{what}.keep must be an int >= 1, got {keep!r}")


@dataclass(frozen=True)
class ReplyPruning:
    """How a search of 2-ply or deeper prunes the reply choices (see the module docstring).

    evaluator : callable, the cheap evaluator that ranks the candidates (same protocol as the
        search's: after-states int8 (M, 26) -> probabilities (M, 5) of the side that played);
    keep : int >= 1, the candidates of each roll the search's evaluator values.
    """

    evaluator: object
    keep: int = 5

    def __post_init__(self):
        check_keep(self.keep, "ReplyPruning")


@dataclass(frozen=True)
class SearchResult:
    """Values of every play of a batch of decisions (rows as in the input after-states).

    probs : float64 (M, 5), outcome probabilities of the side that played, at ``ply``;
    equity : float64 (M,), cubeless equity in points per game;
    ply : int8 (M,), the depth each play was valued at (plays cut by a filter keep a
    shallower one); best : int64 (B,), per decision the row with the highest equity
    among its deepest-valued plays.
    """

    probs: np.ndarray
    equity: np.ndarray
    ply: np.ndarray
    best: np.ndarray


def check_ply(ply) -> int:
    """``ply`` as an int 0..:data:`MAX_PLY` (gnubg's convention), the one check of a search
    depth for the public entry points (hints, rankers, levels, rollouts, the search).

    Raises ValueError naming what was expected for anything else: a bool, a float (``1.5``,
    even ``2.0``), a string, or a depth out of range.
    """
    if isinstance(ply, bool) or not isinstance(ply, (int, np.integer)) or not 0 <= int(ply) <= MAX_PLY:
        raise ValueError(f"ply must be an int 0..{MAX_PLY} (gnubg's convention), got {ply!r}")
    return int(ply)


def after_state_probs(evaluator, after_states: np.ndarray, ply: int, prune: ReplyPruning | None = None) -> np.ndarray:
    """n-ply value of after-states (see the module docstring).

    Parameters
    ----------
    evaluator : callable, after-states int8 (M, 26) -> probabilities (M, 5) of the mover
    after_states : int8 (M, 26), each from the side that has just played
    ply : int, 0..MAX_PLY
    prune : ReplyPruning, optional
        Prune every reply choice of the search (none by default: every candidate valued).

    Returns
    -------
    float64 (M, 5): outcome probabilities of the side that played (gnubg's order).

    Each depth costs one generate call and one evaluator call for the whole batch (for up
    to :data:`CHUNK` after-states; larger batches go through in chunks of that size).
    """
    ply = check_ply(ply)
    a = np.ascontiguousarray(after_states, dtype=np.int8)
    if ply == 0 or a.shape[0] == 0:
        return np.asarray(evaluator(a), dtype=np.float64).reshape(a.shape[0], 5)
    if a.shape[0] > CHUNK:  # bound the memory of one step (matches search thousands of games)
        return np.concatenate([after_state_probs(evaluator, a[i : i + CHUNK], ply, prune) for i in range(0, a.shape[0], CHUNK)])
    res = game_results(a)
    live = res == 0
    out = np.zeros((a.shape[0], 5))
    if not live.all():
        out[~live] = terminal_probs(res[~live])
    # positions with an exact value (bgrl.evaluation.exact: bear-offs, one checker a side) are leaves
    # at every ply, as gnubg treats its exact databases
    known = exact_rows(evaluator, a, res) & live
    if known.any():
        out[known] = np.asarray(evaluator(a[known]), dtype=np.float64)
        live &= ~known
    n = int(live.sum())
    if n == 0:
        return out
    opp = flip(a[live])
    nr = ROLLS.shape[0]
    aft = generate(np.repeat(opp, nr, axis=0), np.tile(ROLLS, (n, 1)), validate=False)
    best, reply = best_replies(evaluator, aft.boards, aft.offsets, prune)
    if ply > 1:
        reply = after_state_probs(evaluator, aft.boards[best], ply - 1, prune)
    mine = flip_probs(reply).reshape(n, nr, 5)
    out[live] = np.einsum("nrk,r->nk", mine, ROLL_WEIGHTS)
    return out


def best_replies(evaluator, boards: np.ndarray, offsets: np.ndarray, prune: ReplyPruning | None = None):
    """The best play of each group by 0-ply equity, and its probabilities.

    boards int8 (M, 26) after-states grouped by ``offsets`` int (G+1,) (groups non-empty) ->
    ``(best int64 (G,), probs float64 (G, 5))``: the row of each group's best play (ties to the
    first) and the search evaluator's probabilities of it. With ``prune``, groups of more than
    ``prune.keep`` plays are ranked by ``prune.evaluator`` first and only their best ``keep``
    are valued by ``evaluator`` (see the module docstring).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    if prune is None:
        p0 = np.asarray(evaluator(boards), dtype=np.float64).reshape(-1, 5)
        best = group_argmax(equity(p0), offsets)
        return best, p0[best]
    keep = int(prune.keep)
    counts = np.diff(offsets)
    parent = np.repeat(np.arange(counts.size), counts)
    wide = counts[parent] > keep
    chosen = ~wide
    if wide.any():
        rows = np.flatnonzero(wide)
        cheap = equity(np.asarray(prune.evaluator(boards[rows]), dtype=np.float64).reshape(-1, 5))
        chosen[rows[_top_in_groups(cheap, parent[rows], keep)]] = True
    idx = np.flatnonzero(chosen)
    p0 = np.asarray(evaluator(boards[idx]), dtype=np.float64).reshape(-1, 5)
    eq = np.full(parent.size, -np.inf)
    eq[idx] = equity(p0)
    best = group_argmax(eq, offsets)
    return best, p0[np.searchsorted(idx, best)]


def _top_in_groups(values: np.ndarray, group: np.ndarray, keep: int) -> np.ndarray:
    """Indices into ``values`` float (n,) of the ``keep`` largest of each group (``group`` int
    (n,), sorted, each group larger than ``keep``); ties to the earlier index."""
    first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[first, group.size])
    local = np.arange(group.size) - np.repeat(first, sizes)
    grid = np.full((first.size, int(sizes.max())), -np.inf)
    grid[np.repeat(np.arange(first.size), sizes), local] = values
    top = np.argsort(-grid, axis=1, kind="stable")[:, :keep]
    return (first[:, None] + top).ravel()


def apply_filter(eq: np.ndarray, candidate: np.ndarray, parent: np.ndarray, offsets: np.ndarray, flt: MoveFilter) -> np.ndarray:
    """Rows that pass a move filter: per group, the ``flt.keep`` best candidates by ``eq``
    that lie within ``flt.window`` of the group's best candidate.

    eq float (M,), candidate bool (M,), parent int (M,) (sorted group of each row),
    offsets int (B+1,) -> bool (M,). Ties keep the earlier row.
    """
    e = np.where(candidate, eq, -np.inf)
    order = np.lexsort((-e, parent))  # by group, best first, stable
    rank = np.empty(e.size, dtype=np.int64)
    rank[order] = np.arange(e.size) - offsets[parent[order]]
    gbest = np.maximum.reduceat(e, offsets[:-1])
    return candidate & (rank < int(flt.keep)) & (e >= gbest[parent] - float(flt.window))


def search_plays(evaluator, boards: np.ndarray, offsets: np.ndarray, ply: int, filters=GNUBG_FILTERS, search_forced: bool = False,
                 prune: ReplyPruning | None = None) -> SearchResult:
    """Value every play of B decisions, the best ones at ``ply`` (move filters between plies).

    Parameters
    ----------
    evaluator : see :mod:`bgrl.evaluation.evaluator`
    boards : int8 (M, 26), the legal after-states, grouped by decision (as
        :class:`bgrl.rules.movegen.AfterStates`)
    offsets : int (B+1,), ``boards[offsets[i]:offsets[i+1]]`` are decision i's plays
        (each group non-empty)
    ply : int 0..MAX_PLY
    filters : sequence of :class:`MoveFilter`, ``filters[d]`` chooses which plays go from
        d-ply to (d+1)-ply; the last one is reused when the sequence is shorter than ``ply``
    search_forced : also search decisions with a single play (default: they stay at 0-ply,
        there is nothing to choose)
    prune : ReplyPruning, optional
        Prune the reply choices of every depth (:func:`after_state_probs`); the plays of the
        decisions themselves are all valued by ``evaluator``.

    Plays with an exact value (:func:`exact_rows`: finished games, and bear-offs and
    one-checker positions when the evaluator uses :mod:`bgrl.evaluation.exact`) are not searched: their
    value is the same at every ply, so they are reported at ``ply`` and compete with the
    searched plays on equal terms (a decision with a non-exact choice always has plays
    searched to ``ply``: every filter keeps the best candidate).

    Returns
    -------
    SearchResult
    """
    ply = check_ply(ply)
    if ply > 0 and not filters:
        raise ValueError("a search deeper than 0-ply needs at least one MoveFilter")
    b = np.ascontiguousarray(boards, dtype=np.int8)
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    parent = np.repeat(np.arange(counts.size), counts)
    probs = np.asarray(evaluator(b), dtype=np.float64).reshape(b.shape[0], 5).copy()
    eq = equity(probs)
    depth = np.zeros(b.shape[0], dtype=np.int8)
    cand = np.ones(b.shape[0], dtype=bool) if search_forced else (counts > 1)[parent]
    known = exact_rows(evaluator, b) if ply > 0 else np.zeros(b.shape[0], dtype=bool)
    cand &= ~known  # exact values are the same at every ply: nothing to search
    for d in range(1, int(ply) + 1):
        flt = filters[min(d - 1, len(filters) - 1)]
        cand = apply_filter(eq, cand, parent, offsets, flt)
        idx = np.flatnonzero(cand)
        if idx.size == 0:
            break
        p = after_state_probs(evaluator, b[idx], d, prune)
        probs[idx] = p
        eq[idx] = equity(p)
        depth[idx] = d
    depth = np.where(known, np.int8(ply), depth).astype(np.int8)  # exact: the same value at every ply
    gdepth = np.maximum.reduceat(depth, offsets[:-1])
    key = np.where(depth == gdepth[parent], eq, -np.inf)
    return SearchResult(probs=probs, equity=eq, ply=depth, best=group_argmax(key, offsets))


def exact_rows(evaluator, after_states: np.ndarray, results: np.ndarray | None = None) -> np.ndarray:
    """Which after-states have an exact value at every ply: finished games, and (when
    ``evaluator.exact``) positions :func:`bgrl.evaluation.exact.exact_probs` knows with the opponent on
    roll. int8 (M, 26) -> bool (M,); ``results``: their :func:`bgrl.rules.outcome.game_results`,
    when the caller has them already."""
    a = np.ascontiguousarray(after_states, dtype=np.int8)
    known = (game_results(a) if results is None else np.asarray(results)) != 0
    if getattr(evaluator, "exact", False) and (~known).any():
        idx = np.flatnonzero(~known)
        known[idx] = exact_probs(flip(a[idx]))[0]
    return known
