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

from service_fakes import fake_evaluator, serve_in_thread  # noqa: E402


BASE, _SERVER = serve_in_thread(create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake")))
schema = schemathesis.openapi.from_url(BASE + "/openapi.json")

CHECKS = [checks.not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
          checks.response_schema_conformance]


@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_from_its_own_schema(case):
    case.call_and_validate(checks=CHECKS, timeout=30)
