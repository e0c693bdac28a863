"""The doubling cube: CubeState, Janowski's money model, match equity (Kazaross-XG2), cube decisions."""

import numpy as np
import pytest

from bgrl.evaluation import cube as C
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.match_equity import default_met, equity_to_mwc, gammon_values, mwc_to_equity
from bgrl.rules.cube import NO_CUBE, CubeState


def last_roll_board(mine):
    """The side on roll with checkers on ``mine`` (its points), the opponent with one checker
    on its 1-point (it bears off next roll whatever it rolls)."""
    b = np.zeros(26, dtype=np.int8)
    for pt in mine:
        b[pt] += 1
    b[24] = -1
    return b


def exact(board):
    known, p = exact_probs(board[None])
    assert known[0]
    return p[0]


# -- CubeState ------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [0, 3, 6, -2, 2.5, "x"])
def test_cube_value_not_power_of_two_refused(value):
    with pytest.raises(ValueError, match="power of 2"):
        CubeState(value=value, owner=1)


def test_score_at_or_above_length_refused():
    with pytest.raises(ValueError, match="at or above the match length"):
        CubeState(match_length=7, score=(7, 3))
    with pytest.raises(ValueError, match="at or above the match length"):
        CubeState(match_length=5, score=(2, 6))
    CubeState(match_length=7, score=(6, 6))  # fine


def test_crawford_double_refused():
    cs = CubeState(match_length=5, score=(2, 4), crawford=True)
    assert not cs.may_double()
    with pytest.raises(ValueError, match="Crawford"):
        cs.check_double()
    with pytest.raises(ValueError, match="Crawford"):
        C.cube_decision(np.array([0.7, 0.1, 0, 0.05, 0]), cs)
    with pytest.raises(ValueError, match="1 point away"):
        CubeState(match_length=5, score=(2, 2), crawford=True)


def test_other_refusals_and_flags():
    with pytest.raises(ValueError, match="opponent owns"):
        C.cube_decision(np.array([0.7, 0.1, 0, 0.05, 0]), CubeState(value=2, owner=-1))
    with pytest.raises(ValueError, match="cap"):
        CubeState(value=4, owner=1, max_value=4).check_double()
    with pytest.raises(ValueError, match="centred"):
        CubeState(value=2, owner=0)
    with pytest.raises(ValueError, match="money"):
        CubeState(match_length=5, jacoby=True)
    assert not NO_CUBE.may_double()
    cs = CubeState(match_length=7, score=(6, 2))
    assert cs.post_crawford and cs.away == (1, 5)
    assert cs.flipped().score == (2, 6)
    assert CubeState().doubled() == CubeState(value=2, owner=-1)


# -- money: Janowski ------------------------------------------------------------------------

def test_janowski_take_points():
    gammonless = np.array([0.3, 0.0, 0.0, 0.0, 0.0])
    assert C.money_take_point(gammonless, 0.0) == pytest.approx(0.25)
    assert C.money_take_point(gammonless, 1.0) == pytest.approx(0.20)
    # gammons make the take harder: the taker's L goes up
    assert C.money_take_point(np.array([0.3, 0.0, 0.0, 0.2, 0.0]), 0.68) > 0.25


def test_cube_life_by_phase():
    assert C.cube_life(last_roll_board([3, 2])) == 0.0
    outside = last_roll_board([3, 2])
    outside[9] = 1  # a checker still outside the home board, the opponent off next roll: still a last roll
    assert C.is_last_roll(outside) and C.cube_life(outside) == 0.0
    two = last_roll_board([3, 2])
    two[23] = -1  # the opponent on its 1- and 2-points: every roll (1-1 included) bears both off
    assert C.is_last_roll(two)
    far = last_roll_board([3, 2])
    far[19] = -1  # a checker on the opponent's 6-point: 2-1 does not finish
    assert not C.is_last_roll(far) and C.cube_life(far) == C.X_BEAROFF
    home = np.zeros(26, dtype=np.int8)
    home[1:7] = 2
    home[19:25] = -2
    assert C.cube_life(home) == C.X_BEAROFF
    from bgrl.rules.board import Position

    assert C.cube_life(Position.start().board) == C.X_CONTACT
    race = np.zeros(26, dtype=np.int8)
    race[8], race[7] = 8, 7  # 64 + 49 = 113 pips
    race[20], race[19] = -8, -7
    assert C.X_RACE_MIN < C.cube_life(race) < C.X_RACE_MAX


def test_last_roll_take_point_near_25_percent_exact_bearoff():
    # 3 and 2 to bear off: 25 rolls of 36 win, the opponent has 11/36 = 30.6% > 25%: take
    b = last_roll_board([3, 2])
    p = exact(b)
    assert p[0] == pytest.approx(25 / 36)
    d = C.money_cube_decision(p, CubeState(), C.cube_life(b))
    assert (d.decision, d.take) == ("double, take", True)
    assert d.double_take == pytest.approx(2 * (2 * 25 / 36 - 1))
    # the take point found by the model in the last roll is 25% of the taker
    taker = np.array([1 - p[0], 0, 0, 0, 0])
    assert C.money_take_point(taker, C.cube_life(b)) == pytest.approx(0.25)
    # a 2-2 leave: the opponent has 10/36 = 27.8%: still a take, just
    d2 = C.money_cube_decision(exact(last_roll_board([2, 2])), CubeState(), 0.0)
    assert d2.take


def test_last_roll_double_pass_under_25_percent_exact_bearoff():
    # 4 and 1: 29 of 36 win, the opponent has 7/36 = 19.4% < 25%: double, pass
    b = last_roll_board([4, 1])
    p = exact(b)
    assert 1 - p[0] < 0.25
    d = C.money_cube_decision(p, CubeState(), C.cube_life(b))
    assert (d.decision, d.take) == ("double, pass", False)
    assert d.double_pass == 1.0 and d.double_take > 1.0
    # 6 and 5: 6 of 36 win: no double
    d3 = C.money_cube_decision(exact(last_roll_board([6, 5])), CubeState(), 0.0)
    assert d3.decision == "no double"


def test_too_good_and_jacoby_and_beaver():
    p = np.array([0.85, 0.6, 0.0, 0.0, 0.0])  # big gammon chances, opponent passes
    d = C.money_cube_decision(p, CubeState(), 0.68)
    assert d.decision == "too good to double" and not d.take and d.no_double > 1.0
    # with the Jacoby rule gammons do not count on a centred cube: double, pass
    dj = C.money_cube_decision(p, CubeState(jacoby=True), 0.68)
    assert dj.decision == "double, pass"
    # a bad double is beavered when beavers are allowed
    weak = np.array([0.4, 0.05, 0, 0.05, 0])
    nb = C.money_cube_decision(weak, CubeState(), 0.68)
    bv = C.money_cube_decision(weak, CubeState(beavers=True), 0.68)
    assert bv.beaver and not nb.beaver and bv.double_take < nb.double_take
    assert bv.decision == nb.decision == "no double"


def test_money_equity_monotone_and_bounded():
    for owner in (0, 1, -1):
        eq = [C.money_equity(np.array([w, 0.1 * w, 0, 0.1 * (1 - w), 0]), owner, 0.68) for w in np.linspace(0, 1, 41)]
        assert np.all(np.diff(eq) > 0)
    p = np.array([0.6, 0.1, 0.0, 0.1, 0.0])
    own, cen, opp = (C.money_equity(p, o, 0.68) for o in (1, 0, -1))
    assert own > cen > opp  # owning the cube is worth something


# -- match equity ---------------------------------------------------------------------------

def test_met_symmetry_and_consistency():
    met = default_met()
    assert met.length == 25 and "Kazaross" in met.name and "Kazaross" in met.source
    pre = met.pre
    np.testing.assert_allclose(pre + pre.T, 1.0, atol=1e-5)
    assert np.allclose(np.diag(pre), 0.5)
    # closer to the goal is better: increasing along rows, decreasing down columns
    assert np.all(np.diff(pre, axis=1) > 0) and np.all(np.diff(pre, axis=0) < 0)
    assert met.mwc(1, 2) == pytest.approx(0.67736)  # the Crawford game, published value
    assert met.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert met.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert met.mwc(0, 5) == 1.0 and met.mwc(5, -1) == 0.0
    with pytest.raises(ValueError, match="beyond"):
        met.mwc(26, 3)
    gv = gammon_values(7, 7)
    assert gv[0] == pytest.approx(gv[1]) and 0.3 < gv[0] < 0.8
    assert mwc_to_equity(equity_to_mwc(0.3, 0.6, 0.4), 0.6, 0.4) == pytest.approx(0.3)


def test_match_cube_decisions():
    p = np.array([0.70, 0.15, 0.01, 0.05, 0.002])
    d = C.cube_decision(p, CubeState(match_length=7), 0.68)
    assert d.decision == "double, take" and d.double_pass == pytest.approx(1.0)
    assert set(d.mwc) == {"no_double", "double_take", "double_pass"}
    assert d.mwc["double_pass"] == pytest.approx(default_met().mwc(6, 7))
    # a gammonless 1-cube at 1-away/1-away does not exist; post-Crawford the trailer doubles
    race = np.array([0.45, 0.0, 0.0, 0.0, 0.0])
    pc = C.cube_decision(race, CubeState(match_length=5, score=(1, 4)), 0.68)
    assert pc.decision == "double, take"  # 4-away trailer doubles at once (free for it)
    with pytest.raises(ValueError, match="beyond the match equity table"):
        C.cube_decision(p, CubeState(match_length=31), 0.68)
    # money-like behaviour at a long, even score
    dm = C.cube_decision(np.array([0.8, 0.0, 0.0, 0.0, 0.0]), CubeState(match_length=25), 0.68)
    assert dm.decision == "double, pass"


# -- bgrl hint before the roll ------------------------------------------------------------

def _xgid_last_roll(mine, cube=None):
    from bgrl.rules.xgid import to_xgid

    return to_xgid(last_roll_board(mine), None, True, cube)


def test_hint_cube_json_shape_and_last_roll(capsys):
    import json

    from bgrl.cli import main

    assert main(["hint", _xgid_last_roll([4, 1]), "--ply", "0", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj) == {"position_id", "level", "ply", "cube"}
    assert set(obj["cube"]) == {"decision", "take", "equities"}
    assert set(obj["cube"]["equities"]) == {"no_double", "double_take", "double_pass"}
    assert obj["cube"]["decision"] == "double, pass" and obj["cube"]["take"] is False
    assert obj["cube"]["equities"]["double_take"] == pytest.approx(2 * (2 * 29 / 36 - 1))
    assert main(["hint", _xgid_last_roll([3, 2]), "--ply", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cube"]["decision"] == "double, take"
    # a Position ID with --cube and no DICE
    assert main(["hint", "4HPwATDgc/ABMA", "--cube", "--ply", "0", "--level", "beginner"]) == 0
    out = capsys.readouterr().out
    assert "Cubeful equities:" in out and "Proper cube action: No double, take" in out
    assert "1. No double" in out and "Double, pass" in out
    assert "Position 4HPwATDgc/ABMA, Match ID cAkAAAAAAAAA" in out  # gnubg's IDs side by side


def test_hint_cube_at_a_score_and_errors(capsys):
    import json

    from bgrl.cli import main

    at_score = _xgid_last_roll([3, 2], CubeState(match_length=7, score=(2, 4)))
    assert main(["hint", at_score, "--ply", "0", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["cube"]["equities"]["double_pass"] == pytest.approx(1.0)
    crawford = _xgid_last_roll([3, 2], CubeState(match_length=7, score=(2, 6), crawford=True))
    assert main(["hint", crawford, "--ply", "0"]) == 2
    assert "Crawford" in capsys.readouterr().err
    assert main(["hint", "4HPwATDgc/ABMA", "31", "--cube"]) == 2
    assert main(["hint", "4HPwATDgc/ABMA"]) == 2
    assert "missing DICE" in capsys.readouterr().err
    over = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:2:0:7:10"
    assert main(["hint", over]) == 2
    assert "at or above the match length" in capsys.readouterr().err
