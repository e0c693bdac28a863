"""The routes about the service itself: ``GET /v1/health`` (liveness and readiness),
``GET /v1/version`` (engine, model, levels and limits) and ``GET /metrics`` (Prometheus,
:mod:`bgrl.service.metrics`; not in the OpenAPI schema).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from bgrl.rules.board import NUM_CHECKERS
from bgrl.service import schemas as S
from bgrl.service.engine import xgid_supported
from bgrl.service.metrics import CONTENT_TYPE_LATEST
from bgrl.service.ubgi import PROTOCOL_VERSION

__all__ = ["add_routes"]


async def prometheus_metrics(request: Request):
    """Prometheus text format (bgrl.service.metrics)."""
    metrics = request.app.state.metrics
    lim = getattr(request.app.state, "limiter", None)
    if lim is not None:
        metrics.queue_depth.set(len(lim.queue))
        metrics.inflight.set(lim.inflight)
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)


async def health(request: Request):
    """Liveness and readiness (every level loaded)."""
    eng = getattr(request.app.state, "engine", None)
    if eng is None:  # pragma: no cover - the lifespan runs before any request
        return JSONResponse({"status": "starting", "ready": False, "levels_loaded": 0}, status_code=503)
    return S.Health(status="ok", ready=True, levels_loaded=len(eng.levels))


async def version(request: Request):
    """Engine, model, levels and limits."""
    cfg = request.app.state.settings
    info = request.app.state.engine.info()
    limits = S.Limits(max_body_bytes=cfg.max_body_bytes, max_inflight=cfg.max_inflight, pool_workers=cfg.pool_workers,
                      deadline_s=cfg.deadline_s, max_checkers=NUM_CHECKERS, max_top=10_000)
    return S.VersionResponse(api="v1", limits=limits, protocols={"wildbg": "GET /move, GET /eval", "ubgi": PROTOCOL_VERSION},
                             xgid_supported=xgid_supported(), **info)


def add_routes(app: FastAPI) -> None:
    """Add ``GET /metrics``, ``/v1/health`` and ``/v1/version`` to ``app``, in this order
    (the order of the OpenAPI paths)."""
    app.get("/metrics", include_in_schema=False)(prometheus_metrics)
    app.get("/v1/health", response_model=S.Health, tags=["v1"])(health)
    app.get("/v1/version", response_model=S.VersionResponse, tags=["v1"])(version)
