"""bgrl.session.GameSession: one game with its cube and match, carried through the store's JSON
form unchanged (issue 41)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.rules.board import Position
from bgrl.rules.cube import CubeState
from bgrl.rules.match import Match, MatchRules
from bgrl.session.game import MAX_SEED, GameSession, SessionError
from bgrl.service.engine import Engine

from service_fakes import fake_evaluator


@pytest.fixture(scope="module")
def engine():
    return Engine(evaluator=fake_evaluator, model_sha256="fake")


def _roundtrip(s: GameSession) -> GameSession:
    return GameSession.from_state(json.loads(json.dumps(s.to_state(), allow_nan=False)))


def _same(a: GameSession, b: GameSession):
    sa, sb = a.state(), b.state()
    assert sa == sb
    assert a.to_state() == b.to_state()


def test_seeds_drawn_fit_a_javascript_number():
    seeds = [GameSession.new(level="beginner").seed for _ in range(200)]
    assert max(seeds) <= MAX_SEED == 2**53 - 1 and len(set(seeds)) > 190


def test_a_game_survives_the_store_form_at_every_turn(engine):
    s = GameSession.new(level="beginner", seed=11)
    s.advance(engine)
    n = 0
    while s.game.over is None:
        t = _roundtrip(s)
        _same(s, t)
        # the copy goes on exactly as the original: same dice, same computer replies
        pick = s.plays[n % len(s.plays)].position_id
        s.play(engine, pick)
        t.play(engine, pick)
        _same(s, t)
        n += 1
        assert n < 300
    assert s.record.result is not None and s.summary()["over"] and s.finished


def test_bad_state_is_refused():
    with pytest.raises(SessionError) as e:
        GameSession.from_state({"format": "other"})
    assert e.value.code == "bad_state"


def test_commands_check_their_moment(engine):
    s = GameSession.new(level="beginner", seed=3)
    s.advance(engine)
    with pytest.raises(SessionError) as e:
        s.play(engine, "AAAAAAAAAAAAAA")
    assert e.value.code == "illegal_play"
    with pytest.raises(SessionError) as e:
        s.cube_action(engine, "double")
    assert e.value.code == "no_cube"
    assert s.state()["may_draw"]


def test_cube_match_goes_through_the_store_and_scores_with_the_cube(engine):
    s = GameSession.new(level="beginner", seed=5, rules=MatchRules(match_length=3))
    s.advance(engine)
    assert s.awaiting == "cube" and s.state()["cube"]["may_double"] and not s.state()["may_draw"]
    with pytest.raises(SessionError) as e:
        s.draw(engine)
    assert e.value.code == "no_draw"
    s = _roundtrip(s)
    s.cube_action(engine, "roll")
    s = _roundtrip(s)
    assert s.dice is not None or s.awaiting is not None or s.game.over is not None


def test_a_resignation_in_a_cube_game_states_and_scores_cube_times_result(engine, monkeypatch):
    s = GameSession.new(level="beginner", seed=5, rules=MatchRules())
    s.advance(engine)
    s.match.cube_value, s.match.cube_owner = 2, s.human
    monkeypatch.setattr(GameSession, "computer_equity", lambda self, eng, level=None: 0.5)
    out = s.resign(engine, "single")
    assert out["accepted"] and "(2 points)" in out["reason"] and "at a cube of 2" in out["reason"]
    st = s.state()
    assert st["over"]["points"] == 2 and "2 points" in st["over"]["text"]
    assert s.match.score[s.computer] == 2 and s.record.result["points"] == 2
    assert st["cube"]["awaiting"] is None and not st["cube"]["may_answer"]


def test_a_dead_cube_is_not_offered():
    m = Match(MatchRules(match_length=3))
    m.score = {"white": 1, "black": 0}
    m.cube_value, m.cube_owner = 2, "white"
    assert m.why_no_double("white").startswith("the cube is dead")
    assert CubeState(value=1, match_length=3, score=(2, 0)).why_no_double() is not None
    assert CubeState(value=1, match_length=3, score=(0, 0)).why_no_double() is None


def test_a_match_score_stops_at_the_match_length():
    m = Match(MatchRules(match_length=3))
    m.cube_value, m.cube_owner = 8, "black"
    gs = m.end_game("white", 3)
    assert gs.points == 24 and m.score == {"white": 3, "black": 0} and m.over and m.winner == "white"
    assert Match.from_state(json.loads(json.dumps(m.to_state()))).to_state() == m.to_state()


def test_a_set_up_position_and_its_dice(engine):
    pos = Position.from_id("4HPwATDgc/ABMA")
    s = GameSession.new(level="beginner", seed=1, start=pos, first_dice=(1, 3))
    s.advance(engine)
    assert s.dice == (3, 1) and len(s.plays) == 16 and s.set_up
    with pytest.raises(SessionError):
        GameSession.new(level="beginner", start=pos, opening=True)
    with pytest.raises(SessionError):
        GameSession.new(level="beginner", first_dice=(3, 1))
    assert np.array_equal(_roundtrip(s).human_board(), s.human_board())


def _old_state(s: GameSession) -> dict:
    """``s.to_state()`` as games were stored before records held the cube: no cube header or
    cube lines, and no result line after a dropped double."""
    st = json.loads(json.dumps(s.to_state()))

    def strip(lines, gs):
        out = [dict(x) for x in lines if x["type"] != "cube"]
        out[0].pop("cube", None)
        if gs is not None and gs["how"] == "pass":
            out = [x for x in out if x["type"] != "result"]
        return out

    games = st["match"]["games"]
    st["records"] = [strip(r, games[i]) for i, r in enumerate(st["records"])]
    st["record"] = strip(st["record"], games[len(st["records"])] if len(games) > len(st["records"]) else None)
    return st


def test_games_stored_before_records_held_the_cube_get_it_back(engine, monkeypatch):
    """A cube session stored before (its records without the cube) exports records with the cube
    header, the cube lines and a dropped game's result, as a session stored now does."""
    import bgrl.agents.cube as agents_cube
    from bgrl.records.record import parse_records

    answers = iter(["take", "pass"] * 50)
    monkeypatch.setattr(agents_cube, "answer_double", lambda agent, board, cube: next(answers))
    monkeypatch.setattr(agents_cube, "wants_double", lambda d, cube=None: False)
    s = GameSession.new(level="beginner", seed=9, rules=MatchRules(match_length=5))
    s.advance(engine)
    for _ in range(3):
        while s.game.over is None:
            if s.awaiting == "cube":
                s.cube_action(engine, "double" if s.match.may_double(s.human) else "roll")
            else:
                s.play(engine, s.plays[0].position_id)
        if s.match.over:
            break
        s.next_game(engine)
    now = [r.lines() for r in s.all_records()]
    assert any(x["type"] == "cube" for lines in now for x in lines)
    old = GameSession.from_state(_old_state(s))
    assert [r.lines() for r in old.all_records()] == now
    text = "".join(json.dumps(x) + "\n" for lines in now for x in lines)
    assert len(parse_records(text, "export.jsonl")) == len(now)
    # the turns of all games, no cube or result line counted
    assert old.summary()["turns"] == s.summary()["turns"] == sum(len(r.turns) for r in s.all_records())
