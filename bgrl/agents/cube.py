"""Cube decisions of a level: its cubeless pre-roll evaluation through Janowski's model.

The level's evaluator and ply give the cubeless probabilities of the side on roll *before
it rolls* (:func:`pre_roll_probs`: 0-ply is the evaluator on the position; n-ply averages
the 21 rolls, each played by the best 0-ply play and valued at (n-1)-ply, the search of
:mod:`bgrl.agents.search`); :func:`bgrl.evaluation.cube.cube_decision` turns them into the
decision with the cube life of the position's phase (:func:`bgrl.evaluation.cube.cube_life`).
Unlike gnubg's n-ply cubeful search, the cube enters at the root only (documented in
docs/cube.md).
"""

from __future__ import annotations

import numpy as np

from bgrl.agents.search import MoveFilter, after_state_probs, apply_filter, check_ply, group_argmax, search_plays
from bgrl.evaluation.cube import CubeDecision, cube_decision, cube_life, cubeful_equity
from bgrl.evaluation.probabilities import flip_probs
from bgrl.rules.board import Position, flip
from bgrl.rules.cube import CubeState
from bgrl.rules.outcome import check_not_over, game_results
from bgrl.agents.base import check_decision
from bgrl.agents.hints import shared_ranks
from bgrl.agents.levels import play_noise
from bgrl.rules.movegen import generate
from bgrl.rules.notation import legal_plays
from bgrl.evaluation.match_equity import default_met, equity_to_mwc, mwc_to_equity

__all__ = ["pre_roll_probs", "pre_roll_decision", "cube_hint", "cube_hints_many", "cube_engine", "cube_decisions", "wants_double", "answer_double",
           "CUBEFUL_FILTER", "cubeful_select", "cubeful_choose_play", "cubeful_values", "cubeful_rank", "value_mwc",
           "ranked_by", "rank_by_match_equity"]


def pre_roll_probs(evaluator, position: Position, ply: int = 0, prune=None) -> np.ndarray:
    """Cubeless probabilities float64 (5,) of the side on roll before it rolls, at ``ply``.

    Parameters
    ----------
    evaluator : after-states int8 (M, 26) -> probabilities (M, 5) (bgrl.evaluation.evaluator)
    position : Position, from the side on roll (game not over).
    ply : int 0..3 (gnubg's convention).
    prune : :class:`bgrl.agents.search.ReplyPruning`, optional: the search's reply pruning
        (at 2-ply and deeper; a level's, :meth:`bgrl.agents.levels.LevelAgent.pruning`).

    Raises
    ------
    TypeError for a non-Position; ValueError for a finished game or a ply out of range.
    """
    if not isinstance(position, Position):
        raise TypeError(f"position must be a Position, got {type(position).__name__}")
    check_not_over(position)
    before = flip(position.board)[None].astype(np.int8)  # as if the opponent had just played
    return flip_probs(after_state_probs(evaluator, before, check_ply(ply), prune)[0])


def pre_roll_decision(position: Position, probs, cube: CubeState | None = None, x: float | None = None,
                      met=None) -> CubeDecision:
    """The cube decision of the side on roll before the roll, from its cubeless pre-roll
    probabilities (5,) (:func:`pre_roll_probs`, or a level's evaluation): Janowski's model
    (:func:`bgrl.evaluation.cube.cube_decision`) with the cube life of the position's phase
    (:func:`bgrl.evaluation.cube.cube_life`; ``x`` overrides it). ``cube``: from the side on
    roll (default: centred, money). Raises ValueError when the side may not double."""
    life = cube_life(position.board) if x is None else float(x)
    return cube_decision(np.asarray(probs, dtype=np.float64), cube, life, met)


def cube_hint(evaluator, position: Position, cube: CubeState | None = None, ply: int = 0, x: float | None = None,
              met=None, prune=None) -> tuple[CubeDecision, np.ndarray]:
    """The cube decision of the side on roll, before the roll.

    Returns ``(CubeDecision, cubeless probabilities (5,))``. ``x`` overrides the cube life of
    the position's phase. Raises ValueError when the side may not double (Crawford game,
    opponent's cube, the cap), for a finished game, or a score beyond the match table.
    """
    cube = CubeState() if cube is None else cube
    cube.check_double()
    probs = pre_roll_probs(evaluator, position, ply, prune)
    return pre_roll_decision(position, probs, cube, x, met), probs


# -- the computer's cube actions and cubeful checker play (bgrl play --cube, bgrl match --cube) --

#: Cubeful checker play re-ranks, of each decision's plays valued at the deepest ply, at
#: most this many best by cubeless equity and within this many points of the best (the
#: cubeful model is evaluated in Python, one play at a time).
CUBEFUL_FILTER = (8, 0.32)


def cube_engine(agent):
    """``(evaluator, ply, filters)`` an agent decides cube actions and cubeful plays with, or
    None for an agent without an evaluator (random, pubeval, gnubg, user agents): those never
    double, always take and play their own (cubeless) checker play.

    A level agent (:class:`bgrl.agents.levels.LevelAgent`) uses its network at its level's
    ply and move filters; any other agent with an ``evaluator`` attribute its network at 0-ply.
    """
    ev = getattr(agent, "evaluator", None)
    if ev is None:
        return None
    level = getattr(agent, "level", None)
    if level is not None:
        return ev, int(level.ply), tuple(level.filters)
    return ev, 0, ()


def _pruning(agent, ply: int):
    """The reply pruning of ``agent``'s search at ``ply`` (a level agent's), or None."""
    return agent.pruning(ply) if hasattr(agent, "pruning") else None


def cube_decisions(agent, boards, cubes) -> list:
    """The cube decisions of B sides on roll before they roll, by ``agent``'s engine.

    Parameters
    ----------
    agent : an agent (:func:`cube_engine`).
    boards : int8 (B, 26), each from its side on roll (game not over).
    cubes : sequence of B :class:`bgrl.rules.cube.CubeState` from the same sides; each must
        allow a double (``may_double()``).

    Returns
    -------
    list of B :class:`bgrl.evaluation.cube.CubeDecision`, or of None for an agent without an
    engine. One batched evaluation for all B (at the engine's ply).
    """
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    eng = cube_engine(agent)
    if eng is None or boards.shape[0] == 0:
        return [None] * boards.shape[0]
    ev, ply, _ = eng
    probs = flip_probs(after_state_probs(ev, flip(boards).astype(np.int8), ply, _pruning(agent, ply)))
    return [cube_decision(probs[i], cubes[i], cube_life(boards[i])) for i in range(boards.shape[0])]


def wants_double(decision, cube: CubeState | None = None) -> bool:
    """Whether a side doubles on this decision (``"double, take"`` or ``"double, pass"``);
    False for None (an agent without an engine never doubles), and, given the ``cube`` (from
    the doubler's side), False in a match when the cube already covers what both sides need
    (``value >= `` both sides' points to go: a double changes nothing, and the model's tie
    would turn the cube without end)."""
    if decision is None or decision.decision not in ("double, take", "double, pass"):
        return False
    if cube is not None and cube.is_match and cube.value >= max(cube.away):
        return False
    return True


def answer_double(agent, board, cube: CubeState) -> str:
    """``agent``'s answer to a double: ``"take"``, ``"pass"`` or ``"beaver"``.

    board : int8 (26,), the position from the *doubler's* side (on roll, before its roll);
    cube : CubeState from the doubler's side, before the double. The answer comes from the
    taker's own engine (the doubler's cube decision, judged by the taker's network); an
    agent without an engine always takes.
    """
    d = cube_decisions(agent, np.asarray(board)[None], [cube])[0]
    if d is None:
        return "take"
    if not d.take:
        return "pass"
    return "beaver" if d.beaver and cube.why_no_beaver() is None else "take"


def _noise(agent, after, rng):
    """The equity noise (M,) ``agent`` adds to its plays, as its own ``select`` does."""
    lv = getattr(agent, "level", None)
    if lv is not None and lv.noise > 0:
        return lv.noise * play_noise(after, lv.name, getattr(agent, "seed", 0))
    sd = float(getattr(agent, "noise", 0.0) or 0.0)
    if sd > 0 and rng is not None:
        return rng.normal(0.0, sd, size=after.boards.shape[0])
    return None


def cubeful_select(agent, after, cubes, rng=None, met=None) -> np.ndarray:
    """The play each of B decisions chooses by cubeful equity: index int64 (B,) into
    ``after.boards``.

    Parameters
    ----------
    agent : an agent (:func:`cube_engine`); one without an engine plays ``agent.select``.
    after : :class:`bgrl.rules.movegen.AfterStates` of the B decisions.
    cubes : sequence of B CubeState, each from the side to play (the mover); a cube not in
        play (``cube_in_play=False``) leaves that decision to the cubeless choice.
    rng : numpy Generator, for agents with random noise; met : match equity table.

    The plays are searched as the agent's own ``select`` does (its ply and filters); of
    those valued at the deepest ply, the :data:`CUBEFUL_FILTER` best by cubeless equity are
    valued again by :func:`bgrl.evaluation.cube.cubeful_equity` of the after-state from the
    opponent's side (its cubeless probabilities at that ply, the cube seen from it, the cube
    life of its position) and the play with the highest cubeful equity for the mover wins;
    at a match score that is the highest match winning chance. The level's noise is added
    on the equity scale, as in cubeless play.
    """
    eng = cube_engine(agent)
    if eng is None:
        return np.asarray(agent.select(after, rng), dtype=np.int64)
    ev, ply, filters = eng
    res = search_plays(ev, after.boards, after.offsets, ply, filters or None, prune=_pruning(agent, ply))
    counts = np.diff(after.offsets)
    parent = np.repeat(np.arange(counts.size), counts)
    gdepth = np.maximum.reduceat(res.ply, after.offsets[:-1])
    deepest = res.ply == gdepth[parent]
    noise = _noise(agent, after, rng)
    cubeless = res.equity if noise is None else res.equity + noise
    best = group_argmax(np.where(deepest, cubeless, -np.inf), after.offsets)
    live = np.array([bool(c.cube_in_play) for c in cubes], dtype=bool)
    if not live.any():
        return best

    keep, window = CUBEFUL_FILTER
    cand = apply_filter(res.equity, deepest & live[parent] & (counts > 1)[parent], parent, after.offsets,
                        MoveFilter(keep, window))
    idx = np.flatnonzero(cand)
    if idx.size == 0:
        return best
    value = np.full(after.boards.shape[0], -np.inf)
    for row in idx:  # decisions share nothing: one call per play keeps each decision's own cube
        value[row] = cubeful_values(after.boards[row][None], res.probs[row][None], cubes[int(parent[row])], met)[0]
    if noise is not None:
        value[idx] += noise[idx]
    out = best.copy()
    groups = np.unique(parent[idx])
    choice = group_argmax(np.where(cand, value, -np.inf), after.offsets)
    out[groups] = choice[groups]
    return out


def cubeful_values(after_states, probs, cube: CubeState, met=None) -> np.ndarray:
    """The mover's cubeful value of after-states of one decision: float64 (M,).

    Parameters
    ----------
    after_states : int8 (M, 26), from the side that has just played (the mover).
    probs : float (M, 5), their cubeless probabilities for the mover (at any ply).
    cube : CubeState from the mover's side (before the turn passes).

    Returns minus :func:`bgrl.evaluation.cube.cubeful_equity` of the opponent, on roll next
    with the cube seen from it and the cube life of its position; a play that ends the game
    is worth what it scores. Money: per unit of the cube; a match: MWC on gnubg's equity
    scale of the current cube (higher is better for the mover in both).
    """
    a = np.asarray(after_states, dtype=np.int8).reshape(-1, 26)
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    done = game_results(a)
    opp = flip(a)
    opp_p = flip_probs(p)
    theirs = cube.flipped()
    out = np.empty(a.shape[0])
    for j in range(a.shape[0]):
        if done[j]:
            out[j] = _won_value(cube, int(done[j]), met)
        else:
            out[j] = -cubeful_equity(opp_p[j], theirs, cube_life(opp[j]), met)
    return out


def _won_value(cube: CubeState, result: int, met=None) -> float:
    """A won game's value for the winner on the scale of :func:`cubeful_equity` (money: points
    per unit of the cube; a match: MWC on gnubg's equity scale of the current cube)."""
    pts = cube.points(result)
    if not cube.is_match:
        return pts / cube.value

    met = default_met() if met is None else met
    a, b = cube.away
    post = cube.crawford or cube.post_crawford
    win = met.mwc(a - cube.value, b, post)
    lose = met.mwc(a, b - cube.value, post)
    return float(mwc_to_equity(met.mwc(a - pts, b, post), win, lose))


def cubeful_choose_play(agent, position, dice, cube: CubeState, rng=None, met=None):
    """One decision of :func:`cubeful_select`: the :class:`bgrl.rules.notation.Play` the agent
    chooses with the cube ``cube`` (from the side on roll), or None when no die can be played."""
    if cube_engine(agent) is None:  # no network: the agent's own (cubeless) choice
        return agent.choose_play(position, dice, rng)
    pos, d = check_decision(position, dice)
    plays = legal_plays(pos, d)
    if not plays:
        return None
    aft = generate(pos.board[None], np.array([d], dtype=np.int8))
    k = int(cubeful_select(agent, aft, [cube], rng if rng is not None else np.random.default_rng(), met)[0])
    chosen = aft.boards[k].tobytes()
    return next(p for p in plays if p.after_state.tobytes() == chosen)


def cube_hints_many(evaluator, positions, cubes, ply: int = 0, met=None, prune=None) -> list[CubeDecision]:
    """:func:`cube_hint` for many positions at once (one batched search for all of them).

    positions : list of Position (side on roll, games not over); cubes : list of CubeState,
    one per position, each allowing the side on roll to double. Returns the decisions in
    order. Raises ValueError as :func:`cube_hint` does (naming the position's index).
    """
    positions, cubes = list(positions), list(cubes)
    if len(positions) != len(cubes):
        raise ValueError(f"{len(positions)} positions but {len(cubes)} cube states")
    if not positions:
        return []
    for i, (p, c) in enumerate(zip(positions, cubes)):
        if not isinstance(p, Position):
            raise TypeError(f"positions[{i}] must be a Position, got {type(p).__name__}")
        check_not_over(p)
        try:
            c.check_double()
        except ValueError as exc:
            raise ValueError(f"position {i} ({p.position_id}): {exc}") from None
    before = np.stack([flip(p.board) for p in positions]).astype(np.int8)
    probs = after_state_probs(evaluator, before, check_ply(ply), prune)
    return [cube_decision(flip_probs(pr), c, cube_life(p.board), met) for pr, p, c in zip(probs, positions, cubes)]


# -- hints with the cube: the one re-ranking of a hint's rows (bgrl hint, POST /v1/hint, bgrl play --cube) --

def ranked_by(cube: CubeState | None) -> str:
    """What a hint with ``cube`` ranks the plays by: ``"cubeless"`` (None, a cube not in
    play, or the money game's centred cube at 1 without options: the project default),
    ``"cubeful"`` (money with the cube at 2 or more, owned, or the Jacoby rule / beavers) or
    ``"mwc"`` (a match score)."""
    if cube is None or not cube.cube_in_play:
        return "cubeless"
    if cube.is_match:
        return "mwc"
    return "cubeless" if cube.is_plain_money else "cubeful"


def value_mwc(values, cube: CubeState, met=None) -> np.ndarray:
    """The mover's match winning chances float64 (M,) of :func:`cubeful_values` (gnubg's
    equity scale of the current cube at ``cube``'s score; ``cube`` from the mover's side,
    a match). Raises ValueError in a money game."""
    if not cube.is_match:
        raise ValueError("match winning chances need a match score (the cube is in a money game)")
    met = default_met() if met is None else met
    a, b = cube.away
    post = cube.crawford or cube.post_crawford
    win, lose = met.mwc(a - cube.value, b, post), met.mwc(a, b - cube.value, post)
    return np.array([equity_to_mwc(float(v), win, lose) for v in np.asarray(values, dtype=np.float64).reshape(-1)])


def cubeful_rank(rows, cube: CubeState, met=None) -> tuple[list, np.ndarray]:
    """A hint's rows re-ranked with the cube: ``(rows, values)``, best first.

    Parameters
    ----------
    rows : list of :class:`bgrl.agents.hints.RankedPlay` of one decision (any order), their
        probabilities at the ply each play reached (the level's search).
    cube : CubeState from the side playing (before the turn passes).

    Returns
    -------
    rows : the same plays sorted as gnubg's hint does, deeper ply first, then higher
        :func:`cubeful_values` (stable: ties keep the given order); ``rank`` shared by ties
        of (ply, cubeful value); ``equity``, ``equity_loss`` and ``probabilities`` stay the
        ranker's cubeless ones.
    values : float64 (n,) their cubeful values in that order (money: equity per unit of the
        cube; a match: MWC on gnubg's equity scale, :func:`value_mwc` gives the MWC).
    """
    from dataclasses import replace

    rows = list(rows)
    if not rows:
        return [], np.zeros(0)
    vals = cubeful_values(np.stack([r.play.after_state for r in rows]),
                          np.stack([r.probabilities.to_array() for r in rows]), cube, met)
    depth = np.array([int(r.ply) for r in rows], dtype=np.int64)
    order = np.lexsort((-vals, -depth))
    ranks = shared_ranks(vals[order], depth[order]).tolist()
    out = [rows[i] if rows[i].rank == k else replace(rows[i], rank=int(k)) for i, k in zip(order.tolist(), ranks)]
    return out, vals[order]


def rank_by_match_equity(items, cube: CubeState, met=None) -> list:
    """``(play, probabilities)`` pairs of one decision (wildbg's ``GET /move`` list: each
    play a :class:`bgrl.rules.notation.Play`, its cubeless probabilities for the mover)
    re-ranked by the mover's :func:`cubeful_values` at ``cube`` (at a match score: match
    winning chances), best first; ties keep the given order."""
    items = list(items)
    values = cubeful_values(np.stack([p.after_state for p, _ in items]), np.stack([pr for _, pr in items]), cube, met)
    order = sorted(range(len(items)), key=lambda i: -values[i])
    return [items[i] for i in order]
