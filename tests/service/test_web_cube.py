"""Web-board game sessions with the doubling cube (bgrl.service.web): a money session and a
match played to the end through the HTTP API, the cube actions and their errors, and
wildbg's ``GET /move`` at a match score."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.agents.cube import cubeful_values  # noqa: E402
from bgrl.rules.board import Position  # noqa: E402
from bgrl.rules.cube import CubeState  # noqa: E402
from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402


@pytest.fixture(scope="module")
def fake_engine():
    return Engine(evaluator=fake_evaluator, model_sha256="fake")


@pytest.fixture(scope="module")
def client(fake_engine):
    with TestClient(create_app(engine=fake_engine, settings=Settings(pool_kind="thread"))) as c:
        yield c


def _act(client, st, action, **kw):
    r = client.post(f"/v1/games/{st['id']}/{action}", **kw)
    assert r.status_code == 200, r.text
    body = r.json()
    return body.get("state", body)


def play_to_end(client, st, double_at=(), answer="take", limit=600):
    """Play the game in progress to its end: the first legal play, 'double' on the player's
    cube turns listed in ``double_at`` (their count), ``answer`` to the computer's doubles."""
    n = cube_turns = 0
    while not st["over"]:
        n += 1
        assert n < limit
        cube = st["cube"]
        if cube["awaiting"] == "answer":
            st = _act(client, st, answer)
        elif cube["awaiting"] == "cube":
            cube_turns += 1
            st = _act(client, st, "double" if cube_turns in double_at else "roll")
        else:
            st = _act(client, st, "play", json={"position_id": st["plays"][0]["position_id"]})
    return st


def test_money_session_with_a_double_played_to_the_end(client):
    st = client.post("/v1/games", json={"level": "beginner", "seed": 3, "cube": True}).json()
    assert st["cube"]["awaiting"] == "cube" and st["cube"]["value"] == 1 and st["cube"]["owner"] is None
    assert st["dice"] is None and st["cube"]["may_double"]
    r = client.post(f"/v1/games/{st['id']}/take")
    assert r.status_code == 400 and "no double was offered" in r.json()["message"]
    st = play_to_end(client, st, double_at=(1,))
    assert st["over"] is not None
    cube = st["cube"]
    assert cube["game"] == 1 and abs(cube["score"]["you"]) == st["over"]["points"]
    assert not cube["match_over"]
    st2 = _act(client, st, "next")
    assert st2["cube"]["game"] == 2 and st2["over"] is None and st2["cube"]["value"] == 1


def test_seven_point_match_played_to_the_end(client):
    st = client.post("/v1/games", json={"level": "intermediate", "seed": 11, "cube": True, "match_length": 7}).json()
    starts = [(dict(st["cube"]["score"]), st["cube"]["crawford"])]
    while True:
        st = play_to_end(client, st, double_at=(2,))
        if st["cube"]["match_over"]:
            break
        assert len(starts) < 40
        st = _act(client, st, "next")
        starts.append((dict(st["cube"]["score"]), st["cube"]["crawford"]))
        if st["cube"]["crawford"]:
            assert st["cube"]["awaiting"] != "cube" and not st["cube"]["may_double"]
            r = client.post(f"/v1/games/{st['id']}/double")
            assert r.status_code == 400
    score = st["cube"]["score"]
    assert max(score.values()) >= 7 and st["cube"]["match_winner"] in ("you", "computer")
    assert len(starts) >= 2
    # the Crawford game is the first game that starts with a side 6 points in, and only that one
    at_six = [i for i, (sc, _) in enumerate(starts) if max(sc.values()) == 6]
    assert [c for _, c in starts] == [bool(at_six) and i == at_six[0] for i in range(len(starts))]
    r = client.post(f"/v1/games/{st['id']}/next")
    assert r.status_code == 400 and r.json()["code"] == "match_over"


def test_cube_session_errors(client):
    for body, word in (({"cube": True, "cube_cap": 6}, "power of 2"), ({"match_length": 5}, "needs cube"),
                       ({"cube": True, "match_length": 5, "jacoby": True}, "money-game options")):
        r = client.post("/v1/games", json={"level": "beginner", **body})
        assert r.status_code == 400 and word in r.json()["message"], r.text
    r = client.post("/v1/games", json={"level": "beginner", "cube": True, "match_length": 40})
    assert r.status_code == 422
    plain = client.post("/v1/games", json={"level": "beginner", "seed": 1}).json()
    assert "cube" not in plain
    r = client.post(f"/v1/games/{plain['id']}/double")
    assert r.status_code == 400 and r.json()["code"] == "no_cube"
    st = client.post("/v1/games", json={"level": "beginner", "seed": 1, "cube": True, "match_length": 3}).json()
    r = client.post(f"/v1/games/{st['id']}/play", json={"position_id": "4HPwATDgc/ABMA"})  # before the roll: no dice
    assert r.status_code == 400 and r.json()["code"] == "no_roll" and "roll first" in r.json()["message"], r.text
    st = _act(client, st, "roll")
    assert st["dice"] is not None
    r = client.post(f"/v1/games/{st['id']}/double")
    assert r.status_code == 400 and "before you roll" in r.json()["message"]
    r = client.post(f"/v1/games/{st['id']}/draw")
    assert r.status_code == 400 and "draw" in r.json()["message"]


def test_player_passes_the_computers_double(client, monkeypatch):
    import bgrl.service.web as web
    from bgrl.evaluation.cube import CubeDecision

    monkeypatch.setattr("bgrl.agents.cube.cube_decisions",
                        lambda agent, boards, cubes: [CubeDecision("double, take", True, 0.3, 0.5, 1.0)] * len(cubes))
    st = client.post("/v1/games", json={"level": "beginner", "seed": 2, "colour": "black", "cube": True}).json()
    assert st["cube"]["awaiting"] == "answer" and st["cube"]["offered_by"] == "computer"
    r = client.post(f"/v1/games/{st['id']}/roll")
    assert r.status_code == 400 and "waiting for your answer" in r.json()["message"]
    r = client.post(f"/v1/games/{st['id']}/beaver")
    assert r.status_code == 400 and "beaver" in r.json()["message"]
    st = _act(client, st, "pass")
    assert st["over"]["how"] == "pass" and st["over"]["winner"] == "computer" and st["over"]["points"] == 1
    assert st["cube"]["score"] == {"you": -1, "computer": 1}
    assert web is not None


def test_wildbg_move_at_a_match_score_ranks_by_match_winning_chances(client, fake_engine):
    q = "/move?die1=6&die2=5&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"
    r = client.get(q + "&x_away=3&o_away=5")
    assert r.status_code == 200
    moves = r.json()["moves"]
    items = fake_engine.move_list(Position.start(), (6, 5), "expert")
    vals = cubeful_values(np.stack([p.after_state for p, _ in items]), np.stack([pr for _, pr in items]),
                          CubeState(match_length=5, score=(2, 0)))
    best = items[int(np.argmax(vals))][0]
    want = sorted(((s, max(d, 0)) for s, d, _ in best.moves), key=lambda t: (-t[0], t[1]))
    assert moves[0]["play"] == [{"from": a, "to": b} for a, b in want]
    assert len(moves) == len(items)


def test_set_up_position_with_dice_has_its_roll_on_the_table(client):
    """A cube session from a set-up position with dice: the roll is on the table (no cube
    action before it, as in bgrl play --cube), and its plays are the plays of those dice."""
    pid = "4HPwATDgc/ABMA"
    st = client.post("/v1/games", json={"level": "beginner", "seed": 4, "cube": True, "position": pid, "dice": [6, 5]}).json()
    assert st["cube"]["awaiting"] is None
    assert st["dice"] == [6, 5] and st["plays"], st
    assert any(p["play"] == "24/13" for p in st["plays"])
    r = client.post(f"/v1/games/{st['id']}/double")
    assert r.status_code == 400
    # without dice, the same position starts at the player's cube decision
    st2 = client.post("/v1/games", json={"level": "beginner", "seed": 4, "cube": True, "position": pid}).json()
    assert st2["cube"]["awaiting"] == "cube" and not st2["plays"]


@pytest.mark.parametrize("body, ranked_by", [({"cube": True, "match_length": 3}, "match winning chances"),
                                             ({"cube": True}, "cubeful equity"), ({}, "cubeless equity")])
def test_session_review_ranks_as_the_terminal_does(client, body, ranked_by):
    """The web board's review is bgrl.session.review's (the terminal's): a match's plays ranked
    by MWC at the score, a money cube game's by cubeful equity, the cube actions judged and the
    match score in points."""
    st = client.post("/v1/games", json={"level": "beginner", "seed": 5, **body}).json()
    if body:
        st = play_to_end(client, st, double_at=(1,))
    else:
        while not st["over"]:
            st = _act(client, st, "play", json={"position_id": st["plays"][0]["position_id"]})
    rv = client.post(f"/v1/games/{st['id']}/review", json={}).json()
    assert rv["ranked_by"] == ranked_by
    turns = [t for g in rv["games"] for t in g["turns"]]
    assert turns and all(t["equity_loss"] is None or t["equity_loss"] >= -1e-9 for t in turns)
    if body:
        assert rv["match"]["match_length"] == body.get("match_length", 0)
        if body.get("match_length"):  # match points: the winner's score is the match length, not cube x result
            assert max(rv["match"]["score"].values()) == 3 and sum(g["points"] for g in rv["match"]["games"]) >= 3
            row = next(g for g in client.get("/v1/games").json()["games"] if g["id"] == st["id"])
            score = rv["match"]["score"]  # the session's result: the match, not its last game
            assert row["result"] == score["you"] - score["computer"]
        assert any(g.get("cube") for g in rv["games"])  # the player's double was judged
