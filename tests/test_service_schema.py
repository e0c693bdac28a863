"""Schemathesis: property-based requests generated from the app's own /openapi.json
(every route, valid and invalid bodies and queries) against the app with the fake
evaluator. No input may give a 5xx, and every response must match the schema (status
codes documented, bodies of the declared shape, content type)."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import checks  # noqa: E402

from bgrl.service.app import create_app  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402

def _serve_in_thread(app):
    """uvicorn on a free loopback port in a daemon thread; the base URL once it answers."""
    import socket
    import threading
    import time

    import httpx
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return base, server
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the test server did not start")


BASE, _SERVER = _serve_in_thread(create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake")))
schema = schemathesis.openapi.from_url(BASE + "/openapi.json")

CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
          checks.response_schema_conformance]


@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_from_its_own_schema(case):
    case.call_and_validate(checks=CHECKS, timeout=30)
