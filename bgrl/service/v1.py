"""The ``/v1`` routes: ``POST /v1/move``, ``/v1/hint``, ``/v1/eval``, ``/v1/cube``
(docs/service.md), and :func:`lean_move`, the lean path of ``POST /v1/move``
(:class:`bgrl.service.middleware.LeanRoutes`), which sends the same answer
(:func:`bgrl.service.answers.move_answer`).
"""

from __future__ import annotations

import time

from fastapi import FastAPI, Request

from bgrl.agents.cube import cubeful_rank, pre_roll_decision, ranked_by, value_mwc
from bgrl.evaluation.probabilities import equity
from bgrl.rules.board import Position
from bgrl.rules.cube import CubeState
from bgrl.service import schemas as S
from bgrl.service.answers import move_answer, probabilities, served, steps
from bgrl.service.engine import (EvalJob, MoveJob, RankJob, ServiceError, parse_dice_value, parse_position,
                                 parse_position_cube, plain_notation)
from bgrl.service.metrics import label_level
from bgrl.service.middleware import dumps, lean_move_body

__all__ = ["add_routes", "lean_move"]


def _cube_state(c, m):
    try:
        return CubeState(value=c.value if c else 1, owner=c.owner if c else 0, match_length=m.length if m else 0,
                         score=tuple(m.score) if m else (0, 0), crawford=m.crawford if m else False)
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None


def _position(p: S.PositionIn) -> tuple[Position, tuple[int, int] | None]:
    return parse_position(p.gnubg_id, p.xgid, p.board)


def _position_and_cube(p: S.PositionIn, c, m, default_cube: bool = True):
    """The position, dice and cube of a route that takes a cube (``/v1/hint``, ``/v1/cube``):
    the cube from the request's ``cube``/``match``, else from the XGID's cube and match
    fields, else centred money (``default_cube``; None when False). Giving both a cube in
    the XGID and ``cube``/``match`` is 400 ``bad_cube``."""
    pos, dice, from_xgid = parse_position_cube(p.gnubg_id, p.xgid, p.board)
    if c or m:
        if from_xgid is not None and not from_xgid.is_plain_money:
            raise ServiceError("bad_cube", "the XGID has a cube or score and the request has cube/match too: give the cube in one place")
        return pos, dice, _cube_state(c, m)
    if from_xgid is not None:
        return pos, dice, from_xgid
    return pos, dice, (_cube_state(None, None) if default_cube else None)


def _dice(given, from_xgid):
    if given is not None:
        return given
    if from_xgid is not None:
        return from_xgid
    raise ServiceError("bad_dice", "dice missing: give [d1, d2] (or an XGID that carries dice)")


async def move(req: S.MoveRequest, request: Request):
    """Choose the level's play. The same request with the same seed always gives the same play."""
    t0 = time.perf_counter()
    pos, xd = _position(req.position)
    label_level(request, req.level)
    r = await request.app.state.limiter.run(MoveJob(pos, parse_dice_value(_dice(req.dice, xd)), req.level, req.seed))
    return move_answer(request.app.state.engine, t0, r)


async def lean_move(scope, body: bytes):
    """The lean path of ``POST /v1/move``: the answer's JSON for a body that plainly matches
    the schema (:func:`bgrl.service.middleware.lean_move_body`) and whose position and dice
    parse, else None (the FastAPI route answers, with the same errors)."""
    t0 = time.perf_counter()
    req = lean_move_body(body)
    if req is None:
        return None
    position, dice, level, seed = req
    try:
        pos, xd = parse_position(**position)
        d = parse_dice_value(_dice(dice, xd))
    except ServiceError:
        return None  # the full path gives the same 400
    scope.setdefault("state", {})["level"] = level
    state = scope["app"].state
    r = await state.limiter.run(MoveJob(pos, d, level, seed))
    return dumps(move_answer(state.engine, t0, r))


async def hint(req: S.HintRequest, request: Request):
    """Legal plays ranked by the level's own noise-free evaluation, best first. With
    ``cube`` (at 2 or more, or owned) or ``match`` (optional rules; docs/cube.md) they are
    ranked by cubeful equity or match winning chances, each play with ``cubeful_equity``
    (and ``mwc`` at a score), and ``ranked_by`` says which."""
    t0 = time.perf_counter()
    eng = request.app.state.engine

    pos, xd, state = _position_and_cube(req.position, req.cube, req.match, default_cube=False)
    dd = parse_dice_value(_dice(req.dice, xd))
    by = ranked_by(state)
    label_level(request, req.level)
    rows, n_legal = await request.app.state.limiter.run(RankJob(pos, dd, req.level, req.top if by == "cubeless" else None))
    vals = mwc = None
    if by != "cubeless":
        rows, vals = cubeful_rank(rows, state)
        mwc = value_mwc(vals, state) if by == "mwc" else None
        rows = rows if req.top is None else rows[: req.top]
    out = [
        S.HintPlay(rank=r.rank, play=plain_notation(r.play), moves=steps(r.play), position_id=r.play.position_id, ply=r.ply,
                   equity=round(r.equity, 6), equity_loss=round(r.equity_loss, 6), probabilities=probabilities(r.probabilities.to_array()),
                   cubeful_equity=None if vals is None else round(float(vals[i]), 6),
                   mwc=None if mwc is None else round(float(mwc[i]), 6))
        for i, r in enumerate(rows)
    ]
    extra = {}
    if by != "cubeless":
        extra["cube"] = S.CubeIn(value=state.value, owner=state.owner)
        if state.is_match:
            extra["match"] = S.MatchIn(length=state.match_length, score=list(state.score), crawford=state.crawford)
    return S.HintResponse(position_id=pos.position_id, dice=[max(dd), min(dd)], level=req.level, ply=eng.level(req.level).ply,
                          legal_plays=n_legal, ranked_by=by, plays=out, **extra, **served(eng, t0, req.level))


async def evaluate(req: S.EvalRequest, request: Request):
    """Probabilities and cubeless equity of the side on roll, before it rolls."""
    t0 = time.perf_counter()
    pos, _ = _position(req.position)
    label_level(request, req.level)
    p, ply = await request.app.state.limiter.run(EvalJob(pos, req.level))
    return S.EvalResponse(position_id=pos.position_id, level=req.level, ply=ply, equity=round(float(equity(p)), 6),
                          probabilities=probabilities(p), **served(request.app.state.engine, t0, req.level))


async def cube(req: S.CubeRequest, request: Request):
    """The cube decision of the side on roll before it rolls (optional rules; docs/cube.md)."""
    t0 = time.perf_counter()
    pos, xd, state = _position_and_cube(req.position, req.cube, req.match)
    if xd is not None:
        raise ServiceError("bad_cube", f"the XGID has the dice {xd[0]}{xd[1]}: a cube decision is made before the roll "
                                       "(give the XGID with dice 00)")
    if not state.may_double():
        raise ServiceError("bad_cube", f"cannot double: {state.why_no_double()}")
    p, ply = await request.app.state.limiter.run(EvalJob(pos, req.level))
    try:
        d = pre_roll_decision(pos, p, state)
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None
    ans = d.as_dict()
    ans["equities"] = {k: round(v, 6) for k, v in ans["equities"].items()}  # 6 decimals, as every other route
    return S.CubeResponse(position_id=pos.position_id, level=req.level, ply=ply, cube=ans, **served(request.app.state.engine, t0, req.level))


def add_routes(app: FastAPI) -> None:
    """Add the ``/v1`` routes of this module (move, hint, eval, cube) to ``app``, in this order
    (the order of the OpenAPI paths)."""
    app.post("/v1/move", response_model=S.MoveResponse, tags=["v1"])(move)
    app.post("/v1/hint", response_model=S.HintResponse, response_model_exclude_none=True, tags=["v1"])(hint)
    app.post("/v1/eval", response_model=S.EvalResponse, tags=["v1"])(evaluate)
    app.post("/v1/cube", response_model=S.CubeResponse, tags=["v1"])(cube)
