"""The compiled one-position generator (bgrl.evaluation.movegen_nb) against its numpy twin.

Contract (``bgrl/evaluation/movegen_nb.py``): for one (board, dice) it returns exactly what
``bgrl.rules.movegen.generate`` returns for that one position: the same after-states in the
same order (the numpy generator's hash order), the same ``dice_used``, and the same move path
of every after-state (the first play in generation order that reaches it).

* the crosscheck cases (``tests/positions.py``'s ``mixed_cases``: random games, pubeval
  games, synthetic bar / closed-board / bear-off positions, all 21 rolls; the split of
  ``scripts/tools/crosscheck_gnubg.py``), seed 0: 21,000 cases by default, the full
  1,000,000 with ``-m slow``;
* the rule book's cases (``tests/rules/test_movegen.py``'s golden tests, run with the compiled
  generator registered) and hypothesis-built positions;
* a double's buffer growing, the dispatch of ``generate`` and ``legal_plays``, and
  ``bgrl.evaluation.compiled``'s switch.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.rules import test_movegen  # noqa: E402
from positions import mixed_cases  # noqa: E402
from tests.rules.test_movegen import dice_st, positions as position_st  # noqa: E402

movegen_nb = pytest.importorskip("bgrl.evaluation.movegen_nb")
if not movegen_nb.AVAILABLE:  # pragma: no cover
    pytest.skip("numba is not available", allow_module_level=True)

from bgrl.evaluation import compiled  # noqa: E402
from bgrl.rules import movegen  # noqa: E402
from bgrl.rules.board import START_BOARD, Position, position_id  # noqa: E402
from bgrl.rules.movegen import generate  # noqa: E402
from bgrl.rules.notation import legal_plays  # noqa: E402

FIELDS = ("boards", "parent", "dice_used", "offsets", "positions", "dice", "paths")


def _numpy_one(b, d, paths=True):
    """The numpy generator of one position, whatever is registered."""
    with compiled.disabled():
        return generate(b, d, validate=False, paths=paths)


def _same(x, y) -> bool:
    return all((getattr(x, f) is None and getattr(y, f) is None)
               or (getattr(x, f) is not None and getattr(y, f) is not None
                   and getattr(x, f).dtype == getattr(y, f).dtype and np.array_equal(getattr(x, f), getattr(y, f)))
               for f in FIELDS)


def _split(cases: int):
    """crosscheck_gnubg.py's split: 35% random games, 30% pubeval games, 25% synthetic, ~10% all 21 rolls."""
    n_all = max(1, (cases // 10) // 21)
    rest = cases - 21 * n_all
    n_random = int(rest * 0.35 / 0.9)
    n_agent = int(rest * 0.30 / 0.9)
    return dict(n_random=n_random, n_agent=n_agent, n_synth=rest - n_random - n_agent, n_all_rolls=n_all)


def _crosscheck(cases: int, seed: int = 0) -> int:
    """Compiled vs numpy on the crosscheck cases. The numpy side runs batched (1,024 positions a
    call); a group that differs is checked once more against the numpy generator of that one
    position (a batch orders its groups by fewer hash bits, so in a never-seen tie its order
    could differ): only a difference there fails. Returns the cases compared."""
    total = 0
    bad = []
    for label, boards, dice in mixed_cases(np.random.default_rng(seed), **_split(cases)):
        for lo in range(0, len(boards), 1024):
            b, d = boards[lo:lo + 1024], dice[lo:lo + 1024]
            ref = _numpy_batch(b, d)
            for i in range(len(b)):
                bi, di = np.ascontiguousarray(b[i:i + 1]), np.ascontiguousarray(d[i:i + 1])
                got = movegen_nb.generate_one(bi, di, paths=True)
                r0, r1 = ref.offsets[i], ref.offsets[i + 1]
                if not (got is not None and np.array_equal(got.boards, ref.boards[r0:r1])
                        and np.array_equal(got.paths, ref.paths[r0:r1]) and got.dice_used[0] == ref.dice_used[i]):
                    if got is None or not _same(got, _numpy_one(bi, di)):
                        bad.append(f"[{label}] {position_id(b[i])} {tuple(d[i].tolist())}")
                # the rows-only kernel of the single environments: the same rows and dice used
                rows, used, ok = movegen_nb._generate_one_rows(bi[0], int(di[0, 0]), int(di[0, 1]), movegen_nb._MULT,
                                                               movegen_nb._DB_CAP)
                if got is not None and (not ok or not np.array_equal(rows, got.boards) or used != int(got.dice_used[0])):
                    bad.append(f"[{label}, rows only] {position_id(b[i])} {tuple(d[i].tolist())}")
            total += len(b)
    assert not bad, f"{len(bad)} disagreement(s):\n" + "\n".join(bad[:10])
    return total


def _numpy_batch(b, d):
    with compiled.disabled():
        return generate(b, d, paths=True)


def test_crosscheck_cases():
    assert _crosscheck(21_000) == 21_000


@pytest.mark.slow
def test_crosscheck_cases_million():
    assert _crosscheck(1_000_000) == 1_000_000


def test_single_position_equals_numpy_on_every_roll_of_the_start_and_bar_positions():
    boards = [START_BOARD.astype(np.int8), test_movegen.mk({6: 3}, test_movegen.CLOSED, bar=1),
              test_movegen.mk({6: 2}, {22: 2, 21: 1, 10: 3}, bar=2), test_movegen.mk({5: 1, 3: 1}, test_movegen.OFF_OPP)]
    for board in boards:
        for roll in test_movegen.ROLLS:
            b, d = board[None].astype(np.int8), np.array([roll], dtype=np.int8)
            for paths in (False, True):
                assert _same(movegen_nb.generate_one(b, d, paths=paths), _numpy_one(b, d, paths)), (position_id(board), roll)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=position_st(), dice=dice_st)
def test_hypothesis_positions(board, dice):
    b, d = board[None].astype(np.int8), np.array([dice], dtype=np.int8)
    assert _same(movegen_nb.generate_one(b, d, paths=True), _numpy_one(b, d))


def _golden_tests():
    out = []
    for name, fn in inspect.getmembers(test_movegen, inspect.isfunction):
        if not name.startswith("test_golden"):
            continue
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        if marks:
            argname, values = marks[0].args
            out += [pytest.param(fn, {argname: v}, id=f"{name}[{v}]") for v in values]
        else:
            out.append(pytest.param(fn, {}, id=name))
    return out


@pytest.mark.parametrize("fn, kwargs", _golden_tests())
def test_rule_book_cases_through_the_compiled_generator(fn, kwargs, monkeypatch):
    """Each golden test of test_movegen.py (hand-worked sets from docs/rules.md) with ``generate`` of
    one position running compiled (the check that it did so is the counter)."""
    calls = []

    def counted(b, d, paths):
        calls.append(1)
        return movegen_nb.generate_one(b, d, paths)

    monkeypatch.setattr(movegen, "_ONE_POSITION", counted)
    fn(**kwargs)
    assert calls


def test_a_doubles_buffer_grows():
    rng = np.random.default_rng(3)
    b, _ = test_movegen.random_game_positions(rng, 300)
    for board in b[:100]:
        for die in (1, 2, 3):
            bb, d = board[None].astype(np.int8), np.array([[die, die]], dtype=np.int8)
            assert _same(movegen_nb.generate_one(bb, d, paths=True, cap=1), _numpy_one(bb, d))
    # a buffer of no rows is taken as one (it could never grow): the same plays, no write out of bounds
    d = np.array([[3, 3]], dtype=np.int8)
    assert _same(movegen_nb.generate_one(START_BOARD[None].astype(np.int8), d, paths=True, cap=0),
                 _numpy_one(START_BOARD[None].astype(np.int8), d))


def test_generate_and_legal_plays_of_one_position_dispatch_and_agree():
    pos = Position.start()
    with compiled.disabled():
        assert movegen._ONE_POSITION is None
        plays_np = legal_plays(pos, (3, 1))
        batch_np = generate(np.stack([pos.board, pos.board]), np.array([[3, 1], [6, 6]]))
    assert compiled.ensure() and compiled.active()
    assert movegen._ONE_POSITION is movegen_nb.generate_one
    plays_nb = legal_plays(pos, (3, 1))
    assert plays_nb == plays_np
    assert [p.after_state.tobytes() for p in plays_nb] == [p.after_state.tobytes() for p in plays_np]
    assert [p.moves for p in plays_nb] == [p.moves for p in plays_np]
    assert _same(generate(np.stack([pos.board, pos.board]), np.array([[3, 1], [6, 6]])), batch_np)  # batches: compiled, equal
    # a pass: one row, the board, dice_used 0, an empty path
    closed = test_movegen.mk({6: 3}, test_movegen.CLOSED, bar=1)
    res = generate(closed[None], np.array([[6, 5]]), paths=True)
    assert res.dice_used[0] == 0 and np.array_equal(res.boards, closed[None]) and not res.paths.any()


def test_validation_still_runs_before_the_compiled_generator():
    compiled.ensure()
    with pytest.raises(ValueError, match="dice must lie in 1..6"):
        generate(START_BOARD[None], np.array([[7, 1]]))
    with pytest.raises(TypeError):
        generate(START_BOARD[None].astype(float), np.array([[3, 1]]))


# ---------------------------------------------------------------------- the batch generator
# Contract (``movegen_nb.generate_batch``): for a batch it returns exactly what the numpy
# generator returns for that batch, every field (its chunks of 1,024 positions, whose order
# inside a position depends on the chunk's size, included), with and without paths.


def _numpy_batch_plain(b, d, paths):
    with compiled.disabled():
        assert movegen._BATCH is None
        return generate(b, d, validate=False, paths=paths)


def _batch_crosscheck(cases: int, seed: int = 0, batch: int = 1024) -> int:
    total = 0
    bad = []
    for label, boards, dice in mixed_cases(np.random.default_rng(seed), **_split(cases)):
        for lo in range(0, len(boards), batch):
            b = np.ascontiguousarray(boards[lo:lo + batch], dtype=np.int8)
            d = np.ascontiguousarray(dice[lo:lo + batch], dtype=np.int8)
            for paths in (False, True):
                got = movegen_nb.generate_batch(b, d, paths)
                if got is None or not _same(got, _numpy_batch_plain(b, d, paths)):
                    bad.append(f"[{label}] batch at {lo} ({len(b)} positions), paths={paths}")
            total += len(b)
    assert not bad, f"{len(bad)} disagreeing batch(es):\n" + "\n".join(bad[:10])
    return total


def test_batch_crosscheck_cases():
    assert _batch_crosscheck(21_000) == 21_000


@pytest.mark.slow
def test_batch_crosscheck_cases_million():
    assert _batch_crosscheck(1_000_000, batch=4096) == 1_000_000


@pytest.mark.parametrize("n", [2, 3, 1023, 1024, 1025, 2051])
def test_batch_equals_numpy_across_chunk_sizes(n):
    """The order inside a position depends on the chunk's size (the bit length of its last
    index): batches around the 1,024-position chunk."""
    rng = np.random.default_rng(n)
    b, d = test_movegen.random_game_positions(rng, n)
    b, d = b.astype(np.int8), d.astype(np.int8)
    for paths in (False, True):
        assert _same(movegen_nb.generate_batch(b, d, paths), _numpy_batch_plain(b, d, paths))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(st.tuples(position_st(), dice_st), min_size=2, max_size=40))
def test_hypothesis_batches(items):
    b = np.stack([x[0] for x in items]).astype(np.int8)
    d = np.array([x[1] for x in items], dtype=np.int8)
    for paths in (False, True):
        assert _same(movegen_nb.generate_batch(b, d, paths), _numpy_batch_plain(b, d, paths))


def test_batch_doubles_buffer_grows():
    rng = np.random.default_rng(5)
    b, _ = test_movegen.random_game_positions(rng, 200)
    b = b.astype(np.int8)
    d = np.repeat(np.array([[1, 1], [2, 2], [3, 3], [6, 5]], dtype=np.int8), 50, axis=0)
    for paths in (False, True):
        assert _same(movegen_nb.generate_batch(b, d, paths, cap=1), _numpy_batch_plain(b, d, paths))


_BATCH_RULE_TESTS = (pytest.param("test_fast_matches_reference", marks=pytest.mark.slow),  # 20 s; the crosscheck covers it
                     "test_start_position_all_21_rolls_match_reference",
                     "test_batch_equals_one_by_one", "test_dice_order_irrelevant", "test_conservation_and_dice_used",
                     "test_input_not_modified", "test_paths_same_after_states_and_replay")


@pytest.mark.parametrize("name", _BATCH_RULE_TESTS)
def test_rule_tests_through_the_compiled_batch_generator(name, monkeypatch):
    """test_movegen.py's batch tests against the plain-Python reference generator, with
    ``generate`` of a batch running compiled (the counter checks that it did)."""
    calls = []

    def counted(b, d, paths):
        calls.append(1)
        return movegen_nb.generate_batch(b, d, paths)

    monkeypatch.setattr(movegen, "_BATCH", counted)
    getattr(test_movegen, name)()
    assert calls


def test_batch_dispatch_and_the_numpy_switch():
    compiled.ensure()
    assert movegen._BATCH is movegen_nb.generate_batch
    rng = np.random.default_rng(11)
    b, d = test_movegen.random_game_positions(rng, 300)
    got = generate(b, d, paths=True)
    with compiled.disabled():
        assert movegen._BATCH is None and movegen._ONE_POSITION is None
        ref = generate(b, d, paths=True)
    assert movegen._BATCH is movegen_nb.generate_batch
    assert _same(got, ref)
