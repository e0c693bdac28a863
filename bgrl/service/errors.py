"""The error answers of the routes: every error is JSON ``{"code", "message"}``
(:func:`bgrl.service.middleware.error_response`). :func:`engine_error` maps the exceptions of
input parsing, the engine and the limiter to their status and code; :func:`add_error_handlers`
installs it, and the answers to requests that do not match the schema (422) or no route.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from bgrl.service.engine import ServiceError
from bgrl.service.limiter import ClientGone, DeadlineExceeded, Overloaded, WorkerLost
from bgrl.service.middleware import SECURITY_HEADERS, error_response
from bgrl.service.settings import Settings

__all__ = ["engine_error", "add_error_handlers"]

#: The status of a ServiceError by its code (400 for any other): ``conflict``, a game changed
#: meanwhile (409); ``damaged_game``, a stored game that cannot be read (500: the store's
#: fault, not the request's; the game can still be deleted).
_STATUS = {"conflict": 409, "damaged_game": 500}


def engine_error(exc: Exception, cfg: Settings) -> JSONResponse:
    """The JSON error answer of an exception from input parsing or the engine queue."""
    if isinstance(exc, ServiceError):
        return error_response(_STATUS.get(exc.code, 400), exc.code, exc.message)
    if isinstance(exc, Overloaded):
        return error_response(503, "overloaded", exc.message or f"more than {cfg.max_inflight} requests in flight; retry later",
                              headers={"Retry-After": str(cfg.retry_after_s)})
    if isinstance(exc, WorkerLost):
        return error_response(503, "worker_lost", "the engine worker serving this request stopped; it has been replaced: retry",
                              headers={"Retry-After": str(cfg.retry_after_s)})
    if isinstance(exc, DeadlineExceeded):
        secs = cfg.deadline_s if exc.seconds is None else exc.seconds
        return error_response(504, "deadline_exceeded", f"the request took longer than {secs:g} s; its work was stopped")
    if isinstance(exc, ClientGone):  # nginx's 499: nobody is left to read it (the access log is)
        return error_response(499, "client_closed_request", "the client left before the answer; its work was stopped")
    _log_bug(exc)
    return error_response(500, "internal", f"internal error ({type(exc).__name__})")


def _log_bug(exc: BaseException) -> None:
    """A 500 is a bug: its traceback goes to the ``bgrl.service`` log (the answer names only
    the exception's type)."""
    logging.getLogger("bgrl.service").error("internal error: %s: %s", type(exc).__name__, exc,
                                            exc_info=(type(exc), exc, exc.__traceback__))


def add_error_handlers(app: FastAPI, cfg: Settings) -> None:
    """Answer every error of ``app``'s routes as JSON: 422 ``invalid_request`` (with
    ``detail``) for a request that does not match the schema, 404/405/429 and other HTTP
    errors by status, :func:`engine_error` for the engine's and the limiter's, 500
    ``internal`` for a bug."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errs = [{k: e.get(k) for k in ("loc", "msg", "type")} for e in exc.errors()]
        first = errs[0] if errs else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(x) for x in first.get("loc") or ())
        return error_response(422, "invalid_request", f"{where}: {first.get('msg')}" if where else str(first.get("msg")),
                              detail=jsonable_encoder(errs))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 429: "too_many_games"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))

    async def _engine_error(request: Request, exc: Exception):
        return engine_error(exc, cfg)

    for exc_type in (ServiceError, Overloaded, WorkerLost, DeadlineExceeded, ClientGone):
        app.add_exception_handler(exc_type, _engine_error)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):  # pragma: no cover - a bug; fuzz tests look for these
        # answered outside the middleware (Starlette's ServerErrorMiddleware): the security headers here
        _log_bug(exc)
        return error_response(500, "internal", f"internal error ({type(exc).__name__})", headers=dict(SECURITY_HEADERS))
