"""Issue 40, point 2: deadlines that stop work.

A request past its deadline stops its engine work, on the engine workers too (threads and
processes): a burst of expensive requests costs about what the deadline allows, and the
server answers cheap requests again within a second of the burst's end. Deep searches go
in small batches (PLY_COST). The thread-work API of the web routes (:func:`admit_thread`,
:func:`run_job`, :meth:`Limiter.run_thread`): 503 when full, 504 past its deadline, the
work told to stop (its engine calls raise Cancelled, its cancel event is set), and stopped
too when its client leaves.

The networks are a slow fake (tests/service_fakes.py's SlowEvaluator, a sleep per chunk of
64 after-states, as the shipped networks are called per chunk of 256): the timings test the
mechanism, not the real networks (docs/service.md reports those)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi import Request  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from bgrl.rules.board import START_POSITION_ID, Position  # noqa: E402
from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine, MoveJob, RankJob  # noqa: E402
from bgrl.service.limiter import (PLY_COST, ClientGone, DeadlineExceeded, Limiter, Overloaded, admit_thread,  # noqa: E402
                                  run_job)
from bgrl.service.stopping import Cancelled, FixedChunkEvaluator, StopPoints, stop_point, stop_when  # noqa: E402

from service_fakes import SlowEvaluator, fake_evaluator, serve_in_thread  # noqa: E402

START = Position.from_id(START_POSITION_ID)


class Clocked(SlowEvaluator):
    """SlowEvaluator (``delay`` seconds a call once the test sets it: the engine's warm-up
    runs at full speed) that remembers when it was last called and how often."""

    def __init__(self, delay: float = 0.0):
        super().__init__(delay)
        self.calls = 0
        self.last = 0.0

    def __call__(self, after_states):
        self.calls += 1
        out = super().__call__(after_states)
        self.last = time.monotonic()
        return out


def _slow_engine(delay: float = 0.0):
    """An engine over the fake network called per chunk of 64 after-states (a grandmaster
    hint of the opening is ~190 chunks: ~0.4 s at 2 ms a chunk); its Clocked evaluator."""
    ev = Clocked(delay)
    return Engine(evaluator=FixedChunkEvaluator(ev, rows=64), model_sha256="fake"), ev


def _hint(level="grandmaster"):
    return {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "level": level}


# ----------------------------------------------------------------------------- stop points
def test_stop_when_deadline_event_and_nesting():
    stop_point()  # outside any stop_when: nothing
    ev = threading.Event()
    with stop_when(event=ev):
        stop_point()
        ev.set()
        with pytest.raises(Cancelled):
            stop_point()
    stop_point()  # restored
    with stop_when(deadline=time.monotonic() + 60):
        stop_point()
        with stop_when(check=lambda: True):
            with pytest.raises(Cancelled):
                stop_point()
        stop_point()  # the inner check is gone, the outer deadline still applies
    with stop_when(deadline=time.monotonic() - 1):
        with pytest.raises(Cancelled):
            stop_point()
    assert not issubclass(Cancelled, Exception)  # no `except Exception` / `except ValueError` swallows it


def test_engine_calls_stop_between_chunks():
    calls = []
    fixed = FixedChunkEvaluator(lambda a: (calls.append(len(a)), fake_evaluator(a))[1], rows=64)
    ev = threading.Event()
    ev.set()
    with stop_when(event=ev), pytest.raises(Cancelled):
        fixed(START.board[None].repeat(300, axis=0))
    assert calls == []
    # an injected evaluator gets a stop point before each call; its attributes pass through
    fake = SlowEvaluator(0.0)
    eng = Engine(evaluator=fake, model_sha256="fake")
    assert isinstance(eng.evaluator, StopPoints) and eng.evaluator.delay == 0.0
    with stop_when(event=ev), pytest.raises(Cancelled):
        eng.hint(START, (3, 1), "grandmaster")
    assert eng.hint(START, (3, 1), "grandmaster")  # outside: answered as ever


# ----------------------------------------------------------------------------- the burst (threads)
def test_burst_of_deep_hints_costs_the_deadline_not_minutes():
    """24 grandmaster hints at once, 1 s deadline, one engine worker (a thread): each gets
    its answer or a 503/504 within deadline + 1 s; the worker stops within a chunk of the
    burst's end, and health and a cheap move answer within a second of it. (Before: one
    batch of 24 hints ran ~10 s past its 504s, and the cheap move got 504 too.)"""
    eng, ev = _slow_engine()
    deadline = 1.0
    app = create_app(engine=eng, settings=Settings(pool_kind="thread", pool_workers=1, deadline_s=deadline))
    base, server = serve_in_thread(app)
    try:
        ev.delay = 0.002

        async def burst():
            async with httpx.AsyncClient(base_url=base, timeout=30, limits=httpx.Limits(max_connections=64)) as c:
                async def one():
                    t0 = time.monotonic()
                    r = await c.post("/v1/hint", json=_hint())
                    return r.status_code, time.monotonic() - t0, time.monotonic()
                return await asyncio.gather(*[one() for _ in range(24)])

        got = asyncio.run(burst())
        end = max(t for _s, _dt, t in got)
        assert {s for s, _dt, _t in got} <= {200, 503, 504}, got
        assert max(dt for _s, dt, _t in got) <= deadline + 1.0, got
        assert sum(s == 504 for s, _dt, _t in got) > 0  # the burst was past what the deadline allows
        with httpx.Client(base_url=base, timeout=10) as c:
            h = c.get("/v1/health")
            t_health = time.monotonic() - end
            m = c.post("/v1/move", json=_hint("expert"))
            t_move = time.monotonic() - end
        assert h.status_code == 200 and m.status_code == 200, m.text
        assert t_health < 1.0 and t_move < 1.0, (t_health, t_move)
        assert ev.last - end < 0.3  # the worker stopped within a chunk or so of the burst's end
        n = ev.calls
        time.sleep(0.3)
        assert ev.calls == n and app.state.limiter.busy == 0 and app.state.limiter.inflight == 0
    finally:
        server.should_exit = True


def test_deep_searches_go_in_small_batches():
    eng, ev = _slow_engine()
    sizes = []
    real = eng.run_batch

    def spy(jobs):
        sizes.append([type(j).__name__ for j in jobs])
        return real(jobs)

    eng.run_batch = spy

    async def go():
        lim = Limiter(Settings(pool_kind="thread", pool_workers=1, deadline_s=60).resolved(injected=True), eng)
        await lim.start()
        try:
            calls = [lim.run(RankJob(START, (3, 1), "grandmaster")) for _ in range(6)]
            calls += [lim.run(MoveJob(START, (3, 1), "expert", 1)) for _ in range(8)]
            calls += [lim.run(RankJob(START, (3, 1), "expert", ply=2)) for _ in range(3)]  # a ply override counts
            return await asyncio.gather(*calls)
        finally:
            lim.shutdown()

    out = asyncio.run(go())
    assert len(out) == 17 and PLY_COST[2] * 2 == 64
    for batch in sizes:
        deep = batch.count("RankJob")
        assert deep <= 2, sizes  # 2 x 32 units fill a batch of max_batch = 64
    assert any(b.count("MoveJob") > 2 for b in sizes), sizes  # cheap calls still batch together


# ----------------------------------------------------------------------------- the burst (worker processes)
def _worker_engine():
    return Engine(evaluator=FixedChunkEvaluator(SlowEvaluator(0.002), rows=64), model_sha256="fake")


def test_worker_process_stops_at_the_deadline():
    """The same in a worker process: the batch carries its deadline, and the worker stops
    at its next chunk past it (nothing needs to reach the process)."""
    eng, _ev = _slow_engine()

    async def go():
        cfg = Settings(pool_kind="process", pool_workers=1, deadline_s=1.0, inline_idle=False).resolved()
        lim = Limiter(cfg, eng, factory=_worker_engine)
        await lim.start()
        try:
            t0 = time.monotonic()
            got = await asyncio.gather(*[lim.run(RankJob(START, (3, 1), "grandmaster")) for _ in range(12)],
                                       return_exceptions=True)
            end = time.monotonic()
            assert end - t0 <= 2.0, end - t0
            assert all(isinstance(g, (list, tuple, DeadlineExceeded)) for g in got), got
            assert any(isinstance(g, DeadlineExceeded) for g in got)
            r = await lim.run(MoveJob(START, (3, 1), "expert", 1))
            t_move = time.monotonic() - end
            assert r.play is not None and t_move < 1.0, t_move
            assert lim.restarts == 0  # stopped, not killed
        finally:
            lim.shutdown()

    asyncio.run(go())


# ----------------------------------------------------------------------------- thread work: admit_thread, run_job
def _thread_app(**kw):
    eng, ev = _slow_engine()
    app = create_app(engine=eng, settings=Settings(pool_kind="thread", pool_workers=1, **kw))
    state = {"ended": None, "raised": None, "cancel": None, "thread": None, "gate": threading.Event()}

    def deep_hints(n=1000):  # engine work that stops by itself
        try:
            state["thread"] = threading.current_thread().name
            for _ in range(n):
                eng.hint(START, (3, 1), "grandmaster")
            return {"done": n}
        except BaseException as exc:
            state["raised"] = type(exc).__name__
            raise
        finally:
            state["ended"] = time.monotonic()

    def polling(cancel):  # work of its own that polls the event
        state["cancel"] = cancel
        try:
            while not cancel.wait(0.01):
                pass
            return {"stopped": True}
        finally:
            state["ended"] = time.monotonic()

    def held():
        state["gate"].wait(10)
        return {"held": True}

    @app.post("/t/deep")
    async def deep(request: Request, n: int = 1000, deadline: float = 0.3):
        return await admit_thread(request, deep_hints, n, deadline_s=deadline)

    @app.post("/t/held")
    async def hold(request: Request):
        return await admit_thread(request, held)

    @app.post("/t/job")
    async def job(request: Request):
        return await run_job(request, polling, deadline_s=30)

    @app.post("/t/job-engine")
    async def job_engine(request: Request):
        return await run_job(request, lambda cancel: deep_hints(), deadline_s=30)

    @app.post("/t/short-run")
    async def short_run(request: Request):
        rows, _n = await request.app.state.limiter.run(RankJob(START, (3, 1), "grandmaster"), deadline_s=0.2)
        return {"n": len(rows)}

    return app, ev, state


def test_admit_thread_answers_off_the_event_loop():
    app, ev, state = _thread_app()
    with TestClient(app) as c:
        r = c.post("/t/deep", params={"n": 1, "deadline": 10})
        assert r.status_code == 200 and r.json() == {"done": 1}
        assert state["thread"].startswith("bgrl-job") and app.state.limiter.jobs_inflight == 0


def test_admit_thread_deadline_answers_504_and_stops_the_work():
    app, ev, state = _thread_app()
    with TestClient(app) as c:
        ev.delay = 0.002  # a grandmaster hint ~0.4 s: 1000 of them would be minutes
        t0 = time.monotonic()
        r = c.post("/t/deep", params={"deadline": 0.3})
        t_answer = time.monotonic()
        assert r.status_code == 504 and r.json()["code"] == "deadline_exceeded" and "0.3 s" in r.json()["message"]
        assert t_answer - t0 < 1.3
        t_end = time.monotonic() + 2
        while state["ended"] is None and time.monotonic() < t_end:
            time.sleep(0.01)
        assert state["raised"] == "Cancelled" and state["ended"] - t_answer < 0.3
        assert app.state.limiter.jobs_inflight == 0


def test_admit_thread_full_answers_503():
    app, ev, state = _thread_app(job_workers=1, max_jobs=1)
    with TestClient(app) as c:
        t = threading.Thread(target=lambda: c.post("/t/held"))
        t.start()
        t_end = time.monotonic() + 10
        while app.state.limiter.jobs_inflight < 1:
            assert time.monotonic() < t_end
            time.sleep(0.01)
        r = c.post("/t/deep", params={"n": 1})
        state["gate"].set()
        t.join()
        assert r.status_code == 503 and r.json()["code"] == "overloaded" and r.headers["retry-after"] == "1"
        assert c.post("/t/deep", params={"n": 1}).status_code == 200


def test_run_deadline_of_its_own():
    app, ev, state = _thread_app(deadline_s=60)
    with TestClient(app) as c:
        ev.delay = 0.002
        r = c.post("/t/short-run")
        assert r.status_code == 504 and "0.2 s" in r.json()["message"], r.text
        ev.delay = 0.0
        assert c.post("/t/short-run").json()["n"] > 0


@pytest.mark.parametrize("path", ["/t/job", "/t/job-engine"])
def test_run_job_stops_when_the_client_leaves(path):
    """A review-like job whose client disconnects after 0.5 s: its cancel event is set (or
    its engine calls stop) within a second, and its admission slot (the reviews' own) is free
    again."""
    app, ev, state = _thread_app()
    base, server = serve_in_thread(app)
    try:
        ev.delay = 0.002
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".encode())
            t_end = time.monotonic() + 5
            while app.state.limiter.reviews_inflight < 1:
                assert time.monotonic() < t_end
                time.sleep(0.01)
            time.sleep(0.5)
        left = time.monotonic()
        t_end = left + 5
        while (state["ended"] is None or app.state.limiter.reviews_inflight) and time.monotonic() < t_end:
            time.sleep(0.01)
        assert state["ended"] is not None and state["ended"] - left < 1.0, state
        assert app.state.limiter.reviews_inflight == 0
        if path == "/t/job":
            assert state["cancel"].is_set()
        else:
            assert state["raised"] == "Cancelled"
        with httpx.Client(base_url=base, timeout=5) as c:  # the server is fine
            assert c.get("/v1/health").status_code == 200
    finally:
        server.should_exit = True


def test_run_thread_direct():
    """Limiter.run_thread without HTTP: the result, a ServiceError passed on, ClientGone
    from a request that says it is disconnected, Overloaded once closing."""
    from bgrl.service.engine import ServiceError

    eng, _ev = _slow_engine()

    class Gone:
        async def is_disconnected(self):
            return True

    async def go():
        lim = Limiter(Settings(pool_kind="thread", pool_workers=1).resolved(injected=True), eng)
        await lim.start()
        try:
            assert await lim.run_thread(lambda a, b=0: a + b, 2, b=3) == 5
            assert await lim.run_thread(lambda c, x: (c.is_set(), x), 7, pass_cancel=True) == (False, 7)

            def bad():
                raise ServiceError("bad_file", "no")
            with pytest.raises(ServiceError):
                await lim.run_thread(bad)
            seen = []

            def waits(cancel):
                seen.append(cancel)
                cancel.wait(5)
            with pytest.raises(ClientGone):
                await lim.run_thread(waits, request=Gone(), pass_cancel=True, poll_s=0.01)
            assert seen[0].is_set()
            t_end = time.monotonic() + 2
            while lim.jobs_inflight and time.monotonic() < t_end:
                await asyncio.sleep(0.01)
            assert lim.jobs_inflight == 0
        finally:
            lim.shutdown()
        with pytest.raises(Overloaded):
            await lim.run_thread(lambda: 1)

    asyncio.run(go())


def test_new_settings_are_checked_and_resolved():
    cfg = Settings(pool_workers=4).resolved()
    assert cfg.job_workers == 2 and cfg.max_jobs == 128 and cfg.review_deadline_s > cfg.game_deadline_s > 0
    assert Settings(pool_workers=1).resolved().job_workers == 1
    for kw in ({"game_deadline_s": 0}, {"review_deadline_s": float("inf")}, {"deadline_s": -1}, {"max_jobs": -1}):
        with pytest.raises(ValueError):
            Settings(**kw).resolved()
