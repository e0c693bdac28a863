"""Play notation: printing, parsing, and matching legal plays."""

import numpy as np
import pytest

from bgrl import IllegalPlayError, Position, legal_plays, parse_dice, play_from_notation
from bgrl.rules.board import START_BOARD, flip, position_id


def board(points: dict, opp: dict, bar=0, opp_bar=0):
    b = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    for p, n in opp.items():  # opponent checkers given in the mover's numbering
        b[p] = -n
    b[25] = bar
    b[0] = -opp_bar
    return b


def test_opening_21_notation():
    plays = legal_plays(Position.start(), (2, 1))
    names = {p.notation for p in plays}
    assert len(plays) == 15
    assert {"13/11 6/5", "24/23 13/11", "13/11 11/10", "6/5 6/4", "24/22 22/21"} <= names


def test_doubles_merge_and_hits():
    names = {p.notation for p in legal_plays(Position.start(), (6, 6))}
    assert "24/18(2) 13/7(2)" in names
    # a hit on entry is marked
    b = board({6: 14}, {22: 1, 1: 14}, bar=1)
    plays = legal_plays(Position(b), (3, 1))
    assert any(p.notation.startswith("bar/22*") for p in plays)


def test_bear_off_notation():
    b = board({5: 1, 3: 1}, {20: 15})
    names = {p.notation for p in legal_plays(Position(b), (6, 4))}
    # docs/rules.md: the 6 bears off from the 5; the 4 cannot bear off the 3 while the 5 is occupied
    assert names == {"5/off 3/off", "5/1 3/off"} or "5/off 3/off" in names


@pytest.mark.parametrize("text", ["13/11 6/5", "6/5 13/11", "13/11, 6/5", "13/11 6/5*"])
def test_parse_equivalent_forms(text):
    # a '*' is a mark only: the play is judged by its final position
    p = play_from_notation(Position.start(), (2, 1), text)
    assert p.notation == "13/11 6/5"


def test_parse_chain_and_span():
    a = play_from_notation(Position.start(), "21", "13/11/10")
    b = play_from_notation(Position.start(), "21", "13/10")
    c = play_from_notation(Position.start(), "21", "13/11 11/10")
    assert a.position_id == b.position_id == c.position_id


def test_illegal_and_malformed_plays():
    with pytest.raises(IllegalPlayError, match="not a legal play"):
        play_from_notation(Position.start(), (2, 1), "13/10 13/11")
    with pytest.raises(IllegalPlayError, match="no checker"):
        play_from_notation(Position.start(), (2, 1), "12/10")
    with pytest.raises(IllegalPlayError, match="cannot read"):
        play_from_notation(Position.start(), (2, 1), "hello")
    with pytest.raises(IllegalPlayError, match="higher to lower"):
        play_from_notation(Position.start(), (2, 1), "10/13")
    with pytest.raises(IllegalPlayError, match="13/1 moves 12 pips, but with 6-5"):  # the dice, not point 1
        play_from_notation(Position.start(), (6, 5), "13/1")
    with pytest.raises(IllegalPlayError, match="point 19 is held by the opponent"):
        play_from_notation(Position.start(), (6, 5), "24/18 24/19")


@pytest.mark.parametrize("text,expect", [("53", (5, 3)), ("5-3", (5, 3)), ("5 3", (5, 3)), (" 6,6 ", (6, 6))])
def test_parse_dice(text, expect):
    assert parse_dice(text) == expect


@pytest.mark.parametrize("text", ["", "7", "07", "5-", "5-7", "abc", "123", "0 1"])
def test_bad_dice(text):
    with pytest.raises(ValueError, match="two digits"):
        parse_dice(text)


def test_play_ids_are_opponent_on_roll():
    for p in legal_plays(Position.start(), (3, 1)):
        res = Position.from_id(p.position_id)
        assert np.array_equal(res.flipped().board, p.after_state)
    assert position_id(START_BOARD) == "4HPwATDgc/ABMA"


def test_notations_match_legal_plays_and_round_trip():
    from bgrl.rules.movegen import generate
    from bgrl.rules.notation import notations

    rng = np.random.default_rng(12)
    b = START_BOARD.copy()
    checked = 0
    for _ in range(400):
        dice = tuple(int(x) for x in rng.integers(1, 7, size=2))
        aft = generate(b[None], np.array([dice]))
        names = notations(b, dice, aft.group(0), int(aft.dice_used[0]))
        if aft.dice_used[0]:
            plays = legal_plays(Position(b), dice)
            assert names == [p.notation for p in plays]
            for p in plays[:5]:  # printed notation parses back to the same play
                assert play_from_notation(Position(b), dice, p.notation).position_id == p.position_id
            checked += 1
        nxt = aft.group(0)[rng.integers(aft.counts[0])]
        b = START_BOARD.copy() if (nxt > 0).sum() == 0 else flip(nxt)
    assert checked > 300
