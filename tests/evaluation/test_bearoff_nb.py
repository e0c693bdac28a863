"""The compiled bear-off lookup (bgrl.evaluation.bearoff_nb) against the numpy code of
bgrl.evaluation.bearoff: the same known mask and errors, probabilities within TOLERANCE (and bit
for bit while numpy sums a row in the order bearoff_nb._pairwise follows)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgrl.evaluation import bearoff, compiled
from bgrl.rules.board import flip
from bgrl.rules.movegen import generate
from positions import random_game_positions, synthetic_positions

bearoff_nb = pytest.importorskip("bgrl.evaluation.bearoff_nb")
if not bearoff_nb.AVAILABLE:  # pragma: no cover
    pytest.skip("numba is not available", allow_module_level=True)

TOL = bearoff_nb.TOLERANCE
FUNCS = (bearoff.exact_probs, bearoff.one_sided_probs)


@pytest.fixture(scope="module", autouse=True)
def _kernels():
    if not compiled.ensure(import_numba=True):
        pytest.skip("compiled kernels switched off (BGRL_COMPILED=0)")
    bearoff.database()


def _numpy_order_is_ours() -> bool:
    """Whether numpy sums a contiguous row as bearoff_nb._pairwise does (numpy 2.x does)."""
    rng = np.random.default_rng(5)
    for n in (1, 7, 8, 9, 16, 31, 32, 33, 100, 128, 129, 300):
        a = rng.random((1, n)) * 10.0 ** rng.integers(-8, 1, size=(1, n))
        if a.sum(1)[0] != bearoff_nb._pairwise(a[0], n):
            return False
    return True


def both_paths(boards, func):
    with compiled.disabled():
        assert not compiled.active()
        ref = func(boards)
    assert compiled.active()
    return ref, func(boards)


def same(boards, exact: bool = False) -> int:
    """Both functions and is_bearoff agree on ``boards``; returns how many rows are known."""
    for func in FUNCS:
        (k0, p0), (k1, p1) = both_paths(boards, func)
        assert k1.dtype == np.bool_ and p1.dtype == np.float64 and p1.shape == p0.shape
        bad = np.flatnonzero(k0 != k1)
        assert bad.size == 0, (func.__name__, np.asarray(boards)[bad[:3]])
        assert np.array_equal(np.isnan(p0), np.isnan(p1))
        assert np.isnan(p1[~k1]).all() and not np.isnan(p1[k1]).any()
        diff = np.abs(np.nan_to_num(p0) - np.nan_to_num(p1))
        worst = int(np.argmax(diff.max(1))) if len(diff) else 0
        assert diff.size == 0 or diff.max() <= TOL, (func.__name__, diff.max(), np.asarray(boards)[worst])
        if exact:
            assert np.array_equal(p0, p1, equal_nan=True), (func.__name__, np.count_nonzero(diff))
    m0, m1 = both_paths(boards, bearoff.is_bearoff)
    assert np.array_equal(m0, m1) and np.array_equal(m0, k1)
    return int(k1.sum())


def bearoff_boards(mover: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Boards int8 (N, 26): ``mover`` / ``opp`` counts (N, 6) on each side's points 1..6."""
    b = np.zeros((len(mover), 26), dtype=np.int8)
    b[:, 1:7] = mover
    b[:, 24:18:-1] = -np.asarray(opp)
    return b


def random_counts(rng, n: int) -> np.ndarray:
    """n random one-sided positions (database rows), many with 15, few, one or no checkers."""
    pos = bearoff.positions()
    n_chk = pos.sum(1)
    pools = [np.arange(len(pos)), np.flatnonzero(n_chk == 15), np.flatnonzero(n_chk <= 6), np.flatnonzero(n_chk <= 1)]
    pick = [rng.choice(p, size=n // 4 + 1) for p in pools]
    return pos[rng.permutation(np.concatenate(pick))[:n]]


# ------------------------------------------------------------------ the index


def test_layout_constants_match_the_numpy_module():
    """bearoff_nb restates bearoff's layout (it cannot import bearoff, which imports it)."""
    assert (bearoff_nb._NP, bearoff_nb._NC) == (bearoff.N_POINTS, bearoff.NUM_CHECKERS)
    assert bearoff_nb.N_POSITIONS == bearoff.N_POSITIONS == len(bearoff.positions())


def test_index_of_every_position():
    pos = bearoff.positions()
    assert np.array_equal(bearoff_nb.position_index(pos), np.arange(len(pos)))
    assert np.array_equal(bearoff_nb.position_index(pos), bearoff.position_index(pos))
    bad = np.array([[16, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 16], [8, 0, 0, 0, 0, 8], [-1, 0, 0, 0, 0, 0]])
    assert (bearoff_nb.position_index(bad) == -1).all()


# ------------------------------------------------------------------ bear-off positions


def test_every_one_sided_position_both_ways():
    """Every database position on roll against a few opponents (none left: the game is over;
    15 checkers: gammons; at most 6: the two-sided table), and the other way round."""
    pos = bearoff.positions()
    n = len(pos)
    rng = np.random.default_rng(1)
    others = [np.zeros(6, dtype=np.int8), np.array([15, 0, 0, 0, 0, 0]), np.array([0, 0, 0, 0, 0, 15]),
              np.array([1, 0, 2, 0, 0, 1]), np.array([0, 0, 0, 0, 0, 1])]
    for other in others:
        rest = np.repeat(np.asarray(other, dtype=np.int8)[None], n, axis=0)
        assert same(bearoff_boards(pos, rest)) == n - (not other.any())
        assert same(bearoff_boards(rest, pos)) == n - (not other.any())
    assert same(bearoff_boards(pos, pos[rng.permutation(n)])) >= n - 1


def test_random_pairs():
    rng = np.random.default_rng(2)
    a, b = random_counts(rng, 4000), random_counts(rng, 4000)
    boards = bearoff_boards(a, b)
    assert same(boards) == int((boards != 0).any(1).sum())
    small = bearoff.positions()[bearoff.two_sided_positions()]
    boards = bearoff_boards(small[rng.integers(0, len(small), 3000)], small[rng.integers(0, len(small), 3000)])
    same(boards)


side = st.lists(st.integers(1, 6), max_size=15).map(lambda pts: np.bincount(pts, minlength=7)[1:].astype(np.int8))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mover=side, opp=side,
       stray=st.sampled_from([None, ("mover", 25), ("mover", 7), ("mover", 12), ("opp", 0), ("opp", 18), ("opp", 12)]))
def test_hypothesis_bearoffs(mover, opp, stray):
    """A bear-off pair, or one with a checker moved out of its side's home board (or onto its
    bar): then not a bear-off. Board indices: the mover's points 1..24, its bar 25, the
    opponent's bar 0 (the opponent's point p is index 25 - p)."""
    b = bearoff_boards(mover[None], opp[None])
    if stray is not None:
        who, to = stray
        counts = mover if who == "mover" else opp
        if not counts.any():
            return
        point = 1 + int(np.flatnonzero(counts)[0])
        sign = 1 if who == "mover" else -1
        b[0, point if who == "mover" else 25 - point] -= sign
        b[0, to] += sign
    same(b)


# ------------------------------------------------------------------ positions from games


def test_game_positions_and_after_states():
    rng = np.random.default_rng(3)
    gb, gd = random_game_positions(rng, 3000, parallel=32)
    sb, sd = synthetic_positions(rng, 2000)
    boards = np.concatenate([gb, sb])
    same(boards)
    same(flip(boards))
    aft = generate(boards, np.concatenate([gd, sd])).boards
    aft = flip(aft[:: max(1, len(aft) // 20000)])  # the opponent on roll
    assert same(aft) > 100


def test_bit_for_bit_with_numpy():
    if not _numpy_order_is_ours():  # pragma: no cover - another numpy
        pytest.skip("numpy sums rows in another order than bearoff_nb._pairwise (values still within TOLERANCE)")
    rng = np.random.default_rng(4)
    same(bearoff_boards(random_counts(rng, 5000), random_counts(rng, 5000)), exact=True)
    gb, _ = random_game_positions(rng, 2000, parallel=32)
    same(gb, exact=True)


# ------------------------------------------------------------------ inputs, errors, the switch


def test_other_dtypes_and_layouts():
    rng = np.random.default_rng(6)
    boards = bearoff_boards(random_counts(rng, 300), random_counts(rng, 300))
    gb, _ = random_game_positions(rng, 300, parallel=16)
    boards = np.concatenate([boards, gb])
    for arr in (boards.astype(np.int64), boards.astype(np.int16), boards[::-2], np.asfortranarray(boards),
                boards[:0], boards.tolist()):
        same(arr)
    ro = boards.copy()
    ro.setflags(write=False)
    same(ro)
    pos = np.maximum(boards, 0).astype(np.uint8)  # the mover's checkers only (uint: no opponent)
    same(pos)


@pytest.mark.parametrize("bad", [
    np.zeros((3, 25), dtype=np.int8), np.zeros(26, dtype=np.int8), np.zeros((2, 26), dtype=np.float64),
    np.zeros((2, 26), dtype=bool)])
def test_same_shape_errors(bad):
    for func in FUNCS:
        with compiled.disabled():
            with pytest.raises(ValueError) as e0:
                func(bad)
        with pytest.raises(ValueError) as e1:
            func(bad)
        assert str(e0.value) == str(e1.value)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.int16])
def test_same_error_for_too_many_checkers(dtype):
    b = np.zeros((3, 26), dtype=dtype)
    b[:, 1] = 3
    b[:, 24] = -2
    b[1, 2] = 13  # 16 of the mover's checkers at home
    c = b.copy()
    c[1, 2] = 0
    c[1, 20] = -14  # 16 of the opponent's
    for boards in (b, c):
        for func in FUNCS:
            with compiled.disabled():
                with pytest.raises(ValueError) as e0:
                    func(boards)
            with pytest.raises(ValueError) as e1:
                func(boards)
            assert str(e0.value) == str(e1.value)
        same(boards[[0, 2]])  # without that row: fine
    wide = b.astype(np.int64)
    wide[1, 2] = 300  # outside int8: the numpy code runs (and raises)
    with pytest.raises(ValueError, match="at most 15 checkers"):
        bearoff.exact_probs(wide)


def test_kernel_is_used_and_database_loaded_only_when_needed(monkeypatch):
    calls = []
    real_probs = bearoff_nb.probs
    monkeypatch.setattr(bearoff_nb, "probs", lambda b, t, *rest: calls.append(len(b)) or real_probs(b, t, *rest))
    rng = np.random.default_rng(7)
    gb, _ = random_game_positions(rng, 64, parallel=8)
    gb = gb[~bearoff.is_bearoff(gb)]
    db = bearoff.database()

    def no_load():
        raise AssertionError("database loaded for boards with no bear-off")

    monkeypatch.setattr(bearoff, "_DB", None)
    monkeypatch.setattr(bearoff, "database", no_load)
    known, probs = bearoff.exact_probs(gb)
    assert calls == [len(gb)] and not known.any() and np.isnan(probs).all()
    monkeypatch.setattr(bearoff, "database", lambda: db)
    boards = bearoff_boards(random_counts(rng, 50), random_counts(rng, 50))
    k1, p1 = bearoff.exact_probs(boards)
    monkeypatch.undo()
    with compiled.disabled():
        k0, p0 = bearoff.exact_probs(boards)
    assert np.array_equal(k0, k1) and np.abs(p0 - p1).max() <= TOL
