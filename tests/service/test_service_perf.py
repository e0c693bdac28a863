"""The lean path of the hot routes (bgrl.service.middleware.LeanRoutes) answers exactly as the
FastAPI handlers do: the same JSON for good requests, the same errors for bad ones (which
it hands on), and it really serves the plain requests."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

import bgrl.service.v1 as service_v1  # noqa: E402
import bgrl.service.wildbg as service_wildbg  # noqa: E402
from bgrl.agents.levels import LEVEL_NAMES  # noqa: E402
from bgrl.rules.board import START_BOARD, START_POSITION_ID, Position  # noqa: E402
from bgrl.service.app import Settings, create_app  # noqa: E402
from bgrl.service.engine import Engine, ListJob, plain_steps  # noqa: E402

from service_fakes import fake_evaluator  # noqa: E402


@pytest.fixture(scope="module")
def clients():
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    with TestClient(create_app(engine=eng, settings=Settings(pool_kind="thread", lean_routes=True))) as lean, \
            TestClient(create_app(engine=eng, settings=Settings(pool_kind="thread", lean_routes=False))) as full:
        yield lean, full


def _positions(n: int, seed: int = 5) -> list[tuple[list[int], tuple[int, int]]]:
    """Positions of random self-play (fake evaluator's engine, random plays), with dice."""
    from bgrl.rules.movegen import generate
    from bgrl.rules.board import flip

    rng = np.random.default_rng(seed)
    out, board = [], START_BOARD.copy()
    while len(out) < n:
        d = tuple(int(x) for x in rng.integers(1, 7, size=2))
        out.append(([int(v) for v in board], d))
        aft = generate(board[None], np.array([d], dtype=np.int8))
        nxt = aft.boards[rng.integers(len(aft.boards))] if aft.counts[0] else board
        board = flip(np.asarray(nxt, dtype=np.int8))
        if (board[1:26] <= 0).all() or (board[0:25] >= 0).all():  # a side has borne off: start again
            board = START_BOARD.copy()
    return out


def _same(a, b, drop=("elapsed_ms",)):
    assert a.status_code == b.status_code, (a.text, b.text)
    ja, jb = a.json(), b.json()
    if isinstance(ja, dict):
        for k in drop:
            ja.pop(k, None), jb.pop(k, None)
    assert ja == jb
    assert a.headers.get("retry-after") == b.headers.get("retry-after")


def test_lean_answers_equal_fastapi_answers(clients, monkeypatch):
    lean, full = clients
    served = {"move": 0, "wildbg": 0}
    real_body, real_query = service_v1.lean_move_body, service_wildbg.lean_wildbg_query

    def count_body(body):
        r = real_body(body)
        served["move"] += r is not None
        return r

    def count_query(qs):
        r = real_query(qs)
        served["wildbg"] += r is not None
        return r

    monkeypatch.setattr(service_v1, "lean_move_body", count_body)
    monkeypatch.setattr(service_wildbg, "lean_wildbg_query", count_query)
    pos = _positions(40)
    for i, (board, d) in enumerate(pos):
        level = LEVEL_NAMES[i % len(LEVEL_NAMES)]
        pid = Position(np.array(board, dtype=np.int8)).position_id
        for body in ({"position": {"gnubg_id": pid}, "dice": list(d), "level": level, "seed": i},
                     {"position": {"board": board}, "dice": f"{d[0]}{d[1]}", "level": level, "seed": 2**63 - 1 - i}):
            _same(lean.post("/v1/move", json=body), full.post("/v1/move", json=body))
        pips = "&".join(f"p{k}={v}" for k, v in enumerate(board) if v)
        q = f"/move?die1={d[0]}&die2={d[1]}&{pips}&level={level}&seed={i}"
        _same(lean.get(q), full.get(q))
        _same(lean.get(q + "&x_away=1&o_away=1"), full.get(q + "&x_away=1&o_away=1"))
    # the default level (expert, noise-free): no seed needed for a reproducible wildbg list
    _same(lean.get("/move?die1=6&die2=6&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"),
          full.get("/move?die1=6&die2=6&p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5"))
    assert served["move"] >= 80 and served["wildbg"] >= 80, served  # the lean path answered them


BAD_MOVES = [
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "seed": 1.0},  # a float seed: pydantic's rules
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "seed": "7"},
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "seed": -1},
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "level": "supergrandmaster"},
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "colour": "red"},
    {"position": {"gnubg_id": START_POSITION_ID, "xgid": "x"}, "dice": [3, 1]},
    {"position": {"gnubg_id": "not an id"}, "dice": [3, 1]},
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 7]},
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": [True, 1]},
    {"position": {"gnubg_id": START_POSITION_ID}},
    {"position": {"board": [0] * 26}, "dice": [3, 1]},  # no checkers: a bad position
    {"position": {"board": [True] + [0] * 25}, "dice": [3, 1]},
    {"position": {"board": [0] * 25 + [1]}, "dice": [3, 1]},
    {"position": {"board": [0, 15] + [0] * 23 + [0]}, "dice": [3, 1]},  # one side only
    {"position": {"gnubg_id": START_POSITION_ID}, "dice": "31", "level": None},
    [1, 2],
]


@pytest.mark.parametrize("body", BAD_MOVES, ids=range(len(BAD_MOVES)))
def test_bad_moves_get_the_same_errors(clients, body):
    lean, full = clients
    _same(lean.post("/v1/move", json=body), full.post("/v1/move", json=body))


def test_game_over_from_the_engine_is_the_same_400(clients):
    lean, full = clients
    board = [0] * 26
    board[1] = 1  # the mover has one checker left; the opponent has none: the game is over
    body = {"position": {"board": board}, "dice": [3, 1], "seed": 1}
    a, b = lean.post("/v1/move", json=body), full.post("/v1/move", json=body)
    _same(a, b)
    assert a.status_code == 400


BAD_QUERIES = [
    "die1=3&die2=1&p6=5&p19=-5",  # a legal query, for contrast (the one below differ from it)
    "die1=3&die2=7&p6=5&p19=-5",
    "die1=3&p6=5&p19=-5",
    "die1=3&die2=1&p6=5&p19=-5&p26=1",
    "die1=3&die2=1&p6=5&p6=5&p19=-5",
    "die1=3&die2=1&p6=16&p19=-5",
    "die1=3&die2=1&p6=05&p19=-5",
    "die1=3&die2=1&p6=%2B5&p19=-5",
    "die1=3&die2=1&p6=&p19=-5",
    "die1=3&die2=1&p6=5&p19=-5&x_away=3&o_away=3",
    "die1=3&die2=1&p6=5&p19=-5&level=hard",
    "die1=3&die2=1&p6=5&p19=-5&seed=-4",
    "die1=3&die2=1&p6=5&p19=-5&seed=99999999999999999999",
    "die1= 3&die2=1&p6=5&p19=-5",
    "die1=3&die2=1",
]


@pytest.mark.parametrize("qs", BAD_QUERIES, ids=range(len(BAD_QUERIES)))
def test_odd_wildbg_queries_get_the_same_answers(clients, qs):
    lean, full = clients
    _same(lean.get("/move?" + qs), full.get("/move?" + qs))


def test_lean_routes_keep_metrics_and_request_id(clients):
    lean, _ = clients
    r = lean.post("/v1/move", json={"position": {"gnubg_id": START_POSITION_ID}, "dice": [3, 1], "seed": 3},
                  headers={"X-Request-ID": "lean-1"})
    assert r.status_code == 200 and r.headers["x-request-id"] == "lean-1"
    assert r.headers["content-type"] == "application/json"
    text = lean.get("/metrics").text
    assert 'bgrl_requests_total{endpoint="/v1/move",level="expert",status="200"}' in text


def test_legal_plays_batch_equals_legal_plays():
    from bgrl.rules.movegen import generate
    from bgrl.rules.notation import legal_plays, legal_plays_batch

    pos = _positions(300, seed=11)
    boards = np.array([b for b, _ in pos], dtype=np.int8)
    dice = np.array([d for _, d in pos], dtype=np.int8)
    batch = legal_plays_batch(generate(boards, dice, paths=True))
    n_pass = 0
    for (b, d), got in zip(pos, batch):
        want = legal_plays(Position(np.array(b, dtype=np.int8)), d)
        n_pass += not want
        assert [p.notation for p in got] == [p.notation for p in want]
        assert [p.position_id for p in got] == [p.position_id for p in want]
        assert [p.moves for p in got] == [p.moves for p in want]
        assert all(np.array_equal(p.after_state, q.after_state) for p, q in zip(got, want))
    assert len(batch) == 300 and sum(map(len, batch)) > 3000


@pytest.mark.slow
def test_inline_calls_answer_as_the_workers_do():
    """With worker processes, a lone client's call runs in the server process itself
    (inline_idle): the same answers as the workers give, and the workers still serve
    concurrent load."""
    import concurrent.futures

    bodies = [{"position": {"board": b}, "dice": list(d), "level": LEVEL_NAMES[i % len(LEVEL_NAMES)], "seed": i}
              for i, (b, d) in enumerate(_positions(24, seed=3))]
    answers = {}
    for inline in (True, False):
        app = create_app(settings=Settings(pool_kind="process", pool_workers=1, inline_idle=inline))
        with TestClient(app) as c:
            lim = c.app.state.limiter
            calls = {"inline": 0}
            real_inline = lim._inline

            def counted(job, real_inline=real_inline, calls=calls):  # the limiter's typed jobs (issue 38)
                calls["inline"] += 1
                return real_inline(job)

            lim._inline = counted
            one = [c.post("/v1/move", json=b).json() for b in bodies]
            with concurrent.futures.ThreadPoolExecutor(8) as ex:
                many = list(ex.map(lambda b: c.post("/v1/move", json=b).json(), bodies * 2))
            batched = c.get("/metrics").text
        for r in one + many:
            r.pop("elapsed_ms")
        assert many == one + one
        answers[inline] = one
        if inline:
            assert calls["inline"] >= len(bodies) // 2  # lone requests ran in the server process (not those of the first 50 ms: shared_until)
        else:
            assert calls["inline"] == 0
        assert "bgrl_batch_size_count" in batched
    assert answers[True] == answers[False]


def test_shared_until_marks_a_second_connection():
    import asyncio

    from bgrl.service.metrics import AccessLog, ServiceMetrics

    async def ok(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    m = ServiceMetrics()
    mw = AccessLog(ok, metrics=m)

    async def call(client):
        async def receive():
            return {"type": "http.request", "body": b""}

        async def send(msg):
            pass

        await mw({"type": "http", "method": "GET", "path": "/x", "headers": [], "client": client}, receive, send)

    import time as _time

    asyncio.run(call(("127.0.0.1", 1)))
    first = m.shared_until
    asyncio.run(call(("127.0.0.1", 1)))
    assert m.shared_until == first  # the same connection again: nothing new
    asyncio.run(call(("127.0.0.1", 2)))
    assert m.shared_until > first and m.shared_until > _time.perf_counter()


def test_wildbg_body_equals_the_ranked_rows():
    """The wildbg list's lean build (HintRanker.search_many, one numpy rounding per answer)
    gives the body the full rows give: the same plays in the same order (ties included:
    the fake evaluator ties often), the chosen play first where a seed or noise picks one,
    and every probability as Python's round(x, 6)."""
    import json

    from bgrl.agents.hints import HintRanker

    eng = Engine(evaluator=fake_evaluator)
    pos = [(Position(np.array(b, dtype=np.int8)), d) for b, d in _positions(120, seed=5)]
    ties = 0
    for level, seed in (("expert", None), ("casual", 7), ("beginner", None), ("world-class", 3)):
        bodies = eng.run_batch([ListJob(p, d, level, seed, as_json=True) for p, d in pos])
        lists = eng.run_batch([ListJob(p, d, level, seed) for p, d in pos])
        for body, rows in zip(bodies, lists):
            got = json.loads(body)["moves"]
            assert len(got) == len(rows)
            for g, (play, pr) in zip(got, rows):
                assert g["play"] == [{"from": a, "to": b} for a, b in plain_steps(play)]
                assert list(g["probabilities"].values()) == [round(float(x), 6) for x in pr]
            eq = [r[1][0] for r in rows]
            ties += len(eq) - len(set(eq))
    assert ties > 100  # the order of equal plays was exercised
    ranker = HintRanker(fake_evaluator, ply=0)
    for (p, d), got in zip(pos, ranker.search_many(pos)):
        rows = ranker.rank(p, d)
        if got is None:
            assert rows == []
            continue
        plays, _probs, _plies, order = got
        assert [plays[i].position_id for i in order] == [r.play.position_id for r in rows]
