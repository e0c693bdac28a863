"""The double -> take / pass / beaver exchange is written once, in bgrl.rules.match.Match
(Match.offer, Match.answer), and the environments, the arena's cubeful matches and the game
session all go through it (issue 41): the same Match state gives the same cube play on every
surface. Result names are defined once (bgrl.rules.outcome)."""

from __future__ import annotations

import numpy as np
import pytest

from bgrl.rules.match import ANSWERS, GameScore, Match, MatchRules
from bgrl.rules.outcome import RESULT_NAMES, RESULT_TITLES

# -- Match.offer / Match.answer --------------------------------------------------------------


def test_offer_returns_the_cube_before_the_double_and_answer_applies_it():
    m = Match(MatchRules())
    cube = m.offer("white")
    assert cube.value == 1 and cube.owner == 0 and m.offered_by == "white"
    assert m.answer("black", "take") is None
    assert (m.cube_value, m.cube_owner, m.offered_by) == (2, "black", None)
    cube = m.offer("black")
    assert cube.value == 2 and cube.owner == 1
    gs = m.answer("white", "pass")
    assert gs == GameScore("black", 1, 2, 2, "pass") and m.score == {"white": -2, "black": 2} and m.game_over


def test_answer_errors_name_what_was_expected():
    m = Match(MatchRules())
    with pytest.raises(ValueError, match="no double was offered"):
        m.answer("black", "take")
    m.offer("white")
    with pytest.raises(ValueError, match="white made the double"):
        m.answer("white", "take")
    with pytest.raises(ValueError, match="must be take, pass or beaver") as e:
        m.answer("black", "drop")
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="cannot beaver: .*beaver"):
        m.answer("black", "beaver")  # beavers are off
    with pytest.raises(ValueError, match="a double is waiting"):
        m.offer("black")
    assert ANSWERS == ("take", "pass", "beaver")


def test_beaver_and_jacoby_through_answer():
    m = Match(MatchRules(jacoby=True, beavers=True))
    m.offer("white")
    assert m.answer("black", "beaver") is None
    assert (m.cube_value, m.cube_owner) == (4, "black")
    # a pass never counts a gammon; a played-out gammon counts once the cube is turned
    assert m.end_game("black", 2).points == 8


def test_the_old_names_are_the_same_steps():
    m = Match(MatchRules(match_length=5))
    assert m.double("white").value == 1
    m.take("black")
    m.double("black")
    gs = m.drop("white")
    assert gs.points == 2 and gs.how == "pass" and m.score == {"white": 0, "black": 2}


def test_a_dead_cube_and_the_crawford_game_refuse_the_offer():
    m = Match(MatchRules(match_length=3))
    m.score = {"white": 1, "black": 0}
    m.cube_value, m.cube_owner = 2, "white"
    with pytest.raises(ValueError, match="cannot double: the cube is dead"):
        m.offer("white")
    m = Match(MatchRules(match_length=3))
    m.offer("white")
    m.answer("black", "pass")
    m.cube_value = 1
    m.score["white"] = 2
    m.next_game()
    assert m.crawford
    with pytest.raises(ValueError, match="Crawford"):
        m.offer("black")


def test_restart_game_keeps_the_score_and_the_crawford_game():
    m = Match(MatchRules(match_length=3))
    m.offer("white")
    m.answer("black", "take")
    m.restart_game()  # a reset in the middle of a game: unscored, a fresh cube
    assert (m.cube_value, m.cube_owner, m.score, m.games) == (1, None, {"white": 0, "black": 0}, [])
    m.score["white"] = 2  # a score set by hand: the game in play becomes the Crawford game
    m.restart_game()
    assert m.crawford
    m.restart_game()
    assert m.crawford  # still the Crawford game, not post-Crawford
    m.end_game("black", 1)
    m.restart_game()  # after a finished game: the next game
    assert not m.crawford and m.post_crawford and m.game_number == 2
    m.end_game("white", 1)
    with pytest.raises(ValueError, match="the match is over"):
        m.restart_game()


def test_result_names_are_defined_once():
    from bgrl.agents.offers import KIND
    from bgrl.rules.game import RESIGN_VALUES

    assert KIND is RESULT_TITLES
    assert {p: n.replace(" game", "") for p, n in RESULT_TITLES.items()} == RESULT_NAMES
    assert RESIGN_VALUES == {n: p for p, n in RESULT_NAMES.items()}


# -- every surface goes through Match ----------------------------------------------------------


@pytest.fixture
def spy(monkeypatch):
    """Record every Match.offer (colour, cube value before it) and Match.answer (colour, response)."""
    calls = []
    offer, answer = Match.offer, Match.answer

    def _offer(self, colour):
        calls.append(("offer", colour, self.cube_value))
        return offer(self, colour)

    def _answer(self, colour, response):
        calls.append(("answer", colour, response))
        return answer(self, colour, response)

    monkeypatch.setattr(Match, "offer", _offer)
    monkeypatch.setattr(Match, "answer", _answer)
    return calls


def _post_crawford() -> Match:
    """A 3-point match, White 2, Black 1 (Black won the Crawford game): a post-Crawford game in play."""
    return Match.from_state({"rules": {"match_length": 3, "jacoby": False, "beavers": False, "max_value": 2 ** 15},
                             "score": {"white": 2, "black": 1},
                             "games": [{"winner": "white", "result": 2, "cube": 1, "points": 2, "how": "bear-off"},
                                       {"winner": "black", "result": 1, "cube": 1, "points": 1, "how": "bear-off",
                                        "crawford": True}],
                             "cube_value": 1, "cube_owner": None, "offered_by": None, "crawford": False,
                             "crawford_done": True, "game_over": False})


def _env_offers(spy) -> list:
    """The self-play env in the post-Crawford game, both sides doubling whenever they get a cube
    step and taking every double: the exchanges of its first game."""
    from bgrl.env.backgammon import MAX_PLAYS, BackgammonSelfPlayEnv

    e = BackgammonSelfPlayEnv(notation=False, cube=True, match_length=3)
    e.reset(seed=3)
    e._table = _post_crawford()
    _, info = e.reset()  # the game in play starts again: still post-Crawford
    assert info["cube"]["score"] == {"white": 2, "black": 1} and not info["cube"]["crawford"]
    spy.clear()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        if info["phase"] == "decide":
            a = MAX_PLAYS + 1
        elif info["phase"] == "answer":
            a = MAX_PLAYS + 2
        else:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, _, info = e.step(a)
        if term:
            return list(spy)
    raise AssertionError("the game did not end")


def _arena_offers(spy, monkeypatch) -> list:
    """The arena's cubeful match from the same post-Crawford game, the same cube policy."""
    import bgrl.arena.cubeful as cf

    def first_game_match(rules):
        return _post_crawford()

    monkeypatch.setattr(cf, "Match", first_game_match)
    monkeypatch.setattr(cf, "cube_decisions", lambda agent, boards, cubes: [None] * len(cubes))
    monkeypatch.setattr(cf, "wants_double", lambda d, cube: True)
    monkeypatch.setattr(cf, "answer_double", lambda agent, board, cube: "take")
    from bgrl.agents import RandomAgent

    spy.clear()
    res = cf.play_cubeful(RandomAgent(), RandomAgent(), 1, MatchRules(match_length=3), seed=4)
    assert res.games == 3  # the post-Crawford game is played with the cube at 2 at least: it ends the match
    return list(spy)


def test_env_and_arena_play_the_same_cube_from_the_same_match(spy, monkeypatch):
    """Post-Crawford at 2-1 to 3: only the trailer may double (the leader's cube is dead), once;
    after the take the cube is the leader's at 2 and dead, so no side gets another cube step."""
    env = _env_offers(spy)
    arena = _arena_offers(spy, monkeypatch)
    want = [("offer", "black", 1), ("answer", "white", "take")]
    assert env == want and arena == want


def test_the_session_goes_through_match(spy):
    from service_fakes import fake_evaluator

    from bgrl.service.engine import Engine
    from bgrl.session.game import GameSession

    engine = Engine(evaluator=fake_evaluator, model_sha256="fake")
    s = GameSession.new(level="beginner", seed=5, rules=MatchRules(match_length=3))
    s.advance(engine)
    assert s.awaiting == "cube"
    spy.clear()
    answer = s.cube_action(engine, "double")
    assert spy == [("offer", s.human, 1), ("answer", s.computer, answer)]


def test_the_backgammon_env_goes_through_match_both_ways(spy):
    from bgrl.env.backgammon import MAX_PLAYS, BackgammonEnv

    class Fixed:
        def __init__(self, double=True):
            self.double = double

        def doubles(self, position, cube):
            return self.double

        def takes(self, position, cube):
            return False

    e = BackgammonEnv(opponent="pubeval", notation=False, cube=True, agent_color="black", opponent_cube=Fixed())
    _, info = e.reset(seed=1)
    while info["phase"] != "answer":
        _, _, term, _, info = e.step(MAX_PLAYS if info["phase"] == "decide" else int(np.flatnonzero(info["action_mask"])[0]))
        assert not term
    assert spy[-1] == ("offer", "white", 1)
    _, r, term, _, info = e.step(MAX_PLAYS + 3)
    assert term and r == -1.0 and spy[-1] == ("answer", "black", "pass")
    e = BackgammonEnv(opponent="pubeval", notation=False, cube=True, agent_color="white", opponent_cube=Fixed(False))
    _, info = e.reset(seed=2)
    while info["phase"] != "decide":
        _, _, _, _, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
    spy.clear()
    _, r, term, _, info = e.step(MAX_PLAYS + 1)
    assert term and r == 1.0 and spy == [("offer", "white", 1), ("answer", "black", "pass")]
