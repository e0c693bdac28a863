"""Cubeless money rollouts, batched: every trial of every rolled-out position in lockstep.

A rollout estimates the outcome probabilities of a position by playing it out many times
(*trials*) with a fixed checker play and averaging the results. This module follows the
conventions of GNU Backgammon's rollouts (GNU Backgammon manual, section 9.2 "Rollouts in
GNU Backgammon" and 9.2.1 "Quasi-Random Dice",
https://www.gnu.org/software/gnubg/manual/html_node/Rollouts-in-GNU-Backgammon.html):

* **Checker play.** Every play of every trial is the best play of a noise-free n-ply
  search (:func:`bgrl.agents.search.search_plays` with the given move filters; at 0-ply the
  evaluator's best after-state). :meth:`Roller.from_agent` takes a level's network, ply and
  filters (:mod:`bgrl.agents.levels`), without its noise.
* **Quasi-random dice.** The first two rolls of the trials are stratified over the
  36 x 36 ordered pairs (rotation and stratification in gnubg's manual): trial ``i`` has
  first roll ``P[i mod 36]`` and second roll ``Q[(i mod 36 + R[(i div 36) mod 36]) mod 36]``,
  with ``P``, ``Q``, ``R`` permutations of the 36 ordered rolls drawn from the seed. So
  every aligned block of 36 trials holds each first roll once and each second roll once,
  and every aligned block of 1,296 trials holds each of the 1,296 ordered pairs once, in
  a seeded random order. Later rolls come from counter-based streams, one per trial
  (:func:`bgrl.rules.dice.roll_dice`), so trial ``i`` rolls the same dice whatever the
  number of trials, and every candidate play of a decision is rolled out with the same
  dice (which makes their differences more precise).
* **Variance reduction** (gnubg's manual, 9.2, "Variance reduction": cancelling out the
  estimated luck, the difference in equity evaluations before and after rolling). Before
  each roll of each trial, the side on roll's 21 distinct rolls are all played (the
  evaluator's best 0-ply play of each); the *luck* of the roll thrown is the evaluator's
  probabilities after the best play of that roll minus their mean over the 21 rolls
  (weights 1/36 and 2/36). The luck of every roll, turned to the rolled-out side's view,
  is subtracted from the trial's outcome. Each luck term has mean zero whatever the
  evaluator, so the estimate stays unbiased; a good evaluator removes most of the dice's
  noise. It costs the 21 rolls' plays every ply (one generator call over trials x 21
  rolls and one evaluator call over all their after-states); ``variance_reduction=False``
  skips it.
* **Truncation** after ``truncate`` plies (half-moves): the position reached is valued by
  the evaluator at the search's ply (:func:`bgrl.agents.search.after_state_probs`) and that
  value is the trial's outcome (systematic error traded for speed, as gnubg's manual says).
* **Exact values.** A trial stops as soon as its position has an exact value
  (:func:`bgrl.evaluation.exact.exact_probs`: no-contact bear-offs, one checker a side), and
  that value is its outcome (gnubg's "race database truncation"); the evaluator itself
  values after-states exactly where it uses exact values (:mod:`bgrl.evaluation.evaluator`).

Lockstep. All trials of all rolled-out positions advance together (trials standing on the
same position, as in the first plies, share its plays): per ply one generator
call over every active trial (times 21 rolls with variance reduction) and one evaluator
call over every after-state produced (cut into chunks of :data:`EVAL_CHUNK` rows to bound
memory); searches above 0-ply add their own batched calls.

Statistics. A trial's result is a vector of five probabilities (its outcome, 0/1 each,
minus its luck); the rollout reports their mean and its standard error,
``std(ddof=1) / sqrt(trials)``, and the same for the cubeless equity of each trial. The
stratified dice make that standard error a slight overestimate. With variance reduction a
trial's result can fall outside [0, 1]; means are reported as they are.

numpy plus an evaluator (:mod:`bgrl.evaluation.evaluator`'s protocol); no text is parsed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bgrl.agents.base import check_decision
from bgrl.agents.hints import shared_ranks
from bgrl.agents.search import GNUBG_FILTERS, MIN_PRUNED_PLY, MoveFilter, after_state_probs, apply_filter, check_ply, group_argmax, search_plays
from bgrl.evaluation import compiled
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.probabilities import OUTPUTS, Probabilities, equity, flip_probs, terminal_probs
from bgrl.rules.board import Position, flip
from bgrl.rules.game import MAX_PLIES  # the one bound on a game's plies
from bgrl.rules.dice import ROLL_WEIGHTS, ROLLS, roll_dice, seed_keys
from bgrl.rules.movegen import generate
from bgrl.rules.notation import Play, legal_plays
from bgrl.rules.outcome import check_not_over, game_results

__all__ = ["RolloutResult", "RolledPlay", "Roller", "rollout_boards", "stratified_rolls", "candidate_plays",
           "CANDIDATE_FILTER", "DEFAULT_TRIALS", "MAX_TRIALS", "MAX_PLIES", "EVAL_CHUNK"]

#: Trials when none are asked for (gnubg's default).
DEFAULT_TRIALS = 1296
#: Which plays of a roll are rolled out: the best by the evaluator's 0-ply equity, at most
#: 8 within 0.16 points of the best (gnubg's normal 0-ply move filter).
CANDIDATE_FILTER = MoveFilter(8, 0.16)
#: Most trials one rollout command takes: every trial advances in lockstep, in memory (with
#: variance reduction, a ply of 100,000 trials holds about 40 million after-states: ~1 GB).
MAX_TRIALS = 100_000
#: Rows per evaluator call (memory bound: a 160-unit network's hidden layer at 65,536 rows is 42 MB).
EVAL_CHUNK = 1 << 16

# index into ROLLS of each ordered roll (d1, d2), 1-based dice
_ROLL_INDEX = np.zeros((7, 7), dtype=np.int64)
for _i, (_a, _b) in enumerate(ROLLS.tolist()):
    _ROLL_INDEX[_a, _b] = _ROLL_INDEX[_b, _a] = _i
_ORDERED = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int8)  # the 36 ordered rolls
_SE_FLIP = np.array([0, 3, 4, 1, 2])  # flip_probs permutes the components (and negates one): SEs permute
_DIFF_SIGN = np.array([-1.0, 1.0, 1.0, 1.0, 1.0])


@dataclass(frozen=True)
class RolloutResult:
    """The rollout of K positions.

    Attributes
    ----------
    probs : float64 (K, 5)
        Mean outcome probabilities (:data:`bgrl.evaluation.probabilities.OUTPUTS` order) of
        the side the rollout was asked about (see the function that made it).
    probs_se : float64 (K, 5)
        Their standard errors (NaN with a single trial).
    equity : float64 (K,)
        Mean cubeless equity, points per game.
    equity_se : float64 (K,)
        Its standard error.
    trials : int
    seed : int
    truncate : int or None
        Plies after which trials were cut (None: played to the end).
    mean_plies : float64 (K,)
        Mean number of plies a trial was played before it ended (game over, exact value or
        truncation).
    """

    probs: np.ndarray
    probs_se: np.ndarray
    equity: np.ndarray
    equity_se: np.ndarray
    trials: int
    seed: int
    truncate: int | None
    mean_plies: np.ndarray

    def flipped(self) -> "RolloutResult":
        """The same rollouts seen from the other side (probabilities flipped, equities negated)."""
        return RolloutResult(flip_probs(self.probs), self.probs_se[:, _SE_FLIP], -self.equity, self.equity_se.copy(),
                             self.trials, self.seed, self.truncate, self.mean_plies)

    def as_dict(self, k: int = 0) -> dict:
        """Rollout ``k``'s figures as JSON fields: equity, equity_se, probabilities, probabilities_se
        (rounded to 6 decimals; a standard error that is not defined is None)."""
        return {
            "equity": _num(self.equity[k]),
            "equity_se": _num(self.equity_se[k]),
            "probabilities": {name: _num(v) for name, v in zip(OUTPUTS, self.probs[k])},
            "probabilities_se": {name: _num(v) for name, v in zip(OUTPUTS, self.probs_se[k])},
        }


def _num(x) -> float | None:
    x = float(x)
    return round(x, 6) if math.isfinite(x) else None


@dataclass(frozen=True)
class RolledPlay:
    """One candidate play with its rollout, for the side that played.

    Attributes
    ----------
    rank : int
        1 = best by rollout equity; equal equities share a rank
        (:func:`bgrl.agents.hints.shared_ranks`).
    play : bgrl.rules.notation.Play
    equity, equity_se : float
        Cubeless equity after the play (points per game) and its standard error.
    probabilities, probabilities_se : bgrl.evaluation.probabilities.Probabilities
        Outcome probabilities after the play and their standard errors.
    """

    rank: int
    play: Play
    equity: float
    equity_se: float
    probabilities: Probabilities
    probabilities_se: Probabilities

    def as_dict(self) -> dict:
        """The JSON row of ``bgrl rollout POSITION DICE --json``."""
        return {
            "rank": self.rank,
            "play": self.play.notation,
            "position_id": self.play.position_id,
            "equity": _num(self.equity),
            "equity_se": _num(self.equity_se),
            "probabilities": {k: _num(v) for k, v in self.probabilities.as_dict().items()},
            "probabilities_se": {k: _num(v) for k, v in self.probabilities_se.as_dict().items()},
        }


def _check_int(name: str, value, low: int, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


def stratified_rolls(trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The first two rolls of each trial, stratified over the 36 x 36 ordered pairs.

    Parameters
    ----------
    trials : int >= 1
    seed : int

    Returns
    -------
    first, second : int8 (trials, 2) each, ordered dice 1..6. Every aligned block of 36
    trials holds each of the 36 ordered rolls once as its first and once as its second
    roll; every aligned block of 1,296 trials holds each ordered pair (first, second)
    once (module docstring; gnubg's manual, 9.2.1 "Quasi-Random Dice").
    """
    trials = _check_int("trials", trials, 1)
    rng = np.random.default_rng([int(seed) % 2**64, 0x726F6C6C])
    p, q, r = rng.permutation(36), rng.permutation(36), rng.permutation(36)
    i = np.arange(trials)
    a = i % 36
    b = (i // 36) % 36
    return _ORDERED[p[a]], _ORDERED[q[(a + r[b]) % 36]]


def _trial_keys(trials: int, seed: int) -> np.ndarray:
    base = np.uint64(seed_keys(int(seed)))
    with np.errstate(over="ignore"):
        return seed_keys(base + np.arange(trials, dtype=np.uint64))


def _unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an int8 (n, w) array and, per row, the index of its distinct row."""
    a = np.ascontiguousarray(a)
    keys = a.view(np.dtype((np.void, a.shape[1])))[:, 0]
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    return a[first], inv.reshape(-1)


def _evaluate(evaluator, boards: np.ndarray) -> np.ndarray:
    if boards.shape[0] <= EVAL_CHUNK:
        return np.asarray(evaluator(boards), dtype=np.float64).reshape(boards.shape[0], 5)
    return np.concatenate([np.asarray(evaluator(boards[i:i + EVAL_CHUNK]), dtype=np.float64).reshape(-1, 5)
                           for i in range(0, boards.shape[0], EVAL_CHUNK)])


def rollout_boards(evaluator, boards, trials: int = DEFAULT_TRIALS, seed: int = 0, ply: int = 0, filters=GNUBG_FILTERS,
                   truncate: int | None = None, variance_reduction: bool = True, exact: bool = True,
                   prune=None) -> RolloutResult:
    """Roll out K positions, all trials of all of them in lockstep (module docstring).

    Parameters
    ----------
    evaluator : callable
        After-states int8 (M, 26) -> probabilities float (M, 5) of the side that played
        (:mod:`bgrl.evaluation.evaluator`); it plays the trials and estimates the luck.
    boards : int8 (K, 26)
        The positions, each from the side on roll (who rolls first in every trial).
    trials : int >= 1
        Trials per position; position k's trial i uses the same dice for every k.
    seed : int
        Seeds the dice: the same seed gives the same numbers.
    ply : int 0..3
        Search depth of the checker play (gnubg's convention).
    filters : sequence of :class:`bgrl.agents.search.MoveFilter`
        Move filters of the search above 0-ply.
    truncate : int >= 0, optional
        Stop each trial after this many plies and take the evaluator's value there (at
        ``ply``); None plays every trial to its end.
    variance_reduction : bool
        Subtract the luck of every roll (module docstring).
    exact : bool
        Stop a trial where :func:`bgrl.evaluation.exact.exact_probs` knows its position,
        with that value (default True).
    prune : :class:`bgrl.agents.search.ReplyPruning`, optional
        The reply pruning of the checker play's search (used at 2-ply and deeper).

    Returns
    -------
    RolloutResult
        Probabilities and equities of the side on roll in each position (K rows). A
        position whose game is over already gets its exact value, standard error 0.

    Raises
    ------
    TypeError, ValueError
        For trials < 1, truncate < 0, a ply outside 0..3 or boards not of shape (K, 26).
    RuntimeError
        If a trial runs past :data:`MAX_PLIES` plies.
    """
    trials = _check_int("trials", trials, 1)
    truncate = _check_int("truncate", truncate, 0, allow_none=True)
    ply = check_ply(ply)
    roots = np.ascontiguousarray(boards, dtype=np.int8)
    if roots.ndim != 2 or roots.shape[1] != 26:
        raise ValueError(f"boards must have shape (K, 26), got {roots.shape}")
    compiled.ensure()  # the compiled batch generator and table rows where wanted (the same results)
    k_roots = roots.shape[0]
    g = k_roots * trials
    trial_of = np.tile(np.arange(trials), k_roots)
    first, second = stratified_rolls(trials, seed)
    keys = _trial_keys(trials, seed)

    state = np.repeat(roots, trials, axis=0)  # side on roll's view
    result = np.zeros((g, 5))  # outcome minus luck, the root side's view
    plies = np.zeros(g, dtype=np.int64)
    active = np.arange(g)

    def finish(idx, probs, t):
        """Trials idx end with probs of the side on roll at ply t."""
        result[idx] += probs if t % 2 == 0 else flip_probs(probs)
        plies[idx] = t

    # a root whose game is over: the side that just played has borne off (it won)
    over = game_results(flip(state)) > 0
    if over.any():
        finish(active[over], flip_probs(terminal_probs(game_results(flip(state[over])))), 0)
        active = active[~over]

    t = 0
    while active.size:
        if t >= MAX_PLIES:
            raise RuntimeError(f"a rollout trial exceeded {MAX_PLIES} plies")
        b = state[active]
        if exact:
            known, ex = exact_probs(b)
            if known.any():
                finish(active[known], ex[known], t)
                active, b = active[~known], b[~known]
                if not active.size:
                    break
        if truncate is not None and t >= truncate:
            finish(active, flip_probs(after_state_probs(evaluator, flip(b), ply, prune)), t)
            break
        n = active.size
        tr = trial_of[active]
        dice = first[tr] if t == 0 else second[tr] if t == 1 else roll_dice(keys[tr], np.full(n, t))
        ridx = _ROLL_INDEX[dice[:, 0], dice[:, 1]]
        if variance_reduction:
            # trials that stand on the same position (the first plies) share its 21 rolls' plays
            ub, inv = _unique_rows(b)
            nu, nr = ub.shape[0], ROLLS.shape[0]
            aft = generate(np.repeat(ub, nr, axis=0), np.tile(ROLLS, (nu, 1)), validate=False)
            p = _evaluate(evaluator, aft.boards)
            best = group_argmax(equity(p), aft.offsets).reshape(nu, nr)
            f = p[best]  # (nu, 21, 5): probabilities of the mover after its best 0-ply play of each roll
            luck = f[inv, ridx] - np.einsum("nrk,r->nk", f, ROLL_WEIGHTS)[inv]
            if t % 2:  # the root side's view: flip_probs(x) - flip_probs(y) for a difference x - y
                luck = luck[:, _SE_FLIP] * _DIFF_SIGN
            result[active] -= luck
            if ply == 0:
                chosen = aft.boards[best[inv, ridx]]
            else:
                ug, ginv = np.unique(inv * nr + ridx, return_inverse=True)
                lo, hi = aft.offsets[ug], aft.offsets[ug + 1]
                sel = np.concatenate([np.arange(x, y) for x, y in zip(lo.tolist(), hi.tolist())])
                offs = np.concatenate([[0], np.cumsum(hi - lo)])
                chosen = aft.boards[sel[search_plays(evaluator, aft.boards[sel], offs, ply, filters, prune=prune).best]][ginv]
        else:
            # one decision per distinct (position, roll) of the trials
            ub, inv = _unique_rows(np.concatenate([b, ridx[:, None].astype(np.int8)], axis=1))
            aft = generate(ub[:, :26], ROLLS[ub[:, 26].astype(np.int64)], validate=False)
            if ply == 0:
                pick = group_argmax(equity(_evaluate(evaluator, aft.boards)), aft.offsets)
            else:
                pick = search_plays(evaluator, aft.boards, aft.offsets, ply, filters, prune=prune).best
            chosen = aft.boards[pick[inv]]
        res = game_results(chosen)
        done = res > 0
        if done.any():
            finish(active[done], terminal_probs(res[done]), t)  # the mover's view, which is the on-roll side at t
            plies[active[done]] = t + 1
        state[active] = flip(chosen)
        active = active[~done]
        t += 1

    y = result.reshape(k_roots, trials, 5)
    eq = equity(y)
    if trials > 1:
        se = y.std(axis=1, ddof=1) / math.sqrt(trials)
        eq_se = eq.std(axis=1, ddof=1) / math.sqrt(trials)
    else:
        se = np.full((k_roots, 5), np.nan)
        eq_se = np.full(k_roots, np.nan)
    return RolloutResult(probs=y.mean(axis=1), probs_se=se, equity=eq.mean(axis=1), equity_se=eq_se, trials=trials,
                         seed=int(seed), truncate=truncate, mean_plies=plies.reshape(k_roots, trials).mean(axis=1))


def candidate_plays(evaluator, plays: list[Play], flt: MoveFilter = CANDIDATE_FILTER) -> list[Play]:
    """The plays worth rolling out: those that pass ``flt`` by the evaluator's 0-ply
    equity, best first (ties keep canonical order). ``[]`` for no plays."""
    if not plays:
        return []
    a = np.stack([p.after_state for p in plays])
    eq = equity(_evaluate(evaluator, a))
    n = len(plays)
    keep = apply_filter(eq, np.ones(n, dtype=bool), np.zeros(n, dtype=np.int64), np.array([0, n]), flt)
    order = [int(i) for i in np.lexsort((np.arange(n), -eq)) if keep[i]]
    return [plays[i] for i in order]


class Roller:
    """Rollouts with one checker play: an evaluator, a ply and move filters.

    Parameters
    ----------
    evaluator : callable
        After-states int8 (M, 26) -> probabilities (M, 5) of the side that played.
    ply : int 0..3
        Search depth of every play of every trial (0: the evaluator's best play).
    filters : sequence of :class:`bgrl.agents.search.MoveFilter`, optional
        Move filters above 0-ply (default :data:`bgrl.agents.search.GNUBG_FILTERS`).
    name : str, optional
        A label, e.g. the level's name.

    Raises
    ------
    ValueError
        For a ply outside 0..3.
    """

    def __init__(self, evaluator, ply: int = 0, filters=None, name: str | None = None, prune=None):
        self.ply = check_ply(ply)
        self.evaluator = evaluator
        self.prune = prune if self.ply >= MIN_PRUNED_PLY else None  # bgrl.agents.search.ReplyPruning of the play's search
        self.filters = tuple(filters) if filters else GNUBG_FILTERS
        self.name = name or f"{self.ply}-ply"

    @classmethod
    def from_agent(cls, agent) -> "Roller":
        """The noise-free checker play of a level agent (:class:`bgrl.agents.levels.LevelAgent`:
        its evaluator, ply and filters)."""
        lv = agent.level
        prune = agent.pruning() if hasattr(agent, "pruning") else None
        return cls(agent.evaluator, lv.ply, lv.filters, name=lv.name, prune=prune)

    def position(self, position, trials: int = DEFAULT_TRIALS, seed: int = 0, truncate: int | None = None,
                 variance_reduction: bool = True) -> RolloutResult:
        """Roll out a position with the side on roll to roll.

        Parameters
        ----------
        position : bgrl.rules.board.Position
        trials, seed, truncate, variance_reduction
            As :func:`rollout_boards`.

        Returns
        -------
        RolloutResult with one row, for the side on roll.

        Raises
        ------
        TypeError
            For a position that is not a Position.
        ValueError
            For a finished game (:func:`bgrl.rules.outcome.check_not_over`), trials < 1 or truncate < 0.
        """
        if not isinstance(position, Position):
            raise TypeError(f"position must be a bgrl Position, got {type(position).__name__}")
        check_not_over(position)
        return rollout_boards(self.evaluator, position.board[None], trials, seed, self.ply, self.filters, truncate,
                              variance_reduction, prune=self.prune)

    def plays(self, position, dice, trials: int = DEFAULT_TRIALS, seed: int = 0, truncate: int | None = None,
              variance_reduction: bool = True, flt: MoveFilter = CANDIDATE_FILTER) -> list[RolledPlay]:
        """Roll out the candidate plays of a roll (:func:`candidate_plays`), ranked, best first.

        Every candidate's after-state is rolled out with the opponent on roll, all of them
        in one lockstep batch and with the same dice; the figures are turned back to the
        side that played.

        Parameters
        ----------
        position : bgrl.rules.board.Position
        dice : pair of ints 1..6
        trials, seed, truncate, variance_reduction
            As :func:`rollout_boards` (truncation counts plies after the play).
        flt : MoveFilter
            Which plays are rolled out (default :data:`CANDIDATE_FILTER`).

        Returns
        -------
        list of RolledPlay, best first; ``[]`` when no die can be played.

        Raises
        ------
        TypeError, ValueError
            As :meth:`position`, and for bad dice (:func:`bgrl.agents.base.check_decision`).
        """
        position, dice = check_decision(position, dice)
        check_not_over(position)
        cands = candidate_plays(self.evaluator, legal_plays(position, dice), flt)
        if not cands:
            return []
        roots = flip(np.stack([p.after_state for p in cands]))
        res = rollout_boards(self.evaluator, roots, trials, seed, self.ply, self.filters, truncate,
                             variance_reduction, prune=self.prune).flipped()
        order = np.lexsort((np.arange(len(cands)), -res.equity))
        ranks = shared_ranks(res.equity[order])
        return [RolledPlay(rank=int(ranks[j]), play=cands[i], equity=float(res.equity[i]), equity_se=float(res.equity_se[i]),
                           probabilities=Probabilities.from_array(res.probs[i]),
                           probabilities_se=Probabilities.from_array(res.probs_se[i]))
                for j, i in enumerate(order.tolist())]
