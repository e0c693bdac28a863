"""Board encoding, validation, flip and gnubg Position IDs."""

import base64

import numpy as np
import pytest

from bgrl.rules.board import (
    START_BOARD,
    START_POSITION_ID,
    Position,
    board_from_position_id,
    flip,
    pip_counts,
    position_id,
    position_ids,
    validate_board,
)
from bgrl.rules.movegen import generate


def random_positions(n, seed=0):
    """Positions from random games (mover's view)."""
    rng = np.random.default_rng(seed)
    out = []
    b = START_BOARD.copy()
    while len(out) < n:
        out.append(b.copy())
        aft = generate(b[None], rng.integers(1, 7, size=(1, 2)))
        a = aft.boards[rng.integers(aft.counts[0])]
        b = START_BOARD.copy() if np.clip(a, 0, None).sum() == 0 else flip(a)
    return np.array(out)


def test_start_position_id_and_pips():
    assert position_id(START_BOARD) == START_POSITION_ID == "4HPwATDgc/ABMA"
    assert np.array_equal(board_from_position_id("4HPwATDgc/ABMA"), START_BOARD)
    assert pip_counts(START_BOARD) == (167, 167)


def test_side_order_matches_gnubg():
    # gnubg 1.07: after `set board 4HPwAVDgc/ABMA` the side on roll has the start position
    # and the opponent has one checker on the bar (its 24-point holds one).
    b = board_from_position_id("4HPwAVDgc/ABMA")
    assert b[0] == -1 and b[1] == -1 and b[25] == 0
    assert np.array_equal(b[2:26], START_BOARD[2:26])


def test_round_trip_random_positions():
    for b in random_positions(2000, seed=3):
        pid = position_id(b)
        assert len(pid) == 14
        assert np.array_equal(board_from_position_id(pid), b)


def plain_position_id(b) -> str:
    """The Position ID written plainly (an 80-bit int, gnubg's side order: opponent first)."""
    b = [int(v) for v in b]
    counts = [max(-v, 0) for v in b[24:0:-1]] + [-b[0]] + [max(v, 0) for v in b[1:25]] + [b[25]]
    key = pos = 0
    for c in counts:
        key |= ((1 << c) - 1) << pos
        pos += c + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii").rstrip("=")


def test_position_ids_batch_equals_plain_encoder():
    boards = random_positions(1500, seed=5)
    assert position_ids(boards) == [plain_position_id(b) for b in boards]
    assert [position_id(b) for b in boards[:100]] == [plain_position_id(b) for b in boards[:100]]
    assert position_ids(flip(boards[:50])) == [position_id(flip(b)) for b in boards[:50]]
    assert position_ids(np.zeros((0, 26), dtype=np.int8)) == []
    assert position_ids(START_BOARD[None]) == [START_POSITION_ID]


def test_flip_is_involution_and_swaps_sides():
    for b in random_positions(300, seed=4):
        f = flip(b)
        assert np.array_equal(flip(f), b)
        assert pip_counts(f) == pip_counts(b)[::-1]
    batch = random_positions(50, seed=5)
    assert np.array_equal(flip(flip(batch)), batch)
    before = batch.copy()
    flip(batch)
    assert np.array_equal(batch, before)  # argument untouched


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("", "14 base64"),
        ("4HPwATDgc/ABM", "14 base64"),
        ("4HPwATDgc/ABMA=", "14 base64"),
        ("4HPwATDgc/AB!A", "14 base64"),
        ("//////////////", "malformed"),
        ("//8AAAAAAAAAAA", "16 checkers"),
    ],
)
def test_bad_position_ids(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        board_from_position_id(bad)


def test_position_id_type_error():
    with pytest.raises(TypeError):
        board_from_position_id(12345)


def test_decoder_fuzz_never_crashes_or_invents():
    rng = np.random.default_rng(7)
    alphabet = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))
    valid = [position_id(b) for b in random_positions(300, seed=8)]
    ok = 0
    for k in range(6000):
        if k % 2:
            s = "".join(rng.choice(alphabet, 14))
        else:  # one character of a valid ID changed, or the ID cut short
            s = list(valid[k % len(valid)])
            s[rng.integers(14)] = rng.choice(alphabet)
            s = "".join(s)[: 14 if rng.random() < 0.9 else rng.integers(14)]
        try:
            b = board_from_position_id(s)
        except ValueError:
            continue
        ok += 1
        validate_board(b)
        assert position_id(b) == s  # a decoded ID re-encodes to itself
    assert ok > 0


def test_validate_board_errors():
    b = START_BOARD.copy()
    b[6] = 7
    with pytest.raises(ValueError, match="mover has 17"):
        validate_board(b)
    with pytest.raises(ValueError, match="shape"):
        validate_board(np.zeros(25, dtype=np.int8))
    c = START_BOARD.copy()
    c[0] = 1
    with pytest.raises(ValueError, match="opponent's bar"):
        validate_board(c)
    with pytest.raises(TypeError):
        validate_board(np.full(26, 0.5))


@pytest.mark.parametrize("value, dtype", [(np.iinfo(np.int64).min, np.int64), (2**63, np.uint64),
                                          (2**63 + 5, np.uint64), (1e30, np.float64), (-1e30, np.float64)])
def test_huge_counts_are_refused_not_wrapped(value, dtype):
    """A count that a cast to int64/int8 would wrap into range (abs(INT64_MIN) < 0, 1e30 -> INT64_MIN
    -> 0 as int8) is refused, by the one-board check and by the generator's batch check."""
    from bgrl.rules.board import illegal_boards

    b = np.zeros(26, dtype=dtype)
    b[5] = value
    with pytest.raises(ValueError, match="-15..15"):
        validate_board(b)
    assert illegal_boards(np.stack([b, np.zeros(26, dtype=dtype)])).tolist() == [True, False]
    if dtype is not np.float64:  # the batch check takes integer dtypes only (TypeError for floats)
        with pytest.raises(ValueError, match="-15..15"):
            generate(b[None], np.array([[3, 1]]))


def test_position_object():
    p = Position.from_id(START_POSITION_ID)
    assert p == Position.start()
    assert p.pips == (167, 167) and p.off == (0, 0)
    assert p.flipped().flipped() == p
    with pytest.raises(ValueError):
        p.board[3] = 1  # read-only


def test_illegal_boards_marks_the_rows_validate_board_refuses():
    from bgrl.rules.board import illegal_boards, validate_board

    rng = np.random.default_rng(5)
    boards = rng.integers(-4, 5, size=(400, 26))
    boards[::7] = 0
    mask = illegal_boards(boards)
    refused = []
    for row in boards:
        try:
            validate_board(row)
            refused.append(False)
        except ValueError:
            refused.append(True)
    assert mask.tolist() == refused and 0 < mask.sum() < len(mask)
