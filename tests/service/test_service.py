"""The HTTP service (bgrl serve): every endpoint, error path and limit, through FastAPI's
TestClient with an injected fake evaluator (exact JSON), plus the real network where the
answer is known (the opening 31)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.rules.board import START_BOARD, START_POSITION_ID, Position, flip  # noqa: E402
from bgrl.agents.cube import pre_roll_decision  # noqa: E402
from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.agents.levels import LEVEL_NAMES  # noqa: E402
from bgrl.service.engine import Engine, xgid_supported  # noqa: E402
from bgrl.agents.levels import LEVELS  # noqa: E402

from service_fakes import SlowEvaluator, fake_evaluator  # noqa: E402

OPENING_31 = "/move?die1=3&die2=1&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"
SNAPSHOT = Path(__file__).parents[1] / "data" / "openapi.json"
PROB_KEYS = {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
WILDBG_KEYS = {"win", "winG", "winBg", "loseG", "loseBg"}


@pytest.fixture(scope="module")
def fake_engine():
    return Engine(evaluator=fake_evaluator, model_sha256="fake")


@pytest.fixture(scope="module")
def client(fake_engine):
    with TestClient(create_app(engine=fake_engine)) as c:
        yield c


@pytest.fixture(scope="module")
def real():
    """The shipped engine (threads here; worker processes are tested in test_serve_process.py)."""
    with TestClient(create_app(settings=Settings(pool_kind="thread"))) as c:
        yield c


def move_body(pos=None, dice=(3, 1), **kw):
    return {"position": pos or {"gnubg_id": START_POSITION_ID}, "dice": list(dice), **kw}


# ----------------------------------------------------------------------------- wildbg
def test_wildbg_opening_31_real_network(real):
    r = real.get(OPENING_31)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    moves = r.json()["moves"]
    assert moves[0]["play"] == [{"from": 8, "to": 5}, {"from": 6, "to": 5}]
    assert len(moves) == 16  # every legal play of 31 from the start
    for m in moves:
        assert set(m) == {"play", "probabilities"}
        assert set(m["probabilities"]) == WILDBG_KEYS
        p = m["probabilities"]
        assert 1 >= p["win"] >= p["winG"] >= p["winBg"] >= 0 and 1 - p["win"] >= p["loseG"] >= p["loseBg"] >= 0


def test_wildbg_move_exact_json(client):
    # the default level (expert) is 0-ply without noise: values computable by hand.
    # x: one checker on its 5-point; o: one checker on x's 24-point. 31 plays 5/2 2/1.
    r = client.get("/move?die1=3&die2=1&p5=1&p24=-1")
    assert r.status_code == 200
    assert r.text == (
        '{"moves":[{"play":[{"from":5,"to":2},{"from":2,"to":1}],'
        '"probabilities":{"win":0.25,"winG":0.0625,"winBg":0.015625,"loseG":0.1875,"loseBg":0.046875}}]}'
    )


def test_wildbg_move_no_legal_play_gives_one_empty_play(client):
    # x on the bar, o holds every entry point (x's 19..24): no die can be played.
    q = "/move?die1=3&die2=1&p25=1&p19=-2&p20=-2&p21=-2&p22=-2&p23=-2&p24=-2&p1=5"
    r = client.get(q)
    assert r.status_code == 200
    moves = r.json()["moves"]
    assert len(moves) == 1 and moves[0]["play"] == []
    assert set(moves[0]["probabilities"]) == WILDBG_KEYS


def test_wildbg_move_ranked_best_first_and_dmp(client, fake_engine):
    q = "/move?die1=6&die2=5&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"
    money = client.get(q).json()["moves"]
    rows = fake_engine.hint(Position.start(), (6, 5), "expert")
    assert [m["play"] for m in money] == [[{"from": a, "to": b} for a, b in sorted(((s, max(d, 0)) for s, d, _ in r.play.moves), key=lambda t: (-t[0], t[1]))] for r in rows]
    dmp = client.get(q + "&x_away=1&o_away=1").json()["moves"]
    wins = [m["probabilities"]["win"] for m in dmp]
    assert wins == sorted(wins, reverse=True)


def test_wildbg_eval_exact_json_and_cube(client):
    r = client.get("/eval?p5=1&p24=-1")
    assert r.status_code == 200
    # Side on roll: the fake scores the opponent's view (made 0, our bar 0) -> win 0.25 for it;
    # our equity 0.5 + 0.125 + 0.03125 = 0.65625: double, and the opponent should pass.
    assert r.text == '{"cube":{"double":true,"accept":false},"probabilities":{"win":0.75,"winG":0.1875,"winBg":0.046875,"loseG":0.0625,"loseBg":0.015625}}'
    # the real cube engine (Janowski, bgrl.evaluation.cube): a last roll, cube life 0
    start = Position.start()
    assert pre_roll_decision(start, [0.80, 0.0, 0.0, 0.0, 0.0]).decision == "double, pass"  # contact: x = 0.68, take point 21.4%
    assert pre_roll_decision(start, [0.70, 0.0, 0.0, 0.0, 0.0]).decision == "double, take"
    assert pre_roll_decision(start, [0.55, 0.0, 0.0, 0.0, 0.0]).decision == "no double"
    assert pre_roll_decision(start, [0.9, 0.7, 0.0, 0.0, 0.0]).decision == "too good to double"


def test_v1_cube(client):
    body = {"position": {"gnubg_id": START_POSITION_ID}}
    r = client.post("/v1/cube", json=body)
    assert r.status_code == 200, r.text
    obj = r.json()
    assert obj["position_id"] == START_POSITION_ID and obj["level"] == "expert"
    assert set(obj["cube"]) == {"decision", "take", "equities"}
    assert set(obj["cube"]["equities"]) == {"no_double", "double_take", "double_pass"}
    assert obj["cube"]["equities"]["double_pass"] == 1.0
    m = client.post("/v1/cube", json={**body, "match": {"length": 7, "score": [2, 4]}, "cube": {"value": 1, "owner": 0}})
    assert m.status_code == 200 and m.json()["cube"]["equities"]["double_pass"] == pytest.approx(1.0)
    for bad, word in [({"cube": {"value": 3, "owner": 1}}, "power of 2"),
                      ({"match": {"length": 5, "score": [5, 1]}}, "at or above the match length"),
                      ({"match": {"length": 5, "score": [4, 1], "crawford": True}}, "Crawford"),
                      ({"cube": {"value": 2, "owner": -1}}, "opponent owns")]:
        r = client.post("/v1/cube", json={**body, **bad})
        assert r.status_code == 400 and word in r.json()["message"], r.text


@pytest.mark.parametrize(
    "query, status, code",
    [
        ("/move?die1=3&die2=1&p0=1&p5=1", 400, "bad_position"),  # opponent's bar must be <= 0
        ("/move?die1=3&die2=1&p25=-2&p5=1&p4=-1", 400, "bad_position"),
        ("/move?die1=2&die2=0&p4=4&p5=-5", 400, "bad_dice"),
        ("/move?die1=7&die2=1&p4=4&p5=-5", 400, "bad_dice"),
        ("/move?die1=3&die2=1&p4=4&p5=-5&x_away=30&o_away=2", 400, "bad_score"),
        ("/move?die1=3&die2=1&p4=4&p5=-5&x_away=0&o_away=2", 400, "bad_score"),
        ("/move?die1=3&die2=1&p4=16", 422, "invalid_request"),
        ("/move?die1=3", 422, "invalid_request"),
        ("/move?die1=x&die2=1", 422, "invalid_request"),
        ("/move?die1=3&die2=1&p4=1e400", 422, "invalid_request"),
        ("/move?die1=3&die2=1&level=supergrandmaster&p5=1&p4=-1", 422, "invalid_request"),
        ("/eval?p1=15&p2=1&p5=-1", 400, "bad_position"),  # 16 checkers
        ("/eval?p1=-16", 422, "invalid_request"),
        ("/move?die1=3&die2=1&p5=1", 400, "game_over"),  # the opponent has borne off all 15
    ],
)
def test_wildbg_errors_are_json(client, query, status, code):
    r = client.get(query)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["code"] == code and isinstance(body["message"], str) and body["message"]


# ----------------------------------------------------------------------------- /v1/move
def test_move_fields_and_plain_notation(real):
    r = real.post("/v1/move", json=move_body(level="expert", seed=7))
    assert r.status_code == 200
    b = r.json()
    assert set(b) == {"play", "moves", "position_id", "level", "ply", "seed", "engine", "version", "model_sha256", "elapsed_ms"}
    assert b["play"] == "8/5 6/5" and b["moves"] == [{"from": 8, "to": 5}, {"from": 6, "to": 5}]
    assert b["position_id"] == "sGfwATDgc/ABMA" and b["seed"] == 7 and b["level"] == "expert"
    assert b["engine"] == "bgrl" and len(b["model_sha256"]) == 64 and b["elapsed_ms"] >= 0
    assert b["model_sha256"] == _manifest_sha()[LEVELS["expert"].network]


def _manifest_sha() -> dict:
    manifest = json.loads((Path(__file__).parents[2] / "checkpoints" / "manifest.json").read_text())
    return {Path(e["file"]).stem: e["sha256"] for e in manifest.values() if isinstance(e, dict) and "sha256" in e}


@pytest.mark.parametrize("level", ["beginner", "advanced", "expert", "world-class"])
def test_model_sha256_is_the_level_network(real, level):
    """Each answer names the network that produced it: the level's, not always default.pt's."""
    sha = _manifest_sha()
    net = LEVELS[level].network
    want = sha[net] if net in sha else sha["default"]  # a level whose network is not shipped plays default
    pos = {"gnubg_id": START_POSITION_ID}
    for path, body in (("/v1/move", move_body(level=level, seed=1)), ("/v1/hint", {"position": pos, "dice": [3, 1], "level": level, "top": 2}),
                       ("/v1/eval", {"position": pos, "level": level})):
        r = real.post(path, json=body)
        assert r.status_code == 200, r.text
        assert r.json()["model_sha256"] == want, (path, level)
    lv = {x["name"]: x for x in real.get("/v1/version").json()["levels"]}[level]
    assert lv["sha256"] == want and lv["network"] == (net if net in sha else "default") and lv["file"] == lv["network"] + ".pt"


def noisiest(engine) -> str:
    name = max(LEVEL_NAMES, key=lambda n: engine.levels[n].noise)
    if engine.levels[name].noise <= 0:
        pytest.skip("no level has equity noise")
    return name


def test_move_same_seed_same_play_and_seed_matters(client, fake_engine):
    # 6-5 from the start: the fake values many plays equally, so the level's noise decides.
    lv = noisiest(fake_engine)
    plays = {}
    for seed in range(12):
        a = client.post("/v1/move", json=move_body(dice=(6, 5), level=lv, seed=seed)).json()
        b = client.post("/v1/move", json=move_body(dice=(6, 5), level=lv, seed=seed)).json()
        assert (a["play"], a["position_id"]) == (b["play"], b["position_id"])
        plays[seed] = a["play"]
    assert len(set(plays.values())) > 1


def test_move_without_seed_reports_a_reproducible_seed(client, fake_engine):
    lv = noisiest(fake_engine)
    a = client.post("/v1/move", json=move_body(dice=(6, 5), level=lv)).json()
    b = client.post("/v1/move", json=move_body(dice=(6, 5), level=lv, seed=a["seed"])).json()
    assert a["play"] == b["play"]


def test_move_pass(client):
    board = np.zeros(26, dtype=int)
    board[25] = 1
    board[1] = 14
    board[19:25] = -2
    r = client.post("/v1/move", json=move_body({"board": board.tolist()}, dice=(3, 1)))
    assert r.status_code == 200
    b = r.json()
    assert b["play"] == "pass" and b["moves"] == []
    assert b["position_id"] == Position(flip(board.astype(np.int8))).position_id


def test_move_board_and_gnubg_id_agree(client):
    a = client.post("/v1/move", json=move_body({"board": START_BOARD.tolist()}, dice=(4, 2), seed=1)).json()
    b = client.post("/v1/move", json=move_body({"gnubg_id": START_POSITION_ID}, dice=(4, 2), seed=1)).json()
    assert a.get("play") == b.get("play") and a.get("position_id") == b.get("position_id"), (a, b)


def test_move_bar_and_off_notation(client):
    # mover: one on the bar, one on its 2-point; 6-1 enters bar/19? no: d=6 enters on 19, d=1 on 24.
    board = np.zeros(26, dtype=int)
    board[25] = 1
    board[2] = 1
    board[10] = -15
    b = client.post("/v1/move", json=move_body({"board": board.tolist()}, dice=(6, 2), level="expert", seed=0)).json()
    assert b["play"].startswith("bar/")
    assert b["moves"][0]["from"] == 25
    home = np.zeros(26, dtype=int)
    home[1] = 2
    home[20] = -3
    b = client.post("/v1/move", json=move_body({"board": home.tolist()}, dice=(6, 5))).json()
    assert b["play"] == "1/off 1/off" and b["moves"] == [{"from": 1, "to": 0}, {"from": 1, "to": 0}]


# ----------------------------------------------------------------------------- /v1/hint, /v1/eval
def test_hint_ranked_with_probabilities(client, fake_engine):
    r = client.post("/v1/hint", json={"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "level": "world-class", "top": 5})
    assert r.status_code == 200
    b = r.json()
    assert b["legal_plays"] == 16 and len(b["plays"]) == 5 and b["dice"] == [3, 1]
    assert b["level"] == "world-class" and b["ply"] == fake_engine.levels["world-class"].ply
    # ties share a rank (bgrl.agents.hints.shared_ranks): 1 + the plays at a deeper ply or better at the same ply
    # (the fake evaluator values four of these plays alike)
    assert [p["rank"] for p in b["plays"]] == [
        1 + sum(o["ply"] > p["ply"] or (o["ply"] == p["ply"] and o["equity"] > p["equity"]) for o in b["plays"]) for p in b["plays"]]
    assert len({p["rank"] for p in b["plays"]}) < 5
    top_ply = b["plays"][0]["ply"]
    same = [p for p in b["plays"] if p["ply"] == top_ply]
    assert [p["equity"] for p in same] == sorted((p["equity"] for p in same), reverse=True)
    for p in b["plays"]:
        assert set(p) == {"rank", "play", "moves", "position_id", "ply", "equity", "equity_loss", "probabilities"}
        assert set(p["probabilities"]) == PROB_KEYS
        q = p["probabilities"]
        eq = 2 * q["win"] - 1 + q["win_gammon"] - q["lose_gammon"] + q["win_backgammon"] - q["lose_backgammon"]
        assert abs(eq - p["equity"]) < 1e-5
    assert b["plays"][0]["equity_loss"] == 0


def test_hint_depends_on_level(client, fake_engine):
    plies = {lv: client.post("/v1/hint", json={"position": {"gnubg_id": START_POSITION_ID}, "dice": "62", "level": lv}).json()["ply"] for lv in LEVEL_NAMES}
    assert plies == {lv: fake_engine.levels[lv].ply for lv in LEVEL_NAMES}


def test_hint_exact_default_level(client):
    b = client.post("/v1/hint", json={"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "top": 1}).json()
    # 8/5 6/5 is the only 31 that makes a new point: the fake gives it win 0.25 + 5/16.
    w = 0.25 + 5 * 0.0625
    assert b["plays"] == [{
        "rank": 1, "play": "8/5 6/5", "moves": [{"from": 8, "to": 5}, {"from": 6, "to": 5}], "position_id": "sGfwATDgc/ABMA", "ply": 0,
        "equity": round(2 * w - 1 + w / 4 - (1 - w) / 4 + w / 16 - (1 - w) / 16, 6), "equity_loss": 0.0,
        "probabilities": {k: round(v, 6) for k, v in
                          {"win": w, "win_gammon": w / 4, "win_backgammon": w / 16, "lose_gammon": (1 - w) / 4, "lose_backgammon": (1 - w) / 16}.items()},
    }]


def test_eval(client, fake_engine):
    b = client.post("/v1/eval", json={"position": {"gnubg_id": START_POSITION_ID}, "level": "expert"}).json()
    assert set(b) == {"position_id", "level", "ply", "equity", "probabilities", "engine", "version", "model_sha256", "elapsed_ms"}
    q = b["probabilities"]
    eq = 2 * q["win"] - 1 + q["win_gammon"] - q["lose_gammon"] + q["win_backgammon"] - q["lose_backgammon"]
    assert abs(eq - b["equity"]) < 1e-5 and b["ply"] == fake_engine.levels["expert"].ply


def test_health_and_version(client):
    h = client.get("/v1/health")
    assert h.status_code == 200 and h.json() == {"status": "ok", "ready": True, "levels_loaded": len(LEVEL_NAMES)}
    v = client.get("/v1/version").json()
    assert v["engine"] == "bgrl" and v["api"] == "v1" and v["model"]["sha256"] == "fake"
    assert [lv["name"] for lv in v["levels"]] == list(LEVEL_NAMES)
    assert v["limits"]["max_checkers"] == 15 and v["limits"]["max_inflight"] >= 1
    assert v["protocols"]["ubgi"] == "0.2"


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "body, status, code",
    [
        ("{", 422, "invalid_request"),
        ("[]", 422, "invalid_request"),
        ('{"position": {}, "dice": [3, 1]}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA", "board": [0]}, "dice": [3, 1]}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": 5}, "dice": [3, 1]}', 422, "invalid_request"),
        ('{"position": {"board": [1, 2]}, "dice": [3, 1]}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "level": "god"}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "seed": -1}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "seed": 1e999}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 1], "extra": 1}', 422, "invalid_request"),
        ('{"position": {"gnubg_id": "not-an-id"}, "dice": [3, 1]}', 400, "bad_position_id"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3, 7]}', 400, "bad_dice"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3]}', 400, "bad_dice"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [99999999999999999999999999999, 1]}', 400, "bad_dice"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": "3x"}', 400, "bad_dice"),
        ('{"position": {"gnubg_id": "4HPwATDgc/ABMA"}}', 400, "bad_dice"),
        ('{"position": {"board": [1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}, "dice": [3, 1]}', 400, "bad_position"),
        ('{"position": {"board": [0,15,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-1,0]}, "dice": [3, 1]}', 400, "bad_position"),
    ],
)
def test_move_errors(client, body, status, code):
    r = client.post("/v1/move", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    b = r.json()
    assert b["code"] == code and b["message"]


def test_xgid_is_always_read(client):
    r = client.post("/v1/move", json=move_body({"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"}))
    assert r.status_code == 200, r.text
    assert xgid_supported() and client.get("/v1/version").json()["xgid_supported"] is True


XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"  # the start, bottom player to roll 31


def test_xgid_position_and_its_dice(client):
    r = client.post("/v1/move", json={"position": {"xgid": XGID_31}, "level": "expert", "seed": 0})
    assert r.status_code == 200, r.text
    by_id = client.post("/v1/move", json=move_body(dice=(3, 1), level="expert", seed=0)).json()
    assert r.json()["play"] == by_id["play"] and r.json()["position_id"] == by_id["position_id"]
    h = client.post("/v1/hint", json={"position": {"xgid": XGID_31}, "dice": [6, 5]}).json()
    assert h["dice"] == [6, 5] and h["position_id"] == START_POSITION_ID  # explicit dice win over the XGID's
    bad = client.post("/v1/move", json={"position": {"xgid": "XGID=nonsense"}, "dice": [3, 1]})
    assert bad.status_code == 400 and bad.json()["code"] == "bad_xgid"


def test_not_found_and_method_are_json(client):
    r = client.get("/v2/nothing")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = client.get("/v1/move")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"


def test_body_size_limit(fake_engine):
    with TestClient(create_app(engine=fake_engine, settings=Settings(max_body_bytes=200))) as c:
        r = c.post("/v1/move", content=b"{" + b" " * 300 + b"}", headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["code"] == "too_large"

        def chunks():  # no Content-Length: the limit holds while reading
            for _ in range(10):
                yield b" " * 50

        r = c.post("/v1/move", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["code"] == "too_large"
        assert c.post("/v1/move", json=move_body()).status_code == 200


# ----------------------------------------------------------------------------- limits
def test_overload_answers_503_with_retry_after():
    eng = Engine(evaluator=SlowEvaluator(0.4), model_sha256="fake")  # every level over the slow evaluator
    with TestClient(create_app(engine=eng, settings=Settings(max_inflight=1, pool_workers=1))) as c:
        results = []

        def call():
            r = c.post("/v1/move", json=move_body())
            results.append((r.status_code, r.headers.get("retry-after"), r.json()))

        threads = [threading.Thread(target=call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(s for s, _, _ in results)
        assert codes.count(200) >= 1 and codes.count(503) >= 1 and set(codes) <= {200, 503}
        for s, retry, body in results:
            if s == 503:
                assert retry == "1" and body["code"] == "overloaded"
        assert c.get("/v1/health").status_code == 200
        # every refusal is in the server-side refusal histogram, each far faster than an admitted call
        text = c.get("/metrics").text
        count = float(next(ln.split()[-1] for ln in text.splitlines() if ln.startswith("bgrl_refused_seconds_count")))
        total = float(next(ln.split()[-1] for ln in text.splitlines() if ln.startswith("bgrl_refused_seconds_sum")))
        assert count == codes.count(503) and total / count < 0.4


def test_deadline_answers_504():
    eng = Engine(evaluator=SlowEvaluator(0.5), model_sha256="fake")  # every level over the slow evaluator
    with TestClient(create_app(engine=eng, settings=Settings(deadline_s=0.05, pool_workers=1))) as c:
        r = c.post("/v1/move", json=move_body())
        assert r.status_code == 504 and r.json()["code"] == "deadline_exceeded"


# ----------------------------------------------------------------------------- OpenAPI
def _api_shape(spec: dict) -> dict:
    return {"paths": spec["paths"], "components": spec.get("components", {})}


def test_openapi_snapshot(client):
    """API changes must be deliberate: regenerate with BGRL_UPDATE_OPENAPI=1 and review the diff."""
    spec = client.get("/openapi.json").json()
    if os.environ.get("BGRL_UPDATE_OPENAPI"):
        SNAPSHOT.write_text(json.dumps(_api_shape(spec), indent=1, sort_keys=True) + "\n")
    assert _api_shape(spec) == json.loads(SNAPSHOT.read_text()), "API changed: rerun with BGRL_UPDATE_OPENAPI=1 and commit tests/data/openapi.json"
    assert client.get("/docs").status_code == 200


# ----------------------------------------------------------------------------- fuzz
def _random_board(rng) -> list[int]:
    kind = rng.integers(4)
    if kind == 0:  # anything in range, mostly invalid
        return rng.integers(-15, 16, size=26).tolist()
    b = np.zeros(26, dtype=int)
    for sign, n in ((1, rng.integers(0, 16)), (-1, rng.integers(0, 16))):
        for _ in range(n):
            i = int(rng.integers(0, 26))
            if kind == 1 or (sign > 0 and i != 0 and b[i] >= 0) or (sign < 0 and i != 25 and b[i] <= 0):
                b[i] += sign
    return b.tolist()


def _fuzz(client, n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    counts: dict[int, int] = {}
    for k in range(n):
        board = _random_board(rng)
        dice = rng.integers(0, 8, size=2).tolist()
        if k % 6 == 0:
            r = client.post("/v1/move", json={"position": {"board": board}, "dice": dice, "level": LEVEL_NAMES[k % 4], "seed": k})
        elif k % 6 == 3:
            r = client.post("/v1/hint", json={"position": {"board": board}, "dice": dice, "level": LEVEL_NAMES[k % 4], "top": 3})
        elif k % 3 == 1:
            q = "&".join(f"p{i}={v}" for i, v in enumerate(board) if v)
            r = client.get(f"/move?die1={dice[0]}&die2={dice[1]}&level=beginner&{q}")
        else:
            r = client.get("/eval?" + "&".join(f"p{i}={v}" for i, v in enumerate(board) if v))
        assert r.status_code in (200, 400, 422), (r.status_code, r.text, board, dice)
        assert r.headers["content-type"] == "application/json"
        counts[r.status_code] = counts.get(r.status_code, 0) + 1
    return counts


GARBAGE = [
    b"", b"null", b"1", b'"x"', b"{}", b'{"position": null}', b'{"position": {"board": null}, "dice": null}',
    b'{"position": {"board": "abc"}, "dice": {}}', b'{"position": {"gnubg_id": "' + b"A" * 60 + b'"}, "dice": [1, 1]}',
    b'{"position": {"board": [1e308,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}, "dice": [1, 1]}',
    b'{"position": {"board": [true,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}, "dice": [true, false]}',
    b'{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [NaN, 1]}', b'{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [1.5, 2]}',
    b'{"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [-9223372036854775809, 1], "top": 0}', b"\xff\xfe\x00",
    b'{"position": {"gnubg_id": "\\u0000\\u0000"}, "dice": "\\ud800"}', b'{"position": {"xgid": ""}, "dice": [1, 2]}',
]


def test_fuzz_garbage_no_500(client):
    for path in ("/v1/move", "/v1/hint", "/v1/eval"):
        for body in GARBAGE:
            r = client.post(path, content=body, headers={"content-type": "application/json"})
            assert r.status_code in (200, 400, 422), (path, body, r.status_code, r.text)
            assert r.json()["code"] if r.status_code != 200 else True
    for q in ("die1=99999999999999999999999&die2=1", "die1=1&die2=1&p3=99999999999999999999999", "die1=&die2=", "die1=1&die2=2&p0=-0&p25=+1", "die1=1&die2=1&seed=-5"):
        r = client.get("/move?" + q)
        assert r.status_code in (200, 400, 422), (q, r.text)


def test_fuzz_random_boards_no_500(client):
    counts = _fuzz(client, 300)
    assert counts.get(200, 0) > 0 and counts.get(400, 0) > 0


@pytest.mark.slow
def test_fuzz_10000_random_boards_no_500(client):
    counts = _fuzz(client, 10_000, seed=1)
    assert counts.get(200, 0) > 1000 and counts.get(400, 0) > 1000


# ----------------------------------------------------------------------------- start-up checks
def test_model_sha256_mismatch_refuses_to_start(tmp_path):
    from bgrl._resources import shipped_checkpoint

    src = shipped_checkpoint("default")
    (tmp_path / "default.pt").write_bytes(src.read_bytes())
    manifest = json.loads((src.parent / "manifest.json").read_text())
    good = Engine(model_path=tmp_path / "default.pt")  # no manifest beside it: served, with a warning
    assert good.model_sha256 == manifest["default"]["sha256"] and any("not listed" in w for w in good.warnings)
    manifest["default"]["sha256"] = "0" * 64
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RuntimeError, match="refusing to serve"):
        Engine(model_path=tmp_path / "default.pt")


@pytest.mark.parametrize("level", ["beginner", "expert", "world-class"])
def test_every_level_network_is_verified_at_start_up(tmp_path, monkeypatch, level):
    """A level network (not only default.pt) that differs from the manifest stops the engine."""
    import bgrl.service.engine
    from bgrl._resources import shipped_checkpoint

    net = LEVELS[level].network
    src = shipped_checkpoint("default").parent
    if net == "default" or not (src / f"{net}.pt").is_file():
        pytest.skip(f"level {level} plays the default network or an unshipped one")
    for f in src.glob("*.pt"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((src / "manifest.json").read_text())
    manifest[net]["sha256"] = "0" * 64
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(bgrl.service.engine, "shipped_checkpoint", lambda name="default": tmp_path / f"{name}.pt")
    with pytest.raises(RuntimeError, match=f"{net}.pt.*refusing to serve"):
        Engine()


@pytest.mark.parametrize("argv, msg", [
    (["serve", "--port", "0"], "--port must be 1..65535"),
    (["serve", "--workers", "0"], "--workers must be >= 1"),
    (["serve", "--deadline", "-1"], "--deadline must be > 0"),
    (["serve", "--max-inflight", "-3"], "--max-inflight must be >= 0"),
])
def test_serve_cli_bad_flags(argv, msg, capsys):
    from bgrl.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgrl: error: ") and msg in err


def test_service_package_is_built():
    import tomllib

    cfg = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert "bgrl.service" in cfg["tool"]["setuptools"]["packages"]
    extras = cfg["project"]["optional-dependencies"]
    assert any(r.startswith("fastapi") for r in extras["serve"]) and any(r.startswith("uvicorn") for r in extras["serve"])
    # CI installs the test extra: it must bring the serve dependencies and httpx (TestClient)
    assert {"fastapi", "uvicorn", "httpx"} <= {r.split(">")[0].split("=")[0].split("<")[0] for r in extras["test"]}


def test_version_lists_every_network_verified(real):
    v = real.get("/v1/version").json()
    manifest = json.loads((Path(__file__).parents[2] / "checkpoints" / "manifest.json").read_text())
    by_file = {Path(e["file"]).stem: e["sha256"] for e in manifest.values() if isinstance(e, dict) and "sha256" in e}
    nets = v["model"]["networks"]
    assert nets and all(by_file[name] == sha for name, sha in nets.items())


def test_serve_without_the_extra_says_how_to_install(monkeypatch, capsys):
    import sys

    from bgrl.cli import main

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn -> ImportError
    assert main(["serve"]) == 2
    assert "needs the optional extra 'serve'" in capsys.readouterr().err


@pytest.mark.parametrize("body", [
    {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [True, 1], "level": "expert"},
    {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": ["3", "1"], "level": "expert"},
    {"position": {"gnubg_id": "4HPwATDgc/ABMA"}, "dice": [3.0, 1.0], "level": "expert"},
    {"position": {"board": [True if i == 6 else int(v) for i, v in enumerate(START_BOARD)]}, "dice": [3, 1], "level": "expert"},
])
def test_wrong_types_are_refused_not_coerced(body):
    """A bool, a numeric string or a float where an integer is expected is a 422 schema
    error: coercing it would silently play another roll or position (adversarial check)."""
    with TestClient(create_app(settings=Settings(pool_kind="thread"))) as c:
        r = c.post("/v1/move", json=body)
    assert r.status_code == 422, r.text


def test_xgid_cube_fields_are_read_by_the_cube_routes(client):
    """An XGID's cube and match fields count in /v1/cube and /v1/hint as the request's own
    cube/match would; both at once is 400 bad_cube; the cubeless routes still refuse them."""
    from bgrl.rules.xgid import parse_xgid_cube

    xg = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"  # cube 2 owned by the side on roll, 3-2 to 7
    pos, _, st = parse_xgid_cube(xg)
    explicit = {"position": {"gnubg_id": pos.position_id}, "cube": {"value": st.value, "owner": st.owner},
                "match": {"length": st.match_length, "score": list(st.score)}}
    a = client.post("/v1/cube", json={"position": {"xgid": xg}})
    b = client.post("/v1/cube", json=explicit)
    assert a.status_code == 200 and b.status_code == 200, (a.text, b.text)
    assert a.json()["cube"] == b.json()["cube"]
    assert all(v == round(v, 6) for v in a.json()["cube"]["equities"].values())  # 6 decimals, as the other routes
    assert a.json()["cube"] != client.post("/v1/cube", json={"position": {"gnubg_id": pos.position_id}}).json()["cube"]
    h = client.post("/v1/hint", json={"position": {"xgid": xg}, "dice": [3, 1]})
    assert h.status_code == 200 and h.json()["ranked_by"] == "mwc", h.text
    assert h.json()["match"]["score"] == [3, 2] and h.json()["cube"] == {"value": 2, "owner": 1}
    both = client.post("/v1/cube", json={"position": {"xgid": xg}, "cube": {"value": 1, "owner": 0}})
    assert both.status_code == 400 and both.json()["code"] == "bad_cube" and "one place" in both.json()["message"]
    # a plain XGID (centred cube at 1, money) is what it was: cubeless hints
    plain = client.post("/v1/hint", json={"position": {"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"}})
    assert plain.status_code == 200 and plain.json()["ranked_by"] == "cubeless"
    r = client.post("/v1/move", json={"position": {"xgid": xg}, "dice": [3, 1]})
    assert r.status_code == 400 and r.json()["code"] == "bad_xgid" and "/v1/cube read" in r.json()["message"]



@pytest.mark.parametrize("xgid, route, code, words", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:3:2:0:100:10", "/v1/hint", "bad_xgid", "beyond the match equity table"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:2:0:26:10", "/v1/cube", "bad_xgid", "beyond the match equity table"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:0", "/v1/cube", "bad_cube", "at its cap (1)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "/v1/cube", "bad_cube", "before the roll"),
])
def test_xgid_cube_fields_bad_for_the_cube_routes(client, xgid, route, code, words):
    """Found by a breaker's trial: a match longer than the table was a 500 on /v1/hint; an
    XGID's cap of 1 was dropped; /v1/cube ignored an XGID's dice."""
    r = client.post(route, json={"position": {"xgid": xgid}, **({"dice": [3, 1]} if route == "/v1/hint" else {})})
    assert r.status_code == 400 and r.json()["code"] == code and words in r.json()["message"], r.text


def test_the_heap_is_settled_once_everything_is_loaded(fake_engine, monkeypatch):
    """Where the app loads the levels itself (bgrl serve), the lifespan calls settle_heap after the
    engine, the limiter and the store are up (so a long garbage collection of the loaded objects
    never lands inside a request); an injected engine's process (a test, an embedding) is left as it is."""
    import bgrl.service.app as app_module

    calls = []
    monkeypatch.setattr(app_module, "settle_heap", lambda: calls.append(True))
    monkeypatch.setattr(app_module, "Engine", lambda: fake_engine)  # what create_app() loads
    with TestClient(create_app(settings=Settings(pool_kind="thread"))) as c:
        assert calls == [True]
        assert c.get("/v1/health").status_code == 200
    assert calls == [True]
    with TestClient(create_app(engine=fake_engine)) as c:
        assert c.get("/v1/health").status_code == 200
    assert calls == [True]


def test_a_stopped_app_unfreezes_the_heap(fake_engine, monkeypatch):
    """settle_heap's freeze lasts as long as the app: a process that starts and stops apps gets
    their objects collected again."""
    import gc

    import bgrl.service.app as app_module

    monkeypatch.setattr(app_module, "Engine", lambda: fake_engine)
    with TestClient(create_app(settings=Settings(pool_kind="thread"))):
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_settle_heap_freezes_what_is_loaded():
    import subprocess
    import sys

    code = ("import gc\nfrom bgrl.service.pool import settle_heap\nassert gc.get_freeze_count() == 0\n"
            "settle_heap()\nprint(gc.get_freeze_count())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert int(out.stdout.split()[-1]) > 1000


def test_a_bug_is_answered_500_and_logged_with_its_traceback(caplog):
    import logging

    from bgrl.service.errors import engine_error

    try:
        {}["missing"]
    except KeyError as exc:
        with caplog.at_level(logging.ERROR, logger="bgrl.service"):
            resp = engine_error(exc, Settings())
    assert resp.status_code == 500 and json.loads(resp.body) == {"code": "internal", "message": "internal error (KeyError)"}
    rec = [r for r in caplog.records if r.name == "bgrl.service"][-1]
    assert rec.levelno == logging.ERROR and rec.exc_info[0] is KeyError and "missing" in rec.getMessage()
