"""Issue 40, the service's part, through FastAPI's TestClient with the fake evaluator:
HEAD where GET works, the security headers on every answer, a page without inline script
or innerHTML, the Host allow-list, game commands under their session's lock (twelve
resignations at once), the per-client limit on new games, web hints through admission
control and built off the event loop, cheap validation before admission, and the 500s a
breaker found (a long asset name, a nested or non-Unicode upload)."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from importlib import resources

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bgrl.service import middleware, protocol  # noqa: E402
from bgrl.service.app import Settings, create_app, settings_env, uvicorn_options  # noqa: E402
from bgrl.service.middleware import RateLimit, host_name  # noqa: E402
from bgrl.service.engine import Engine  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402

START_ID = "4HPwATDgc/ABMA"
FINISHED_ID = "AAAAIAAAAAAAAA"  # the opponent has borne off all 15


class GatedEvaluator:
    """The fake evaluator, sleeping ``delay`` seconds a call once the test sets it (the
    engine's warm-up at construction runs at full speed)."""

    def __init__(self):
        self.delay = 0.0

    def __call__(self, after_states):
        if self.delay:
            time.sleep(self.delay)
        return fake_evaluator(after_states)


def _app(**kw):
    return create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"), settings=Settings(pool_kind="thread", **kw))


@pytest.fixture(scope="module")
def client():
    with TestClient(_app()) as c:
        yield c


def _move(gnubg_id=START_ID, dice=(3, 1)):
    return {"position": {"gnubg_id": gnubg_id}, "dice": list(dice), "level": "expert"}


# ----------------------------------------------------------------------------- HEAD
def test_head_answers_where_get_does(client):
    for path in ("/v1/health", "/v1/version", "/", "/web/app.js", "/web/style.css"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"], path
    r = client.head("/v1/move")  # POST only: HEAD is refused as GET would be
    assert r.status_code == 405


# ----------------------------------------------------------------------------- security headers
def _check_headers(r, docs=False):
    csp = r.headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in csp, (r.request.url, csp)
    assert r.headers.get("x-frame-options") == "DENY"
    assert r.headers.get("x-content-type-options") == "nosniff"
    directives = dict((d.strip().split(" ", 1) + [""])[:2] for d in csp.split(";") if d.strip())
    assert directives["script-src"].startswith("'self'")
    if not docs:
        assert "unsafe-inline" not in csp and "http" not in directives["script-src"]


def test_security_headers_on_every_answer(client):
    for r in (client.get("/"), client.get("/web/app.js"), client.get("/v1/health"), client.get("/nothing"),
              client.post("/v1/move", json={"position": {}}), client.post("/v1/move", json=_move(FINISHED_ID)),
              client.post("/v1/move", json=_move()), client.get("/v1/games/nope"), client.get("/openapi.json"),
              client.get("/metrics"), client.head("/v1/health")):
        _check_headers(r)
    r = client.get("/docs")  # Swagger UI served from here (bgrl.service.apidocs), under the page's own policy
    assert r.status_code == 200
    _check_headers(r)
    assert "http" not in r.headers["content-security-policy"] and "<script>" not in r.text


def test_api_docs_assets_are_served_from_here(client):
    """/docs names no other host: Swagger UI's script and style and its start-up script come
    from /docs/assets/; an unknown asset name is a 404, never a path."""
    import re

    page = client.get("/docs").text
    urls = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert urls and all(u.startswith("/docs/assets/") for u in urls), urls
    for u in urls:
        r = client.get(u)
        assert r.status_code == 200 and r.content, u
        _check_headers(r)
    assert "SwaggerUIBundle" in client.get("/docs/assets/init.js").text
    assert client.get("/docs/assets/..%2Fpyproject.toml").status_code == 404
    assert client.get("/docs/assets/index.html").status_code == 404
    assert client.get("/redoc").status_code == 404  # ReDoc would load from a CDN


def test_page_has_no_inline_script_and_no_innerhtml():
    web = resources.files("bgrl.service").joinpath("webapp")
    html = web.joinpath("index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, flags=re.S | re.I)
    assert scripts and all(not s.strip() for s in scripts), "inline script in index.html"
    assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html, flags=re.I))
    assert not re.search(r"\son[a-z]+\s*=", html, flags=re.I), "an inline event handler in index.html"
    assert "javascript:" not in html.lower() and "style=" not in html
    for name in ("app.js", "board.js"):
        js = web.joinpath(name).read_text(encoding="utf-8")
        for sink in (".innerHTML =", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in js, f"{name} uses {sink}"
        assert 'setAttribute("style"' not in js and "style=" not in js, f"{name} writes a style attribute (CSP style-src 'self')"


# ----------------------------------------------------------------------------- Host allow-list
@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST.:8080", "[::1]:8080", "testserver"])
def test_loopback_and_own_address_hosts_are_served(client, host):
    assert client.get("/v1/health", headers={"host": host}).status_code == 200


@pytest.mark.parametrize("host", ["rebind.example.com", "rebind.example.com:8080", "127.0.0.1.nip.io", "localhost.attacker.net", "a b", "[::1"])
def test_other_hosts_get_json_400(client, host):
    r = client.get("/v1/health", headers={"host": host})
    assert r.status_code == 400 and r.json()["code"] == "bad_host", r.text
    assert "--allowed-host" in r.json()["message"] or "malformed" in r.json()["message"]
    _check_headers(r)


def test_allowed_hosts_setting():
    with TestClient(_app(allowed_hosts="board.example.org,[fe80::1]")) as c:
        for host in ("board.example.org", "Board.Example.Org:443", "[fe80::1]:8080", "localhost"):
            assert c.get("/v1/health", headers={"host": host}).status_code == 200, host
        r = c.get("/v1/health", headers={"host": "other.example.org"})
        assert r.status_code == 400 and "board.example.org" in r.json()["message"]
    with TestClient(_app(allowed_hosts="*")) as c:
        assert c.get("/v1/health", headers={"host": "anything.example"}).status_code == 200


def test_host_name_parsing():
    assert host_name(b"Example.COM.:80") == "example.com"
    assert host_name("[::1]:8080") == "::1"
    assert host_name("::1") is None and host_name("a:b") is None and host_name("x/y") is None and host_name(b"\xff") is None


# ----------------------------------------------------------------------------- locks
@pytest.mark.parametrize("offer", ["resign", "draw"])
def test_twelve_concurrent_offers_one_game(offer):
    with TestClient(_app(), raise_server_exceptions=False) as c:
        st = c.post("/v1/games", json={"seed": 5}).json()
        body = {"value": "backgammon"} if offer == "resign" else None
        start = threading.Barrier(12)
        got = []

        def go():
            start.wait()
            r = c.post(f"/v1/games/{st['id']}/{offer}", json=body)
            got.append((r.status_code, r.json()))

        threads = [threading.Thread(target=go) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(s for s, _ in got)
        assert all(s < 500 for s in codes), got
        # each command reads the stored game and stores it with a version check: one wins, the
        # others find the game over (400) or changed meanwhile (409 conflict), never a 5xx
        answered = [j for s, j in got if s == 200]
        accepted = [j for j in answered if j["accepted"]]
        assert len(accepted) <= 1
        if offer == "resign":  # a backgammon resignation is always accepted: exactly once
            assert len(accepted) == 1, got
        assert all(j["code"] == "game_over" for s, j in got if s == 400)
        assert all(j["code"] == "conflict" for s, j in got if s == 409)
        assert set(codes) <= {200, 400, 409}
        final = c.get(f"/v1/games/{st['id']}").json()
        assert (final["over"] is not None) == bool(accepted)


# ----------------------------------------------------------------------------- per-client limit on new games
def test_new_games_rate_limit_429_with_retry_after():
    with TestClient(_app(games_per_minute=6, games_burst=3)) as c:
        for _ in range(3):
            assert c.post("/v1/games", json={}).status_code == 200
        r = c.post("/v1/games", json={})
        assert r.status_code == 429 and r.json()["code"] == "too_many_games", r.text
        assert 1 <= int(r.headers["retry-after"]) <= 10 and "a minute" in r.json()["message"]
        _check_headers(r)
        # cheap validation first: a bad request is its 400, and spends no token
        r = c.post("/v1/games", json={"position": FINISHED_ID})
        assert r.status_code == 400 and r.json()["code"] == "bad_position"
        assert c.get("/v1/health").status_code == 200  # nothing else is limited
    with TestClient(_app(games_per_minute=0, games_burst=1)) as c:  # 0: no limit
        assert all(c.post("/v1/games", json={}).status_code == 200 for _ in range(5))


def test_rate_limit_buckets(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(middleware.time, "monotonic", lambda: now[0])
    rl = RateLimit(per_minute=60, burst=2, max_keys=3)
    assert rl.take("a") == 0 and rl.take("a") == 0
    assert rl.take("a") == pytest.approx(1.0)  # one token a second
    assert rl.take("b") == 0  # another address has its own bucket
    now[0] += 0.5
    assert rl.take("a") == pytest.approx(0.5)
    now[0] += 0.5
    assert rl.take("a") == 0
    for k in "cdef":  # at most max_keys buckets are kept
        rl.take(k)
    assert len(rl._buckets) == 3


# ----------------------------------------------------------------------------- web hints: admission, off the loop
def _gated_app(**kw):
    ev = GatedEvaluator()
    app = create_app(engine=Engine(evaluator=ev, model_sha256="fake"), settings=Settings(pool_kind="thread", pool_workers=1, **kw))
    return app, ev


def _hold_the_only_slot(c, app, ev, delay=1.5):
    """Start a slow /v1/move in a thread; return it once it holds the only admission slot."""
    ev.delay = delay
    t = threading.Thread(target=lambda: c.post("/v1/move", json=_move()))
    t.start()
    t_end = time.monotonic() + 10
    while app.state.limiter.inflight < 1:
        assert time.monotonic() < t_end, "the slow request was not admitted"
        time.sleep(0.01)
    return t


def test_web_hint_goes_through_admission_control():
    app, ev = _gated_app(max_inflight=1)
    with TestClient(app) as c:
        st = c.post("/v1/games", json={"seed": 3}).json()
        t = _hold_the_only_slot(c, app, ev)
        r = c.post(f"/v1/games/{st['id']}/hint", json={"top": 0})
        t.join()
        assert r.status_code == 503 and r.json()["code"] == "overloaded" and r.headers["retry-after"] == "1", r.text
        ev.delay = 0.0
        h = c.post(f"/v1/games/{st['id']}/hint", json={"top": 0}).json()
        assert h["legal_plays"] == len(st["plays"]) and len(h["plays"]) == h["legal_plays"] and h["dice"] == st["dice"]


def test_web_hint_deadline_answers_504():
    app, ev = _gated_app(deadline_s=0.2)
    with TestClient(app) as c:
        st = c.post("/v1/games", json={"seed": 3}).json()
        ev.delay = 0.5
        r = c.post(f"/v1/games/{st['id']}/hint", json={})
        assert r.status_code == 504 and r.json()["code"] == "deadline_exceeded"


def test_web_hint_answer_is_built_off_the_event_loop(client, monkeypatch):
    import bgrl.service.web as web

    on_loop = []
    real = web.play_facts

    def spy(*a, **kw):
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return real(*a, **kw)

    monkeypatch.setattr(web, "play_facts", spy)
    st = client.post("/v1/games", json={"seed": 3}).json()
    h = client.post(f"/v1/games/{st['id']}/hint", json={"top": 0}).json()
    assert len(h["plays"]) > 1 and h["plays"][0]["why"]
    assert on_loop and not any(on_loop), "the hint's facts were built on the event loop"


# ----------------------------------------------------------------------------- cheap validation before admission
def test_bad_requests_get_400_not_503_under_load():
    app, ev = _gated_app(max_inflight=1)
    with TestClient(app) as c:
        st = c.post("/v1/games", json={"seed": 3}).json()
        t = _hold_the_only_slot(c, app, ev)
        try:
            cases = [
                (c.post("/v1/move", json=_move(FINISHED_ID)), "game_over"),
                (c.post("/v1/hint", json=_move(FINISHED_ID)), "game_over"),
                (c.post("/v1/eval", json={"position": {"gnubg_id": FINISHED_ID}}), "game_over"),
                (c.get("/move?die1=3&die2=1&p5=1"), "game_over"),
                (c.post("/v1/move", json={**_move(), "dice": [7, 1]}), "bad_dice"),
                (c.post("/v1/move", json={**_move(), "level": "nobody"}), "invalid_request"),  # the schema's 422
                (c.post(f"/v1/games/{st['id']}/hint", json={"level": "nobody"}), "bad_level"),
            ]
            assert app.state.limiter.inflight == 1  # still full while these were answered
        finally:
            t.join()
        for r, code in cases:
            assert r.status_code == (422 if code == "invalid_request" else 400) and r.json()["code"] == code, (code, r.status_code, r.text)


# ----------------------------------------------------------------------------- the breaker's 500s
def test_long_or_odd_asset_names_are_404(client):
    for name in ("a" * 300 + ".js", "x" * 5000 + ".css", "..%2Fapp.py", "__init__.py", "app.js.map", "%00.js"):
        r = client.get(f"/web/{name}")
        assert r.status_code == 404 and r.json()["code"] == "not_found", (name[:20], r.status_code)
        assert len(r.json()["message"]) < 200


def _record_text(client, white="you", black="bgrl beginner"):
    st = client.post("/v1/games", json={"seed": 21, "level": "beginner"}).json()
    while not st["over"]:
        st = client.post(f"/v1/games/{st['id']}/play", json={"position_id": st["plays"][0]["position_id"]}).json()
    lines = client.get(f"/v1/games/{st['id']}/record").text.splitlines()
    head = json.loads(lines[0])
    head["white"], head["black"] = white, black
    return "\n".join([json.dumps(head)] + lines[1:]) + "\n"


def test_nested_upload_is_one_line_400(client):
    text = '{"type": "game", "format": "bgrl-game-1", "white": ' + "[" * 5000 + "]" * 5000 + "}\n"
    r = client.post("/v1/review/upload", json={"text": text, "name": "deep.jsonl"})
    assert r.status_code == 400 and r.json()["code"] == "bad_file", r.text
    assert "\n" not in r.json()["message"] and "deep.jsonl" in r.json()["message"]


def test_lone_surrogate_upload_is_one_line_400(client):
    text = _record_text(client).replace('"white": "you"', '"white": "\\ud800you"', 1)
    assert "\\ud800" in text
    r = client.post("/v1/review/upload", json={"text": text, "name": "odd.jsonl"})
    assert r.status_code == 400 and r.json()["code"] == "bad_file", r.text
    assert "\n" not in r.json()["message"] and "surrogate" in r.json()["message"]
    raw = b'{"text": "\\ud800", "name": "raw.jsonl"}'  # in the request body itself: the schema's 4xx
    r = client.post("/v1/review/upload", content=raw, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500


def test_hostile_names_come_back_as_plain_data(client):
    """The names are data in JSON (the page renders them as text: the browser test)."""
    evil = '<img src=x onerror="window.__xss=1">'
    r = client.post("/v1/review/upload", json={"text": _record_text(client, white=evil), "name": "evil.jsonl"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.json()["games"][0]["white"] == evil


# ----------------------------------------------------------------------------- settings
def test_settings_checked_and_carried_by_the_environment(monkeypatch):
    for bad in ({"header_timeout_s": 0}, {"header_timeout_s": float("inf")}, {"max_header_bytes": 100}, {"max_headers": 0},
                {"games_per_minute": -1}, {"games_burst": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            Settings(**bad).resolved()
    s = Settings(allowed_hosts="127.0.0.1,board.example.org", header_timeout_s=2.5, max_header_bytes=4096, games_burst=7)
    for k, v in settings_env(s).items():
        monkeypatch.setenv(k, v)
    assert Settings.from_env() == s
    monkeypatch.setattr(protocol, "_ENV_PROTOCOL", None)
    proto = protocol.BoundedHTTP  # what `bgrl serve --workers N` names to uvicorn ("bgrl.service.protocol:BoundedHTTP")
    assert proto.__name__ == "BoundedHttpTools"
    # and no X-Forwarded-For believed unless forwarded_allow_ips names the proxies
    assert uvicorn_options(s, from_env=True) == {"http": "bgrl.service.protocol:BoundedHTTP", "proxy_headers": False,
                                                 "limit_concurrency": 1000}


# ----------------------------------------------------------------------------- bgrl serve
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_flags_reach_the_app_and_uvicorn(monkeypatch):
    import os

    uvicorn = pytest.importorskip("uvicorn")
    from bgrl.cli import main

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    monkeypatch.setattr(os, "environ", dict(os.environ))  # --workers N writes the settings there
    port = str(_free_port())
    assert main(["serve", "--port", port, "--allowed-host", "board.example.org", "--allowed-host", "[fe80::1]",
                 "--header-timeout", "3", "--max-header-bytes", "4096", "--max-headers", "20", "--games-burst", "5",
                 "--games-per-minute", "10"]) == 0
    cfg = seen["app"].state.settings
    assert cfg.allowed_hosts == "127.0.0.1,board.example.org,[fe80::1]"
    assert (cfg.header_timeout_s, cfg.max_header_bytes, cfg.max_headers, cfg.games_burst, cfg.games_per_minute) == (3, 4096, 20, 5, 10)
    assert seen["http"].__name__ == "BoundedHttpTools"
    seen.clear()
    assert main(["serve", "--port", port, "--workers", "2", "--allowed-host", "b.example"]) == 0
    assert seen["app"] == "bgrl.service.app:app_from_env" and seen["http"] == "bgrl.service.protocol:BoundedHTTP"
    assert os.environ["BGRL_SERVE_ALLOWED_HOSTS"] == "127.0.0.1,b.example"


@pytest.mark.parametrize("flags, expected", [
    (["--allowed-host", "bad name!"], "--allowed-host 'bad name!' is not a host name"),
    (["--allowed-host", "fe80::1"], "[fe80::1]"),
    (["--header-timeout", "0"], "--header-timeout must be > 0"),
    (["--header-timeout", "nan"], "--header-timeout must be > 0"),
    (["--max-header-bytes", "100"], "--max-header-bytes must be >= 1024"),
    (["--max-headers", "0"], "--max-headers must be >= 1"),
    (["--games-per-minute", "-1"], "--games-per-minute must be >= 0"),
    (["--games-burst", "0"], "--games-burst must be >= 1"),
])
def test_serve_bad_flags_are_one_line_exit_2(flags, expected, monkeypatch, capsys):
    uvicorn = pytest.importorskip("uvicorn")
    from bgrl.cli import main

    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: pytest.fail("uvicorn.run reached"))
    assert main(["serve", "--port", str(_free_port()), *flags]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("bgrl: error: ") and expected in lines[0], lines
