"""Admission control, batching across requests and deadlines: :class:`Limiter` hands the
engine's typed jobs (:mod:`bgrl.service.engine`) to its workers (:mod:`bgrl.service.pool`'s
processes, or threads) in batches, and runs the web board's thread work
(:func:`admit_thread`, :func:`run_job`). Its refusals are exceptions that the routes answer
(:mod:`bgrl.service.errors`): :class:`Overloaded` (503), :class:`DeadlineExceeded` (504),
:class:`ClientGone` (499), :class:`WorkerLost` (503).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import pickle
import struct
import threading
import time
from dataclasses import dataclass

from bgrl.service.engine import ListJob, MoveJob
from bgrl.service.pool import ProcessPool, one_torch_thread, run_until
from bgrl.service.settings import Settings
from bgrl.service.stopping import Cancelled, stop_when

__all__ = ["Limiter", "PLY_COST", "Overloaded", "DeadlineExceeded", "ClientGone", "WorkerLost", "admit_thread", "run_job"]


class Overloaded(Exception):
    """Too much admitted work (answered 503); ``message``, when given, says which limit."""

    def __init__(self, message: str | None = None):
        super().__init__(message)
        self.message = message


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
class _Call:
    """One admitted engine job while it is queued or running."""

    job: object  # a typed job of bgrl.service.engine
    future: asyncio.Future
    t_enqueued: float
    deadline: float
    abandoned: bool = False
    cost: int = 1
    seconds: float = 0.0  # the deadline's length (the 504's message)


@dataclass(eq=False)
class _Lane:
    """One kind of thread work (:meth:`Limiter.run_thread`): its threads, its admission limit and
    the pieces admitted (queued or running)."""

    name: str  # what the 503 names: "game commands", "reviews"
    pool: concurrent.futures.ThreadPoolExecutor
    limit: int
    inflight: int = 0


#: The cost of an engine job by the ply it searches (:meth:`Limiter._cost`): a batch holds
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
    (:func:`bgrl.service.stopping.stop_when`; every call in it has had its 504 by then). A
    batch holds at most ``max_batch`` calls and at most ``max_batch`` units of cost
    (:data:`PLY_COST`: 1 for a 0-ply call, 4 at 1-ply, 32 at 2-ply), so deep searches are
    answered a few at a time and a burst costs the workers about its deadline, not minutes.

    ``run(job, deadline_s=None)`` is one engine call (a typed job of :mod:`bgrl.service.engine`:
    :class:`~bgrl.service.engine.MoveJob`, :class:`~bgrl.service.engine.RankJob`,
    :class:`~bgrl.service.engine.ListJob`, :class:`~bgrl.service.engine.EvalJob`; its answer is
    :meth:`~bgrl.service.engine.Engine.run_batch`'s; ``deadline_s``: its own deadline, default
    ``settings.deadline_s``).
    :meth:`run_thread` admits other engine work (the web board's), run in the server's own
    threads with a deadline and a cancel event: game work (new games, the computer's turns,
    session hints) in ``job_workers`` threads, reviews (``review=True``: uploads, a game's
    review, the statistics) in ``review_workers`` threads of their own, each kind with its own
    admission limit, so a game command never waits behind a long review.
    """

    def __init__(self, settings: Settings, engine, factory=None, metrics=None):
        self.settings = settings
        self.engine = engine
        self.factory = factory
        self.metrics = metrics
        self._lock = threading.Lock()
        self.inflight = 0
        self.restarts = 0
        self.queue: list[_Call] = []
        self.busy = 0
        self._running_calls = 0
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._free: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._sweeper: asyncio.Task | None = None
        self._pending: set[_Call] = set()  # admitted calls not answered yet (their deadlines)
        self.pool = self._new_pool()
        self._job_events: set[threading.Event] = set()
        # thread work (run_thread) in two lanes: game work, and reviews on threads of their own
        self._lanes = {
            False: _Lane("game commands", concurrent.futures.ThreadPoolExecutor(
                settings.job_workers or 1, thread_name_prefix="bgrl-job", initializer=one_torch_thread),
                settings.max_jobs or 64),
            True: _Lane("reviews", concurrent.futures.ThreadPoolExecutor(
                settings.review_workers or 1, thread_name_prefix="bgrl-review", initializer=one_torch_thread),
                settings.max_reviews or 8),
        }

    @property
    def jobs_inflight(self) -> int:
        """Game work admitted to the thread pool and not finished (queued or running)."""
        return self._lanes[False].inflight

    @property
    def reviews_inflight(self) -> int:
        """Reviews admitted to their thread pool and not finished (queued or running)."""
        return self._lanes[True].inflight

    @property
    def jobs_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        return self._lanes[False].pool

    @property
    def _process(self) -> bool:
        return self.settings.pool_kind == "process"

    def _new_pool(self):
        n = self.settings.pool_workers
        if self._process:
            return ProcessPool(n, self.factory)
        return concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="bgrl-engine", initializer=one_torch_thread)

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

    async def run(self, job, deadline_s: float | None = None):
        precheck = getattr(self.engine, "precheck", None)
        if precheck is not None:  # the cheap checks first: a bad request gets its 400, not a 503, under load
            precheck(job)
        with self._lock:
            if self.inflight >= self.settings.max_inflight:
                over = True
            else:
                over = False
                self.inflight += 1
        if over:
            self._reject("overloaded")
            raise Overloaded()
        if self._may_inline() and self._cheap(job):
            return self._inline(job)
        loop = self._loop or asyncio.get_running_loop()
        now = loop.time()
        secs = self.settings.deadline_s if deadline_s is None else float(deadline_s)
        call = _Call(job, loop.create_future(), now, now + secs, cost=self._cost(job), seconds=secs)
        self.queue.append(call)
        self._gauge()
        self._wake.set()
        self._pending.add(call)
        try:
            return await call.future  # the deadline: _sweep (one timer for all calls, not one each)
        finally:
            self._pending.discard(call)

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

    def _cost(self, job) -> int:
        """The job's units of :data:`PLY_COST` by the ply it searches (its ply override, else
        its level's; 1 when unknown: the engine answers such a job with a 400)."""
        try:
            ply = getattr(job, "ply", None)
            if ply is None:
                ply = self.engine.levels[job.level].ply
            return PLY_COST.get(int(ply), 1)
        except (AttributeError, KeyError, TypeError, ValueError):
            return 1

    def _cheap(self, job) -> bool:
        """Whether a job is a 0-ply move (no ply override) or wildbg list body (milliseconds):
        only these run in the server process, so that a deep search never holds up its event
        loop (health checks, other connections)."""
        if not ((type(job) is MoveJob and job.ply is None) or (type(job) is ListJob and job.as_json)):
            return False
        lv = getattr(self.engine, "levels", {}).get(job.level) if isinstance(job.level, str) else None
        return lv is not None and lv.ply == 0

    def _inline(self, job):
        t0 = time.perf_counter()
        try:
            (r,) = self.engine.run_batch([job])
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
            for call in [c for c in self._pending if now >= c.deadline and not c.future.done()]:
                call.abandoned = True
                self._reject("deadline")
                call.future.set_exception(DeadlineExceeded(call.seconds))

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
            for call in self.queue:  # in order, until the batch is full (calls or cost)
                if call.abandoned or call.future.done() or now >= call.deadline:  # past its deadline: never started
                    n += 1
                    self._release()
                    if not call.future.done():
                        call.future.set_exception(DeadlineExceeded(call.seconds))
                    continue
                if len(live) >= take or (live and cost + call.cost > cap):
                    break
                n += 1
                live.append(call)
                cost += call.cost
            del self.queue[:n]
            self._gauge()
            if live:
                self._submit(live)

    def _arriving(self) -> int:
        """HTTP requests inside the server that have not reached the engine queue yet
        (being read or parsed): the ones worth waiting for."""
        active = self.metrics.active if self.metrics is not None else 0
        return active - len(self.queue) - self._running_calls

    def _submit(self, live: list[_Call]) -> None:
        jobs = [c.job for c in live]
        t0 = time.perf_counter()
        # the batch stops at the latest deadline of its calls (each has its 504 by then)
        remaining = max(0.0, max(c.deadline for c in live) - self._loop.time())
        if self._process:
            w = self._idle_worker()
            try:
                w.send(pickle.dumps((jobs, remaining), protocol=pickle.HIGHEST_PROTOCOL))
            except (OSError, ValueError):  # its pipe is closed: the worker died
                self._fail(live, WorkerLost())
                self._worker_died(w)
                return
            w.job = (live, t0)
        else:
            try:
                cf = self.pool.submit(run_until, self.engine, jobs, time.monotonic() + remaining)
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
            exc = value if kind == "error" else (DeadlineExceeded(max(c.seconds for c in live)) if kind == "cancelled" else None)
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

    def _fail(self, live: list[_Call], exc: Exception) -> None:
        for call in live:
            if not call.future.done():
                call.future.set_exception(exc)
        self._release(len(live))

    def _thread_done(self, fut: asyncio.Future, live: list[_Call], t0: float) -> None:
        if fut.cancelled():
            self._done(live, t0, None, Overloaded())
        elif isinstance(fut.exception(), Cancelled):  # stopped past the deadline of all its calls
            self._done(live, t0, None, DeadlineExceeded(max(c.seconds for c in live)))
        else:
            self._done(live, t0, None if fut.exception() else fut.result(), fut.exception())

    def _done(self, live: list[_Call], t0: float, results, exc) -> None:
        self.busy -= 1
        self._running_calls -= len(live)
        self._free.set()
        if self.metrics is not None:
            self.metrics.batch_seconds.observe(time.perf_counter() - t0)
        if exc is not None:
            self._fail(live, exc)
            return
        for call, r in zip(live, results):
            if call.future.done():
                continue
            if isinstance(r, BaseException):
                call.future.set_exception(r)
            else:
                call.future.set_result(r)
        self._release(len(live))

    # -- thread work (the web board's engine work, reviews)
    async def run_thread(self, fn, *args, deadline_s: float | None = None, request=None, pass_cancel: bool = False,
                         poll_s: float = 0.1, review: bool = False, **kwargs):
        """Admit one piece of engine work run in a thread of the server process, and its answer.

        ``fn(*args, **kwargs)`` (with ``pass_cancel``: ``fn(cancel, *args, **kwargs)``, ``cancel``
        a :class:`threading.Event`) runs in one of ``job_workers`` threads (``review``: one of
        ``review_workers`` threads, a pool of their own, so that game work never queues behind
        a review), inside
        :func:`bgrl.service.stopping.stop_when` of its cancel event: every network call the
        engine makes for it raises :class:`bgrl.service.stopping.Cancelled` once the event is
        set, so engine work stops by itself; ``fn`` may also poll ``cancel.is_set()`` between
        its own steps. The event is set when the deadline passes, when ``request`` (a
        Starlette request, polled every ``poll_s`` seconds) is disconnected, or when the
        awaiting task is cancelled.

        Raises :class:`Overloaded` (503) at once when ``max_jobs`` pieces are admitted
        (``review``: ``max_reviews``; queued or running; one told to stop counts until its
        thread returns),
        :class:`DeadlineExceeded` (504) at the deadline (default ``settings.game_deadline_s``),
        :class:`ClientGone` (499) when the client left, and whatever ``fn`` raised
        (a :class:`bgrl.service.engine.ServiceError` is a 400). Run the cheap checks before:
        a bad request should get its 400, not a 503.

        ``fn`` may be stopped in the middle of any engine call it makes: it should compute
        first and change shared state (a game, a session store) only after its last engine
        call, so that a stopped piece of work leaves nothing half done. ``fn``'s own keyword
        arguments must not be named ``deadline_s``, ``request``, ``pass_cancel``, ``poll_s`` or
        ``review``.
        """
        secs = self.settings.game_deadline_s if deadline_s is None else float(deadline_s)
        lane = self._lanes[bool(review)]
        with self._lock:
            over = lane.inflight >= lane.limit or self._closing
            if not over:
                lane.inflight += 1
        if over:
            self._reject("overloaded")
            raise Overloaded(f"more than {lane.limit} {lane.name} admitted at once; retry later")
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
                    lane.inflight -= 1
                self._job_events.discard(cancel)

        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(lane.pool, work)
        except RuntimeError:  # the pool is shutting down
            with self._lock:
                lane.inflight -= 1
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
        def busy() -> bool:
            return self.inflight > 0 or any(lane.inflight > 0 for lane in self._lanes.values())
        while busy() and time.monotonic() < t_end:
            await asyncio.sleep(0.01)
        return not busy()

    def shutdown(self) -> None:
        """Stop the dispatcher and the pool; worker processes are terminated (they hold no
        state worth keeping), so none outlives the server."""
        self._closing = True
        for ev in list(self._job_events):  # thread work still running stops at its next network call
            ev.set()
        for lane in self._lanes.values():
            lane.pool.shutdown(wait=False, cancel_futures=True)
        for task in (self._task, self._sweeper):
            if task is not None:
                task.cancel()
        for call in self.queue:
            if not call.future.done():
                call.future.set_exception(Overloaded())
        self.queue = []
        if self._process:
            if self._loop is not None:
                for w in self.pool.workers:
                    self._unwatch(w)
            self.pool.shutdown()
        else:
            self.pool.shutdown(wait=False, cancel_futures=True)


async def admit_thread(request, fn, *args, deadline_s: float | None = None, **kwargs):
    """The answer of ``fn(*args, **kwargs)``, one piece of a route's engine work run in a
    thread of the server, through admission control (:meth:`Limiter.run_thread` of
    ``request.app.state.limiter``): 503 ``overloaded`` when ``max_jobs`` pieces are admitted,
    504 ``deadline_exceeded`` past ``deadline_s`` (default ``Settings.game_deadline_s``), the
    work stopped at its next network call (:class:`bgrl.service.stopping.Cancelled` inside it).
    For the web board's game creation, computer turns and session hints (in the ``job_workers``
    threads; reviews go to :func:`run_job`)."""
    return await request.app.state.limiter.run_thread(fn, *args, deadline_s=deadline_s, **kwargs)


async def run_job(request, fn, *args, deadline_s: float | None = None, **kwargs):
    """The answer of ``fn(cancel, *args, **kwargs)``, a long piece of engine work (a review)
    in a thread of the server, through admission control: as :func:`admit_thread`, but in the
    reviews' own threads and limit (``review_workers``, ``max_reviews``: a review never holds
    up game work), with the default deadline ``Settings.review_deadline_s``, and ``cancel`` (a :class:`threading.Event`,
    for ``fn`` to poll between its steps; engine calls inside stop by themselves) is set too
    when the client disconnects (:class:`ClientGone`, 499), checked every 0.1 s."""
    lim = request.app.state.limiter
    secs = lim.settings.review_deadline_s if deadline_s is None else deadline_s
    return await lim.run_thread(fn, *args, deadline_s=secs, request=request, pass_cancel=True, review=True, **kwargs)
