"""The HTTP bot service: FastAPI app factory (needs the ``serve`` extra).

Endpoints (README, "HTTP bot service"): ``POST /v1/move``, ``/v1/hint``, ``/v1/eval``,
``GET /v1/health``, ``/v1/version``, and wildbg-compatible ``GET /move`` and ``GET /eval``
(query parameters and JSON shapes of wildbg's web API,
https://github.com/carsten-wenderdel/wildbg, crates/web). OpenAPI at ``/docs``.

Errors are always JSON ``{"code", "message"}``: 422 for a request that does not match the
schema (``code = "invalid_request"``, plus ``detail``), 400 for a bad position, Position ID,
XGID, dice or level (and for an unknown or repeated query parameter of the wildbg routes),
413 for a body over the size limit, 503 with ``Retry-After`` when more
than ``max_inflight`` requests are outstanding, 504 when a request passes its deadline
(its engine work then stops too: :class:`Limiter`, :func:`admit_thread`);
400 ``bad_host`` for a Host not allowed, 408/431 for a slow or oversized request head,
400 ``bad_http`` for malformed HTTP (:class:`Guard`, :func:`http_protocol`), 429 with
``Retry-After`` for a client starting web games too fast. Every answer carries
:data:`SECURITY_HEADERS` (docs/service.md, "Limits and security headers").

CPU work runs in a bounded thread pool (``pool_workers`` threads, one torch thread each);
all levels are loaded once, in the lifespan, before the server accepts a connection.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import os
import pickle
import re
import struct
import sys
import threading
import time
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, fields, replace
from typing import Annotated

import numpy as np
from fastapi import Depends, FastAPI, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from bgrl._version import __version__
from bgrl.rules.board import NUM_CHECKERS, Position
from bgrl.agents.levels import DEFAULT_PLAY_LEVEL, LEVEL_NAMES
from bgrl.service import schemas as S
from bgrl.service.metrics import CONTENT_TYPE_LATEST, AccessLog, ServiceMetrics
from bgrl.service.engine import (ENGINE_NAME, MAX_SEED, Cancelled, Engine, ServiceError, parse_dice_value, parse_position,
                                 parse_position_cube, plain_notation, plain_steps, stop_when, xgid_supported)

__all__ = ["Settings", "create_app", "app_from_env", "cube_decision", "admit_thread", "run_job", "Overloaded",
           "DeadlineExceeded", "ClientGone", "WorkerLost"]

UBGI_VERSION = "0.2"


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
                       job_workers=jobs, max_jobs=self.max_jobs or 64 * jobs)

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


class Overloaded(Exception):
    pass


class DeadlineExceeded(Exception):
    """A request passed its deadline (answered 504); ``seconds``: that deadline."""

    def __init__(self, seconds: float | None = None):
        super().__init__(seconds)
        self.seconds = seconds


class ClientGone(Exception):
    """The client of a :func:`run_job` (or :func:`admit_thread` with ``request``) left before
    its answer: the work was told to stop (answered 499, which nobody reads)."""


class WorkerLost(Exception):
    """The engine worker process running a request's batch died (answered 503)."""


@dataclass(eq=False)
class _Job:
    method: str
    args: tuple
    future: asyncio.Future
    t_enqueued: float
    deadline: float
    abandoned: bool = False
    cost: int = 1
    seconds: float = 0.0  # the deadline's length (the 504's message)


class _ProcessWorker:
    """One engine worker process and the pipe the server talks to it on (no manager
    thread: the event loop writes a pickled batch and reads the pickled answers when the
    pipe is readable, so no second thread of the server competes for the GIL)."""

    def __init__(self, ctx, factory):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child, factory), daemon=True, name="bgrl-engine")
        self.proc.start()
        child.close()
        self.ready = False
        self.failed: str | None = None
        self.job = None  # (live jobs, t0) while a batch runs
        self.buf = bytearray()  # bytes read from the pipe, not yet a whole message

    def send(self, data: bytes) -> None:
        """One message to the worker (the event loop made the pipe non-blocking: a batch
        larger than the socket's buffer is written with it blocking)."""
        fd = self.conn.fileno()
        os.set_blocking(fd, True)
        try:
            self.conn.send_bytes(data)
        finally:
            os.set_blocking(fd, False)

    @property
    def pid(self):
        return self.proc.pid

    def kill(self) -> None:
        try:
            self.conn.close()
        except OSError:  # pragma: no cover
            pass
        if self.proc.is_alive():
            self.proc.terminate()


class ProcessPool:
    """``pool_workers`` engine worker processes (spawned, each loading every level once),
    each with its own pipe; :class:`Limiter` drives them from the event loop.
    ``_processes`` maps pid -> ``multiprocessing.Process`` (as ProcessPoolExecutor's)."""

    def __init__(self, n: int, factory):
        import multiprocessing

        self.ctx = multiprocessing.get_context("spawn")
        self.factory = factory
        self.workers = [_ProcessWorker(self.ctx, factory) for _ in range(n)]

    @property
    def _processes(self) -> dict:
        return {w.pid: w.proc for w in self.workers}

    def replace(self, w: _ProcessWorker) -> _ProcessWorker:
        w.kill()
        new = _ProcessWorker(self.ctx, self.factory)
        self.workers[self.workers.index(w)] = new
        return new

    def shutdown(self) -> None:
        for w in self.workers:
            w.kill()
        for w in self.workers:
            w.proc.join(timeout=5)
            if w.proc.is_alive():  # pragma: no cover
                w.proc.kill()


def _worker_main(conn, factory) -> None:
    """Worker process: SIGINT ignored, one torch thread, every level loaded once; then
    answer pickled batches (:meth:`Engine.run_batch`) on ``conn`` until it closes."""
    import pickle
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _one_torch_thread()
    try:
        engine = factory()
    except BaseException as exc:  # reported by the server's start-up
        conn.send_bytes(pickle.dumps(("failed", f"{type(exc).__name__}: {exc}")))
        return
    conn.send_bytes(pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            calls, remaining = pickle.loads(data)
            out = ("ok", _run_until(engine, calls, time.monotonic() + remaining))
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Cancelled:  # past the deadline of every call in it: they were answered 504
            payload = pickle.dumps(("cancelled", None))
        except BaseException as exc:  # a bug: answered as such (500), the worker lives on
            payload = pickle.dumps(("error", RuntimeError(f"engine batch failed: {type(exc).__name__}: {exc}")))
        conn.send_bytes(payload)


def _run_until(engine, calls, deadline: float) -> list:
    """``engine.run_batch(calls)``, stopped (:class:`Cancelled`) at its next network call
    once ``time.monotonic()`` passes ``deadline`` (:func:`bgrl.service.engine.stop_when`)."""
    with stop_when(deadline=deadline):
        return engine.run_batch(calls)


#: The cost of an engine call by the ply it searches (:meth:`Limiter._cost`): a batch holds
#: at most ``max_batch`` of these units, so that deep searches go in small batches whose
#: answers come back one batch at a time (a batch of 64 grandmaster hints would take
#: seconds, and answer none before its deadline).
PLY_COST = {0: 1, 1: 4, 2: 32, 3: 256}


class Limiter:
    """Admission control, batching across requests and the bounded engine pool.

    A request is admitted only while fewer than ``max_inflight`` engine calls are
    outstanding (queued or running; a call past its deadline still counts while its batch
    runs); one more gets 503 at once. Admitted calls wait in one queue; a dispatcher hands
    them to the engine workers in batches (:meth:`bgrl.service.engine.Engine.run_batch`,
    in a worker process (:class:`ProcessPool`: a pickled batch down the worker's pipe, its
    answers back when the pipe is readable) or a thread): when a worker is free it takes
    every queued call, up to ``max_batch``, after waiting at most ``batch_window_ms`` from
    the oldest call's arrival for more to join (no wait when no other admitted request
    could join: one client pays no window). While every worker is busy, calls accumulate,
    so the batches grow with the load. A call whose deadline passed while queued is
    dropped unanswered by the engine (504). A worker process that dies fails its batch
    with :class:`WorkerLost` (503) and is replaced; while no worker is ready, queued calls
    get the same 503 at once.

    Deadlines stop work: a batch carries the latest deadline of its calls, and the worker
    (process or thread) running it stops at its next network call past that time
    (:func:`bgrl.service.engine.stop_when`; every call in it has had its 504 by then). A
    batch holds at most ``max_batch`` calls and at most ``max_batch`` units of cost
    (:data:`PLY_COST`: 1 for a 0-ply call, 4 at 1-ply, 32 at 2-ply), so deep searches are
    answered a few at a time and a burst costs the workers about its deadline, not minutes.

    ``run(method, *args, deadline_s=None)`` is one engine call (``engine.<method>(*args)``;
    ``deadline_s``: its own deadline, default ``settings.deadline_s``).
    :meth:`run_thread` admits other engine work (the web board's), run in the server's own
    threads with a deadline and a cancel event.
    """

    def __init__(self, settings: Settings, engine, factory=None, metrics=None):
        self.settings = settings
        self.engine = engine
        self.factory = factory
        self.metrics = metrics
        self._lock = threading.Lock()
        self.inflight = 0
        self.restarts = 0
        self.queue: list[_Job] = []
        self.busy = 0
        self._running_calls = 0
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._free: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._sweeper: asyncio.Task | None = None
        self._pending: set[_Job] = set()  # admitted calls not answered yet (their deadlines)
        self.pool = self._new_pool()
        self.jobs_inflight = 0  # thread work admitted, not finished (run_thread)
        self._job_events: set[threading.Event] = set()
        self.jobs_pool = concurrent.futures.ThreadPoolExecutor(settings.job_workers or 1, thread_name_prefix="bgrl-job",
                                                               initializer=_one_torch_thread)

    @property
    def _process(self) -> bool:
        return self.settings.pool_kind == "process"

    def _new_pool(self):
        n = self.settings.pool_workers
        if self._process:
            return ProcessPool(n, self.factory)
        return concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="bgrl-engine", initializer=_one_torch_thread)

    async def start(self) -> None:
        """Start the dispatcher, and every worker process (waiting until each has loaded the levels)."""
        self._loop = asyncio.get_running_loop()
        self._wake, self._free = asyncio.Event(), asyncio.Event()
        if self._process:
            for w in self.pool.workers:
                self._watch(w)
            t_end = time.monotonic() + 300
            while not all(w.ready for w in self.pool.workers):
                bad = [w.failed for w in self.pool.workers if w.failed]
                if bad:
                    raise RuntimeError(f"the engine worker processes failed to start: {bad[0]}")
                if time.monotonic() > t_end:  # pragma: no cover
                    raise RuntimeError(f"only {sum(w.ready for w in self.pool.workers)} of {len(self.pool.workers)} engine workers started within 300 s")
                await asyncio.sleep(0.02)
        self._task = self._loop.create_task(self._dispatch_loop())
        self._sweeper = self._loop.create_task(self._sweep())

    def _release(self, n: int = 1) -> None:
        with self._lock:
            self.inflight -= n
        if self.metrics is not None:
            self.metrics.inflight.set(self.inflight)

    def _gauge(self) -> None:
        if self.metrics is not None:
            self.metrics.queue_depth.set(len(self.queue))
            self.metrics.inflight.set(self.inflight)

    def _reject(self, reason: str) -> None:
        if self.metrics is not None:
            self.metrics.rejected.labels(reason).inc()

    async def run(self, method: str, *args, deadline_s: float | None = None):
        precheck = getattr(self.engine, "precheck", None)
        if precheck is not None:  # the cheap checks first: a bad request gets its 400, not a 503, under load
            precheck(method, args)
        with self._lock:
            if self.inflight >= self.settings.max_inflight:
                over = True
            else:
                over = False
                self.inflight += 1
        if over:
            self._reject("overloaded")
            raise Overloaded()
        if self._may_inline() and self._cheap(method, args):
            return self._inline(method, args)
        loop = self._loop or asyncio.get_running_loop()
        now = loop.time()
        secs = self.settings.deadline_s if deadline_s is None else float(deadline_s)
        job = _Job(method, args, loop.create_future(), now, now + secs, cost=self._cost(method, args), seconds=secs)
        self.queue.append(job)
        self._gauge()
        self._wake.set()
        self._pending.add(job)
        try:
            return await job.future  # the deadline: _sweep (one timer for all calls, not one each)
        finally:
            self._pending.discard(job)

    def _may_inline(self) -> bool:
        """Whether a call may run here, in the server process: inline_idle is set, the
        pool is of processes, and nothing else is going on (this is the only request in
        the server, no batch runs, every worker is up, and for 50 ms no request came from
        another connection: :attr:`ServiceMetrics.shared_until`), for a 0-ply move or
        wildbg list only (:meth:`_cheap`): one client then pays neither the hop to a
        worker nor its wake-up, and no other request waits for it."""
        if not (self.settings.inline_idle and self._process) or self.queue or self.busy:
            return False
        if self.metrics is not None and (self.metrics.active > 1 or time.perf_counter() < self.metrics.shared_until):
            return False
        return all(w.ready and w.proc.is_alive() for w in self.pool.workers)

    _INLINE_METHODS = {"move": 4, "wildbg_json": 5}  # method -> its arguments when no ply override is given
    _PLY_ARG = {"hint": 5, "ranked": 5, "move": 4}  # method -> the index of its ply override

    def _cost(self, method: str, args: tuple) -> int:
        """The call's units of :data:`PLY_COST` by the ply it searches (its ply override, else
        its level's; 1 when unknown: the engine answers such a call with a 400)."""
        try:
            i = self._PLY_ARG.get(method)
            ply = args[i] if i is not None and len(args) > i else None
            if ply is None:
                ply = self.engine.levels[args[1 if method == "evaluate" else 2]].ply
            return PLY_COST.get(int(ply), 1)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            return 1

    def _cheap(self, method: str, args: tuple) -> bool:
        """Whether a call is a 0-ply move or wildbg list (milliseconds): only these run in
        the server process, so that a deep search never holds up its event loop (health
        checks, other connections)."""
        if self._INLINE_METHODS.get(method) != len(args):
            return False
        lv = getattr(self.engine, "levels", {}).get(args[2]) if isinstance(args[2], str) else None
        return lv is not None and lv.ply == 0

    def _inline(self, method: str, args: tuple):
        t0 = time.perf_counter()
        try:
            (r,) = self.engine.run_batch([(method, args)])
        finally:
            self._release()
        if self.metrics is not None:
            self.metrics.batch_size.observe(1)
            self.metrics.batch_seconds.observe(time.perf_counter() - t0)
        if isinstance(r, BaseException):
            raise r
        return r

    async def _sweep(self) -> None:
        """Every few milliseconds, answer 504 to each call past its deadline (the call is
        then dropped if still queued; a running batch's answer for it is discarded)."""
        step = min(0.05, self.settings.deadline_s / 4)
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(step)
            now = loop.time()
            for job in [j for j in self._pending if now >= j.deadline and not j.future.done()]:
                job.abandoned = True
                self._reject("deadline")
                job.future.set_exception(DeadlineExceeded(job.seconds))

    # -- the workers
    def _idle_workers(self) -> list:
        """The free process workers, or for the thread pool one True per free thread."""
        if self._process:
            return [w for w in self.pool.workers if w.ready and w.job is None]
        return [True] * max(0, self.settings.pool_workers - self.busy)

    def _idle_worker(self):
        """A free process worker (None if none), or True/None for the thread pool."""
        idle = self._idle_workers()
        return idle[0] if idle else None

    def _none_ready(self) -> bool:
        return self._process and not any(w.ready for w in self.pool.workers)

    async def _dispatch_loop(self) -> None:
        loop = asyncio.get_running_loop()
        window = self.settings.batch_window_ms / 1000.0
        cap = self.settings.max_batch
        while True:
            while not self.queue:
                self._wake.clear()
                await self._wake.wait()
            if self._none_ready():  # every worker is being replaced: 503 now, not a wait
                batch, self.queue = self.queue, []
                self._fail(batch, WorkerLost())
                self._gauge()
                continue
            if self._idle_worker() is None:
                self._free.clear()
                await self._free.wait()
                continue
            t_end = self.queue[0].t_enqueued + window
            while len(self.queue) < cap and self._arriving() > 0:
                rem = t_end - loop.time()
                if rem <= 0:
                    break
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), rem)
                except asyncio.TimeoutError:
                    break
            # Split what is queued over the idle workers: a closed loop of clients would
            # otherwise put every call into one batch on one worker while the other waits.
            share = -(-len(self.queue) // max(1, len(self._idle_workers())))
            take = min(cap, share)
            now = loop.time()
            live, cost, n = [], 0, 0
            for job in self.queue:  # in order, until the batch is full (calls or cost)
                if job.abandoned or job.future.done() or now >= job.deadline:  # past its deadline: never started
                    n += 1
                    self._release()
                    if not job.future.done():
                        job.future.set_exception(DeadlineExceeded(job.seconds))
                    continue
                if len(live) >= take or (live and cost + job.cost > cap):
                    break
                n += 1
                live.append(job)
                cost += job.cost
            del self.queue[:n]
            self._gauge()
            if live:
                self._submit(live)

    def _arriving(self) -> int:
        """HTTP requests inside the server that have not reached the engine queue yet
        (being read or parsed): the ones worth waiting for."""
        active = self.metrics.active if self.metrics is not None else 0
        return active - len(self.queue) - self._running_calls

    def _submit(self, live: list[_Job]) -> None:
        calls = [(j.method, j.args) for j in live]
        t0 = time.perf_counter()
        # the batch stops at the latest deadline of its calls (each has its 504 by then)
        remaining = max(0.0, max(j.deadline for j in live) - self._loop.time())
        if self._process:
            w = self._idle_worker()
            try:
                w.send(pickle.dumps((calls, remaining), protocol=pickle.HIGHEST_PROTOCOL))
            except (OSError, ValueError):  # its pipe is closed: the worker died
                self._fail(live, WorkerLost())
                self._worker_died(w)
                return
            w.job = (live, t0)
        else:
            try:
                cf = self.pool.submit(_run_until, self.engine, calls, time.monotonic() + remaining)
            except RuntimeError:  # the pool is shutting down
                self._fail(live, Overloaded())
                return
            asyncio.wrap_future(cf).add_done_callback(lambda f: self._thread_done(f, live, t0))
        self.busy += 1
        self._running_calls += len(live)
        if self.metrics is not None:
            self.metrics.batch_size.observe(len(live))

    def _watch(self, w) -> None:
        self._loop.add_reader(w.conn.fileno(), self._readable, w)

    def _readable(self, w) -> None:
        """The worker's pipe is readable (the event loop sets it non-blocking): take what
        has arrived, then handle every complete message (multiprocessing's framing: a
        4-byte big-endian length, or -1 and an 8-byte one, then the pickle)."""
        fd = w.conn.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:  # EOF: the worker process died
                self._worker_died(w)
                return
            w.buf += chunk
            if len(chunk) < 1 << 20:
                break
        while len(w.buf) >= 4:
            (n,) = struct.unpack("!i", w.buf[:4])
            head = 4
            if n == -1:
                if len(w.buf) < 12:
                    return
                (n,) = struct.unpack("!Q", w.buf[4:12])
                head = 12
            if len(w.buf) < head + n:
                return
            data = bytes(w.buf[head:head + n])
            del w.buf[:head + n]
            self._message(w, *pickle.loads(data))

    def _message(self, w, kind: str, value) -> None:
        if kind == "ready":
            w.ready = True
            self._free.set()
        elif kind == "failed":
            w.failed = value
            self._unwatch(w)
        elif w.job is not None:
            live, t0 = w.job
            w.job = None
            exc = value if kind == "error" else (DeadlineExceeded(max(j.seconds for j in live)) if kind == "cancelled" else None)
            self._done(live, t0, value if kind == "ok" else None, exc)

    def _unwatch(self, w) -> None:
        try:
            self._loop.remove_reader(w.conn.fileno())
        except (OSError, ValueError):  # already closed
            pass

    def _worker_died(self, w) -> None:
        self._unwatch(w)
        if w.job is not None:
            live, _t0 = w.job
            w.job = None
            self.busy -= 1
            self._running_calls -= len(live)
            self._reject("worker_lost")
            self._fail(live, WorkerLost())
        if not w.ready:  # died while starting
            w.failed = w.failed or f"engine worker {w.pid} exited with status {w.proc.exitcode}"
        if self._closing or w not in self.pool.workers:
            return
        new = self.pool.replace(w)
        self._watch(new)
        self.restarts += 1
        if self.metrics is not None:
            self.metrics.worker_restarts.inc()
        self._free.set()

    def _fail(self, live: list[_Job], exc: Exception) -> None:
        for job in live:
            if not job.future.done():
                job.future.set_exception(exc)
        self._release(len(live))

    def _thread_done(self, fut: asyncio.Future, live: list[_Job], t0: float) -> None:
        if fut.cancelled():
            self._done(live, t0, None, Overloaded())
        elif isinstance(fut.exception(), Cancelled):  # stopped past the deadline of all its calls
            self._done(live, t0, None, DeadlineExceeded(max(j.seconds for j in live)))
        else:
            self._done(live, t0, None if fut.exception() else fut.result(), fut.exception())

    def _done(self, live: list[_Job], t0: float, results, exc) -> None:
        self.busy -= 1
        self._running_calls -= len(live)
        self._free.set()
        if self.metrics is not None:
            self.metrics.batch_seconds.observe(time.perf_counter() - t0)
        if exc is not None:
            self._fail(live, exc)
            return
        for job, r in zip(live, results):
            if job.future.done():
                continue
            if isinstance(r, BaseException):
                job.future.set_exception(r)
            else:
                job.future.set_result(r)
        self._release(len(live))

    # -- thread work (the web board's engine work, reviews)
    async def run_thread(self, fn, *args, deadline_s: float | None = None, request=None, pass_cancel: bool = False,
                         poll_s: float = 0.1, **kwargs):
        """Admit one piece of engine work run in a thread of the server process, and its answer.

        ``fn(*args, **kwargs)`` (with ``pass_cancel``: ``fn(cancel, *args, **kwargs)``, ``cancel``
        a :class:`threading.Event`) runs in one of ``job_workers`` threads, inside
        :func:`bgrl.service.engine.stop_when` of its cancel event: every network call the
        engine makes for it raises :class:`bgrl.service.engine.Cancelled` once the event is
        set, so engine work stops by itself; ``fn`` may also poll ``cancel.is_set()`` between
        its own steps. The event is set when the deadline passes, when ``request`` (a
        Starlette request, polled every ``poll_s`` seconds) is disconnected, or when the
        awaiting task is cancelled.

        Raises :class:`Overloaded` (503) at once when ``max_jobs`` pieces are admitted
        (queued or running; one told to stop counts until its thread returns),
        :class:`DeadlineExceeded` (504) at the deadline (default ``settings.game_deadline_s``),
        :class:`ClientGone` (499) when the client left, and whatever ``fn`` raised
        (a :class:`ServiceError` is a 400). Run the cheap checks before: a bad request
        should get its 400, not a 503.

        ``fn`` may be stopped in the middle of any engine call it makes: it should compute
        first and change shared state (a game, a session store) only after its last engine
        call, so that a stopped piece of work leaves nothing half done. ``fn``'s own keyword
        arguments must not be named ``deadline_s``, ``request``, ``pass_cancel`` or ``poll_s``.
        """
        secs = self.settings.game_deadline_s if deadline_s is None else float(deadline_s)
        with self._lock:
            over = self.jobs_inflight >= (self.settings.max_jobs or 64) or self._closing
            if not over:
                self.jobs_inflight += 1
        if over:
            self._reject("overloaded")
            raise Overloaded()
        cancel = threading.Event()
        self._job_events.add(cancel)

        def work():
            try:
                if cancel.is_set():  # told to stop while queued: never started
                    raise Cancelled()
                with stop_when(event=cancel):
                    return fn(cancel, *args, **kwargs) if pass_cancel else fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.jobs_inflight -= 1
                self._job_events.discard(cancel)

        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(self.jobs_pool, work)
        except RuntimeError:  # the pool is shutting down
            with self._lock:
                self.jobs_inflight -= 1
            self._job_events.discard(cancel)
            raise Overloaded() from None
        t_end = loop.time() + secs
        why = None
        try:
            while True:
                rem = t_end - loop.time()
                if rem <= 0:
                    why = DeadlineExceeded(secs)
                    break
                done, _ = await asyncio.wait({fut}, timeout=min(rem, poll_s) if request is not None else rem)
                if done:
                    break
                if request is not None and await request.is_disconnected():
                    why = ClientGone()
                    break
        except BaseException:  # the awaiting task was cancelled (shutdown): stop the work too
            cancel.set()
            fut.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise
        if why is not None:
            cancel.set()
            fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # its Cancelled is expected: not logged
            self._reject("deadline" if isinstance(why, DeadlineExceeded) else "client_gone")
            raise why
        try:
            return fut.result()
        except Cancelled:  # fn saw the event itself before we did (it is set only for a reason above)
            raise DeadlineExceeded(secs) from None

    async def drain(self, grace_s: float) -> bool:
        """Wait up to ``grace_s`` seconds for every admitted call and thread work to be
        answered; True if all were."""
        t_end = time.monotonic() + grace_s
        while (self.inflight > 0 or self.jobs_inflight > 0) and time.monotonic() < t_end:
            await asyncio.sleep(0.01)
        return self.inflight == 0 and self.jobs_inflight == 0

    def shutdown(self) -> None:
        """Stop the dispatcher and the pool; worker processes are terminated (they hold no
        state worth keeping), so none outlives the server."""
        self._closing = True
        for ev in list(self._job_events):  # thread work still running stops at its next network call
            ev.set()
        self.jobs_pool.shutdown(wait=False, cancel_futures=True)
        for task in (self._task, self._sweeper):
            if task is not None:
                task.cancel()
        for job in self.queue:
            if not job.future.done():
                job.future.set_exception(Overloaded())
        self.queue = []
        if self._process:
            if self._loop is not None:
                for w in self.pool.workers:
                    self._unwatch(w)
            self.pool.shutdown()
        else:
            self.pool.shutdown(wait=False, cancel_futures=True)


async def admit_thread(request: Request, fn, *args, deadline_s: float | None = None, **kwargs):
    """The answer of ``fn(*args, **kwargs)``, one piece of a route's engine work run in a
    thread of the server, through admission control (:meth:`Limiter.run_thread` of
    ``request.app.state.limiter``): 503 ``overloaded`` when ``max_jobs`` pieces are admitted,
    504 ``deadline_exceeded`` past ``deadline_s`` (default ``Settings.game_deadline_s``), the
    work stopped at its next network call (:class:`bgrl.service.engine.Cancelled` inside it).
    For the web board's game creation, computer turns and session hints."""
    return await request.app.state.limiter.run_thread(fn, *args, deadline_s=deadline_s, **kwargs)


async def run_job(request: Request, fn, *args, deadline_s: float | None = None, **kwargs):
    """The answer of ``fn(cancel, *args, **kwargs)``, a long piece of engine work (a review)
    in a thread of the server, through admission control: as :func:`admit_thread` (default
    deadline ``Settings.review_deadline_s``), and ``cancel`` (a :class:`threading.Event`,
    for ``fn`` to poll between its steps; engine calls inside stop by themselves) is set too
    when the client disconnects (:class:`ClientGone`, 499), checked every 0.1 s."""
    lim = request.app.state.limiter
    secs = lim.settings.review_deadline_s if deadline_s is None else deadline_s
    return await lim.run_thread(fn, *args, deadline_s=secs, request=request, pass_cancel=True, **kwargs)


def _one_torch_thread() -> None:
    try:
        import torch

        torch.set_num_threads(1)
    except Exception:  # pragma: no cover - torch is a core dependency
        pass


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


def _error(status: int, code: str, message: str, headers: dict | None = None, **extra) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status, headers=headers)


class BodyLimit:
    """ASGI middleware: answer 413 (JSON) for a request body over ``max_bytes``, whether
    the size is announced in Content-Length or only seen while reading, and 408 (JSON,
    ``body_timeout``) when the whole body has not arrived ``body_timeout_s`` seconds after
    the headers (a stalled or trickling client). ``per_path`` maps a path to a larger
    limit of its own (the web board's upload of a game file)."""

    def __init__(self, app, max_bytes: int, per_path: dict | None = None, body_timeout_s: float = 10.0):
        self.app = app
        self.max_bytes = max_bytes
        self.per_path = dict(per_path or {})
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.per_path.get(scope.get("path"), self.max_bytes)
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                if not v.isdigit() or int(v) > limit:
                    return await _error(413, "too_large", f"request body over {limit} bytes")(scope, receive, send)
        # Read the (small) body here, stopping at the limit and at the timeout, then hand it on in one piece.
        chunks, seen, more = [], 0, True
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.body_timeout_s
        while more:
            try:
                msg = await asyncio.wait_for(receive(), max(give_up - loop.time(), 0.0))
            except asyncio.TimeoutError:
                return await _error(408, "body_timeout", f"the request body did not arrive within {self.body_timeout_s:g} s",
                                    headers={"connection": "close"})(scope, receive, send)
            if msg["type"] != "http.request":  # client went away
                return
            body = msg.get("body", b"")
            seen += len(body)
            if seen > limit:
                return await _error(413, "too_large", f"request body over {limit} bytes")(scope, receive, send)
            chunks.append(body)
            more = msg.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# ----------------------------------------------------------------------------- bounded requests, hosts, headers, rates
#: Content-Security-Policy of every answer but the API docs: scripts and styles from this
#: server only (no inline script or style attribute on the page), no framing.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
#: Content-Security-Policy of FastAPI's ``/docs`` (Swagger UI) and ``/redoc``: these pages
#: load their script, style and fonts from CDNs and start with an inline script.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
            "font-src 'self' https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
            "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
DOCS_PATHS = frozenset(("/docs", "/docs/oauth2-redirect", "/redoc"))
#: The security headers of every answer (errors of the HTTP layer included).
SECURITY_HEADERS = {"content-security-policy": PAGE_CSP, "x-frame-options": "DENY", "x-content-type-options": "nosniff",
                    "referrer-policy": "no-referrer"}
#: Host names always served: loopback (a DNS-rebinding page names its own domain instead).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _header_list(csp: str) -> list[tuple[bytes, bytes]]:
    return [(k.encode(), (csp if k == "content-security-policy" else v).encode()) for k, v in SECURITY_HEADERS.items()]


_PAGE_HEADERS, _DOCS_HEADERS = _header_list(PAGE_CSP), _header_list(DOCS_CSP)


def host_name(value: bytes | str) -> str | None:
    """The host of a ``Host`` header value: lower case, without the port, an IPv6 address
    without its brackets, no trailing dot; None when it is not ``name[:port]`` or ``[v6][:port]``."""
    try:
        s = (value.decode("ascii") if isinstance(value, bytes) else value).strip().lower()
    except UnicodeDecodeError:
        return None
    if s.startswith("["):
        end = s.find("]")
        if end < 0:
            return None
        name, rest = s[1:end], s[end + 1:]
    else:
        name = s.split(":", 1)[0]
        rest = s[len(name):]
    if rest and not (rest[0] == ":" and (rest[1:].isdigit() or rest == ":")):
        return None
    name = name.rstrip(".")
    if not name or any(c.isspace() or c in "/\\@?#" for c in name):
        return None
    return name


class Guard:
    """ASGI middleware: the ``Host`` allow-list (400 ``bad_host``), ``HEAD`` answered as
    ``GET`` without the body, and :data:`SECURITY_HEADERS` on every answer (:data:`DOCS_CSP`
    on :data:`DOCS_PATHS`).

    A Host is served when it names a loopback address or ``localhost``, the address the
    connection reached (the server's own address, as a client typing it would send),
    or a name of ``allowed_hosts`` (comma-separated; ``*`` = any). A request without a
    Host header (HTTP/1.0) is served: a browser always sends one.
    """

    def __init__(self, app, allowed_hosts: str = ""):
        self.app = app
        names = [h.strip() for h in allowed_hosts.split(",") if h.strip()]
        self.any_host = "*" in names
        extra = [n for n in (host_name(h) for h in names if h != "*") if n]
        self.hosts = frozenset(LOOPBACK_HOSTS) | frozenset(extra)
        self.shown = ", ".join(["127.0.0.1", "localhost", "[::1]"] + [f"[{n}]" if ":" in n else n for n in sorted(set(extra) - set(LOOPBACK_HOSTS))])

    def bad_host(self, scope) -> str | None:
        """Why the request's Host is refused, or None."""
        if self.any_host:
            return None
        given = [v for k, v in scope.get("headers", []) if k == b"host"]
        if not given:
            return None
        if len(given) > 1:
            return "more than one Host header"
        name = host_name(given[0])
        if name is None:
            return f"malformed Host header {given[0][:80].decode('latin-1')!r}: expected name[:port] or [IPv6][:port]"
        server = scope.get("server")
        if name in self.hosts or (server and str(server[0]).lower() == name):
            return None
        return (f"Host {name[:80]!r} is not served here: expected one of {self.shown} or this server's address "
                "(bgrl serve --allowed-host NAME adds a name)")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = _DOCS_HEADERS if scope.get("path") in DOCS_PATHS else _PAGE_HEADERS
        head = scope.get("method") == "HEAD"

        async def guarded(msg):
            if msg["type"] == "http.response.start":
                headers = list(msg.get("headers", []))
                present = {bytes(k).lower() for k, _ in headers}
                msg = {**msg, "headers": headers + [(k, v) for k, v in extra if k not in present]}
            elif head and msg["type"] == "http.response.body":
                msg = {**msg, "body": b""}
            await send(msg)

        why = self.bad_host(scope)
        if why is not None:
            return await _error(400, "bad_host", why)(scope, receive, guarded)
        if not head:
            return await self.app(scope, receive, guarded)
        # every GET route answers HEAD: the same status and headers, no body (the server
        # sees its own scope still say HEAD); the route found goes back to the access log
        inner = {**scope, "method": "GET"}
        try:
            await self.app(inner, receive, guarded)
        finally:
            if "route" in inner:
                scope["route"] = inner["route"]


class RateLimit:
    """Token buckets by key (a client's address): ``burst`` tokens each, refilled at
    ``per_minute``; :meth:`take` spends one. Thread-safe; at most ``max_keys`` buckets are
    kept (the least recently used dropped: it comes back full)."""

    def __init__(self, per_minute: float, burst: int, max_keys: int = 65_536):
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key) -> float:
        """Spend a token of ``key``'s bucket: 0.0 when there was one, else the seconds
        until there is (nothing spent). Always 0.0 with no limit (``per_minute`` 0)."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, t = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - t) * self.rate)
            wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens - 1.0 if wait == 0.0 else tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        return wait


class _Refused(Exception):
    """Raised in a parser callback: the request head breaks a limit (``_refusal`` says which)."""


#: Seconds a refused connection is still read (and what arrives thrown away) after its
#: answer, so that a client still sending gets the answer rather than a reset.
LINGER_S = 1.0


def http_protocol(settings: Settings | None = None):
    """uvicorn's ``http`` protocol with ``settings``' limits on request heads (default:
    :meth:`Settings.from_env`): uvicorn's httptools protocol whose connections answer

    * 431 ``headers_too_large`` for a head (request line and headers) over
      ``max_header_bytes``, as soon as that much has arrived;
    * 431 ``too_many_headers`` for more than ``max_headers`` header lines;
    * 408 ``header_timeout`` when a head has not arrived ``header_timeout_s`` seconds after
      the connection opened or its previous answer ended (an idle connection is closed);
    * 400 ``bad_http`` (JSON, not uvicorn's plain text) for malformed HTTP;

    each with :data:`SECURITY_HEADERS`, then close. Without httptools: the string ``"h11"``
    (uvicorn's h11 protocol, whose head limit is set by :func:`uvicorn_options`).
    """
    cfg = settings or Settings.from_env()
    try:
        import http as _http

        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - the serve extra installs httptools
        return "h11"
    max_bytes, max_count, timeout_s = cfg.max_header_bytes, cfg.max_headers, cfg.header_timeout_s

    class BoundedHttpTools(HttpToolsProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._in_head = True  # what arrives now belongs to a request's head
            self._head_bytes = 0  # bytes received while in a head (chunk by chunk)
            self._head_size = 0  # bytes of request line and headers the parser gave
            self._head_count = 0
            self._head_timer = None
            self._refusal: tuple[int, str, str] | None = None
            self._discard = False

        # -- the head's clock
        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(timeout_s, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or not self._in_head:
                return
            if self._head_bytes or self._head_size:
                self._refuse(408, "header_timeout", f"the request head did not arrive within {timeout_s:g} s")
            else:  # idle: nothing to answer
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        # -- the head's size
        def data_received(self, data: bytes) -> None:
            if self._discard:
                return
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > max_bytes and not self._discard and not self.transport.is_closing():
                self._refuse(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")

        def _stop(self, status: int, code: str, message: str) -> None:
            self._refusal = (status, code, message)
            raise _Refused(message)  # httptools stops; uvicorn then calls send_400_response

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_size = self._head_count = 0

        def on_url(self, url: bytes) -> None:
            self._head_size += len(url)
            if self._head_size > max_bytes:
                self._stop(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._head_size += len(name) + len(value) + 4
            self._head_count += 1
            if self._head_count > max_count:
                self._stop(431, "too_many_headers", f"more than {max_count} header lines")
            if self._head_size > max_bytes:
                self._stop(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._head_bytes = 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head = True
            self._head_bytes = self._head_size = self._head_count = 0

        def on_response_complete(self) -> None:
            waiting = not self.pipeline
            super().on_response_complete()
            if waiting and self._in_head and not self.transport.is_closing():
                self._arm()

        # -- answers of the HTTP layer
        def send_400_response(self, msg: str) -> None:
            status, code, message = self._refusal or (
                400, "bad_http", "malformed HTTP request: expected a request line, header lines and a blank line (HTTP/1.1, RFC 9112)")
            self._refuse(status, code, message)

        def _refuse(self, status: int, code: str, message: str) -> None:
            self._disarm()
            self._discard = True
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:  # else an answer is being sent: just close
                body = _dumps({"code": code, "message": message})
                lines = [f"HTTP/1.1 {status} {_http.HTTPStatus(status).phrase}\r\n".encode()]
                lines += [k + b": " + v + b"\r\n" for k, v in self.server_state.default_headers]
                lines += [k + b": " + v + b"\r\n" for k, v in _PAGE_HEADERS]
                lines += [b"content-type: application/json\r\n", b"content-length: " + str(len(body)).encode() + b"\r\n",
                          b"connection: close\r\n\r\n", body]
                self.transport.write(b"".join(lines))
                if self.transport.can_write_eof():
                    self.transport.write_eof()
                    self.loop.call_later(LINGER_S, self.transport.close)  # read and drop what still comes, then close
                    return
            self.transport.close()

    BoundedHttpTools.__qualname__ = BoundedHttpTools.__name__ = "BoundedHttpTools"
    return BoundedHttpTools


_ENV_PROTOCOL = None


def __getattr__(name: str):
    """``bgrl.service.app:BoundedHTTP``: :func:`http_protocol` of :meth:`Settings.from_env`
    (the ``http`` option ``bgrl serve --workers N`` gives uvicorn's worker processes)."""
    global _ENV_PROTOCOL
    if name == "BoundedHTTP":
        if _ENV_PROTOCOL is None:
            _ENV_PROTOCOL = http_protocol(Settings.from_env())
        return _ENV_PROTOCOL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def uvicorn_options(settings: Settings, from_env: bool = False) -> dict:
    """The uvicorn options that apply ``settings``' limits on request heads: ``http`` (the
    protocol of :func:`http_protocol`; with ``from_env`` its import string, which worker
    processes rebuild from the environment) and, for h11, its head limit."""
    proto = http_protocol(settings)
    if proto == "h11":  # pragma: no cover - without httptools
        return {"http": "h11", "h11_max_incomplete_event_size": settings.max_header_bytes}
    return {"http": "bgrl.service.app:BoundedHTTP" if from_env else proto}


# ----------------------------------------------------------------------------- helpers
def _probs(p) -> S.Probabilities:
    p = np.asarray(p, dtype=np.float64)
    return S.Probabilities(win=round(float(p[0]), 6), win_gammon=round(float(p[1]), 6), win_backgammon=round(float(p[2]), 6),
                           lose_gammon=round(float(p[3]), 6), lose_backgammon=round(float(p[4]), 6))


def _wildbg_probs(p) -> S.WildbgProbabilities:
    q = _probs(p)
    return S.WildbgProbabilities(win=q.win, winG=q.win_gammon, winBg=q.win_backgammon, loseG=q.lose_gammon, loseBg=q.lose_backgammon)


def _steps(play) -> list[S.Step]:
    return [S.Step(**{"from": a, "to": b}) for a, b in plain_steps(play)]


def cube_decision(pos: Position, probs, cube=None):
    """The cube decision of the side on roll before the roll (:mod:`bgrl.evaluation.cube`):
    Janowski's model with the cube life of the position's phase, from its cubeless
    probabilities (5,). ``cube``: a :class:`bgrl.rules.cube.CubeState` (default: centred,
    money). Raises ServiceError ``bad_cube`` when the side may not double."""
    from bgrl.evaluation.cube import cube_decision as decide, cube_life

    try:
        return decide(np.asarray(probs, dtype=np.float64), cube, cube_life(pos.board))
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None


def _cube_state(c, m):
    from bgrl.rules.cube import CubeState

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


# ----------------------------------------------------------------------------- lean hot routes
try:  # the serve extra installs orjson (several times faster than json for these small answers)
    import orjson as _orjson

    def _dumps(obj) -> bytes:
        return _orjson.dumps(obj)

    _loads = _orjson.loads
except ImportError:  # pragma: no cover - without it the stdlib's json does the same job
    import json as _json

    def _dumps(obj) -> bytes:
        return _json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()

    _loads = _json.loads

_LEVELS = frozenset(LEVEL_NAMES)
_MOVE_KEYS = frozenset(("position", "dice", "level", "seed"))
_POSITION_LIMITS = {"gnubg_id": 64, "xgid": 128}
_SMALL_INT = re.compile(r"(0|-?[1-9][0-9]?)\Z")  # a pip count as wildbg sends it
_SEED_TEXT = re.compile(r"(0|[1-9][0-9]{0,18})\Z")
_WILDBG_MOVE_KEYS = frozenset(["die1", "die2", "x_away", "o_away", "level", "seed"] + [f"p{i}" for i in range(26)])


def _plain_int(v) -> bool:
    return type(v) is int


def _lean_move_body(body: bytes):
    """The fields of a ``POST /v1/move`` body that plainly matches :class:`MoveRequest`
    (what clients send: JSON ints, a known level, one position field), else None: anything
    else takes the full FastAPI path, whose validation gives the documented errors."""
    try:
        req = _loads(body)
    except ValueError:
        return None
    if type(req) is not dict or "position" not in req or not req.keys() <= _MOVE_KEYS:
        return None
    p = req["position"]
    if type(p) is not dict or len(p) != 1:
        return None
    ((key, val),) = p.items()
    if key in _POSITION_LIMITS:
        if type(val) is not str or len(val) > _POSITION_LIMITS[key]:
            return None
    elif key == "board":
        if type(val) is not list or len(val) != 26 or not all(type(v) is int and -15 <= v <= 15 for v in val):
            return None
    else:
        return None
    dice = req.get("dice")
    if dice is not None and not ((type(dice) is list and 1 <= len(dice) <= 8 and all(type(d) is int for d in dice))
                                 or (type(dice) is str and len(dice) <= 16)):
        return None
    level = req.get("level", DEFAULT_PLAY_LEVEL)
    if type(level) is not str or level not in _LEVELS:
        return None
    seed = req.get("seed")
    if seed is not None and not (type(seed) is int and 0 <= seed <= MAX_SEED):
        return None
    return {key: val}, dice, level, seed


def _lean_wildbg_query(qs: bytes):
    """The parameters of a ``GET /move`` query string made only of known names given once,
    each a plain number (``die1=3&die2=1&p6=5...``), else None (the full path answers)."""
    if not qs or b"%" in qs or b"+" in qs:
        return None
    try:
        parts = qs.decode("ascii").split("&")
    except UnicodeDecodeError:
        return None
    q: dict[str, str] = {}
    for part in parts:
        k, eq, v = part.partition("=")
        if not eq or not v or k not in _WILDBG_MOVE_KEYS or k in q:
            return None
        q[k] = v
    if q.get("die1") not in _DIE_TEXT or q.get("die2") not in _DIE_TEXT:
        return None
    board = [0] * 26
    for i in range(26):
        v = q.get(f"p{i}")
        if v is not None:
            if not _SMALL_INT.match(v) or abs(int(v)) > 15:
                return None
            board[i] = int(v)
    away = (q.get("x_away", "0"), q.get("o_away", "0"))
    if away not in (("0", "0"), ("1", "1")):
        return None
    level = q.get("level", DEFAULT_PLAY_LEVEL)
    if level not in _LEVELS:
        return None
    seed = q.get("seed")
    if seed is not None:
        if not _SEED_TEXT.match(seed) or int(seed) > MAX_SEED:
            return None
        seed = int(seed)
    return board, (int(q["die1"]), int(q["die2"])), level, seed, away == ("1", "1")


_DIE_TEXT = frozenset("123456")


def _steps_json(steps) -> list[dict]:
    return [{"from": a, "to": b} for a, b in steps]


class LeanRoutes:
    """ASGI middleware: ``POST /v1/move`` and wildbg's ``GET /move`` without FastAPI's
    routing, pydantic validation and response model round trips.

    A request is answered here only when it plainly matches the route's schema
    (:func:`_lean_move_body`, :func:`_lean_wildbg_query`) and its position and dice parse;
    every other one (and every one the checks here cannot vouch for) goes on to FastAPI
    unchanged, so bad requests get exactly the documented errors. The answers are those
    of the FastAPI handlers field for field (``tests/test_service_perf.py`` compares the
    two paths). ``handlers``: path -> coroutine ``(scope, body) -> bytes | None`` that
    returns the response JSON, None to hand the request on, or raises an engine error.
    """

    def __init__(self, app, handlers: dict, routes: dict, on_error):
        self.app = app
        self.handlers = handlers
        self.routes = routes  # path -> the APIRoute (the access log's endpoint label)
        self.on_error = on_error

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        h = self.handlers.get((scope["method"], scope["path"]))
        if h is None:
            return await self.app(scope, receive, send)
        body = b""
        if scope["method"] == "POST":
            ctype = next((v for k, v in scope["headers"] if k == b"content-type"), None)
            if ctype != b"application/json":
                return await self.app(scope, receive, send)
            chunks, more = [], True
            while more:
                msg = await receive()
                if msg["type"] != "http.request":
                    return
                chunks.append(msg.get("body", b""))
                more = msg.get("more_body", False)
            body = b"".join(chunks)
        try:
            out = await h(scope, body)
        except Exception as exc:  # engine errors: the responses of the app's exception handlers
            scope["route"] = self.routes[scope["path"]]
            return await self.on_error(exc)(scope, receive, send)
        if out is None:
            replayed = False

            async def replay():
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await self.app(scope, replay, send)
        scope["route"] = self.routes[scope["path"]]
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(out)).encode()), (b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": out})


# ----------------------------------------------------------------------------- the app
def create_app(engine: Engine | None = None, settings: Settings | None = None) -> FastAPI:
    """Build the service. ``engine``: inject one (tests); None loads every level at start-up
    (lifespan), verifying the model's sha256."""
    cfg = (settings or Settings()).resolved(injected=engine is not None)
    if cfg.pool_kind == "process" and engine is not None:
        raise ValueError("an injected engine needs pool_kind='thread' (worker processes build their own)")

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        _one_torch_thread()
        eng = engine if engine is not None else Engine()
        for w in getattr(eng, "warnings", []):
            print(f"bgrl serve: warning: {w}", file=sys.stderr)
        from bgrl.session.store import GameStore

        store = await asyncio.to_thread(GameStore.open, cfg.store or None)  # a bad store: one line naming it, before any work
        if cfg.keep_finished_days > 0:
            await asyncio.to_thread(store.purge_finished, cfg.keep_finished_days * 86400.0)
        limiter = Limiter(cfg, eng, factory=Engine, metrics=metrics)
        await limiter.start()
        app.state.engine, app.state.limiter, app.state.store = eng, limiter, store
        try:
            yield
        finally:
            drained = await limiter.drain(cfg.grace_s)
            limiter.shutdown()
            store.close()
            logging.getLogger("bgrl.service").warning(
                "bgrl serve: stopped%s", "" if drained else f" ({limiter.inflight} request(s) unfinished after the {cfg.grace_s} s grace period)")

    app = FastAPI(
        title="bgrl",
        version=__version__,
        summary="Backgammon engine: moves, hints and evaluations at named levels; wildbg-compatible /move and /eval.",
        lifespan=lifespan,
        responses={400: {"model": S.ErrorResponse, "description": "bad position, Position ID, XGID, dice or level"},
                   408: {"model": S.ErrorResponse, "description": "the request body did not arrive in time (--body-timeout)"},
                   413: {"model": S.ErrorResponse, "description": "request body over the size limit (--max-body)"},
                   422: {"model": S.ErrorResponse, "description": "request does not match the schema"},
                   503: {"model": S.ErrorResponse, "description": "overloaded; retry after Retry-After seconds"},
                   504: {"model": S.ErrorResponse, "description": "past the deadline"}},
    )
    metrics = ServiceMetrics()
    from bgrl.service.web import UPLOAD_MAX_BYTES, UPLOAD_PATH, router as web_router  # the web board at / and /v1/games (docs/web.md)

    app.include_router(web_router)
    app.state.settings, app.state.metrics = cfg, metrics
    app.state.game_rate = RateLimit(cfg.games_per_minute, cfg.games_burst)  # new web games per client address

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errs = [{k: e.get(k) for k in ("loc", "msg", "type")} for e in exc.errors()]
        first = errs[0] if errs else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(x) for x in first.get("loc") or ())
        return _error(422, "invalid_request", f"{where}: {first.get('msg')}" if where else str(first.get("msg")), detail=jsonable_encoder(errs))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 429: "too_many_games"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))

    def engine_error(exc: Exception) -> JSONResponse:
        """The JSON error answer of an exception from input parsing or the engine queue."""
        if isinstance(exc, ServiceError):
            return _error(409 if exc.code == "conflict" else 400, exc.code, exc.message)
        if isinstance(exc, Overloaded):
            return _error(503, "overloaded", f"more than {cfg.max_inflight} requests in flight; retry later", headers={"Retry-After": str(cfg.retry_after_s)})
        if isinstance(exc, WorkerLost):
            return _error(503, "worker_lost", "the engine worker serving this request stopped; it has been replaced: retry",
                          headers={"Retry-After": str(cfg.retry_after_s)})
        if isinstance(exc, DeadlineExceeded):
            secs = cfg.deadline_s if exc.seconds is None else exc.seconds
            return _error(504, "deadline_exceeded", f"the request took longer than {secs:g} s; its work was stopped")
        if isinstance(exc, ClientGone):  # nginx's 499: nobody is left to read it (the access log is)
            return _error(499, "client_closed_request", "the client left before the answer; its work was stopped")
        return _error(500, "internal", f"internal error ({type(exc).__name__})")

    async def _engine_error(request: Request, exc: Exception):
        return engine_error(exc)

    for _exc in (ServiceError, Overloaded, WorkerLost, DeadlineExceeded, ClientGone):
        app.add_exception_handler(_exc, _engine_error)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):  # pragma: no cover - a bug; fuzz tests look for these
        # answered outside the middleware (Starlette's ServerErrorMiddleware): the security headers here
        return _error(500, "internal", f"internal error ({type(exc).__name__})", headers=dict(SECURITY_HEADERS))

    def served(eng: Engine, t0: float, level: str) -> dict:
        """Common response fields; ``model_sha256`` is that of the network that plays ``level``."""
        return {"engine": ENGINE_NAME, "version": __version__, "model_sha256": eng.level_sha256(level), "elapsed_ms": round((time.perf_counter() - t0) * 1000.0, 3)}

    async def run(request: Request, method: str, *args):
        return await request.app.state.limiter.run(method, *args)

    def level_of(request: Request, level) -> None:  # the access log's and metrics' level label
        request.state.level = level if isinstance(level, str) and level in eng_levels else "other"

    eng_levels = set(LEVEL_NAMES)

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics(request: Request):
        """Prometheus text format (bgrl.service.metrics)."""
        lim = getattr(request.app.state, "limiter", None)
        if lim is not None:
            metrics.queue_depth.set(len(lim.queue))
            metrics.inflight.set(lim.inflight)
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    # ---- v1
    @app.post("/v1/move", response_model=S.MoveResponse, tags=["v1"])
    async def move(req: S.MoveRequest, request: Request):
        """Choose the level's play. The same request with the same seed always gives the same play."""
        t0 = time.perf_counter()
        eng: Engine = request.app.state.engine

        pos, xd = _position(req.position)
        level_of(request, req.level)
        r = await run(request, "move", pos, parse_dice_value(_dice(req.dice, xd)), req.level, req.seed)
        return S.MoveResponse(play=plain_notation(r.play), moves=_steps(r.play), position_id=r.result_id, level=r.level, ply=r.ply, seed=r.seed, **served(eng, t0, r.level))

    @app.post("/v1/hint", response_model=S.HintResponse, response_model_exclude_none=True, tags=["v1"])
    async def hint(req: S.HintRequest, request: Request):
        """Legal plays ranked by the level's own noise-free evaluation, best first. With
        ``cube`` (at 2 or more, or owned) or ``match`` (optional rules; docs/cube.md) they are
        ranked by cubeful equity or match winning chances, each play with ``cubeful_equity``
        (and ``mwc`` at a score), and ``ranked_by`` says which."""
        from bgrl.agents.cube import cubeful_rank, ranked_by, value_mwc

        t0 = time.perf_counter()
        eng: Engine = request.app.state.engine

        pos, xd, state = _position_and_cube(req.position, req.cube, req.match, default_cube=False)
        dd = parse_dice_value(_dice(req.dice, xd))
        by = ranked_by(state)
        level_of(request, req.level)
        rows, n_legal = await run(request, "ranked", pos, dd, req.level, req.top if by == "cubeless" else None)
        vals = mwc = None
        if by != "cubeless":
            rows, vals = cubeful_rank(rows, state)
            mwc = value_mwc(vals, state) if by == "mwc" else None
            rows = rows if req.top is None else rows[: req.top]
        out = [
            S.HintPlay(rank=r.rank, play=plain_notation(r.play), moves=_steps(r.play), position_id=r.play.position_id, ply=r.ply,
                       equity=round(r.equity, 6), equity_loss=round(r.equity_loss, 6), probabilities=_probs(r.probabilities.to_array()),
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

    @app.post("/v1/eval", response_model=S.EvalResponse, tags=["v1"])
    async def evaluate(req: S.EvalRequest, request: Request):
        """Probabilities and cubeless equity of the side on roll, before it rolls."""
        t0 = time.perf_counter()
        eng: Engine = request.app.state.engine

        pos, _ = _position(req.position)
        level_of(request, req.level)
        p, ply = await run(request, "evaluate", pos, req.level)
        from bgrl.evaluation.probabilities import equity

        return S.EvalResponse(position_id=pos.position_id, level=req.level, ply=ply, equity=round(float(equity(p)), 6), probabilities=_probs(p), **served(eng, t0, req.level))

    @app.post("/v1/cube", response_model=S.CubeResponse, tags=["v1"])
    async def cube(req: S.CubeRequest, request: Request):
        """The cube decision of the side on roll before it rolls (optional rules; docs/cube.md)."""
        t0 = time.perf_counter()
        eng: Engine = request.app.state.engine

        pos, xd, state = _position_and_cube(req.position, req.cube, req.match)
        if xd is not None:
            raise ServiceError("bad_cube", f"the XGID has the dice {xd[0]}{xd[1]}: a cube decision is made before the roll "
                                           "(give the XGID with dice 00)")
        if not state.may_double():
            raise ServiceError("bad_cube", f"cannot double: {state.why_no_double()}")
        p, ply = await run(request, "evaluate", pos, req.level)
        d = cube_decision(pos, p, state)
        ans = d.as_dict()
        ans["equities"] = {k: round(v, 6) for k, v in ans["equities"].items()}  # 6 decimals, as every other route
        return S.CubeResponse(position_id=pos.position_id, level=req.level, ply=ply, cube=ans, **served(eng, t0, req.level))

    @app.get("/v1/health", response_model=S.Health, tags=["v1"])
    async def health(request: Request):
        """Liveness and readiness (every level loaded)."""
        eng = getattr(request.app.state, "engine", None)
        if eng is None:  # pragma: no cover - the lifespan runs before any request
            return JSONResponse({"status": "starting", "ready": False, "levels_loaded": 0}, status_code=503)
        return S.Health(status="ok", ready=True, levels_loaded=len(eng.levels))

    @app.get("/v1/version", response_model=S.VersionResponse, tags=["v1"])
    async def version(request: Request):
        """Engine, model, levels and limits."""
        eng: Engine = request.app.state.engine
        info = eng.info()
        limits = S.Limits(max_body_bytes=cfg.max_body_bytes, max_inflight=cfg.max_inflight, pool_workers=cfg.pool_workers,
                          deadline_s=cfg.deadline_s, max_checkers=NUM_CHECKERS, max_top=10_000)
        return S.VersionResponse(api="v1", limits=limits, protocols={"wildbg": "GET /move, GET /eval", "ubgi": UBGI_VERSION},
                                 xgid_supported=xgid_supported(), **info)

    # ---- wildbg
    def pips_board(q) -> list[int]:
        return [int(getattr(q, f"p{i}") or 0) for i in range(26)]

    @app.get("/move", response_model=S.WildbgMoveResponse, tags=["wildbg"], dependencies=[_known_query_only(S.WildbgMoveQuery)])
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

        pos, _ = parse_position(board=pips_board(q))
        d = parse_dice_value((q.die1, q.die2))
        level_of(request, q.level)
        if score is not None and not dmp:  # a match score: the plays re-ranked by match winning chances
            items = await run(request, "move_list", pos, d, q.level, q.seed, dmp)
            if items and items[0][0] is not None:
                items = rank_by_match_equity(items, score)
            return S.WildbgMoveResponse(moves=[S.WildbgMoveInfo(play=_steps(p) if p else [], probabilities=_wildbg_probs(pr))
                                               for p, pr in items])
        return S.WildbgMoveResponse.model_validate_json(await run(request, "wildbg_json", pos, d, q.level, q.seed, dmp))

    @app.get("/eval", response_model=S.WildbgEvalResponse, tags=["wildbg"], dependencies=[_known_query_only(S.WildbgEvalQuery)])
    async def wildbg_eval(q: Annotated[S.WildbgEvalQuery, Query()], request: Request):
        """wildbg's ``GET /eval``: the probabilities of the side on roll (before rolling) and its
        money cube decision with a centred cube (:func:`cube_decision`): ``double`` for double/take
        and double/pass, ``accept`` the opponent's take."""
        pos, _ = parse_position(board=pips_board(q))
        level_of(request, q.level)
        p, _ply = await run(request, "evaluate", pos, q.level)
        d = cube_decision(pos, p)
        dbl = d.decision in ("double, take", "double, pass")
        return S.WildbgEvalResponse(cube=S.WildbgCube(double=dbl, accept=d.take), probabilities=_wildbg_probs(p))

    # ---- the lean path of the hot routes (LeanRoutes): the same answers as move() and wildbg_move()
    async def lean_move(scope, body: bytes):
        t0 = time.perf_counter()
        req = _lean_move_body(body)
        if req is None:
            return None
        position, dice, level, seed = req
        try:
            pos, xd = parse_position(**position)
            d = parse_dice_value(_dice(dice, xd))
        except ServiceError:
            return None  # the full path gives the same 400
        scope.setdefault("state", {})["level"] = level
        r = await app.state.limiter.run("move", pos, d, level, seed)
        eng = app.state.engine
        return _dumps({**served(eng, t0, r.level), "play": plain_notation(r.play), "moves": _steps_json(plain_steps(r.play)),
                       "position_id": r.result_id, "level": r.level, "ply": r.ply, "seed": r.seed})

    async def lean_wildbg_move(scope, body: bytes):
        q = _lean_wildbg_query(scope.get("query_string", b""))
        if q is None:
            return None
        board, dice, level, seed, dmp = q
        try:
            pos, _ = parse_position(board=board)
            d = parse_dice_value(dice)
        except ServiceError:
            return None
        scope.setdefault("state", {})["level"] = level
        return await app.state.limiter.run("wildbg_json", pos, d, level, seed, dmp)

    if cfg.lean_routes:
        routes = {r.path: r for r in app.routes if getattr(r, "path", None) in ("/v1/move", "/move")}
        app.add_middleware(LeanRoutes, handlers={("POST", "/v1/move"): lean_move, ("GET", "/move"): lean_wildbg_move},
                           routes=routes, on_error=engine_error)
    app.add_middleware(BodyLimit, max_bytes=cfg.max_body_bytes, per_path={UPLOAD_PATH: max(UPLOAD_MAX_BYTES, cfg.max_body_bytes)},
                       body_timeout_s=cfg.body_timeout_s)
    app.add_middleware(Guard, allowed_hosts=cfg.allowed_hosts)  # Host allow-list, HEAD, security headers
    app.add_middleware(AccessLog, metrics=metrics)  # outermost: sees every answer, 413s included
    return app


def match_score_cube(x_away: int, o_away: int):
    """The centred-cube :class:`bgrl.rules.cube.CubeState` of wildbg's ``x_away``/``o_away``
    (mover first), or None for money (both 0). A side 1 away against a side further away is
    taken to be in the Crawford game (wildbg's query has no Crawford flag). Raises
    ServiceError ``bad_score`` for one side 0 and the other not, or a score beyond the match
    equity table (25 points)."""
    from bgrl.evaluation.match_equity import default_met
    from bgrl.rules.cube import CubeState

    if (x_away, o_away) == (0, 0):
        return None
    top = default_met().length
    if min(x_away, o_away) < 1 or max(x_away, o_away) > top:
        raise ServiceError("bad_score", f"x_away and o_away must both be 0 (money) or both 1..{top} points to go "
                           f"(the match equity table), got {x_away} and {o_away}")
    n = max(x_away, o_away)
    crawford = min(x_away, o_away) == 1 and n > 1
    return CubeState(match_length=n, score=(n - x_away, n - o_away), crawford=crawford)


def rank_by_match_equity(items, cube):
    """wildbg's ``(play, probabilities)`` list re-ranked by the mover's match winning chances
    at ``cube``'s score (:func:`bgrl.agents.cube.cubeful_values`; ties keep the order)."""
    from bgrl.agents.cube import cubeful_values

    boards = np.stack([p.after_state for p, _ in items])
    values = cubeful_values(boards, np.stack([pr for _, pr in items]), cube)
    order = sorted(range(len(items)), key=lambda i: -values[i])
    return [items[i] for i in order]


def app_from_env() -> FastAPI:
    """uvicorn factory for worker processes: ``Settings.from_env()``, logging at
    ``BGRL_SERVE_LOG_LEVEL`` (default warning)."""
    from bgrl.service.metrics import configure_logging

    configure_logging(os.environ.get("BGRL_SERVE_LOG_LEVEL", "warning"))
    return create_app(settings=Settings.from_env())


def settings_env(settings: Settings) -> dict[str, str]:
    """Environment variables that make :func:`app_from_env` rebuild ``settings``."""
    return {f"BGRL_SERVE_{k.upper()}": str(v) for k, v in asdict(settings).items()}
