"""A client that sends its headers and then stalls or trickles its body gets 408
``body_timeout`` once ``Settings.body_timeout_s`` has passed (``bgrl serve
--body-timeout``), and other clients are served meanwhile."""

from __future__ import annotations

import json
import socket
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator, serve_in_thread  # noqa: E402

TIMEOUT = 1.5  # seconds; generous, so that a slow CI machine still serves the other client first


@pytest.fixture(scope="module")
def server():
    app = create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"),
                     settings=Settings(body_timeout_s=TIMEOUT))
    base, srv = serve_in_thread(app)
    yield int(base.rsplit(":", 1)[1])
    srv.should_exit = True


def _read_response(sock) -> tuple[int, dict]:
    data = b""
    sock.settimeout(10)
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(v for k, v in (line.split(b":", 1) for line in head.split(b"\r\n")[1:]) if k.lower() == b"content-length"))
    while len(body) < length:
        body += sock.recv(4096)
    return int(head.split()[1]), json.loads(body)


def _headers(port: int, length: int) -> bytes:
    return (f"POST /v1/move HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            f"content-length: {length}\r\n\r\n").encode()


def test_stalled_body_gets_408_and_others_are_served(server):
    body = json.dumps({"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "level": "expert"}).encode()
    with socket.create_connection(("127.0.0.1", server)) as slow:
        t0 = time.perf_counter()
        slow.sendall(_headers(server, len(body)) + body[:10])  # then nothing
        with socket.create_connection(("127.0.0.1", server)) as fast:  # served while the other stalls
            fast.sendall(_headers(server, len(body)) + body)
            status, answer = _read_response(fast)
            assert status == 200 and answer["play"]
            assert time.perf_counter() - t0 < TIMEOUT
        status, answer = _read_response(slow)
        waited = time.perf_counter() - t0
    assert status == 408 and answer["code"] == "body_timeout", answer
    assert TIMEOUT * 0.9 <= waited < TIMEOUT + 5


def test_trickled_body_is_timed_as_a_whole(server):
    """One byte every 0.1 s: each read is quick, the whole body is not."""
    body = json.dumps({"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1]}).encode()
    with socket.create_connection(("127.0.0.1", server)) as s:
        t0 = time.perf_counter()
        s.sendall(_headers(server, len(body)))
        s.setblocking(True)
        for b in body[: int(3 * TIMEOUT / 0.1)]:
            try:
                s.sendall(bytes([b]))
            except OSError:  # the server answered and closed
                break
            time.sleep(0.1)
        status, answer = _read_response(s)
    assert status == 408 and answer["code"] == "body_timeout"
    assert time.perf_counter() - t0 < 3 * TIMEOUT + 5


def test_bad_body_timeout_setting():
    with pytest.raises(ValueError, match="body_timeout_s"):
        Settings(body_timeout_s=0).resolved()
