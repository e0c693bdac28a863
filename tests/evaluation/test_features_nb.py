"""The compiled td198g features (bgrl.evaluation.features_nb) equal the numpy reference bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgrl.evaluation import features

from bgrl.evaluation import features_nb
from bgrl.rules.board import START_BOARD, flip
from bgrl.evaluation.encoding import encode
from bgrl._resources import shipped_path
from positions import random_game_positions, synthetic_positions
from tests.rules.test_movegen import positions as board_strategy


def same(boards: np.ndarray) -> None:
    b = np.ascontiguousarray(boards, dtype=np.int8)
    ref = features.both_sides(b)
    fast = features_nb.both_sides(b)
    assert fast.dtype == np.float32 and fast.shape == (len(b), 18)
    bad = np.argwhere(ref != fast)
    assert bad.size == 0, (bad[:5], b[bad[:5, 0]] if bad.size else None)


def test_numba_is_used():
    assert features_nb.AVAILABLE  # numba is a core dependency: the fallback must not be what is tested


def test_random_and_synthetic_positions():
    rng = np.random.default_rng(11)
    gb, _ = random_game_positions(rng, 3000, 32)
    sb, _ = synthetic_positions(rng, 3000)
    same(gb)
    same(sb)
    same(flip(sb))  # the opponent with bar checkers / borne-off too


def test_benchmark_positions():
    with np.load(shipped_path("benchmark.npz", package="bgrl.data")) as z:
        boards = z["board"]
        after = z["after_board"].reshape(-1, 26)
    same(boards)
    same(after[:: max(1, len(after) // 20000)])


def _board(mover: dict, opp: dict) -> np.ndarray:
    """Board from {index: count}; opp counts are stored negative (index 0 = opponent's bar)."""
    b = np.zeros(26, dtype=np.int8)
    for i, n in mover.items():
        b[i] = n
    for i, n in opp.items():
        b[i] = -n
    return b


def test_edge_cases():
    cases = [
        START_BOARD,
        np.zeros(26, dtype=np.int8),  # both sides borne off (not a legal game state, still encodable)
        _board({25: 15}, {}),  # all on the bar, opponent all off
        _board({}, {0: 15}),  # mover all off, opponent all on its bar
        _board({25: 4, 24: 1}, {i: 2 for i in range(19, 25)} | {1: 3}),  # closed board, 4 on the bar
        _board({25: 1, 3: 2}, {20: 1, 22: 1, 0: 2, 10: 5, 12: 6}),  # bar, blots in the entry zone
        _board({25: 2, 13: 3}, {23: 1, 21: 1, 18: 1, 0: 1, 5: 11}),  # two on the bar, doubles entries
        _board({25: 3}, {19: 1, 24: 1, 6: 13}),  # three on the bar
        _board({1: 5, 2: 5, 3: 5}, {24: 5, 23: 5, 22: 5}),  # race, bear-off both sides
        _board({6: 1}, {7: 1}),  # last checkers, contact just passed
        _board({24: 1}, {1: 1}),  # last checkers, full contact
        _board({i: 1 for i in range(10, 25)}, {i: 1 for i in range(1, 10)} | {0: 6}),  # blots everywhere
        _board({i: 2 for i in range(13, 20)} | {1: 1}, {i: 2 for i in range(1, 8)} | {24: 1}),  # primes
    ]
    b = np.stack(cases)
    same(b)
    same(flip(b))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=board_strategy(), bar_m=st.integers(0, 4), bar_o=st.integers(0, 4))
def test_hypothesis_boards(board, bar_m, bar_o):
    b = board.copy()
    # move up to bar_m / bar_o checkers of each side to its bar (boards stay valid)
    for i in range(1, 25):
        while bar_m and b[i] > 0:
            b[i] -= 1
            b[25] += 1
            bar_m -= 1
        while bar_o and b[i] < 0:
            b[i] += 1
            b[0] -= 1
            bar_o -= 1
    same(np.stack([b, flip(b)]))


def test_encode_uses_the_same_values_and_batch_sizes():
    rng = np.random.default_rng(5)
    gb, _ = random_game_positions(rng, 500, 16)
    x = encode(gb, "td198g")
    assert np.array_equal(x[:, 202:], features.both_sides(gb))
    assert encode(gb[:0], "td198g").shape == (0, 220)
    assert np.array_equal(encode(gb[:1], "td198g"), x[:1])


def test_bad_shapes_rejected():
    with pytest.raises(ValueError, match=r"\(N, 26\)"):
        features_nb.both_sides(np.zeros((3, 25), dtype=np.int8))
    with pytest.raises(ValueError, match="float32"):
        features_nb.both_sides_into(np.zeros((3, 26), dtype=np.int8), np.zeros((3, 18)))


@pytest.mark.parametrize("name", ["td198", "td198r", "td198g"])
def test_compiled_encode_equals_numpy(name):
    from bgrl.evaluation import encoding_nb
    from bgrl.evaluation.encoding import encode_numpy

    assert encoding_nb.AVAILABLE
    rng = np.random.default_rng(13)
    gb, _ = random_game_positions(rng, 2000, 32)
    sb, _ = synthetic_positions(rng, 2000)
    with np.load(shipped_path("benchmark.npz", package="bgrl.data")) as z:
        bm = z["board"]
    edge = np.stack([START_BOARD, np.zeros(26, dtype=np.int8), _board({25: 15}, {}), _board({}, {0: 15}), _board({25: 3, 1: 12}, {0: 2, 24: 13})])
    for b in (gb, sb, flip(sb), bm, edge, edge[:0]):
        ref, fast = encode_numpy(b, name), encode(b, name)
        assert fast.dtype == np.float32 and fast.shape == ref.shape
        assert np.array_equal(ref.view(np.int32), fast.view(np.int32))  # bit for bit (signed zeros too)
    assert np.array_equal(encode(gb[::-1], name), encode_numpy(gb[::-1], name))  # a strided view
    assert np.array_equal(encode(gb.astype(np.int64), name), encode_numpy(gb, name))


def test_compiled_encode_rejects_overfull_point():
    b = np.zeros((1, 26), dtype=np.int8)
    b[0, 5] = 16
    with pytest.raises(ValueError, match="15 checkers"):
        encode(b, "td198r")
