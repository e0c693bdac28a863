"""The service at scale (issue 21): batching across requests gives the same answers as one
request at a time, with and without concurrent load; /metrics counters move; access logs
carry a request id; the UBGI engine and the wildbg query routes survive random input."""

from __future__ import annotations

import json
import logging
import re
import threading

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.agents.levels import load_level  # noqa: E402
from bgrl.agents.registry import load_agent  # noqa: E402
from bgrl.rules.board import Position  # noqa: E402
from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine, EvalJob, ListJob, MoveJob, RankJob, ServiceError  # noqa: E402
from bgrl.service.ubgi import UbgiSession  # noqa: E402

from positions import agent_game_positions  # noqa: E402
from service_fakes import fake_evaluator  # noqa: E402


@pytest.fixture(scope="module")
def decisions():
    boards, dice = agent_game_positions(load_agent("pubeval"), np.random.default_rng(21), 48, parallel=16)
    return [(Position(np.asarray(b, dtype=np.int64)), (int(d[0]), int(d[1]))) for b, d in zip(boards, dice)]


@pytest.fixture(scope="module")
def real_engine():
    return Engine()


def _key(r):
    """A comparable form of an engine answer (plays, rounded nothing: exact floats)."""
    if isinstance(r, ServiceError):
        return ("error", r.code)
    if hasattr(r, "result_id"):
        return ("move", r.result_id, r.seed, r.ply)
    if isinstance(r, tuple) and isinstance(r[0], list):
        return ("ranked", r[1], [(x.play.position_id, x.ply, x.probabilities.to_array().tolist()) for x in r[0]])
    if isinstance(r, tuple):
        return ("eval", np.asarray(r[0]).tolist(), r[1])
    return ("list", [(p.position_id if p is not None else None, np.asarray(pr).tolist()) for p, pr in r])


def test_run_batch_equals_one_call_at_a_time(real_engine, decisions):
    """Every kind of call, mixed levels and seeds, bad requests among them: one batch gives
    exactly (bit for bit) what each call gives alone."""
    jobs = []
    for i, (pos, d) in enumerate(decisions):
        jobs += [MoveJob(pos, d, "expert", i), MoveJob(pos, d, "casual", 7 * i), ListJob(pos, d, "expert", None, i % 2 == 0),
                 EvalJob(pos, "expert")]
        if i < 4:
            jobs.append(RankJob(pos, d, "world-class", 3))
    jobs.insert(5, MoveJob(decisions[0][0], (7, 1), "expert", 1))  # bad dice: an error for that call only
    jobs.insert(9, MoveJob(decisions[0][0], (3, 1), "supergrandmaster", 1))
    batched = real_engine.run_batch(jobs)
    alone = [real_engine.run_batch([j])[0] for j in jobs]
    assert [_key(r) for r in batched] == [_key(r) for r in alone]
    assert _key(batched[5]) == ("error", "bad_dice") and _key(batched[9]) == ("error", "bad_level")
    # and the order inside a batch does not matter either
    rev = real_engine.run_batch(jobs[::-1])[::-1]
    assert [_key(r) for r in rev] == [_key(r) for r in alone]


def test_batched_moves_are_the_levels_plays(real_engine, decisions):
    """The service's expert play is the level agent's own choose_play, for every decision."""
    agent = load_level("expert")
    got = real_engine.run_batch([MoveJob(p, d, "expert", 0) for p, d in decisions])
    want = [agent.choose_play(p, d) for p, d in decisions]
    assert [r.result_id for r in got] == [w.position_id if w is not None else r.result_id for r, w in zip(got, want)]


def _strip(js: dict) -> dict:
    return {k: v for k, v in js.items() if k != "elapsed_ms"}


def test_http_answers_same_with_and_without_concurrent_load(decisions):
    """Through HTTP: the same requests answered one at a time and from 16 threads at once
    (so that they are batched together: the batch-size histogram shows it) are identical."""
    reqs = []
    for i, (pos, d) in enumerate(decisions[:32]):
        pid = pos.position_id
        reqs.append(("/v1/move", {"position": {"gnubg_id": pid}, "dice": list(d), "level": "casual", "seed": i}))
        reqs.append(("/v1/move", {"position": {"gnubg_id": pid}, "dice": list(d), "level": "expert", "seed": 3}))
        if i < 3:
            reqs.append(("/v1/hint", {"position": {"gnubg_id": pid}, "dice": list(d), "level": "world-class", "top": 3}))
    with TestClient(create_app(settings=Settings(pool_kind="thread", pool_workers=1, batch_window_ms=20))) as c:
        alone = [c.post(p, json=b) for p, b in reqs]
        assert all(r.status_code == 200 for r in alone)
        loaded: list = [None] * len(reqs)
        barrier = threading.Barrier(16)

        def client(k):
            barrier.wait()
            for j in range(k, len(reqs), 16):
                loaded[j] = c.post(reqs[j][0], json=reqs[j][1])

        threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        metrics = c.get("/metrics").text
    assert [_strip(r.json()) for r in loaded] == [_strip(r.json()) for r in alone]
    sizes = {float(m.group(1)): float(m.group(2)) for m in re.finditer(r'bgrl_batch_size_bucket\{le="([0-9.]+)"\} ([0-9.e+]+)', metrics)}
    count = float(re.search(r"bgrl_batch_size_count ([0-9.e+]+)", metrics).group(1))
    assert count - sizes[1.0] > 0, "no batch held more than one request under load"


def _sample(text: str, name: str, **labels) -> float:
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            got = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
            if all(got.get(k) == v for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_counters_move_and_request_id_is_echoed(caplog):
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    body = {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "level": "expert", "seed": 1}
    with TestClient(create_app(engine=eng)) as c:
        before = c.get("/metrics")
        assert before.status_code == 200 and before.headers["content-type"].startswith("text/plain")
        t0 = before.text
        with caplog.at_level(logging.INFO, logger="bgrl.access"):
            r = c.post("/v1/move", json=body, headers={"X-Request-ID": "table-7.move-42"})
            bad = c.post("/v1/move", json={**body, "dice": [9, 9]})
            c.post("/v1/move", json=body)
        t1 = c.get("/metrics").text
    assert r.status_code == 200 and r.headers["x-request-id"] == "table-7.move-42"
    assert bad.status_code == 400 and re.fullmatch(r"[0-9a-f]{16}", bad.headers["x-request-id"])
    ok = dict(endpoint="/v1/move", level="expert", status="200")
    assert _sample(t1, "bgrl_requests_total", **ok) - _sample(t0, "bgrl_requests_total", **ok) == 2
    assert _sample(t1, "bgrl_requests_total", endpoint="/v1/move", level="expert", status="400") == 1
    assert _sample(t1, "bgrl_request_seconds_count", endpoint="/v1/move") == 3
    assert _sample(t1, "bgrl_batch_size_count") >= 2 > _sample(t0, "bgrl_batch_size_count")
    for name in ("bgrl_queue_depth", "bgrl_inflight", "bgrl_worker_restarts_total", "bgrl_batch_seconds_count"):
        assert re.search(rf"^{name} ", t1, re.M), name
    lines = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "bgrl.access"]
    assert [x["status"] for x in lines] == [200, 400, 200]
    assert lines[0]["request_id"] == "table-7.move-42" and lines[0]["path"] == "/v1/move" and lines[0]["level"] == "expert"
    assert all(x["ms"] >= 0 for x in lines)


def test_a_bad_request_id_is_replaced():
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    with TestClient(create_app(engine=eng)) as c:
        r = c.get("/v1/health", headers={"X-Request-ID": "x" * 500})
    assert r.status_code == 200 and re.fullmatch(r"[0-9a-f]{16}", r.headers["x-request-id"])


# ----------------------------------------------------------------------------- fuzz
_UBGI_WORDS = ["ubgi", "isready", "newgame", "position", "go", "quit", "setoption", "name", "value", "engine.level",
               "engine.ply", "engine.seed", "dice", "xgid", "gnubgid", "4HPwATDgc/ABMA", "31", "66", "0", "-1", "7",
               "expert", "world-class", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "board", "moves", "stop",
               "\x00", "é", "9" * 30, "position gnubgid", "go ply", "setoption name engine.ply value 99"]


def test_ubgi_random_lines_and_commands_out_of_order():
    """Random lines, random words and real commands in random order: every line gets at
    most a handful of answers, none is a traceback, and the session stays alive until quit."""
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    rng = np.random.default_rng(2121)
    for session in range(30):
        out: list[str] = []
        s = UbgiSession(out.append, engine_factory=lambda: eng)
        for _ in range(40):
            kind = rng.integers(3)
            if kind == 0:
                line = " ".join(rng.choice(_UBGI_WORDS, size=rng.integers(1, 6)))
            elif kind == 1:
                line = "".join(chr(int(c)) for c in rng.integers(1, 0x2FF, size=rng.integers(0, 40)))
            else:
                line = str(rng.choice(["go", "isready", "position gnubgid 4HPwATDgc/ABMA", "dice 31", "newgame", "ubgi",
                                       "setoption name engine.level value casual", "setoption name engine.seed value 5"]))
            if line.split()[:1] == ["quit"]:
                continue
            n = len(out)
            assert s.handle(line) is True, line
            assert len(out) - n <= 12, (line, out[n:])
            assert not any("Traceback" in x for x in out[n:]), (line, out[n:])
        assert s.handle("quit") is False


def test_wildbg_routes_random_queries_never_500():
    """Random query strings (random names, values, repeats, pip counts) on GET /move and
    GET /eval: always JSON with 200, 400 or 422, never a 5xx."""
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    rng = np.random.default_rng(2122)
    names = [f"p{i}" for i in range(27)] + ["die1", "die2", "level", "seed", "x_away", "o_away", "P5", "", "p-1", "die3"]
    values = ["0", "1", "2", "-2", "15", "-15", "16", "6", "7", "-0", "1e3", "x", "", "expert", "9" * 25, "%00", "0x1", "3.5"]
    with TestClient(create_app(engine=eng)) as c:
        for _ in range(400):
            path = str(rng.choice(["/move", "/eval"]))
            k = int(rng.integers(0, 30))
            q = "&".join(f"{rng.choice(names)}={rng.choice(values)}" for _ in range(k))
            if rng.random() < 0.5:  # many near-valid: a start-like position plus noise
                q = "die1=3&die2=1&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5" + ("&" + q if q else "")
            r = c.get(f"{path}?{q}")
            assert r.status_code in (200, 400, 422), (path, q, r.status_code, r.text)
            assert isinstance(r.json(), dict)


def test_queued_calls_are_split_over_the_idle_workers():
    """Eight calls queued at once with two idle workers go out as two batches of four, not
    one batch of eight on one worker while the other waits (a closed loop of clients would
    otherwise keep one worker busy and the other idle). The dispatcher is held (no worker
    looks free) until all eight are queued, so the test does not depend on timing."""
    import time

    from service_fakes import SlowEvaluator

    eng = Engine(evaluator=SlowEvaluator(0.05), model_sha256="fake")
    with TestClient(create_app(engine=eng, settings=Settings(pool_kind="thread", pool_workers=2, batch_window_ms=0))) as c:
        lim = c.app.state.limiter
        real_submit = lim._submit
        sizes = []

        def submit(live, real_submit=real_submit):
            sizes.append(len(live))
            real_submit(live)

        lim._submit = submit
        lim._idle_worker = lambda: None  # hold the dispatcher: no worker looks free
        body = {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "level": "expert", "seed": 1}
        out = []
        threads = [threading.Thread(target=lambda: out.append(c.post("/v1/move", json=body).status_code)) for _ in range(8)]
        for t in threads:
            t.start()
        t_end = time.monotonic() + 30
        while len(lim.queue) < 8 and time.monotonic() < t_end:
            time.sleep(0.01)
        assert len(lim.queue) == 8
        del lim._idle_worker  # the real one again; wake the dispatcher on its own loop
        lim._loop.call_soon_threadsafe(lim._free.set)
        for t in threads:
            t.join()
    assert out == [200] * 8
    assert sizes == [4, 4], sizes
