"""The wildbg-compatible routes: ``GET /move`` and ``GET /eval`` (the query parameters and
JSON shapes of wildbg's web API, https://github.com/carsten-wenderdel/wildbg, crates/web),
and :func:`lean_wildbg_move`, the lean path of ``GET /move``
(:class:`bgrl.service.middleware.LeanRoutes`). The ``GET /move`` body is built once, by
:func:`bgrl.service.engine.wildbg_move_json`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, FastAPI, Query, Request

from bgrl.agents.cube import pre_roll_decision, rank_by_match_equity
from bgrl.evaluation.match_equity import default_met
from bgrl.rules.cube import CubeState
from bgrl.service import schemas as S
from bgrl.service.answers import wildbg_probabilities
from bgrl.service.engine import EvalJob, ListJob, ServiceError, parse_dice_value, parse_position, wildbg_move_json
from bgrl.service.metrics import label_level
from bgrl.service.middleware import lean_wildbg_query

__all__ = ["add_routes", "lean_wildbg_move", "match_score_cube"]


def _known_query_only(model):
    """A route dependency that refuses (400 ``unknown_parameter``) a query parameter that
    ``model`` does not define, or (400 ``duplicate_parameter``) one given twice; wildbg's own server ignores unknown
    ones, but a misspelt pip (``P5``, ``p26``) would then silently describe another position."""
    accepted = tuple(model.model_fields)
    pips = [f"p{i}" for i in range(26)]
    shown = ", ".join([a for a in accepted if a not in pips] + (["p0..p25"] if set(pips) <= set(accepted) else []))

    def check(request: Request) -> None:
        keys = [k for k, _ in request.query_params.multi_items()]
        unknown = sorted({k for k in keys if k not in accepted})
        if unknown:
            names = ", ".join(repr(k[:40]) for k in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
            raise ServiceError("unknown_parameter", f"unknown query parameter {names}; accepted: {shown}")
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise ServiceError("duplicate_parameter", f"query parameter {', '.join(twice)} given more than once")

    return Depends(check)


def match_score_cube(x_away: int, o_away: int):
    """The centred-cube :class:`bgrl.rules.cube.CubeState` of wildbg's ``x_away``/``o_away``
    (mover first), or None for money (both 0). A side 1 away against a side further away is
    taken to be in the Crawford game (wildbg's query has no Crawford flag). Raises
    ServiceError ``bad_score`` for one side 0 and the other not, or a score beyond the match
    equity table (25 points)."""
    if (x_away, o_away) == (0, 0):
        return None
    top = default_met().length
    if min(x_away, o_away) < 1 or max(x_away, o_away) > top:
        raise ServiceError("bad_score", f"x_away and o_away must both be 0 (money) or both 1..{top} points to go "
                           f"(the match equity table), got {x_away} and {o_away}")
    n = max(x_away, o_away)
    crawford = min(x_away, o_away) == 1 and n > 1
    return CubeState(match_length=n, score=(n - x_away, n - o_away), crawford=crawford)


def _pips_board(q) -> list[int]:
    return [int(getattr(q, f"p{i}") or 0) for i in range(26)]


async def wildbg_move(q: Annotated[S.WildbgMoveQuery, Query()], request: Request):
    """wildbg's ``GET /move``: every legal play, best first, with the probabilities after
    it for the side that moved. ``die1``, ``die2``, ``p0``..``p25`` (mover's view, bar = 25,
    opponent's bar = 0, negative = opponent), optional ``x_away``/``o_away`` (money: omit or
    both 0; a match score: the points the mover and its opponent still need, 1..25 each,
    with a centred cube; a side 1 away is taken to be in the Crawford game). At a score the
    plays are ranked by match winning chances (:func:`rank_by_match_equity`)."""
    xa, oa = q.x_away or 0, q.o_away or 0
    score = match_score_cube(xa, oa)
    dmp = (xa, oa) == (1, 1)

    pos, _ = parse_position(board=_pips_board(q))
    d = parse_dice_value((q.die1, q.die2))
    label_level(request, q.level)
    limiter = request.app.state.limiter
    if score is not None and not dmp:  # a match score: the plays re-ranked by match winning chances
        items = await limiter.run(ListJob(pos, d, q.level, q.seed, dmp))
        if items and items[0][0] is not None:
            items = rank_by_match_equity(items, score)
        body = wildbg_move_json(items)
    else:
        body = await limiter.run(ListJob(pos, d, q.level, q.seed, dmp, as_json=True))
    return S.WildbgMoveResponse.model_validate_json(body)


async def lean_wildbg_move(scope, body: bytes):
    """The lean path of ``GET /move``: the answer's JSON for a query made only of known
    names given once, each a plain number (:func:`bgrl.service.middleware.lean_wildbg_query`),
    whose position and dice parse, else None (the FastAPI route answers)."""
    q = lean_wildbg_query(scope.get("query_string", b""))
    if q is None:
        return None
    board, dice, level, seed, dmp = q
    try:
        pos, _ = parse_position(board=board)
        d = parse_dice_value(dice)
    except ServiceError:
        return None
    scope.setdefault("state", {})["level"] = level
    return await scope["app"].state.limiter.run(ListJob(pos, d, level, seed, dmp, as_json=True))


async def wildbg_eval(q: Annotated[S.WildbgEvalQuery, Query()], request: Request):
    """wildbg's ``GET /eval``: the probabilities of the side on roll (before rolling) and its
    money cube decision with a centred cube (:func:`cube_decision`): ``double`` for double/take
    and double/pass, ``accept`` the opponent's take."""
    pos, _ = parse_position(board=_pips_board(q))
    label_level(request, q.level)
    p, _ply = await request.app.state.limiter.run(EvalJob(pos, q.level))
    try:
        d = pre_roll_decision(pos, p)
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None
    dbl = d.decision in ("double, take", "double, pass")
    return S.WildbgEvalResponse(cube=S.WildbgCube(double=dbl, accept=d.take), probabilities=wildbg_probabilities(p))


def add_routes(app: FastAPI) -> None:
    """Add wildbg's ``GET /move`` and ``GET /eval`` to ``app``, in this order
    (the order of the OpenAPI paths)."""
    app.get("/move", response_model=S.WildbgMoveResponse, tags=["wildbg"], dependencies=[_known_query_only(S.WildbgMoveQuery)])(wildbg_move)
    app.get("/eval", response_model=S.WildbgEvalResponse, tags=["wildbg"], dependencies=[_known_query_only(S.WildbgEvalQuery)])(wildbg_eval)
