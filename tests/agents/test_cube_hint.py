"""Checker-play hints with the cube or a match score (issue 18): ``bgrl hint`` and
``POST /v1/hint`` rank by cubeful equity / match winning chances
(:func:`bgrl.agents.cube.cubeful_rank`), the default stays cubeless."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.agents.cube import cubeful_rank, cubeful_values, ranked_by, value_mwc
from bgrl.cli import main
from bgrl.agents.registry import load_ranker
from bgrl.rules.board import START_POSITION_ID, Position
from bgrl.rules.cube import CubeState
from bgrl.rules.matchid import match_id

# Found by a search over self-play decisions with the expert network of that day, `distilled-r1`
# (0-ply), which the fixture below keeps playing:
# at double match point (1-away/1-away) only wins count, and the shipped network's
# cubeless best 2-2 (8/6(2) 6/4(2), more gammons) is not the one that wins most often.
DMP_POS, DMP_DICE = "Ms+MwQCOzcEBAw", (2, 2)
DMP = CubeState(match_length=7, score=(6, 6))
# post-Crawford, the side playing 1 away, the opponent 2 away; and money with the cube owned
POST_POS, POST_DICE = "3R8AgAeZbRsEQA", (6, 6)
POST = CubeState(match_length=5, score=(4, 3))
OWNED = CubeState(value=2, owner=1)


def _cli_json(capsys, *argv):
    assert main(["hint", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def expert():
    ranker = load_ranker("expert", backend="auto")
    return ranker, ranker.ply


@pytest.fixture(scope="module")
def expert_r1():
    """The expert level on the network the positions above were found with."""
    ranker = load_ranker("expert", checkpoint="distilled-r1", backend="auto")
    return ranker, ranker.ply


def test_ranked_by():
    assert ranked_by(None) == "cubeless" and ranked_by(CubeState()) == "cubeless"
    assert ranked_by(CubeState(cube_in_play=False, value=2, owner=1)) == "cubeless"
    assert ranked_by(OWNED) == "cubeful" and ranked_by(CubeState(jacoby=True)) == "cubeful"
    assert ranked_by(DMP) == "mwc" and ranked_by(POST) == "mwc"


@pytest.mark.parametrize("pos, dice, cube", [(DMP_POS, DMP_DICE, DMP), (POST_POS, POST_DICE, POST)])
def test_match_score_changes_the_order_and_follows_cubeful_values(expert_r1, capsys, pos, dice, cube):
    agent, ply = expert_r1
    rows = agent.rank(Position.from_id(pos), dice)
    vals = cubeful_values(np.stack([r.play.after_state for r in rows]),
                          np.stack([r.probabilities.to_array() for r in rows]), cube)
    depth = np.array([r.ply for r in rows])
    order = np.lexsort((-vals, -depth))
    want = [rows[i].play.notation for i in order]
    cubeless = [r.play.notation for r in rows]
    assert want[0] != cubeless[0]  # the score changes the best play

    out = _cli_json(capsys, f"{pos}:{match_id(cube, dice)}", "--checkpoint", "distilled-r1", "--level", "expert")
    assert out["ranked_by"] == "mwc" and out["dice"] == list(dice)
    assert out["cube"] == {"value": 1, "owner": 0}
    assert out["match"] == {"length": cube.match_length, "score": list(cube.score), "crawford": False,
                            "post_crawford": cube.post_crawford}
    assert [p["play"] for p in out["plays"]] == want
    mwc = [p["mwc"] for p in out["plays"]]
    assert mwc == sorted(mwc, reverse=True) and all(0 <= m <= 1 for m in mwc)
    assert [p["rank"] for p in out["plays"]][0] == 1
    for p in out["plays"]:
        assert {"rank", "play", "position_id", "equity", "equity_loss", "probabilities", "ply"} <= set(p)
        assert p["mwc"] == pytest.approx(float(value_mwc([p["cubeful_equity"]], cube)[0]), abs=1e-5)
    if cube == DMP:  # only wins count: the MWC is the chance to win the game
        for p in out["plays"]:
            assert p["mwc"] == pytest.approx(p["probabilities"]["win"], abs=1e-5)

    assert main(["hint", f"{pos}:{match_id(cube, dice)}", "--top", "3", "--checkpoint", "distilled-r1", "--level", "expert"]) == 0
    text = capsys.readouterr().out
    a, b = cube.away
    assert f"ranked by match winning chances at {cube.match_length}-point match, {a}-away/{b}-away" in text
    assert f"  1  {rows[order[0]].play.shown(True)} " in text.splitlines()[2]


def test_money_with_the_cube_owned(expert, capsys):
    agent, ply = expert
    pos, dice = Position.from_id("4HPwATDgc/ABMA"), (5, 2)
    rows = agent.rank(pos, dice)
    ranked, vals = cubeful_rank(rows, OWNED)
    out = _cli_json(capsys, f"{pos.position_id}:{match_id(OWNED, dice)}", "--level", "expert")
    assert out["ranked_by"] == "cubeful" and out["cube"] == {"value": 2, "owner": 1} and "match" not in out
    assert [p["play"] for p in out["plays"]] == [r.play.notation for r in ranked]
    assert [p["cubeful_equity"] for p in out["plays"]] == pytest.approx(list(vals), abs=1e-6)
    assert all("mwc" not in p for p in out["plays"])
    # the cube owned by the side playing is worth something: above its cubeless equity
    assert out["plays"][0]["cubeful_equity"] > out["plays"][0]["equity"]
    assert main(["hint", f"{pos.position_id}:{match_id(OWNED, dice)}"]) == 0
    assert "ranked by cubeful money equity; cube 2 owned by the side playing" in capsys.readouterr().out


def test_default_stays_cubeless(capsys):
    out = _cli_json(capsys, START_POSITION_ID, "31")
    assert out["ranked_by"] == "cubeless" and "cube" not in out and "match" not in out
    assert all(set(p) == {"rank", "play", "position_id", "ply", "equity", "equity_loss", "probabilities"}
               for p in out["plays"])
    # an XGID of a money game with the centred cube: cubeless as before
    xg = _cli_json(capsys, "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert xg["ranked_by"] == "cubeless"


@pytest.mark.parametrize("position", ["XGID=-b----E-C---eE---c-e----B-:0:0:1:31:7:2:0:7:10",
                                      "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:9:0:7:10"])
def test_score_at_or_above_the_match_length_is_a_one_line_error(capsys, position):
    assert main(["hint", position]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bgrl: error:") and "\n" not in err and "match length" in err


# ----------------------------------------------------------------------------- the service
pytest.importorskip("fastapi")
pytest.importorskip("httpx")


@pytest.fixture(scope="module")
def client():
    from fastapi.testclient import TestClient
    from service_fakes import fake_evaluator

    from bgrl.service.app import create_app
    from bgrl.service.engine import Engine

    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    with TestClient(create_app(engine=eng)) as c:
        yield c, eng


def test_v1_hint_with_a_score_and_a_cube(client):
    c, eng = client
    body = {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1]}
    plain = c.post("/v1/hint", json=body).json()
    assert plain["ranked_by"] == "cubeless" and "cube" not in plain and "match" not in plain
    assert all("mwc" not in p and "cubeful_equity" not in p for p in plain["plays"])

    cube = CubeState(match_length=7, score=(5, 3))
    r = c.post("/v1/hint", json={**body, "match": {"length": 7, "score": [5, 3]}, "top": 4})
    assert r.status_code == 200, r.text
    m = r.json()
    assert m["ranked_by"] == "mwc" and m["match"] == {"length": 7, "score": [5, 3], "crawford": False}
    assert m["cube"] == {"value": 1, "owner": 0} and len(m["plays"]) == 4 and m["legal_plays"] == 16
    rows, _ = eng.ranked(Position.from_id(START_POSITION_ID), (3, 1), "expert", None)
    ranked, vals = cubeful_rank(rows, cube)
    assert [p["position_id"] for p in m["plays"]] == [r.play.position_id for r in ranked[:4]]
    assert [p["cubeful_equity"] for p in m["plays"]] == pytest.approx(list(vals[:4]), abs=1e-6)
    assert [p["mwc"] for p in m["plays"]] == pytest.approx(list(value_mwc(vals[:4], cube)), abs=1e-6)

    o = c.post("/v1/hint", json={**body, "cube": {"value": 4, "owner": -1}}).json()
    assert o["ranked_by"] == "cubeful" and o["cube"] == {"value": 4, "owner": -1} and "match" not in o
    assert all("cubeful_equity" in p and "mwc" not in p for p in o["plays"])
    # a centred cube at 1 in money play: cubeless, as without it
    assert c.post("/v1/hint", json={**body, "cube": {"value": 1, "owner": 0}}).json()["ranked_by"] == "cubeless"


@pytest.mark.parametrize("bad, word", [({"match": {"length": 5, "score": [5, 1]}}, "at or above the match length"),
                                       ({"cube": {"value": 3, "owner": 1}}, "power of 2")])
def test_v1_hint_bad_cube_or_score(client, bad, word):
    c, _ = client
    r = c.post("/v1/hint", json={"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], **bad})
    assert r.status_code == 400 and word in r.json()["message"], r.text
