"""The service's limits: :class:`Settings` (``bgrl serve``'s options), and the
environment variables that hand them to uvicorn's worker processes (:func:`settings_env`,
:meth:`Settings.from_env`).

Standard library only.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields, replace

__all__ = ["Settings", "settings_env"]


@dataclass(frozen=True)
class Settings:
    """Service limits.

    max_body_bytes : largest request body accepted (413 above).
    max_inflight : requests admitted at once per server process (queued + running); one
        more gets 503 at once (default 0 = 64 x pool_workers).
    pool_workers : engine workers per server process (default: the cores / processes).
    pool_kind : ``"process"`` (worker processes, each loading every level: real parallelism,
        and the event loop never waits for the GIL), ``"thread"``, or ``"auto"`` = process
        for the shipped engine, thread for an injected one (tests).
    deadline_s : seconds a request may take, queueing included (504 after; its engine work
        stops then too, on the workers as well: :class:`Limiter`).
    game_deadline_s : seconds of a web game's engine work in the server's threads (game
        creation, the computer's turns, session hints: :func:`admit_thread`; 504 after, and
        the work stops).
    review_deadline_s : seconds of a review (an uploaded file's, a web game's:
        :func:`run_job`; 504 after, and the work stops; it stops too when the client leaves).
    job_workers : threads of the server process that run such thread work (default 0 =
        half the engine workers, at least 1): the rest of the cores stay with the engine
        workers and the event loop.
    max_jobs : thread work admitted at once (queued + running); one more gets 503 at once
        (default 0 = 64 x job_workers).
    review_workers : threads of the server process that run reviews (an uploaded file's, a
        web game's, the statistics' judging: :func:`run_job`), a pool of their own, so that a
        long review never holds up game work (default 1).
    max_reviews : reviews admitted at once (queued + running); one more gets 503 at once
        (default 0 = 8 x review_workers).
    retry_after_s : the ``Retry-After`` header of a 503, seconds.
    batch_window_ms : longest wait, milliseconds, for more requests to join a batch once a
        worker is free (0: dispatch at once; there is no wait while no other request is
        on its way to the engine).
    max_batch : most engine calls in one batch.
    grace_s : on shutdown (SIGTERM, Ctrl-C), seconds to let admitted requests finish.
    lean_routes : answer plain ``POST /v1/move`` and ``GET /move`` requests without
        FastAPI's validation and serialisation (:class:`LeanRoutes`; the same answers).
    inline_idle : with worker processes, run a call in the server process itself when it
        is the only request in the server and every worker is idle and up (one client
        pays no hop to a worker; the same engine, so the same answers).
    body_timeout_s : seconds a client may take to send a request's whole body once its
        headers are in (408 ``body_timeout`` after; a slow or stalled client holds no
        connection longer).
    max_header_bytes : largest request head (request line and headers), bytes (431
        ``headers_too_large`` above; :func:`http_protocol`).
    max_headers : most header lines in one request (431 ``too_many_headers`` above).
    header_timeout_s : seconds a connection may take to send a request's whole head, from
        its opening or the end of the previous answer (408 ``header_timeout`` after; an
        idle connection is closed).
    allowed_hosts : comma-separated names the ``Host`` header may give besides
        127.0.0.1, localhost, [::1] and the address the connection reached (``bgrl serve
        --allowed-host``; ``*`` = any); any other gets 400 ``bad_host`` (DNS rebinding).
    games_per_minute, games_burst : new web games (``POST /v1/games``) per client address:
        a token bucket of ``games_burst`` tokens refilled at ``games_per_minute``; an empty
        bucket gets 429 ``too_many_games`` with ``Retry-After`` (0 per minute: no limit).
    store : where games are kept (:func:`bgrl.session.store.store_url`): ``sqlite:///PATH``
        or ``postgresql://user:password@host:port/db``; empty = ``$BGRL_STORE``, else
        ``~/.bgrl/bgrl.db`` (``bgrl serve --store``).
    keep_finished_days : finished games not touched for this many days are deleted at
        start-up (0 = kept until their owner deletes them); games in progress are always kept.
    forwarded_allow_ips : comma-separated addresses of proxies whose ``X-Forwarded-For`` and
        ``X-Forwarded-Proto`` headers are believed (uvicorn's ``forwarded_allow_ips``; ``*`` =
        any); empty (the default) = none: the client address is the connection's peer, so a
        client cannot choose the address the new-games limit counts
        (``bgrl serve --forwarded-allow-ips``; :func:`bgrl.service.protocol.uvicorn_options`).
    max_connections : connections (and requests in progress) a server process holds at once;
        one more is answered 503 at once (uvicorn's ``limit_concurrency``), so that stalled
        clients (each holding up to its body, ``max_body`` bytes, until ``body_timeout_s``)
        cannot grow the process's memory without bound (``bgrl serve --max-connections``).
    """

    max_body_bytes: int = 16_384
    max_inflight: int = 0  # 0 = 64 x pool_workers
    pool_workers: int = 0  # 0 = os.cpu_count()
    pool_kind: str = "auto"
    deadline_s: float = 10.0
    game_deadline_s: float = 10.0
    review_deadline_s: float = 120.0
    job_workers: int = 0  # 0 = max(1, pool_workers // 2)
    max_jobs: int = 0  # 0 = 64 x job_workers
    review_workers: int = 1
    max_reviews: int = 0  # 0 = 8 x review_workers
    retry_after_s: int = 1
    batch_window_ms: float = 2.0
    max_batch: int = 64
    grace_s: float = 10.0
    lean_routes: bool = True
    inline_idle: bool = True
    body_timeout_s: float = 10.0
    max_header_bytes: int = 16_384
    max_headers: int = 100
    header_timeout_s: float = 10.0
    allowed_hosts: str = ""
    games_per_minute: float = 60.0
    games_burst: int = 60
    store: str = ""
    keep_finished_days: float = 0.0
    forwarded_allow_ips: str = ""
    max_connections: int = 1000

    def resolved(self, injected: bool = False) -> "Settings":
        pool = self.pool_workers or max(1, os.cpu_count() or 1)
        kind = self.pool_kind if self.pool_kind != "auto" else ("thread" if injected else "process")
        if kind not in ("thread", "process"):
            raise ValueError(f"pool_kind must be 'process', 'thread' or 'auto', got {self.pool_kind!r}")
        for name in ("deadline_s", "game_deadline_s", "review_deadline_s"):
            v = getattr(self, name)
            if not (v > 0 and math.isfinite(v)):
                raise ValueError(f"{name} must be > 0 and finite, got {v}")
        if self.job_workers < 0 or self.max_jobs < 0:
            raise ValueError(f"job_workers and max_jobs must be >= 0, got {self.job_workers} and {self.max_jobs}")
        if self.review_workers < 1 or self.max_reviews < 0:
            raise ValueError(f"review_workers must be >= 1 and max_reviews >= 0, got {self.review_workers} and {self.max_reviews}")
        if self.max_connections < 1:
            raise ValueError(f"max_connections must be >= 1, got {self.max_connections}")
        if not (self.body_timeout_s > 0 and math.isfinite(self.body_timeout_s)):
            raise ValueError(f"body_timeout_s must be > 0 and finite, got {self.body_timeout_s}")
        if self.max_batch < 1 or self.batch_window_ms < 0:
            raise ValueError(f"max_batch must be >= 1 and batch_window_ms >= 0, got {self.max_batch} and {self.batch_window_ms}")
        if not (self.header_timeout_s > 0 and math.isfinite(self.header_timeout_s)):
            raise ValueError(f"header_timeout_s must be > 0 and finite, got {self.header_timeout_s}")
        if self.max_header_bytes < 1024 or self.max_headers < 1:
            raise ValueError(f"max_header_bytes must be >= 1024 and max_headers >= 1, got {self.max_header_bytes} and {self.max_headers}")
        if not (self.keep_finished_days >= 0 and math.isfinite(self.keep_finished_days)):
            raise ValueError(f"keep_finished_days must be >= 0 and finite, got {self.keep_finished_days}")
        if not (self.games_per_minute >= 0 and math.isfinite(self.games_per_minute)) or self.games_burst < 1:
            raise ValueError(f"games_per_minute must be >= 0 and finite and games_burst >= 1, got {self.games_per_minute} and {self.games_burst}")
        jobs = self.job_workers or max(1, pool // 2)
        return replace(self, max_inflight=self.max_inflight or 64 * pool, pool_workers=pool, pool_kind=kind,
                       job_workers=jobs, max_jobs=self.max_jobs or 64 * jobs,
                       max_reviews=self.max_reviews or 8 * self.review_workers)

    @classmethod
    def from_env(cls) -> "Settings":
        """Settings from ``BGRL_SERVE_<FIELD>`` environment variables (how ``bgrl serve
        --workers N`` hands them to uvicorn's worker processes)."""
        kw: dict = {}
        for f in fields(cls):
            v = os.environ.get(f"BGRL_SERVE_{f.name.upper()}")
            if v is not None:
                kw[f.name] = (v if f.type in ("str", str) else float(v) if f.type in ("float", float)
                              else v.lower() in ("1", "true", "yes") if f.type in ("bool", bool) else int(v))
        return cls(**kw)


def settings_env(settings: Settings) -> dict[str, str]:
    """Environment variables that make :meth:`Settings.from_env` (and so
    :func:`bgrl.service.app.app_from_env`) rebuild ``settings``."""
    return {f"BGRL_SERVE_{k.upper()}": str(v) for k, v in asdict(settings).items()}
