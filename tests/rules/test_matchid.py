"""gnubg's Match ID and the XGID's cube/match fields (the optional rules)."""

import pytest

from bgrl.rules.board import Position
from bgrl.rules.cube import CubeState
from bgrl.rules.matchid import MatchIDError, MatchKey, cube_state, decode_match_id, encode_match_id, match_id
from bgrl.rules.xgid import XGIDError, parse_xgid, parse_xgid_cube, read_position, read_position_cube, to_xgid


def test_manual_example_decodes():
    # GNU Backgammon manual, "A technical description of the Match ID": score 2-4 in a
    # 9-point match, player 0 holding a 2-cube, player 1 has just rolled 52
    k = decode_match_id("QYkqASAAIAAA")
    assert k == MatchKey(cube_log2=1, owner=0, on_roll=1, crawford=0, game_state=1, turn=1, doubled=0, resign=0,
                         die1=5, die2=2, match_length=9, score0=2, score1=4)
    cs, dice = cube_state(k)
    assert dice == (5, 2)
    assert cs == CubeState(value=2, owner=-1, match_length=9, score=(4, 2))


@pytest.mark.parametrize("mid", ["QYkqASAAIAAA", "MIEFAAAAAAAA", "cAkAAAAAAAAA"])
def test_round_trip_manual_ids(mid):
    # the manual's examples: the worked one, a new money game with 3-1 rolled, a money game before the roll
    assert encode_match_id(decode_match_id(mid)) == mid


def test_manual_money_examples():
    k = decode_match_id("MIEFAAAAAAAA")  # gnubg (player 0) rolls 3, anthon 1: player 0 on roll with 31
    assert (k.on_roll, k.die1, k.die2, k.match_length, k.owner) == (0, 3, 1, 0, 3)
    k2 = decode_match_id("cAkAAAAAAAAA")
    assert (k2.on_roll, k2.die1, k2.die2, k2.owner) == (1, 0, 0, 3)
    assert match_id(CubeState(), None, player_on_roll=1) == "cAkAAAAAAAAA"


def test_match_id_writes_cube_state_back():
    cs = CubeState(value=4, owner=1, match_length=11, score=(3, 8))
    for me in (0, 1):
        back, dice = cube_state(decode_match_id(match_id(cs, (6, 1), player_on_roll=me)))
        assert back == cs and dice == (6, 1)
    cr = CubeState(match_length=5, score=(4, 2), crawford=True)
    assert cube_state(decode_match_id(match_id(cr)))[0] == cr


def test_bad_match_ids():
    with pytest.raises(MatchIDError, match="12 Base64"):
        decode_match_id("QYkqASAA")
    with pytest.raises(MatchIDError, match="12 Base64"):
        decode_match_id("QYkqASAAIA!A")
    doubled = encode_match_id(MatchKey(doubled=1))
    with pytest.raises(ValueError, match="double pending"):
        cube_state(decode_match_id(doubled))
    over = encode_match_id(MatchKey(match_length=5, score0=5))
    with pytest.raises(ValueError, match="at or above the match length"):
        cube_state(decode_match_id(over))


def test_read_position_cube_pair_and_plain():
    pos, dice, cs = read_position_cube("4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert pos == Position.start() and dice == (5, 2) and cs.match_length == 9
    pos, dice, cs = read_position_cube("4HPwATDgc/ABMA")
    assert dice is None and cs == CubeState()


XG = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:00:3:2:0:7:10"


def test_xgid_cube_and_score_read():
    pos, dice, cs = parse_xgid_cube(XG)
    assert dice is None
    # the top player is on roll: the bottom player (owner 1) owns the cube, so the opponent does
    assert cs == CubeState(value=2, owner=-1, match_length=7, score=(2, 3), max_value=1024)
    assert to_xgid(pos, None, bottom_on_roll=False, cube=cs) == XG
    assert parse_xgid_cube(to_xgid(pos, (3, 1), True, cs))[2] == cs
    # the old readers still refuse the cube (the default is cubeless money play)
    with pytest.raises(XGIDError, match="without a doubling cube"):
        parse_xgid(XG)
    with pytest.raises(XGIDError):
        read_position(XG)
    # money flags: Jacoby (1) and beavers (2)
    _, _, m = parse_xgid_cube("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10")
    assert m.jacoby and m.beavers and not m.is_match
    _, _, c = parse_xgid_cube("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10")
    assert c.crawford and c.score == (4, 2)


@pytest.mark.parametrize("xgid, msg", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:2:0:7:10", "at or above the match length"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "pending cube action"),
    ("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:0:10", "centred"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "owner"),
    ("XGID=-b----E-C---eE---c-e----B-:16:1:1:00:0:0:0:0:10", "power of 2"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:2:1:5:10", "1 point away"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:2:0:0:10", "money game has no score"),
    # integers in ASCII digits only (Python's int() takes these)
    ("XGID=-b----E-C---eE---c-e----B-:+1:0:1:00:0:0:0:0:10", "field 2 .* must be an integer, got '\\+1'"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0: 7:10", "field 9 .* must be an integer"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:1_0", "field 10 .* must be an integer"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:\u0663:10", "field 9 .* must be an integer"),
    ("XGID=-b----E-C---eE---c-e----B-:0:--1:1:00:0:0:0:0:10", "field 3 .* must be an integer"),
    # found by a breaker's trial
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:3:2:2:7:10", "field 8 must be 0 or 1 .* in a match"),
    ("XGID=-b----E-C---eE---c-e----B-:12:1:1:31:0:0:0:0:10", "above the max cube 1024"),
    ("XGID=-b----E-C---eE---c-e----B-:0:1:1:31:0:0:0:0:10", "an owned cube is at 2 or more"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0: 1:00:0:0:0:0", "XGID 'XGID=-b----E-C---eE---c-e----B-:0:0: 1:00"),
])
def test_xgid_cube_errors(xgid, msg):
    with pytest.raises(XGIDError, match=msg):
        parse_xgid_cube(xgid)
