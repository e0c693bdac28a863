"""wildbg-compatible ``GET /move`` and ``GET /eval`` refuse unknown or repeated query
parameters (400, naming them and the accepted ones) instead of silently ignoring them."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.service.app import create_app  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402

MOVE = "/move?die1=3&die2=1&p5=1&p24=-1"
EVAL = "/eval?p5=1&p24=-1"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"))) as c:
        yield c


def test_known_parameters_still_answer(client):
    assert client.get(MOVE).status_code == 200
    assert client.get(MOVE + "&x_away=0&o_away=0&level=expert&seed=3").status_code == 200
    assert client.get(EVAL + "&level=expert&p0=0&p25=0").status_code == 200


@pytest.mark.parametrize("url, unknown, accepted", [
    (MOVE + "&P6=1", "'P6'", "die1, die2, x_away, o_away, level, seed, p0..p25"),
    (MOVE + "&p26=1", "'p26'", "die1, die2, x_away, o_away, level, seed, p0..p25"),
    ("/move?die_1=3&die2=1&p5=1&p24=-1", "'die_1'", "die1, die2"),  # named even though die1 is missing
    (EVAL + "&die1=3", "'die1'", "accepted: level, p0..p25"),
    (EVAL + "&seed=1", "'seed'", "accepted: level, p0..p25"),
])
def test_unknown_parameter_is_400_naming_it(client, url, unknown, accepted):
    r = client.get(url)
    assert r.status_code == 400
    body = r.json()
    assert body["code"] == "unknown_parameter"
    assert f"unknown query parameter {unknown}" in body["message"] and accepted in body["message"]


def test_repeated_parameter_is_400(client):
    r = client.get(MOVE + "&p5=2")
    assert r.status_code == 400 and r.json()["code"] == "duplicate_parameter" and "p5" in r.json()["message"]
