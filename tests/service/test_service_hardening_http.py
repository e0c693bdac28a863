"""Bounded request heads on a real uvicorn server (issue 40): the protocol of
:func:`bgrl.service.protocol.http_protocol` answers a head over the size limit (a 1 MiB header
at once) or with too many lines 431, a head that trickles or stalls 408 within the header
timeout, malformed HTTP a JSON 400, each with the security headers; keep-alive and a body
sent after the header timeout still work; ``Host: rebind.example.com`` gets 400 and
``HEAD /v1/health`` 200 over the wire."""

from __future__ import annotations

import json
import select
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("httptools")
httpx = pytest.importorskip("httpx")

from bgrl.service.app import Settings, create_app, http_protocol  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402

HEADER_TIMEOUT = 2.0  # seconds (1.0 closed a first request once on a loaded 2-core machine)
MAX_HEAD = 8192
SETTINGS = Settings(header_timeout_s=HEADER_TIMEOUT, max_header_bytes=MAX_HEAD, max_headers=50, body_timeout_s=10)


@pytest.fixture(scope="module")
def port():
    app = create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"), settings=SETTINGS)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=p, log_level="error", access_log=False,
                                        http=http_protocol(SETTINGS)))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    t_end = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{p}/v1/health", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < t_end and th.is_alive(), "the test server did not start"
        time.sleep(0.05)
    yield p
    srv.should_exit = True
    th.join(timeout=10)


def _parse(data: bytes):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
    n = int(headers.get("content-length", len(body)))
    return int(lines[0].split()[1]), headers, body[:n]


def _read_answer(s: socket.socket) -> bytes:
    """One whole answer from a kept-alive connection: its head, then Content-Length bytes of
    body (an answer may come in several segments: its head and its body apart)."""
    out = b""
    while b"\r\n\r\n" not in out:
        chunk = s.recv(65536)
        if not chunk:
            return out
        out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    n = next((int(ln.split(b":", 1)[1]) for ln in head.split(b"\r\n")[1:] if ln.lower().startswith(b"content-length:")), 0)
    while len(body) < n and (chunk := s.recv(65536)):
        body += chunk
    return head + b"\r\n\r\n" + body


def _exchange(port: int, data: bytes, timeout: float = 10.0):
    """Send ``data`` (as much as the server takes), then read until the server closes;
    (status, headers, body, seconds)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(timeout)
        t0 = time.perf_counter()
        try:
            s.sendall(data)
        except OSError:  # the server answered and stopped reading
            pass
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
        return (*_parse(out), time.perf_counter() - t0)


def _security(headers: dict) -> None:
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_one_mib_header_gets_431_at_once(port):
    data = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
    status, headers, body, took = _exchange(port, data)
    assert status == 431 and headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert json.loads(body)["code"] == "headers_too_large" and str(MAX_HEAD) in json.loads(body)["message"]
    _security(headers)
    assert took < HEADER_TIMEOUT  # answered on size, not on time


def test_head_just_over_the_limit_in_one_piece(port):
    data = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * MAX_HEAD + b"\r\n\r\n"
    status, _, body, _ = _exchange(port, data)
    assert status == 431 and json.loads(body)["code"] == "headers_too_large"
    ok = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Fits: " + b"a" * (MAX_HEAD // 2) + b"\r\n\r\n"
    assert _exchange(port, ok)[0] == 200


def test_too_many_header_lines_get_431(port):
    data = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(60)) + b"\r\n"
    status, headers, body, _ = _exchange(port, data)
    assert status == 431 and json.loads(body) == {"code": "too_many_headers", "message": "more than 50 header lines"}
    _security(headers)


@pytest.mark.parametrize("data", [b"GARBAGE\x01 / HTTP/1.1\r\n\r\n", b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
                                  b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n"])
def test_malformed_http_gets_json_400(port, data):
    status, headers, body, _ = _exchange(port, data)
    assert status == 400 and headers["content-type"] == "application/json", body
    assert json.loads(body)["code"] == "bad_http" and "expected" in json.loads(body)["message"]
    _security(headers)


def test_stalled_head_gets_408_within_the_header_timeout(port):
    status, headers, body, took = _exchange(port, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")
    assert status == 408 and json.loads(body)["code"] == "header_timeout"
    _security(headers)
    assert HEADER_TIMEOUT * 0.9 <= took < HEADER_TIMEOUT + 3


def test_idle_connection_is_closed(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(HEADER_TIMEOUT + 5)
        t0 = time.perf_counter()
        assert s.recv(100) == b""
        assert time.perf_counter() - t0 < HEADER_TIMEOUT + 3


def test_trickling_heads_are_closed_within_the_header_timeout(port):
    """64 connections each sending one byte of a header every 0.1 s: every one is answered
    408 and closed within the header timeout (plus slack), none is held."""
    n, t0 = 64, time.perf_counter()
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    for s in socks:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        s.setblocking(False)
    data = {s: b"" for s in socks}
    closed_at = {}
    try:
        while len(closed_at) < n and time.perf_counter() - t0 < HEADER_TIMEOUT + 10:
            for s in socks:
                if s not in closed_at:
                    try:
                        s.send(b"a")
                    except OSError:
                        pass
            readable, _, _ = select.select([s for s in socks if s not in closed_at], [], [], 0.1)
            for s in readable:
                try:
                    chunk = s.recv(65536)
                except OSError:
                    chunk = b""
                data[s] += chunk
                if not chunk:
                    closed_at[s] = time.perf_counter() - t0
    finally:
        for s in socks:
            s.close()
    assert len(closed_at) == n, f"{n - len(closed_at)} trickling connections still open"
    assert max(closed_at.values()) < HEADER_TIMEOUT + 3, max(closed_at.values())
    answered = [_parse(d)[0] for d in data.values() if d]
    assert answered and set(answered) == {408}


def test_keep_alive_and_a_late_body_still_work(port):
    """The header clock stops at the end of the head: a body may follow later (its own
    --body-timeout), and a kept-alive connection is timed afresh for each request."""
    body = json.dumps({"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}).encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(10)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _parse(_read_answer(s))[0] == 200
        answered = time.monotonic()
        time.sleep(HEADER_TIMEOUT * 0.25)  # a pause between requests, well inside the header timeout
        if time.monotonic() - answered > HEADER_TIMEOUT * 0.8:  # this process was descheduled (a loaded CI machine)
            pytest.skip("the test process stalled past the header timeout between the two requests")
        s.sendall(f"POST /v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n".encode())
        time.sleep(HEADER_TIMEOUT * 1.5)  # past the header timeout, within the body timeout
        s.sendall(body)
        status, _, answer = _parse(_read_answer(s))
        assert status == 200 and json.loads(answer)["play"]


def test_rebinding_host_gets_400_and_head_works(port):
    base = f"http://127.0.0.1:{port}"
    r = httpx.get(base + "/v1/health", headers={"host": "rebind.example.com"})
    assert r.status_code == 400 and r.json()["code"] == "bad_host"
    r = httpx.head(base + "/v1/health")
    assert r.status_code == 200 and r.content == b"" and int(r.headers["content-length"]) > 0
    _security(r.headers)
    r = httpx.get(base + "/")
    assert r.status_code == 200 and "script-src 'self'" in r.headers["content-security-policy"]


def test_http11_without_host_gets_400_and_http10_is_served(port):
    status, headers, body, _ = _exchange(port, b"GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert status == 400 and json.loads(body)["code"] == "bad_host" and "Host" in json.loads(body)["message"]
    _security(headers)
    assert _exchange(port, b"GET /v1/health HTTP/1.0\r\n\r\n")[0] == 200
