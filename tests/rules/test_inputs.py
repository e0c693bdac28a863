"""Bad input at every public entry point gets a clear error naming what was expected."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgrl import Position, legal_plays, load_agent
from bgrl.rules.board import START_BOARD, flip, validate_board
from bgrl.rules.movegen import generate
from bgrl.rules.dice import validate_dice


@pytest.mark.parametrize(
    "boards, dice, exc, fragment",
    [
        (START_BOARD[None].astype(float), [[1, 2]], TypeError, "integer dtype"),
        (START_BOARD[None], np.array([[1.0, 2.0]]), TypeError, "integer dtype"),
        (START_BOARD, [[1, 2]], ValueError, r"shape \(B, 26\)"),
        (START_BOARD[None], [1, 2], ValueError, r"shape \(B, 2\)"),
        (START_BOARD[None], [[0, 2]], ValueError, "1..6"),
        (START_BOARD[None], [[7, 2]], ValueError, "1..6"),
        (np.full((1, 26), 16), [[1, 2]], ValueError, "-15..15"),
        (np.pad(START_BOARD[None, :25], ((0, 0), (0, 1))) + np.eye(26, dtype=np.int8)[6], [[1, 2]], ValueError, "more than 15"),
    ],
)
def test_generate_rejects(boards, dice, exc, fragment):
    with pytest.raises(exc, match=fragment):
        generate(np.asarray(boards), np.asarray(dice))


@pytest.mark.parametrize("dice, exc", [((1,), ValueError), ((1, 2, 3), ValueError), ((0, 1), ValueError), ((1.5, 2), TypeError), (("1", 2), TypeError), (5, TypeError), ((True, 2), TypeError)])
def test_validate_dice(dice, exc):
    with pytest.raises(exc, match="1..6"):
        validate_dice(dice)


def test_legal_plays_and_agent_reject_bad_input():
    with pytest.raises(ValueError, match="Position ID"):
        legal_plays("nonsense", (1, 2))
    with pytest.raises(ValueError):
        legal_plays(Position.start(), (1, 9))
    with pytest.raises(ValueError, match="unknown agent"):
        load_agent("gnubg-world-class")
    with pytest.raises(ValueError):
        load_agent("random").choose_play(Position.start(), (0, 3))


boards_st = st.lists(st.integers(0, 23), min_size=15, max_size=15).flatmap(
    lambda mover: st.lists(st.integers(0, 23), min_size=15, max_size=15).map(lambda opp: (mover, opp))
)


def _board(pair):
    mover, opp = pair
    b = np.zeros(26, dtype=np.int64)
    for m in mover:
        b[m + 1] += 1
    for o in opp:
        p = o + 1
        if b[p] > 0:
            continue  # point held by the mover: this opponent checker is treated as borne off
        b[p] -= 1
    return validate_board(b)


@settings(max_examples=200, deadline=None)
@given(boards_st, st.integers(1, 6), st.integers(1, 6))
def test_properties(pair, d1, d2):
    b = _board(pair)
    assert np.array_equal(flip(flip(b)), b)
    aft = generate(b[None], np.array([[d1, d2]]))
    used = int(aft.dice_used[0])
    budget = (4 if d1 == d2 else 2)
    assert 0 <= used <= budget
    before_m = np.clip(b, 0, None).sum()
    for a in aft.group(0):
        # checker conservation: the mover's checkers only leave by bearing off, the
        # opponent's only move to the bar
        assert np.clip(-a, 0, None).sum() == np.clip(-b, 0, None).sum()
        assert np.clip(a, 0, None).sum() <= before_m
        # no after-state moves more pips than the dice allow
        pips_b = (np.clip(b, 0, None) * np.arange(26)).sum()
        pips_a = (np.clip(a, 0, None) * np.arange(26)).sum()
        assert pips_b - pips_a <= (4 * d1 if d1 == d2 else d1 + d2)


@settings(max_examples=100, deadline=None)
@given(st.lists(boards_st, min_size=1, max_size=6), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=6, max_size=6))
def test_dice_order_and_batching_properties(pairs, rolls):
    boards = np.stack([_board(p) for p in pairs])
    dice = np.array(rolls[: len(pairs)], dtype=np.int8)
    batched = generate(boards, dice)
    swapped = generate(boards, dice[:, ::-1].copy())
    for i, b in enumerate(boards):
        alone = generate(b[None], dice[i : i + 1])
        assert np.array_equal(batched.group(i), alone.group(0))  # batch == one by one
        assert batched.dice_used[i] == alone.dice_used[0]
        assert {r.tobytes() for r in swapped.group(i)} == {r.tobytes() for r in alone.group(0)}  # dice order


def test_gnubg_id_with_match_id_and_empty_agent_spec_are_clear_errors():
    import pytest as _pytest

    from bgrl.agents.registry import load_agent
    from bgrl.rules.xgid import read_position

    with _pytest.raises(ValueError, match="Position ID:Match ID"):
        read_position("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    with _pytest.raises(ValueError, match="must not be empty"):
        load_agent("")
