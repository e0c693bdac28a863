"""`bgrl serve` as a real uvicorn process on a free loopback port: polled on /v1/health,
asked the wildbg opening 31, overloaded a little (bounded: 12 requests), stopped by its PID."""

from __future__ import annotations

import concurrent.futures
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

OPENING_31 = "/move?die1=3&die2=1&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*extra: str) -> tuple[str, subprocess.Popen]:
    """A `bgrl serve` process on a free loopback port, healthy (fails the test otherwise)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "serve", "--port", str(port), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            pytest.fail(f"bgrl serve exited with {proc.returncode}: {proc.stderr.read()[-2000:]}")
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return base, proc
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("bgrl serve did not become healthy within 90 s")
        time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server():
    base, proc = start("--pool-workers", "1", "--max-inflight", "2", "--deadline", "60")
    try:
        yield base, proc
    finally:
        stop(proc)  # stopped by its PID (SIGTERM)


def test_real_server_answers_wildbg_opening(server):
    base, proc = server
    r = httpx.get(base + OPENING_31, timeout=30)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.json()["moves"][0]["play"] == [{"from": 8, "to": 5}, {"from": 6, "to": 5}]
    v = httpx.get(base + "/v1/version", timeout=10).json()
    assert v["limits"]["max_inflight"] == 2 and v["limits"]["pool_workers"] == 1
    assert httpx.get(base + "/docs", timeout=10).status_code == 200
    # an error raised inside a worker process comes back as JSON 400
    r = httpx.post(base + "/v1/move", json={"position": {"gnubg_id": "AAAAIAAAAAAAAA"}, "dice": [3, 1]}, timeout=30)
    assert r.status_code == 400 and r.json()["code"] == "game_over"


def test_real_server_sheds_load_with_503_and_stays_up(server):
    base, proc = server
    body = {"position": {"gnubg_id": "BAAQhVJKKSkFAA"}, "dice": [1, 1], "level": "expert", "top": 3}  # 2,226 plays

    def call(_):
        r = httpx.post(base + "/v1/hint", json=body, timeout=60)
        return r.status_code, r.headers.get("retry-after")

    with concurrent.futures.ThreadPoolExecutor(12) as ex:
        results = list(ex.map(call, range(12)))
    codes = [c for c, _ in results]
    assert set(codes) <= {200, 503}, codes
    assert codes.count(200) >= 1 and codes.count(503) >= 1, codes
    assert all(ra == "1" for c, ra in results if c == 503)
    assert httpx.get(base + "/v1/health", timeout=10).status_code == 200
    assert proc.poll() is None


def _moves_served(base: str) -> float:
    """Sum of the /metrics request counter over POST /v1/move answers."""
    total = 0.0
    for line in httpx.get(base + "/metrics", timeout=10).text.splitlines():
        if line.startswith("bgrl_requests_total{") and 'endpoint="/v1/move"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_two_replicas_behind_round_robin_answer_as_one(server):
    """The service is stateless: a round-robin client over two server processes gets, for
    every request, the answer one server gives, and both replicas serve their share."""
    one, _ = server
    second, proc = start("--pool-workers", "1")
    try:
        replicas = [one, second]
        before = [_moves_served(b) for b in replicas]
        reqs = [{"position": {"gnubg_id": pid}, "dice": d, "level": "intermediate", "seed": s}
                for s, (pid, d) in enumerate([("4HPwATDgc/ABMA", [3, 1]), ("4HPwATDgc/ABMA", [6, 6]),
                                              ("jOfgAFjGnsGAAw", [5, 2]), ("jOfgAFjGnsGAAw", [4, 4])] * 2)]
        rr = [httpx.post(replicas[i % 2] + "/v1/move", json=r, timeout=60) for i, r in enumerate(reqs)]
        alone = [httpx.post(one + "/v1/move", json=r, timeout=60) for r in reqs]
        assert [r.status_code for r in rr] == [200] * len(reqs) == [r.status_code for r in alone]
        assert [r.json()["play"] for r in rr] == [r.json()["play"] for r in alone]
        after = [_moves_served(b) for b in replicas]
        assert after[1] - before[1] == len(reqs) // 2  # the second replica served every other request
        assert after[0] - before[0] == len(reqs) // 2 + len(reqs)
    finally:
        stop(proc)


def test_stopped_by_pid(server):
    """SIGTERM with a request in flight: it is answered, then the server stops with one
    log line and no traceback."""
    base, proc = server
    heavy = {"position": {"gnubg_id": "BAAQhVJKKSkFAA"}, "dice": [1, 1], "level": "expert", "top": 3}  # 2,226 plays
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fut = ex.submit(httpx.post, base + "/v1/hint", json=heavy, timeout=60)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        r = fut.result()
    assert r.status_code == 200 and r.json()["legal_plays"] == 2226
    # uvicorn shuts down gracefully, then re-raises the signal it caught (exit status -SIGTERM)
    assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    err = proc.stderr.read()
    assert "Traceback" not in err and err.count("bgrl serve: stopped") == 1, err[-2000:]
    with pytest.raises(httpx.TransportError):
        httpx.get(base + "/v1/health", timeout=2)


@pytest.mark.slow
def test_dead_engine_worker_is_replaced():
    """A worker process that dies (killed, crashed) costs a 503, then a new pool serves."""
    import os

    from fastapi.testclient import TestClient

    from bgrl.service.app import Settings, create_app

    body = {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}
    with TestClient(create_app(settings=Settings(pool_kind="process", pool_workers=1))) as c:
        assert c.post("/v1/move", json=body).status_code == 200
        (pid,) = list(c.app.state.limiter.pool._processes)  # the one worker this test started
        os.kill(pid, signal.SIGKILL)
        codes = []
        for _ in range(20):
            r = c.post("/v1/move", json=body)
            codes.append(r.status_code)
            if r.status_code == 200:
                break
            assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text
            time.sleep(0.5)
        assert codes[0] == 503 and codes[-1] == 200 and r.json()["play"] == "8/5 6/5", codes


def test_no_engine_worker_outlives_the_server():
    """Shutting the server down (lifespan end, as on SIGTERM) terminates its worker processes."""
    from fastapi.testclient import TestClient

    from bgrl.service.app import Settings, create_app

    body = {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}
    with TestClient(create_app(settings=Settings(pool_kind="process", pool_workers=1))) as c:
        assert c.post("/v1/move", json=body).status_code == 200
        procs = list(c.app.state.limiter.pool._processes.values())
        assert procs and all(p.is_alive() for p in procs)
    time.sleep(0.5)
    assert not any(p.is_alive() for p in procs)


def test_ctrl_c_stops_cleanly_without_worker_tracebacks():
    """issue 17 item 8: Ctrl-C in a terminal sends SIGINT to the whole process group, the
    engine worker processes too; the server stops with one line and no traceback."""
    import os

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "serve", "--port", str(port), "--pool-workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, proc.stderr.read()[-2000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "bgrl serve did not become healthy within 90 s"
            time.sleep(0.2)
        assert httpx.get(f"http://127.0.0.1:{port}{OPENING_31}", timeout=60).status_code == 200  # the workers are busy once
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C: the server's whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode in (0, -signal.SIGINT, 130)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1] == "bgrl serve: stopped" and err.count("bgrl serve: stopped") == 1, err[-2000:]
