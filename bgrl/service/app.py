"""The HTTP bot service: :func:`create_app` assembles it (needs the ``serve`` extra).

Endpoints (README, "HTTP bot service"): ``POST /v1/move``, ``/v1/hint``, ``/v1/eval``,
``/v1/cube`` (:mod:`bgrl.service.v1`), ``GET /v1/health``, ``/v1/version``, ``/metrics``
(:mod:`bgrl.service.status`), wildbg-compatible ``GET /move`` and ``GET /eval``
(:mod:`bgrl.service.wildbg`) and the web board (:mod:`bgrl.service.web`). OpenAPI at ``/docs``.

Errors are always JSON ``{"code", "message"}`` (:mod:`bgrl.service.errors`): 422 for a
request that does not match the schema (``code = "invalid_request"``, plus ``detail``), 400
for a bad position, Position ID, XGID, dice or level (and for an unknown or repeated query
parameter of the wildbg routes), 413 for a body over the size limit, 503 with
``Retry-After`` when more than ``max_inflight`` requests are outstanding, 504 when a request
passes its deadline (its engine work then stops too: :mod:`bgrl.service.limiter`); 400
``bad_host`` for a Host not allowed, 408/431 for a slow or oversized request head, 400
``bad_http`` for malformed HTTP (:mod:`bgrl.service.middleware`, :mod:`bgrl.service.protocol`),
429 with ``Retry-After`` for a client starting web games too fast. Every answer carries
:data:`bgrl.service.middleware.SECURITY_HEADERS` (docs/service.md, "Limits and security headers").

CPU work runs in a bounded pool of engine workers (``pool_workers`` processes or threads, one
torch thread each: :mod:`bgrl.service.pool`); all levels are loaded once, in the lifespan,
before the server accepts a connection. The limits are :class:`Settings`
(:mod:`bgrl.service.settings`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from contextlib import asynccontextmanager

from fastapi import FastAPI

from bgrl._version import __version__
from bgrl.service import apidocs, schemas as S, status, v1, wildbg
from bgrl.service.engine import Engine
from bgrl.service.errors import add_error_handlers, engine_error
from bgrl.service.limiter import ClientGone, DeadlineExceeded, Limiter, Overloaded, WorkerLost, admit_thread, run_job
from bgrl.service.metrics import AccessLog, ServiceMetrics, configure_logging
from bgrl.service.middleware import BodyLimit, Guard, LeanRoutes, RateLimit
from bgrl.service.pool import one_torch_thread, settle_heap
from bgrl.service.protocol import http_protocol, uvicorn_options
from bgrl.service.settings import Settings, settings_env
from bgrl.service.web import UPLOAD_MAX_BYTES, UPLOAD_PATH, router as web_router
from bgrl.session.store import GameStore

# The service's public names, wherever they live: bgrl serve and the tests import them from here.
__all__ = ["Settings", "create_app", "app_from_env", "settings_env", "uvicorn_options", "http_protocol", "admit_thread",
           "run_job", "Overloaded", "DeadlineExceeded", "ClientGone", "WorkerLost"]


def create_app(engine: Engine | None = None, settings: Settings | None = None) -> FastAPI:
    """Build the service. ``engine``: inject one (tests); None loads every level at start-up
    (lifespan), verifying the model's sha256."""
    cfg = (settings or Settings()).resolved(injected=engine is not None)
    if cfg.pool_kind == "process" and engine is not None:
        raise ValueError("an injected engine needs pool_kind='thread' (worker processes build their own)")
    metrics = ServiceMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        one_torch_thread()
        eng = engine if engine is not None else Engine()
        for w in getattr(eng, "warnings", []):
            print(f"bgrl serve: warning: {w}", file=sys.stderr)
        store = await asyncio.to_thread(GameStore.open, cfg.store or None)  # a bad store: one line naming it, before any work
        if cfg.keep_finished_days > 0:
            await asyncio.to_thread(store.purge_finished, cfg.keep_finished_days * 86400.0)
        limiter = Limiter(cfg, eng, factory=Engine, metrics=metrics)
        await limiter.start()
        app.state.engine, app.state.limiter, app.state.store = eng, limiter, store
        # everything is loaded: keep long garbage collections out of requests. Only where this app
        # loaded the levels itself (bgrl serve): a caller that injects its engine owns its process's
        # heap, and a full collection of a large one (a test session) would cost it each time.
        settled = engine is None
        if settled:
            settle_heap()
        try:
            yield
        finally:
            if settled:
                gc.unfreeze()  # an app stopped inside a longer process can be collected again
            drained = await limiter.drain(cfg.grace_s)
            limiter.shutdown()
            store.close()
            logging.getLogger("bgrl.service").warning(
                "bgrl serve: stopped%s", "" if drained else f" ({limiter.inflight} request(s) unfinished after the {cfg.grace_s} s grace period)")

    app = FastAPI(
        title="bgrl",
        version=__version__,
        docs_url=None,  # /docs is bgrl.service.apidocs: Swagger UI served from here, no CDN
        redoc_url=None,
        summary="Backgammon engine: moves, hints and evaluations at named levels; wildbg-compatible /move and /eval.",
        lifespan=lifespan,
        responses={400: {"model": S.ErrorResponse, "description": "bad position, Position ID, XGID, dice or level"},
                   408: {"model": S.ErrorResponse, "description": "the request body did not arrive in time (--body-timeout)"},
                   413: {"model": S.ErrorResponse, "description": "request body over the size limit (--max-body)"},
                   422: {"model": S.ErrorResponse, "description": "request does not match the schema"},
                   503: {"model": S.ErrorResponse, "description": "overloaded; retry after Retry-After seconds"},
                   504: {"model": S.ErrorResponse, "description": "past the deadline"}},
    )
    app.include_router(web_router)  # the web board at / and /v1/games (docs/web.md)
    app.include_router(apidocs.router)  # /docs, offline
    app.state.settings, app.state.metrics = cfg, metrics
    app.state.game_rate = RateLimit(cfg.games_per_minute, cfg.games_burst)  # new web games per client address
    add_error_handlers(app, cfg)
    v1.add_routes(app)
    status.add_routes(app)
    wildbg.add_routes(app)
    if cfg.lean_routes:  # the hot routes without FastAPI: the same answers
        routes = {r.path: r for r in app.routes if getattr(r, "path", None) in ("/v1/move", "/move")}
        app.add_middleware(LeanRoutes, handlers={("POST", "/v1/move"): v1.lean_move, ("GET", "/move"): wildbg.lean_wildbg_move},
                           routes=routes, on_error=lambda exc: engine_error(exc, cfg))
    app.add_middleware(BodyLimit, max_bytes=cfg.max_body_bytes, per_path={UPLOAD_PATH: max(UPLOAD_MAX_BYTES, cfg.max_body_bytes)},
                       body_timeout_s=cfg.body_timeout_s)
    app.add_middleware(Guard, allowed_hosts=cfg.allowed_hosts)  # Host allow-list, HEAD, security headers
    app.add_middleware(AccessLog, metrics=metrics)  # outermost: sees every answer, 413s included
    return app


def app_from_env() -> FastAPI:
    """uvicorn factory for worker processes: ``Settings.from_env()``, logging at
    ``BGRL_SERVE_LOG_LEVEL`` (default warning)."""
    configure_logging(os.environ.get("BGRL_SERVE_LOG_LEVEL", "warning"))
    return create_app(settings=Settings.from_env())
