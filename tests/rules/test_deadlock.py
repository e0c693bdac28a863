"""Dead-locked positions (neither side can ever move) are refused by the one board check every
reader uses, and every loop that plays a game forward has a bound (issue 40, point 1).

The breaker's position ``27YFAGDbtgUAYA`` (both sides on the bar against closed boards) used
to make ``POST /v1/games`` record passes forever."""

from __future__ import annotations

import time

import numpy as np
import pytest

from bgrl.cli import main
from bgrl.rules.board import (START_BOARD, DeadPositionError, Position, deadlocked_boards, flip, illegal_boards,
                              validate_board)
from bgrl.rules.dice import ROLLS
from bgrl.rules.game import MAX_PLIES, Game
from bgrl.rules.movegen import generate

DEAD_ID = "27YFAGDbtgUAYA"


def _dead(mover_home=(2, 2, 2, 2, 2, 2), opp_home=(2, 2, 2, 2, 2, 2), mover_bar=1, opp_bar=1):
    b = np.zeros(26, dtype=np.int64)
    b[1:7] = mover_home
    b[19:25] = [-n for n in opp_home]
    b[25], b[0] = mover_bar, -opp_bar
    return b


def _every_roll_passes(board) -> bool:
    b = np.asarray(board, dtype=np.int8)
    for side in (b, flip(b)):
        after = generate(np.repeat(side[None], len(ROLLS), axis=0), np.array(ROLLS, dtype=np.int8), validate=False)
        if after.dice_used.any():
            return False
    return True


DEAD_BOARDS = [
    _dead(),
    _dead(mover_home=(3, 2, 2, 2, 2, 3), opp_bar=2),
    _dead(mover_home=(2, 2, 2, 2, 2, 2), opp_home=(2, 3, 2, 2, 3, 2), mover_bar=3, opp_bar=1),
    _dead(mover_home=(2, 2, 2, 2, 2, 4), opp_home=(2, 2, 2, 2, 2, 2), mover_bar=1, opp_bar=3),
]


def test_the_breakers_position_is_refused_by_name():
    with pytest.raises(DeadPositionError, match="neither side can ever move"):
        Position.from_id(DEAD_ID)


@pytest.mark.parametrize("i", range(len(DEAD_BOARDS)))
def test_dead_positions_are_dead_and_refused(i):
    b = DEAD_BOARDS[i]
    assert _every_roll_passes(b.astype(np.int8))  # the claim the check makes, by the generator
    assert deadlocked_boards(b[None])[0] and deadlocked_boards(flip(b)[None])[0]
    assert illegal_boards(b[None])[0]
    with pytest.raises(DeadPositionError):
        validate_board(b)
    with pytest.raises(ValueError):
        Position(flip(b))


@pytest.mark.parametrize("change", ["mover_not_on_bar", "opp_not_on_bar", "blot_in_mover_home", "open_point_in_opp_home"])
def test_near_dead_positions_are_kept(change):
    b = _dead()
    if change == "mover_not_on_bar":
        b[25] = 0
        b[10] = 1
    elif change == "opp_not_on_bar":
        b[0] = 0
        b[15] = -1
    elif change == "blot_in_mover_home":
        b[3] = 1
        b[12] = 1
    else:
        b[21] = 0
        b[15] = -2
    assert not deadlocked_boards(b[None])[0]
    Position(b)  # accepted: some roll of some side moves
    assert not _every_roll_passes(b.astype(np.int8))


def test_start_and_random_play_are_never_dead():
    assert not deadlocked_boards(START_BOARD[None])[0]
    rng = np.random.default_rng(0)
    g = Game()
    while g.over is None:
        d = tuple(int(x) for x in rng.integers(1, 7, 2))
        a = g.after_states(d)
        assert not deadlocked_boards(a).any()
        g.apply(a[rng.integers(len(a))], d)


def test_a_game_is_bounded():
    g = Game()
    g.plies = MAX_PLIES
    a = g.after_states((3, 1))[0]
    with pytest.raises(RuntimeError, match=f"exceeded {MAX_PLIES} plies"):
        g.apply(a, (3, 1))


@pytest.mark.parametrize("args", [["rollout", DEAD_ID, "31", "--trials", "36"], ["moves", DEAD_ID, "31"],
                                  ["play", "--position", DEAD_ID, "--dice", "31", "--opponent", "pubeval", "--no-save"],
                                  ["hint", DEAD_ID, "31"]])
def test_cli_refuses_the_dead_position(args, capsys):
    t0 = time.perf_counter()
    code = main(args)
    _, err = capsys.readouterr()
    assert code == 2 and "neither side can ever move" in err and len(err.strip().splitlines()) == 1
    assert time.perf_counter() - t0 < 30


def test_service_refuses_the_dead_position_at_once():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from bgrl.service.app import Settings, create_app
    from bgrl.service.engine import Engine
    from service_fakes import fake_evaluator

    with TestClient(create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"),
                               settings=Settings(pool_kind="thread"))) as c:
        t0 = time.perf_counter()
        r = c.post("/v1/games", json={"level": "beginner", "position": DEAD_ID})
        assert r.status_code == 400 and r.json()["code"] == "bad_position"
        assert "neither side can ever move" in r.json()["message"]
        assert time.perf_counter() - t0 < 5
        board = [int(x) for x in DEAD_BOARDS[1]]
        r = c.post("/v1/games", json={"level": "beginner", "board": board, "dice": [3, 1]})
        assert r.status_code == 400 and r.json()["code"] == "bad_position"
        for body in ({"gnubg_id": DEAD_ID, "dice": [3, 1]}, {"board": board, "dice": [3, 1]}):
            r = c.post("/v1/move", json={"position": {k: v for k, v in body.items() if k != "dice"}, "dice": body["dice"]})
            assert r.status_code == 400, r.text
        # and the server still answers
        assert c.get("/v1/health").status_code == 200
        assert c.post("/v1/games", json={"level": "beginner", "seed": 1}).status_code == 200
