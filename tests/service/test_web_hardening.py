"""The web board's routes against a breaker's findings: reviews run on threads of their own
(a long upload never makes a new game wait, or 504); a command racing DELETE is 404, not 500;
X-Forwarded-For does not escape the per-address limit of new games unless the proxy is named;
an upload's review shows player names of at most 80 characters; unknown request fields are
refused (422) as on /v1/move; a damaged row in the store is listed as damaged, answered
``damaged_game`` on its own routes, hides no other game, and can be deleted."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

from fastapi.testclient import TestClient  # noqa: E402

import bgrl.service.web as web  # noqa: E402
from bgrl.service.web_review import NAME_MAX  # noqa: E402
from bgrl.service.app import Settings, create_app, uvicorn_options  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402
from bgrl.session.owner import HEADER  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402


def _app(tmp_path, **kw):
    return create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"),
                      settings=Settings(pool_kind="thread", store=f"sqlite:///{tmp_path / 'games.db'}", **kw))


def _client(tmp_path, **kw):
    return TestClient(_app(tmp_path, **kw), raise_server_exceptions=False)


# ----------------------------------------------------------------------------- reviews on threads of their own
def _held_review(monkeypatch):
    """Make the upload's review wait until released (or told to stop); (started, release, threads)."""
    started, release, threads = threading.Event(), threading.Event(), []

    def held(cancel, eng, req, level):
        threads.append(threading.current_thread().name)
        started.set()
        while not (release.is_set() or cancel.is_set()):
            time.sleep(0.01)
        return {"name": req.name, "games": []}
    monkeypatch.setattr(web, "upload_review", held)
    return started, release, threads


def test_a_long_upload_never_holds_up_game_commands(tmp_path, monkeypatch):
    started, release, threads = _held_review(monkeypatch)
    with _client(tmp_path, job_workers=1, game_deadline_s=3) as c:
        out = []
        t = threading.Thread(target=lambda: out.append(c.post("/v1/review/upload", json={"text": "x", "name": "long.mat"})))
        t.start()
        try:
            assert started.wait(10)
            t0 = time.monotonic()
            r = c.post("/v1/games", json={"level": "beginner", "seed": 4})  # the one game thread is free
            took = time.monotonic() - t0
            assert r.status_code == 200, r.text
            assert took < 2.5
            st = r.json()
            r = c.post(f"/v1/games/{st['id']}/play", json={"position_id": st["plays"][0]["position_id"]},
                       headers={HEADER: st["player_token"]})
            assert r.status_code == 200, r.text
        finally:
            release.set()
            t.join(10)
        assert out[0].status_code == 200 and out[0].json()["name"] == "long.mat"
        assert threads[0].startswith("bgrl-review")
        assert c.app.state.limiter.reviews_inflight == 0 and c.app.state.limiter.jobs_inflight == 0


def test_reviews_have_their_own_limit(tmp_path, monkeypatch):
    started, release, _ = _held_review(monkeypatch)
    with _client(tmp_path, review_workers=1, max_reviews=1) as c:
        assert c.app.state.settings.max_reviews == 1
        t = threading.Thread(target=lambda: c.post("/v1/review/upload", json={"text": "x"}))
        t.start()
        try:
            assert started.wait(10)
            r = c.post("/v1/review/upload", json={"text": "y"})
            assert r.status_code == 503 and r.json()["code"] == "overloaded" and r.headers["retry-after"] == "1"
            assert "reviews" in r.json()["message"]
            assert c.post("/v1/games", json={"level": "beginner"}).status_code == 200  # game work is not refused
        finally:
            release.set()
            t.join(10)


def test_review_settings_resolve_and_are_checked():
    cfg = Settings(pool_workers=2).resolved()
    assert cfg.review_workers == 1 and cfg.max_reviews == 8
    assert Settings(review_workers=3).resolved().max_reviews == 24
    for kw in ({"review_workers": 0}, {"max_reviews": -1}):
        with pytest.raises(ValueError):
            Settings(**kw).resolved()


# ----------------------------------------------------------------------------- a command racing DELETE
def test_a_command_racing_delete_is_404(tmp_path, monkeypatch):
    """DELETE lands between a command's read of the game and its write: 404 as for a missing game."""
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner", "seed": 5}).json()
        tok = {HEADER: st["player_token"]}
        st2 = c.post("/v1/games", json={"level": "beginner", "seed": 6}, headers=tok).json()
        store = c.app.state.store
        update = store.update

        def deleted_meanwhile(gid, owner, *args, **kwargs):
            store.delete(gid, owner)
            return update(gid, owner, *args, **kwargs)
        monkeypatch.setattr(store, "update", deleted_meanwhile)
        for gid, path, body in ((st["id"], "resign", {"value": "single"}),
                                (st2["id"], "play", {"position_id": st2["plays"][0]["position_id"]})):
            r = c.post(f"/v1/games/{gid}/{path}", json=body, headers=tok)
            assert r.status_code == 404, r.text
            assert r.json()["code"] == "not_found" and gid in r.json()["message"]
        assert c.get("/v1/games", headers=tok).json() == {"games": []}


# ----------------------------------------------------------------------------- X-Forwarded-For
def _serve(tmp_path, **kw):
    import socket

    app = _app(tmp_path, **kw)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", access_log=False,
                                           **uvicorn_options(app.state.settings)))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    base = f"http://127.0.0.1:{port}"
    t_end = time.monotonic() + 60
    while True:
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return base, server, th
        except httpx.TransportError:
            pass
        assert time.monotonic() < t_end and th.is_alive(), "the test server did not start"
        time.sleep(0.05)


@pytest.mark.parametrize("proxies, statuses", [("", [200, 429]), ("127.0.0.1", [200, 200])])
def test_forwarded_for_counts_only_behind_a_named_proxy(tmp_path, proxies, statuses):
    """One new game per address: a client that names another address in X-Forwarded-For is
    still counted by its own (the default), unless it is a proxy named in forwarded_allow_ips."""
    base, server, th = _serve(tmp_path, games_burst=1, games_per_minute=1.0, **({"forwarded_allow_ips": proxies} if proxies else {}))
    try:
        got = [httpx.post(base + "/v1/games", json={"level": "beginner"}, headers={"X-Forwarded-For": f"198.51.100.{i}"},
                          timeout=30) for i in (1, 2)]
        assert [r.status_code for r in got] == statuses, [r.text for r in got]
        if statuses[1] == 429:
            assert got[1].json()["code"] == "too_many_games"
    finally:
        server.should_exit = True
        th.join(10)


def test_uvicorn_options_trust_no_proxy_by_default():
    assert uvicorn_options(Settings())["proxy_headers"] is False
    opts = uvicorn_options(Settings(forwarded_allow_ips="10.0.0.1,10.0.0.2"))
    assert opts["proxy_headers"] is True and opts["forwarded_allow_ips"] == "10.0.0.1,10.0.0.2"


# ----------------------------------------------------------------------------- long player names in an upload
def test_upload_review_cuts_long_player_names(tmp_path):
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner", "seed": 21}).json()
        tok = {HEADER: st["player_token"]}
        while not st["over"]:
            st = c.post(f"/v1/games/{st['id']}/play", json={"position_id": st["plays"][0]["position_id"]}, headers=tok).json()
        lines = c.get(f"/v1/games/{st['id']}/record", headers=tok).text.splitlines()
        head = json.loads(lines[0])
        head["white"], head["black"] = "W" * 400_000, "B" * 400_000
        text = "\n".join([json.dumps(head), *lines[1:]]) + "\n"
        r = c.post("/v1/review/upload", json={"text": text, "name": "long-names.jsonl"})
        assert r.status_code == 200, r.text[:300]
        assert len(r.content) < 300_000, len(r.content)  # not 400,000 characters a turn
        rv = r.json()
        g = rv["games"][0]
        short_w, short_b = "W" * (NAME_MAX - 1) + "\u2026", "B" * (NAME_MAX - 1) + "\u2026"
        assert g["white"] == short_w and g["black"] == short_b
        assert len(rv["summary"]) == 2 and all(len(k) <= NAME_MAX for k in rv["summary"])
        assert {t["player"] for t in g["turns"]} == {f"{short_w} (White)", f"{short_b} (Black)"}
        # a name of 80 characters is shown whole
        head["white"], head["black"] = "w" * NAME_MAX, "bob"
        text = "\n".join([json.dumps(head), *lines[1:]]) + "\n"
        g = c.post("/v1/review/upload", json={"text": text}).json()["games"][0]
        assert g["white"] == "w" * NAME_MAX and g["black"] == "bob"


# ----------------------------------------------------------------------------- unknown request fields
@pytest.mark.parametrize("path, body", [
    ("/v1/games", {"level": "beginner", "matchlength": 3}),
    ("/v1/games/0123456789abcdef/play", {"position_id": "4HPwATDgc/ABMA", "x": 1}),
    ("/v1/games/0123456789abcdef/hint", {"top": 3, "levle": "expert"}),
    ("/v1/games/0123456789abcdef/resign", {"value": "single", "cube": 2}),
    ("/v1/games/0123456789abcdef/review", {"judge": "expert"}),
    ("/v1/review/upload", {"text": "x", "viewr": "black"}),
])
def test_unknown_fields_are_refused(tmp_path, path, body):
    with _client(tmp_path) as c:
        r = c.post(path, json=body)
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "invalid_request" and r.json()["detail"][0]["type"] == "extra_forbidden"
        assert c.get("/v1/games").json() == {"games": []}  # no game was started


def test_the_page_sends_only_known_fields(tmp_path):
    """The page's bodies (bgrl.service.webapp/app.js) are still accepted: every field it sends."""
    with _client(tmp_path) as c:
        st = c.post("/v1/games", json={"level": "beginner", "colour": "white", "opening_roll": False,
                                       "hint_level": "expert", "cube": True, "match_length": 3}).json()
        assert "id" in st, st
        tok = {HEADER: st["player_token"]}
        assert c.post("/v1/games", json={"level": "beginner", "colour": "black", "hint_level": "expert",
                                         "position": "4HPwATDgc/ABMA", "dice": [3, 1]}, headers=tok).status_code == 200
        st = c.post("/v1/games", json={"level": "beginner", "seed": 3}, headers=tok).json()
        assert c.post(f"/v1/games/{st['id']}/hint", json={"level": "expert", "top": 10}, headers=tok).status_code == 200
        assert c.post(f"/v1/games/{st['id']}/play", json={"position_id": st["plays"][0]["position_id"]},
                      headers=tok).status_code == 200
        assert c.post(f"/v1/games/{st['id']}/review", json={}, headers=tok).status_code == 200
        assert c.post(f"/v1/games/{st['id']}/resign", json={"value": "single"}, headers=tok).status_code == 200
        rec = c.get(f"/v1/games/{st['id']}/record", headers=tok).text
        assert c.post("/v1/review/upload", json={"text": rec, "name": "g.jsonl", "viewer": "white"}).status_code == 200


# ----------------------------------------------------------------------------- damaged rows in the store
def _damage(tmp_path, gid: str, **columns) -> None:
    with sqlite3.connect(tmp_path / "games.db") as db:
        for k, v in columns.items():
            db.execute(f"UPDATE games SET {k} = ? WHERE id = ?", (v, gid))


def test_damaged_rows_are_listed_answered_and_deletable(tmp_path):
    with _client(tmp_path) as c:
        first = c.post("/v1/games", json={"level": "beginner", "seed": 1}).json()
        tok = {HEADER: first["player_token"]}
        ids = [first["id"]] + [c.post("/v1/games", json={"level": "beginner", "seed": s}, headers=tok).json()["id"]
                               for s in (2, 3, 4, 5)]
        good, not_json, other_format, list_summary, bad_record = ids
        for gid in ids:  # finished, for the statistics
            assert c.post(f"/v1/games/{gid}/resign", json={"value": "backgammon"}, headers=tok).json()["accepted"]
        _damage(tmp_path, not_json, state="{oops")
        _damage(tmp_path, other_format, state=json.dumps({"format": "something-else", "id": other_format}))
        _damage(tmp_path, list_summary, summary="[1, 2]")
        with sqlite3.connect(tmp_path / "games.db") as db:
            state = json.loads(db.execute("SELECT state FROM games WHERE id = ?", (bad_record,)).fetchone()[0])
        state["records"] = [[{"type": "game", "format": "bgrl-game-1"}, {"oops": 1}]]  # an earlier game that cannot be read
        _damage(tmp_path, bad_record, state=json.dumps(state))

        r = c.get("/v1/games", headers=tok)
        assert r.status_code == 200, r.text
        rows = {g["id"]: g for g in r.json()["games"]}
        assert set(rows) == set(ids)
        assert rows[good]["level"] == "beginner" and "damaged" not in rows[good]
        for gid in (not_json, list_summary):
            assert rows[gid]["damaged"] is True and rows[gid]["reason"] and rows[gid]["served_here"] is False
        assert "not JSON" in rows[not_json]["reason"] and "array" in rows[list_summary]["reason"]

        def damaged(r, gid):
            assert r.status_code == 500, r.text
            j = r.json()
            assert j["code"] == "damaged_game" and gid in j["message"] and "delete" in j["message"], j
            assert "Traceback" not in r.text
        for gid in (not_json, list_summary, other_format):
            damaged(c.get(f"/v1/games/{gid}", headers=tok), gid)
            damaged(c.post(f"/v1/games/{gid}/resign", json={"value": "single"}, headers=tok), gid)
            damaged(c.post(f"/v1/games/{gid}/hint", json={}, headers=tok), gid)
            damaged(c.post(f"/v1/games/{gid}/review", json={}, headers=tok), gid)
            damaged(c.get(f"/v1/games/{gid}/record", headers=tok), gid)
        damaged(c.post(f"/v1/games/{bad_record}/review", json={}, headers=tok), bad_record)
        damaged(c.get(f"/v1/games/{bad_record}/record", headers=tok), bad_record)

        stats = c.get("/v1/games/stats", headers=tok)
        assert stats.status_code == 200, stats.text
        s = stats.json()
        assert [g["id"] for g in s["games"]] == [good] and s["levels"]["beginner"]["games"] == 1
        assert {d["id"] for d in s["damaged"]} == {not_json, other_format, list_summary, bad_record}

        for gid in (not_json, other_format, list_summary, bad_record):
            assert c.delete(f"/v1/games/{gid}", headers=tok).status_code == 200
        assert [g["id"] for g in c.get("/v1/games", headers=tok).json()["games"]] == [good]
        assert c.get("/v1/games/stats", headers=tok).json()["damaged"] == []


def test_an_uploads_reading_stops_with_its_review():
    """The upload's file is read with the review's cancel event as ``stop``: a review told to stop
    while its file is being read stops there (ServiceError ``cancelled``), not after reading it."""
    import sys
    from pathlib import Path

    from bgrl.service.engine import ServiceError
    from bgrl.service.web_review import upload_review

    class StopWhileReading:  # set, as far as the file's reader asks; not for the review's own checks
        def __init__(self):
            self.asked_by = []

        def is_set(self):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            self.asked_by.append(caller)
            return caller.startswith("bgrl.records")

    text = (Path(__file__).parents[1] / "data" / "gnubg_money_nocube.mat").read_text()
    req = web.UploadIn(text=text, name="m.mat")
    cancel = StopWhileReading()
    with pytest.raises(ServiceError) as info:
        upload_review(cancel, Engine(evaluator=fake_evaluator, model_sha256="fake"), req, "beginner")
    assert info.value.code == "cancelled"
    assert cancel.asked_by and all(m.startswith("bgrl.records") for m in cancel.asked_by)
