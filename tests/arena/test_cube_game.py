"""The cubeful game: the rules' cube state machine (bgrl.rules.match), the computer's cube
actions and cubeful checker play (bgrl.agents.cube), cubeful sessions (bgrl.arena.cubeful)
and ``bgrl match --cube``."""

import json

import numpy as np
import pytest

from bgrl import Position, legal_plays
from bgrl.agents.base import NetAgent, RandomAgent
from bgrl.agents.cube import answer_double, cube_decisions, cubeful_choose_play, wants_double
from bgrl.arena.cubeful import play_cubeful
from bgrl.cli import main
from bgrl.rules.cube import CubeState
from bgrl.rules.game import BLACK, WHITE
from bgrl.rules.match import Match, MatchRules


# ----------------------------------------------------------------------------- rules
def test_take_then_pass_scores_the_stake_before_the_double():
    m = Match(MatchRules())
    m.double(WHITE)
    assert m.offered_by == WHITE and not m.may_double(BLACK)
    m.take(BLACK)
    assert (m.cube_value, m.cube_owner) == (2, BLACK)
    assert not m.may_double(WHITE) and "opponent owns" in m.why_no_double(WHITE)
    m.double(BLACK)  # redouble to 4
    gs = m.drop(WHITE)
    assert (gs.winner, gs.points, gs.how, gs.cube) == (BLACK, 2, "pass", 2)
    assert m.score == {WHITE: -2, BLACK: 2}


def test_points_are_cube_times_result():
    m = Match(MatchRules())
    m.double(BLACK)
    m.take(WHITE)
    gs = m.end_game(WHITE, 3, "bear-off")
    assert gs.points == 6 and m.score[WHITE] == 6


def test_jacoby_gammon_counts_single_until_the_cube_is_turned():
    m = Match(MatchRules(jacoby=True))
    assert m.end_game(WHITE, 2).points == 1
    m.next_game()
    m.double(WHITE)
    m.take(BLACK)
    assert m.end_game(BLACK, 2).points == 4
    assert CubeState(jacoby=True).points(3) == 1 and CubeState(value=2, owner=1, jacoby=True).points(3) == 6
    assert CubeState().points(2) == 2


def test_beaver_keeps_the_cube_at_four_and_needs_the_option():
    m = Match(MatchRules(beavers=True))
    m.double(WHITE)
    m.beaver(BLACK)
    assert (m.cube_value, m.cube_owner, m.offered_by) == (4, BLACK, None)
    assert m.end_game(BLACK, 1).points == 4
    plain = Match(MatchRules())
    plain.double(WHITE)
    with pytest.raises(ValueError, match="beavers are not allowed"):
        plain.beaver(BLACK)
    capped = Match(MatchRules(beavers=True, max_value=2))
    capped.double(WHITE)
    with pytest.raises(ValueError, match="above its cap"):
        capped.beaver(BLACK)


def test_cube_cap_stops_doubling():
    m = Match(MatchRules(max_value=4))
    m.double(WHITE)
    m.take(BLACK)
    m.double(BLACK)
    m.take(WHITE)
    assert m.cube_value == 4 and "cap" in m.why_no_double(WHITE)
    with pytest.raises(ValueError, match="cap"):
        m.double(WHITE)


def test_bad_actions_are_refused_with_a_reason():
    m = Match(MatchRules(match_length=5))
    with pytest.raises(ValueError, match="no double was offered"):
        m.take(WHITE)
    with pytest.raises(ValueError, match="no double was offered"):
        m.drop(BLACK)
    m.double(WHITE)
    with pytest.raises(ValueError, match="waiting"):
        m.double(WHITE)
    with pytest.raises(ValueError, match="the other side answers"):
        m.take(WHITE)
    with pytest.raises(ValueError, match="not for a match"):
        MatchRules(match_length=5, jacoby=True)
    with pytest.raises(ValueError, match="power of 2"):
        MatchRules(max_value=6)
    with pytest.raises(ValueError, match="match length"):
        MatchRules(match_length=-1)


def test_crawford_game_then_post_crawford_then_match_end():
    m = Match(MatchRules(match_length=5))
    assert not m.crawford
    m.end_game(WHITE, 2)  # 2-0
    m.next_game()
    assert not m.crawford
    m.double(BLACK)
    m.take(WHITE)
    m.end_game(WHITE, 1)  # 4-0: White is 1 away
    m.next_game()
    assert m.crawford and m.cube_for(BLACK).crawford
    assert "Crawford" in m.why_no_double(BLACK) and "Crawford" in m.why_no_double(WHITE)
    with pytest.raises(ValueError, match="cannot double: no doubling in the Crawford game"):
        m.double(BLACK)
    m.end_game(BLACK, 1)  # 4-1, Crawford game over
    m.next_game()
    assert not m.crawford and m.post_crawford and m.cube_for(BLACK).post_crawford
    assert m.may_double(BLACK)
    m.end_game(BLACK, 2)  # 4-3: still post-Crawford, no second Crawford game
    m.next_game()
    assert not m.crawford and m.post_crawford
    assert not m.over
    m.double(BLACK)
    gs = m.drop(WHITE)  # 4-4
    assert gs.points == 1 and m.score == {WHITE: 4, BLACK: 4}
    m.next_game()
    m.end_game(WHITE, 1)
    assert m.over and m.winner == WHITE and m.score[WHITE] == 5
    with pytest.raises(ValueError, match="the match is over"):
        m.next_game()
    assert "match is over" in m.why_no_double(WHITE)
    assert [g.crawford for g in m.games] == [False, False, True, False, False, False]


def test_cube_for_is_from_the_side_given():
    m = Match(MatchRules(match_length=7))
    m.end_game(BLACK, 2)
    m.next_game()
    m.double(WHITE)
    m.take(BLACK)
    w, b = m.cube_for(WHITE), m.cube_for(BLACK)
    assert (w.value, w.owner, w.score, w.away) == (2, -1, (0, 2), (7, 5))
    assert (b.owner, b.score) == (1, (2, 0))
    assert w.flipped() == b


def test_match_draw_refused_money_draw_scores_nothing():
    with pytest.raises(ValueError, match="draw"):
        Match(MatchRules(match_length=3)).end_game(None, 0, "draw")
    m = Match(MatchRules())
    assert m.end_game(None, 0, "draw").points == 0 and m.score == {WHITE: 0, BLACK: 0}


# ----------------------------------------------------------------------------- agents
def table_evaluator(table, default):
    """After-state bytes -> probabilities of the side that played (a fake network)."""
    def ev(boards):
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
        return np.array([table.get(row.tobytes(), default) for row in b], dtype=np.float64)

    return ev


def test_cubeful_play_at_dmp_prefers_winning_chances_to_gammons():
    pos, dice = Position.start(), (3, 1)
    plays = legal_plays(pos, dice)
    gammonish = (0.55, 0.40, 0.0, 0.0, 0.0)  # equity 0.55 + 0.40 - 0.45 = 0.50
    safe = (0.70, 0.0, 0.0, 0.0, 0.0)  # equity 0.40
    table = {plays[0].after_state.tobytes(): gammonish, plays[1].after_state.tobytes(): safe}
    agent = NetAgent(table_evaluator(table, (0.3, 0.0, 0.0, 0.0, 0.0)), name="t")
    assert agent.choose_play(pos, dice).notation == plays[0].notation  # cubeless: the gammons
    dmp = CubeState(match_length=1)
    assert cubeful_choose_play(agent, pos, dice, dmp).notation == plays[1].notation
    # 1-away/3-away post-Crawford for the side on roll: gammons are worth nothing to it either
    assert cubeful_choose_play(agent, pos, dice, CubeState(match_length=3, score=(2, 0))).notation == plays[1].notation
    # cubeless money state (no cube in play): the cubeless choice
    assert cubeful_choose_play(agent, pos, dice, CubeState(cube_in_play=False)).notation == plays[0].notation


def test_computer_doubles_when_far_ahead_and_passes_a_hopeless_double():
    strong = NetAgent(table_evaluator({}, (0.15, 0.0, 0.0, 0.0, 0.0)), name="ahead")  # on roll: 85%
    board = Position.start().board
    cube = CubeState()
    d = cube_decisions(strong, board[None], [cube])[0]
    assert wants_double(d, cube) and d.decision == "double, pass"
    assert answer_double(strong, board, cube) == "pass"
    even = NetAgent(table_evaluator({}, (0.5, 0.0, 0.0, 0.0, 0.0)), name="even")
    d = cube_decisions(even, board[None], [cube])[0]
    assert not wants_double(d, cube) and answer_double(even, board, cube) == "take"
    # no engine: never doubles, always takes
    assert cube_decisions(RandomAgent(), board[None], [cube]) == [None]
    assert answer_double(RandomAgent(), board, cube) == "take"
    # a dead cube in a match (it already covers both sides' points) is never turned
    dead = CubeState(value=4, owner=1, match_length=5, score=(2, 2))
    from bgrl.evaluation.cube import CubeDecision

    turn = CubeDecision("double, take", True, 0.0, 0.1, 1.0)
    assert wants_double(turn, CubeState(value=2, owner=1, match_length=5, score=(2, 2)))
    assert not wants_double(turn, dead)


def test_beaver_answer_when_the_double_is_wrong():
    weak = NetAgent(table_evaluator({}, (0.6, 0.0, 0.0, 0.0, 0.0)), name="behind")  # on roll: 40%
    board = Position.start().board
    assert answer_double(weak, board, CubeState(beavers=True)) == "beaver"
    assert answer_double(weak, board, CubeState()) == "take"


# ----------------------------------------------------------------------------- arena and CLI
def test_cubeful_sessions_money_and_match():
    a, b = NetAgent(table_evaluator({}, (0.5, 0.1, 0.0, 0.1, 0.0)), name="n"), RandomAgent()
    r = play_cubeful(a, b, 4, MatchRules(), seed=3, names=("n", "random"))
    assert r.sessions == 4 and r.games == 4 and not r.is_match
    assert r.value == pytest.approx((r.points_a - r.points_b) / 4)
    r = play_cubeful(a, b, 4, MatchRules(match_length=3), seed=3)
    assert r.is_match and r.games >= 4 and 0.0 <= r.value <= 1.0 and r.win_rate == r.value
    assert max(r.points_a, r.points_b) >= 3


@pytest.mark.parametrize("length", [3, 7])
def test_bgrl_match_cube_match_json(length, capsys):
    assert main(["match", "beginner", "random", "--cube", "--match", str(length), "--games", "4", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "match" and d["sessions"] == 4 and d["rules"]["match_length"] == length
    assert 0.0 <= d["value"] <= 1.0 and d["games"] >= 4
    assert d["points_a"] + d["points_b"] >= 4 * length  # every match was played to its end


def test_bgrl_match_cube_money_text(capsys):
    assert main(["match", "beginner", "random", "--cube", "--jacoby", "--beavers", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "points per game for beginner" in out and "Jacoby rule, beavers" in out


@pytest.mark.parametrize("argv, expect", [
    (["--cube", "--cube-cap", "6"], "power of 2"),
    (["--cube", "--match", "0"], "--match must be"),
    (["--cube", "--match", "26"], "beyond the match equity table"),
    (["--cube", "--match", "5", "--jacoby"], "money-game options"),
    (["--match", "5"], "--match needs --cube"),
    (["--cube", "--save-games", "x"], "--save-games"),
])
def test_bgrl_match_cube_bad_flags_exit_2(argv, expect, capsys):
    assert main(["match", "random", "random", "--games", "2", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert expect in err and len(err.splitlines()) == 1


def test_cubeful_equity_takes_the_best_cube_action():
    from bgrl.evaluation.cube import cube_decision, cubeful_equity, money_equity

    cash = np.array([0.9, 0.0, 0.0, 0.0, 0.0])  # a double/pass: worth the stake, +1
    assert cube_decision(cash, CubeState(), 0.68).decision == "double, pass"
    assert cubeful_equity(cash, CubeState(), 0.68) == pytest.approx(1.0)
    even = np.array([0.5, 0.1, 0.0, 0.1, 0.0])
    d = cube_decision(even, CubeState(), 0.68)
    assert d.decision == "no double" and cubeful_equity(even, CubeState(), 0.68) == pytest.approx(d.no_double)
    theirs = CubeState(value=2, owner=-1)  # the opponent owns the cube: Janowski with it as it is
    assert cubeful_equity(even, theirs, 0.68) == pytest.approx(money_equity(even, -1, 0.68))
    capped = CubeState(value=4, owner=-1, max_value=4)  # at its cap: dead, the cubeless equity
    assert cubeful_equity(even, capped, 0.68) == pytest.approx(0.5 + 0.1 - 0.5 - 0.1)
    # in a match: a sure win of the cube value is +1 on gnubg's scale
    assert cubeful_equity(np.array([1.0, 0.0, 0.0, 0.0, 0.0]), CubeState(match_length=7, score=(6, 2), crawford=True),
                          0.68) == pytest.approx(1.0)


def test_cubeful_play_ab_script(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "experiments" / "cubeful_play_ab.py"
    spec = importlib.util.spec_from_file_location("cubeful_play_ab", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["beginner", "--match", "1", "--matches", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "beginner cubeful play vs beginner cubeless play: 2 matches, 1-point match" in out
    import bgrl.arena.cubeful as ac
    from bgrl.agents.cube import cubeful_select

    assert ac.cubeful_select is cubeful_select  # restored
    assert mod.main(["supergrandmaster"]) == 2
    assert mod.main(["beginner", "--match", "40"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2
