"""The web board's games kept in the store (issue 41): ownership by player token, one 200 and one
409 for two concurrent plays, cube hints and the review of a cube match, and `bgrl serve
--workers 2 --store URL` killed with SIGKILL and started again on the same store, on SQLite and
on PostgreSQL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402
from bgrl.session.game import MAX_SEED  # noqa: E402
from bgrl.session.owner import HEADER, new_token  # noqa: E402

from service_fakes import SlowEvaluator, fake_evaluator  # noqa: E402

PG_URL = os.environ.get("BGRL_TEST_POSTGRES", "postgresql://bgrl:bgrl@127.0.0.1:5432/bgrl_test")


def _client(tmp_path, evaluator=fake_evaluator, **kw):
    app = create_app(engine=Engine(evaluator=evaluator, model_sha256="fake"),
                     settings=Settings(pool_kind="thread", store=f"sqlite:///{tmp_path / 'games.db'}", **kw))
    return TestClient(app, raise_server_exceptions=False)


def test_a_game_belongs_to_its_token(tmp_path):
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner"}).json()
        token = st["player_token"]
        assert len(token) == 32 and c.cookies.get("bgrl_player") == token
        assert 0 <= st["seed"] <= MAX_SEED
        gid = st["id"]
        other = new_token()
        c.cookies.clear()
        assert c.get(f"/v1/games/{gid}").status_code == 404  # no token
        r = c.get(f"/v1/games/{gid}", headers={HEADER: other})
        assert r.status_code == 404 and r.json()["code"] == "not_found"  # another player's token
        for path in ("hint", "resign", "draw", "review"):
            assert c.post(f"/v1/games/{gid}/{path}", json={}, headers={HEADER: other}).status_code == 404
        assert c.get("/v1/games", headers={HEADER: other}).json() == {"games": []}
        assert c.delete(f"/v1/games/{gid}", headers={HEADER: other}).status_code == 404
        mine = {HEADER: token}
        assert c.get(f"/v1/games/{gid}", headers=mine).json()["id"] == gid
        # a second game with the same token keeps it: one player's games share one token
        st2 = c.post("/v1/games", json={"level": "beginner", "seed": 3}, headers=mine).json()
        assert st2["player_token"] == token
        listed = c.get("/v1/games", headers=mine).json()["games"]
        assert {g["id"] for g in listed} == {gid, st2["id"]} and listed[0]["updated_at"] >= listed[1]["updated_at"]
        assert c.delete(f"/v1/games/{gid}", headers=mine).status_code == 200
        assert c.get(f"/v1/games/{gid}", headers=mine).status_code == 404


def test_two_concurrent_plays_give_one_200_and_one_409(tmp_path):
    with _client(tmp_path, evaluator=SlowEvaluator(0.3), job_workers=4) as c:  # two commands at once, as two workers would
        st = c.post("/v1/games", json={"level": "beginner", "seed": 11}).json()
        tok = {HEADER: st["player_token"]}
        pid = st["plays"][0]["position_id"]
        got = []
        start = threading.Barrier(2)

        def play():
            start.wait()
            r = c.post(f"/v1/games/{st['id']}/play", json={"position_id": pid}, headers=tok)
            got.append((r.status_code, r.json()))

        ts = [threading.Thread(target=play) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert sorted(s for s, _ in got) == [200, 409], got
        assert next(j for s, j in got if s == 409)["code"] == "conflict"
        winner = next(j for s, j in got if s == 200)
        now = c.get(f"/v1/games/{st['id']}", headers=tok).json()
        assert now["turns"] == winner["turns"] and now["board"] == winner["board"]  # the stored game is the winner's


def test_a_play_on_a_stale_version_gets_409_whenever_it_comes(tmp_path):
    """One process, one request after the other: a play sent with If-Match of the version it was
    made on gets 409 once the game has moved on (a stale tab), not 400 illegal_play; a header
    that is not a version is a 400; every state carries its version."""
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner", "seed": 11}).json()
        tok = {HEADER: st["player_token"]}
        assert c.get(f"/v1/games/{st['id']}", headers=tok).json()["version"] == st["version"]
        pid = st["plays"][0]["position_id"]
        first = c.post(f"/v1/games/{st['id']}/play", json={"position_id": pid}, headers={**tok, "If-Match": str(st["version"])})
        assert first.status_code == 200 and first.json()["version"] == st["version"] + 1
        again = c.post(f"/v1/games/{st['id']}/play", json={"position_id": pid}, headers={**tok, "If-Match": str(st["version"])})
        assert again.status_code == 409 and again.json()["code"] == "conflict" and "If-Match" in again.json()["message"]
        bad = c.post(f"/v1/games/{st['id']}/play", json={"position_id": pid}, headers={**tok, "If-Match": "x1"})
        assert bad.status_code == 400 and bad.json()["code"] == "bad_version"
        assert c.get(f"/v1/games/{st['id']}", headers=tok).json()["version"] == st["version"] + 1  # nothing else stored


def _cube_game(c, **kw):
    return c.post("/v1/games", json={"level": "beginner", "cube": True, **kw}).json()


def test_cube_hints_at_double_roll_and_take_pass(tmp_path):
    with _client(tmp_path) as c:
        st = _cube_game(c, seed=4, match_length=3)
        assert st["cube"]["awaiting"] == "cube" and st["cube"]["may_double"] and not st["may_draw"]
        h = c.post(f"/v1/games/{st['id']}/hint", json={}).json()
        assert h["cube"]["role"] == "double" and h["cube"]["decision"] and set(h["cube"]["equities"]) == {
            "no_double", "double_take", "double_pass"} and "mwc" in h["cube"]
        st = c.post(f"/v1/games/{st['id']}/roll").json()["state"]
        if st["dice"] is not None:  # a checker play in a match: ranked by match winning chances
            h = c.post(f"/v1/games/{st['id']}/hint", json={"top": 3}).json()
            assert h["ranked_by"] == "match winning chances" and all("mwc" in p and "cubeful_equity" in p for p in h["plays"])
            assert len(h["plays"]) <= 3
        # facing a double: take / pass advice
        st = _cube_game(c, seed=8)
        gid = st["id"]
        r = c.post(f"/v1/games/{gid}/double").json()
        assert r["answer"] in ("take", "pass", "beaver")


def test_review_of_a_cube_game_judges_the_cube_and_reports_points(tmp_path):
    with _client(tmp_path) as c:
        st = _cube_game(c, seed=2, match_length=3)
        gid = st["id"]
        r = c.post(f"/v1/games/{gid}/double").json()
        st = r["state"]
        n = 0
        while st["over"] is None and n < 400:
            if st["cube"]["awaiting"] == "answer":
                st = c.post(f"/v1/games/{gid}/take").json()["state"]
            elif st["cube"]["awaiting"] == "cube":
                st = c.post(f"/v1/games/{gid}/roll").json()["state"]
            else:
                st = c.post(f"/v1/games/{gid}/play", json={"position_id": st["plays"][0]["position_id"]}).json()
            n += 1
        assert st["over"] is not None
        rv = c.post(f"/v1/games/{gid}/review", json={}).json()
        cube_rows = rv["games"][-1]["cube"]
        assert any(row["action"] == "double" and row["player"] == "you" for row in cube_rows)
        assert "you" in rv["cube_summary"] and rv["match"]["match_length"] == 3
        assert rv["match"]["games"][0]["cube"] >= 2 and rv["match"]["games"][0]["points"] == (
            rv["match"]["games"][0]["cube"] * rv["match"]["games"][0]["result"])
        assert max(rv["match"]["score"].values()) <= 3
        assert c.get(f"/v1/games/{gid}/record?format=mat").status_code == 200


# ----------------------------------------------------------------------------- a real server, killed
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(url: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "serve", "--port", str(port), "--workers", "2", "--pool", "thread",
                             "--pool-workers", "1", "--store", url, "--games-per-minute", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            pytest.fail(f"bgrl serve exited with {proc.returncode}: {proc.stderr.read()[-2000:]}")
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("bgrl serve did not become healthy within 120 s")
        time.sleep(0.3)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def _pg_url() -> str:
    from bgrl.session.store import GameStore, StoreError

    try:
        with GameStore.open(PG_URL) as store:
            store.purge_finished(0.0)
    except StoreError as exc:
        if os.environ.get("BGRL_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required here: {exc}")
        pytest.skip(f"no PostgreSQL: {exc}")
    return PG_URL


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_serve_two_workers_killed_and_restarted_keeps_every_game(kind, tmp_path):
    url = f"sqlite:///{tmp_path / 'games.db'}" if kind == "sqlite" else _pg_url()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _serve(url, port)
    try:
        with httpx.Client(base_url=base, timeout=60) as c:
            tok = {HEADER: new_token()}
            games = [c.post("/v1/games", json={"level": "beginner", "seed": 100 + i}, headers=tok).json() for i in range(12)]
            codes = [c.get(f"/v1/games/{g['id']}", headers=tok).status_code for g in games for _ in range(5)]
            assert codes == [200] * 60
            before = {}
            for g in games:
                st = c.post(f"/v1/games/{g['id']}/play", json={"position_id": g["plays"][0]["position_id"]}, headers=tok).json()
                assert "board" in st, st
                before[g["id"]] = st
    finally:
        _kill(proc)
    proc = _serve(url, port)
    try:
        with httpx.Client(base_url=base, timeout=60) as c:
            for gid, st in before.items():
                now = c.get(f"/v1/games/{gid}", headers=tok).json()
                for k in ("board", "dice", "turns", "plays", "position_id", "over"):
                    assert now[k] == st[k], (gid, k)
                if now["over"] is None:  # and it goes on
                    nxt = c.post(f"/v1/games/{gid}/play", json={"position_id": now["plays"][0]["position_id"]}, headers=tok)
                    assert nxt.status_code == 200 and nxt.json()["turns"] > now["turns"]
    finally:
        _kill(proc)


def test_stats_over_finished_games_and_set_up_flag(tmp_path):
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner", "seed": 21}).json()
        assert c.post(f"/v1/games/{st['id']}/resign", json={"value": "backgammon"}).json()["accepted"]
        st2 = c.post("/v1/games", json={"level": "casual", "seed": 22}).json()
        n = 0
        while st2["over"] is None and n < 300:
            st2 = c.post(f"/v1/games/{st2['id']}/play", json={"position_id": st2["plays"][0]["position_id"]}).json()
            n += 1
        stats = c.get("/v1/games/stats").json()
        by_id = {g["id"]: g for g in stats["games"]}
        assert by_id[st["id"]]["error_rate"] is None  # resigned before any turn: no decisions, no error
        assert by_id[st2["id"]]["error_rate"] is not None and by_id[st2["id"]]["error_rate"] >= 0
        assert stats["levels"]["beginner"]["lost"] == 1 and stats["levels"]["beginner"]["points"] == -3
        assert stats["levels"]["casual"]["games"] == 1
        assert c.get("/v1/games/stats").json() == stats  # judged once, kept with the game
        listed = c.get("/v1/games").json()["games"]
        assert all(g["set_up"] is False for g in listed)
