"""Tests of the batched move generator ``bgrl.rules.movegen.generate``.

* fast vs an independent slow reference (``tests/reference_movegen.py``, written from
  docs/rules.md) over positions from random games, synthetic positions (bar, closed boards,
  bear-offs, doubles) and hypothesis-built arbitrary positions;
* batch vs one-by-one, dice order, checker conservation, ``dice_used``;
* ``generate(..., paths=True)``: the same after-states, each with a move path that replays,
  move by move under the reference's single-die rules, to it;
* golden tests, one per example / rule of the shared rule book (RULES.md; docs/rules.md in this repository), with the expected set of
  after-states worked out by hand from the rule book.

The default run stays well under a minute; ``-m slow`` runs a much larger fuzz.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgrl.rules.board import (
    START_BOARD,
    START_POSITION_ID,
    board_from_position_id,
    flip,
    pip_counts,
    position_id,
    validate_board,
)
from bgrl.rules.movegen import generate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference_movegen import reference_terminals, single_die_moves  # noqa: E402

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]  # the 21 distinct rolls


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


def mk(mover: dict[int, int], opp: dict[int, int] | None = None, bar: int = 0, opp_bar: int = 0) -> np.ndarray:
    """A board from the mover's side.  ``mover`` / ``opp``: {point (mover's numbering): count},
    counts positive for both sides; ``bar``: mover's bar; ``opp_bar``: opponent's bar."""
    b = [0] * 26
    for p, n in mover.items():
        assert 1 <= p <= 24
        b[p] += n
    for p, n in (opp or {}).items():
        assert 1 <= p <= 24 and b[p] == 0, "both sides on one point"
        b[p] -= n
    b[25] = bar
    b[0] = -opp_bar
    return validate_board(np.array(b, dtype=np.int64))


def as_set(rows: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(r) for r in rows.tolist()}


def fast_set(board, dice) -> set[tuple[int, ...]]:
    res = generate(np.asarray(board, dtype=np.int8)[None, :], np.array([dice], dtype=np.int8))
    return as_set(res.group(0))


def ids(states) -> list[str]:
    return sorted(position_id(np.array(s)) for s in states)


def compare_batch(boards: np.ndarray, dice: np.ndarray) -> int:
    """Run ``generate`` on the whole batch and compare every item with the reference.
    Also checks conservation / dice_used / no duplicate rows.  Returns cases compared."""
    res = generate(boards, dice)
    assert res.offsets.shape == (len(boards) + 1,)
    assert (res.counts >= 1).all()
    mismatches = []
    for i in range(len(boards)):
        grp = res.group(i)
        fast = as_set(grp)
        assert len(fast) == len(grp), f"duplicate after-states for {position_id(boards[i])} {tuple(dice[i])}"
        used_ref, ref = reference_terminals(boards[i].tolist(), tuple(int(x) for x in dice[i]))
        if fast != ref or int(res.dice_used[i]) != used_ref:
            mismatches.append(
                f"{position_id(boards[i])} dice={tuple(int(x) for x in dice[i])} "
                f"dice_used fast={int(res.dice_used[i])} ref={used_ref} "
                f"extra={ids(fast - ref)} missing={ids(ref - fast)}"
            )
        check_invariants(boards[i], tuple(int(x) for x in dice[i]), grp, int(res.dice_used[i]))
    assert not mismatches, f"{len(mismatches)} disagreement(s):\n" + "\n".join(mismatches[:20])
    return len(boards)


def check_invariants(board: np.ndarray, dice: tuple[int, int], after: np.ndarray, used: int) -> None:
    """Checker conservation and the pip arithmetic of the dice used."""
    b = board.astype(np.int64)
    a = after.astype(np.int64)
    m0 = int(np.clip(b, 0, None).sum())
    o0 = int(np.clip(-b, 0, None).sum())
    m1 = np.clip(a, 0, None).sum(axis=1)
    o1 = np.clip(-a, 0, None).sum(axis=1)
    # The opponent's checkers are never removed (a hit only sends them to the bar).
    assert (o1 == o0).all()
    assert (a[:, 0] <= 0).all() and (a[:, 25] >= 0).all()
    # The mover's checkers only leave the board by bearing off, at most one per die.
    off = m0 - m1
    assert (off >= 0).all() and (off <= used).all()
    if used == 0:
        assert a.shape[0] == 1 and (a[0] == b).all(), "a pass keeps the board"
        return
    hi, lo = max(dice), min(dice)
    if hi == lo:
        total = used * hi
    elif used == 2:
        total = hi + lo
    else:
        total = None
    mp0, op0 = pip_counts(b)
    mp1, op1 = pip_counts(a)
    drop = mp0 - mp1
    # The opponent's pip count can only grow (hits), the mover's drops by >= 1 per die.
    assert (op1 >= op0).all()
    assert (drop >= used).all()
    no_off = off == 0
    if total is not None:
        assert (drop <= total).all()
        # Without a bear-off every die moves its checker exactly its number of pips.
        assert (drop[no_off] == total).all()
    else:  # one die of a non-double
        assert (drop <= hi).all()
        assert np.isin(drop[no_off], [hi, lo]).all()


# ----------------------------------------------------------------------------------------
# position sources
# ----------------------------------------------------------------------------------------


def random_game_positions(rng: np.random.Generator, n: int, parallel: int = 64, agent=None):
    """``n`` (board, dice) pairs (int8 (n, 26), (n, 2)) from ``parallel`` self-play games at
    once: uniformly random plays, or those of ``agent`` (an object with
    ``select(AfterStates, rng)``). The next position is the flipped after-state."""
    boards = np.repeat(START_BOARD[None, :], parallel, axis=0).astype(np.int8)
    out_b, out_d = [], []
    total = 0
    while total < n:
        dice = rng.integers(1, 7, size=(parallel, 2)).astype(np.int8)
        out_b.append(boards.copy())
        out_d.append(dice)
        total += parallel
        res = generate(boards, dice, validate=False)
        if agent is None:
            pick = res.offsets[:-1] + (rng.random(parallel) * res.counts).astype(np.int64)
        else:
            pick = agent.select(res, rng)
        after = res.boards[pick]
        done = np.maximum(after, 0).sum(axis=1) == 0  # mover bore off all 15: game over
        nxt = flip(after)
        nxt[done] = START_BOARD
        boards = np.ascontiguousarray(nxt, dtype=np.int8)
    return np.concatenate(out_b)[:n], np.concatenate(out_d)[:n]


def build(mover_slots, opp_slots) -> np.ndarray:
    """Board from checker locations.  mover_slots: 1..24 points, 25 = bar; opp_slots:
    1..24 points (mover's numbering), 0 = opponent's bar.  Opponent checkers that would
    share a point with the mover are dropped."""
    b = [0] * 26
    for s in mover_slots:
        b[s] += 1
    for s in opp_slots:
        if s == 0 or b[s] <= 0:
            b[s] -= 1
    return np.array(b, dtype=np.int8)


def synthetic_positions(rng: np.random.Generator, n: int):
    """Positions heavy in bar checkers, closed boards, bear-offs (with contact and hits),
    all with a random roll, doubles over-represented."""
    boards, dice = [], []
    kinds = ["bar", "closed", "bearoff", "bearoff_contact", "almost_home", "scatter"]
    for k in range(n):
        kind = kinds[k % len(kinds)]
        nm = int(rng.integers(1, 16))
        no = int(rng.integers(1, 16))
        if kind == "bar":
            nbar = int(rng.integers(1, min(nm, 4) + 1))
            mover = [25] * nbar + list(rng.integers(1, 25, nm - nbar))
            # the opponent's home board (mover's 19..24) with points and blots
            opp = list(rng.choice(np.arange(19, 25), size=min(no, 9))) + list(rng.integers(0, 25, max(0, no - 9)))
        elif kind == "closed":
            nbar = int(rng.integers(1, min(nm, 3) + 1))
            mover = [25] * nbar + list(rng.integers(1, 25, nm - nbar))
            open_pt = int(rng.integers(18, 25))  # 18 = fully closed
            opp = [p for p in range(19, 25) if p != open_pt for _ in range(2)]
            opp += list(rng.integers(0, 25, max(0, 15 - len(opp) - int(rng.integers(0, 4)))))
        elif kind == "bearoff":
            mover = list(rng.integers(1, 7, nm))
            opp = list(rng.integers(13, 25, no))
        elif kind == "bearoff_contact":
            mover = list(rng.integers(1, 7, nm))
            opp = list(rng.integers(0, 25, no)) + list(rng.integers(1, 7, int(rng.integers(0, 3))))
        elif kind == "almost_home":
            outside = int(rng.integers(1, 3))
            mover = list(rng.integers(1, 7, max(nm - outside, 0))) + list(rng.integers(7, 13, outside))
            if rng.random() < 0.3:
                mover[-1] = 25  # a hit checker on the bar while the rest is home
            opp = list(rng.integers(0, 25, no))
        else:
            mover = list(rng.integers(1, 26, nm))
            opp = list(rng.integers(0, 25, no))
        boards.append(build([int(x) for x in mover], [int(x) for x in opp[:15]]))
        if rng.random() < 0.4:
            d = int(rng.integers(1, 7))
            dice.append((d, d))
        else:
            dice.append(tuple(int(x) for x in rng.integers(1, 7, 2)))
    return np.stack(boards), np.array(dice, dtype=np.int8)


def all_rolls(boards: np.ndarray):
    """Every position with each of the 21 rolls."""
    b = np.repeat(boards, len(ROLLS), axis=0)
    d = np.tile(np.array(ROLLS, dtype=np.int8), (len(boards), 1))
    return b, d


# ----------------------------------------------------------------------------------------
# fast vs reference
# ----------------------------------------------------------------------------------------


def _fuzz(seed: int, n_game: int, n_sample_all_rolls: int, n_synth: int) -> int:
    rng = np.random.default_rng(seed)
    gb, gd = random_game_positions(rng, n_game)
    cases = compare_batch(gb, gd)
    sample = gb[rng.choice(len(gb), size=min(n_sample_all_rolls, len(gb)), replace=False)]
    cases += compare_batch(*all_rolls(sample))
    sb, sd = synthetic_positions(rng, n_synth)
    cases += compare_batch(sb, sd)
    # every synthetic position also with all 21 rolls, on a sample
    cases += compare_batch(*all_rolls(sb[: max(1, n_synth // 10)]))
    return cases


def test_fast_matches_reference():
    # 5000 game positions + 200 x 21 rolls + 2500 synthetic + 250 x 21 rolls = 16950 cases (the slow
    # variant below: 195,000 a seed)
    n = _fuzz(seed=12345, n_game=5000, n_sample_all_rolls=200, n_synth=2500)
    assert n == 16950


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_fast_matches_reference_slow(seed):
    # 60000 + 2000 x 21 + 30000 + 3000 x 21 = 195000 cases per seed
    n = _fuzz(seed=seed, n_game=60000, n_sample_all_rolls=2000, n_synth=30000)
    assert n == 195000


def test_start_position_all_21_rolls_match_reference():
    compare_batch(*all_rolls(START_BOARD[None, :].astype(np.int8)))


# ----------------------------------------------------------------------------------------
# batching, dice order, conservation
# ----------------------------------------------------------------------------------------


def _mixed_batch(seed: int, n: int):
    rng = np.random.default_rng(seed)
    gb, gd = random_game_positions(rng, n // 2)
    sb, sd = synthetic_positions(rng, n - n // 2)
    b = np.concatenate([gb, sb])
    d = np.concatenate([gd, sd])
    perm = rng.permutation(len(b))
    return b[perm], d[perm]


def test_batch_equals_one_by_one():
    b, d = _mixed_batch(7, 400)
    res = generate(b, d)
    assert (np.diff(res.parent) >= 0).all()
    for i in range(len(b)):
        one = generate(b[i : i + 1], d[i : i + 1])
        assert np.array_equal(one.boards, res.group(i)), position_id(b[i])
        assert one.dice_used[0] == res.dice_used[i]
        assert (res.parent[res.offsets[i] : res.offsets[i + 1]] == i).all()


def test_dice_order_irrelevant():
    b, d = _mixed_batch(8, 600)
    r1 = generate(b, d)
    r2 = generate(b, d[:, ::-1].copy())
    assert np.array_equal(r1.offsets, r2.offsets)
    assert np.array_equal(r1.boards, r2.boards)
    assert np.array_equal(r1.dice_used, r2.dice_used)


def test_conservation_and_dice_used():
    b, d = _mixed_batch(9, 1000)
    res = generate(b, d)
    for i in range(len(b)):
        check_invariants(b[i], tuple(int(x) for x in d[i]), res.group(i), int(res.dice_used[i]))
        hi, lo = int(d[i].max()), int(d[i].min())
        assert 0 <= res.dice_used[i] <= (4 if hi == lo else 2)


def test_input_not_modified():
    b, d = _mixed_batch(10, 100)
    b0, d0 = b.copy(), d.copy()
    generate(b, d)
    assert np.array_equal(b, b0) and np.array_equal(d, d0)


def _replay(board: np.ndarray, path: np.ndarray, roll: tuple[int, int]) -> tuple[int, ...]:
    """Play a move path (src, dst, hit) rows on ``board``; every move must be one of the
    reference's single-die moves, with the hit flag right. Returns the final board."""
    b = tuple(int(x) for x in board)
    for src, dst, hit in path.tolist():
        die = src - dst  # dst = src - die, <= 0 for a bear-off
        assert die in roll, (src, dst, roll)
        assert bool(hit) == (dst >= 1 and b[dst] == -1)
        nb = list(b)
        nb[src] -= 1
        if dst >= 1:
            if nb[dst] == -1:
                nb[dst], nb[0] = 0, nb[0] - 1
            nb[dst] += 1
        assert tuple(nb) in single_die_moves(b, die), (position_id(board), path.tolist())
        b = tuple(nb)
    return b


def test_paths_same_after_states_and_replay():
    b, d = _mixed_batch(11, 1500)  # more than one internal chunk of 1,024 positions
    plain = generate(b, d)
    res = generate(b, d, paths=True)
    assert plain.paths is None
    for name in ("boards", "parent", "dice_used", "offsets", "positions"):
        assert np.array_equal(getattr(plain, name), getattr(res, name)), name
    assert res.paths.dtype == np.int16 and res.paths.shape == (res.boards.shape[0], 4, 3)
    used = res.dice_used[res.parent]
    for j in range(res.boards.shape[0]):
        i, n = int(res.parent[j]), int(used[j])
        path = res.paths[j]
        assert not path[n:].any()
        roll = (int(d[i, 0]), int(d[i, 1]))
        assert _replay(b[i], path[:n], roll) == tuple(res.boards[j].tolist())
        dice_played = sorted(int(s - t) for s, t, _ in path[:n].tolist())
        if roll[0] != roll[1] and n == 2:
            assert dice_played == sorted(roll)


def test_paths_of_a_pass_and_of_the_start():
    res = generate(START_BOARD[None], np.array([[2, 1]]), paths=True)
    paths = {tuple(map(tuple, p[:2].tolist())) for p in res.paths}
    assert len(paths) == res.boards.shape[0] == 15
    assert ((13, 11, 0), (6, 5, 0)) in paths  # 13/11 6/5: the higher die first
    # a dance: one row, the board unchanged, an empty path
    closed = mk({13: 2}, {p: 2 for p in range(19, 25)}, bar=1)
    res = generate(closed[None], np.array([[6, 6]]), paths=True)
    assert res.dice_used[0] == 0 and np.array_equal(res.boards[0], closed) and not res.paths.any()


# ----------------------------------------------------------------------------------------
# hypothesis: arbitrary valid positions
# ----------------------------------------------------------------------------------------


@st.composite
def positions(draw):
    """A valid board: up to 15 checkers a side, never both sides on one point, bars.
    The mover's checkers come from a region chosen to reach bar / bear-off situations."""
    region = draw(st.sampled_from(["anywhere", "home", "home_plus", "bar", "low"]))
    if region == "anywhere":
        slot = st.integers(1, 25)
    elif region == "home":
        slot = st.integers(1, 6)
    elif region == "home_plus":
        slot = st.one_of(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(7, 25))
    elif region == "bar":
        slot = st.one_of(st.just(25), st.integers(1, 24))
    else:
        slot = st.integers(1, 12)
    mover = draw(st.lists(slot, max_size=15))
    opp_slot = draw(st.sampled_from([st.integers(0, 24), st.integers(17, 24), st.integers(0, 8)]))
    opp = draw(st.lists(opp_slot, max_size=15))
    return build(mover, opp)


dice_st = st.one_of(st.tuples(st.integers(1, 6), st.integers(1, 6)), st.integers(1, 6).map(lambda d: (d, d)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), dice=dice_st)
def test_hypothesis_fast_matches_reference(board, dice):
    validate_board(board)
    compare_batch(board[None, :], np.array([dice], dtype=np.int8))


# ----------------------------------------------------------------------------------------
# golden tests from docs/rules.md (expected sets worked out by hand)
# ----------------------------------------------------------------------------------------


def golden(pid: str, board: np.ndarray, dice, expected: list[np.ndarray], used: int | None = None):
    """The ID encodes the hand-built board; fast and reference both give exactly
    ``expected``."""
    assert np.array_equal(board_from_position_id(pid), board), (pid, position_id(board))
    exp = as_set(np.stack(expected).astype(np.int8))
    assert len(exp) == len(expected), "duplicate in the hand-written expected list"
    res = generate(board[None, :], np.array([dice], dtype=np.int8))
    got = as_set(res.group(0))
    assert got == exp, f"fast: extra={ids(got - exp)} missing={ids(exp - got)}"
    ref_used, ref = reference_terminals(board.tolist(), dice)
    assert ref == exp, f"reference: extra={ids(ref - exp)} missing={ids(exp - ref)}"
    if used is not None:
        assert int(res.dice_used[0]) == used and ref_used == used


OFF_OPP = {20: 2, 22: 3}  # opponent checkers out of the way of a mover playing in 1..8


def test_golden_one_checker_both_dice_via_open_intermediate():
    """docs/rules.md "A turn": with 5-3 from the 13-point and the 8-point blocked, 13/10/5 is
    legal (the checker stops on the open 10) and 13/8/5 is not."""
    opp = {8: 2, 20: 3}
    golden("cAAYAAAEAAAAAA", mk({13: 1}, opp), (5, 3), [mk({5: 1}, opp)], used=2)


def test_golden_sum_is_never_a_single_jump():
    """docs/rules.md "A turn": "The sum is never a single jump": with both the 10 and the 8
    blocked the 13-point checker cannot reach the 5; 20/15/12 = 20/17/12 is the only play."""
    opp = {10: 2, 8: 2, 22: 3}
    golden("HABmAAAQEAAAAA", mk({13: 1, 20: 1}, opp), (5, 3), [mk({13: 1, 12: 1}, opp)], used=2)


def test_golden_both_dice_must_be_used():
    """docs/rules.md "Maximum-dice rule": 6-5, the 7 blocked: the 6 cannot be played first, but
    13/8/2 uses both dice, so it is the only play (13/8 alone is not legal)."""
    opp = {7: 2, 20: 3}
    golden("cAAwAAAEAAAAAA", mk({13: 1}, opp), (6, 5), [mk({2: 1}, opp)], used=2)


def test_golden_higher_die_rule():
    """docs/rules.md "Maximum-dice rule": only one die of 6-5 can be used (the 2 is blocked, so
    13/7/2 and 13/8/2 fail) and either could be used alone: the higher one, 13/7."""
    opp = {2: 2, 20: 3}
    golden("cAAABgAEAAAAAA", mk({13: 1}, opp), (6, 5), [mk({7: 1}, opp)], used=1)


def test_golden_only_one_die_playable_at_all():
    """docs/rules.md "Maximum-dice rule": "if only one of them can be used at all, that one":
    6-5 with the 7 and the 2 blocked: the 6 cannot be played, so 13/8 (the lower die)."""
    opp = {7: 2, 2: 2, 20: 3}
    golden("cAAwGAAQAAAAAA", mk({13: 1}, opp), (6, 5), [mk({8: 1}, opp)], used=1)


def test_golden_bar_enter_with_the_die_that_enters_then_play_the_other():
    """docs/rules.md "The bar": one checker on the bar, 5-2, the 2 entry point (23) blocked, the 5
    entry point (20) open: enter with the 5, then play the 2 (20/18 or 6/4).  Leaving the
    checker on the bar (6/4 alone) is illegal."""
    opp = {23: 2, 12: 3}
    board = mk({6: 1}, opp, bar=1)
    golden("BsABAAgAgAAAAA", board, (5, 2), [mk({18: 1, 6: 1}, opp), mk({20: 1, 4: 1}, opp)], used=2)


def test_golden_two_on_bar_one_entry():
    """docs/rules.md "The bar": two on the bar, 4-3, the 3 entry (22) blocked, the 4 entry (21) a
    blot: bar/21* is the whole play; the 3 may not be played on the board while a checker
    is still on the bar."""
    board = mk({6: 2}, {22: 2, 21: 1, 10: 3}, bar=2)
    after = mk({6: 2, 21: 1}, {22: 2, 10: 3}, bar=1, opp_bar=1)
    golden("LAAOADAAAAYAAA", board, (4, 3), [after], used=1)


def test_golden_two_on_bar_double_enters_both_then_plays_on():
    """docs/rules.md "The bar": two on the bar, 4-4: both enter on 21; "once the bar is empty any
    remaining die must be played": 21/17 is blocked, so 6/2(2)."""
    opp = {17: 2, 10: 3}
    golden("gAEHABgAAAMAAA", mk({6: 2}, opp, bar=2), (4, 4), [mk({21: 2, 2: 2}, opp)], used=4)


CLOSED = {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}


@pytest.mark.parametrize("dice", ROLLS)
def test_golden_dance_is_a_pass(dice):
    """docs/rules.md "The bar" + "Pass only when no die can be played": a checker on the bar
    against a closed board: no roll enters, the whole turn is lost (board unchanged)."""
    board = mk({6: 3}, CLOSED, bar=1)
    golden("27YBAAAcAAABAA", board, dice, [board], used=0)


def test_golden_dance_on_one_open_point():
    """docs/rules.md "The bar": only the 19 (a 6) open: 5-5 cannot enter -> pass; 6-5 enters with
    the 6 and then must play the 5 (19/14 or 6/1)."""
    opp = {20: 2, 21: 2, 22: 2, 23: 2, 24: 2}
    board = mk({6: 3}, opp, bar=1)
    golden("2zYAAAAHAEAAAA", board, (5, 5), [board], used=0)
    golden("2zYAAAAHAEAAAA", board, (6, 5), [mk({14: 1, 6: 3}, opp), mk({19: 1, 6: 2, 1: 1}, opp)], used=2)


def test_golden_six_bears_off_from_highest_point():
    """docs/rules.md "Bearing off": checkers on the 5 and 3: a 6 bears off from the 5, not from
    the 3.  6-1: 6/off 3/2 (= 3/2 6/off) -> {2}; 5/4 then 4/off -> {3}.  Never {5} or {4}."""
    golden("nAEAAAkAAAAAAA", mk({5: 1, 3: 1}, OFF_OPP), (6, 1), [mk({2: 1}, OFF_OPP), mk({3: 1}, OFF_OPP)], used=2)


def test_golden_four_cannot_bear_off_three_while_five_occupied():
    """docs/rules.md "Bearing off": checkers on the 5 and 3, 4-1: the 4 cannot bear off the 3 while
    the 5 is occupied; it is played 5/1.  Plays: 5/1 3/2 -> {2,1}; 5/1 1/off = 5/4 4/off ->
    {3}.  3/off (giving {5} then {4}) is illegal."""
    board = mk({5: 1, 3: 1}, OFF_OPP)
    golden("nAEAAAkAAAAAAA", board, (4, 1), [mk({2: 1, 1: 1}, OFF_OPP), mk({3: 1}, OFF_OPP)], used=2)


def test_golden_four_cannot_bear_off_three_and_five_one_blocked():
    """docs/rules.md "Bearing off": same 5 & 3 but the 1-point blocked: a 4 has no legal move at
    all (5/1 blocked, 3/off forbidden): 4-4 is a pass; 4-1 must be 5/4 4/off -> {3}."""
    opp = {1: 2, 20: 3}
    board = mk({5: 1, 3: 1}, opp)
    golden("cAAADAkAAAAAAA", board, (4, 4), [board], used=0)
    golden("cAAADAkAAAAAAA", board, (4, 1), [mk({3: 1}, opp)], used=2)


def test_golden_bear_off_rechecked_after_each_die():
    """docs/rules.md "Bearing off": "re-checked after every single die": 8 and 2, 6-2: 8/2 brings
    the last checker home, then the 2 bears off (2/off); or 8/6 then 6/off.  Both -> {2}."""
    golden("nAEAgEAAAAAAAA", mk({8: 1, 2: 1}, OFF_OPP), (6, 2), [mk({2: 1}, OFF_OPP)], used=2)


def test_golden_bear_off_recheck_richer():
    """docs/rules.md "Bearing off", re-check after each die: 7, 4, 1 with 3-1.
    7/4 then 1/off -> {4,4}; 7/4 4/3 = 7/6/3 = 4/3 7/4 -> {4,3,1}; 4/1 7/6 = 7/6 4/1 ->
    {6,1,1}.  1/off before 7 comes home is illegal; with 6 occupied the 3 cannot bear off
    the 1."""
    golden(
        "nAEAQEQAAAAAAA",
        mk({7: 1, 4: 1, 1: 1}, OFF_OPP),
        (3, 1),
        [mk({4: 2}, OFF_OPP), mk({4: 1, 3: 1, 1: 1}, OFF_OPP), mk({6: 1, 1: 2}, OFF_OPP)],
        used=2,
    )


def test_golden_hit_checker_must_come_home_before_bearing_off():
    """docs/rules.md "Bearing off": "A checker hit during bear-off must re-enter and come home
    before bearing off resumes": on the bar with two on the 1, 6-1: bar/19/18 = bar/24/18;
    1/off is not allowed with a checker outside the home board."""
    opp = {20: 2, 10: 3}
    golden("MAAHwAAAAAEAAA", mk({1: 2}, opp, bar=1), (6, 1), [mk({18: 1, 1: 2}, opp)], used=2)


def test_golden_mover_hits_during_bear_off():
    """docs/rules.md "A turn" (a blot is hit) during bear-off ("Bearing off"): 6 and 5 home, an
    opposing blot on the 3, 3-2.  Plays (hand-enumerated):
    6/3* 5/3 -> {3,3}*; 6/3*/1 -> {5,1}*; 5/2 6/4 -> {4,2}; 5/2/off -> {6};
    6/4/1 -> {5,1}; 5/3*/off -> {6}*  (* = blot on the bar)."""
    opp = {3: 1, 20: 2, 22: 2}
    rest = {20: 2, 22: 2}
    expected = [
        mk({3: 2}, rest, opp_bar=1),
        mk({5: 1, 1: 1}, rest, opp_bar=1),
        mk({4: 1, 2: 1}, opp),
        mk({6: 1}, opp),
        mk({5: 1, 1: 1}, opp),
        mk({6: 1}, rest, opp_bar=1),
    ]
    golden("zAAAAhQAAAAAAA", mk({6: 1, 5: 1}, opp), (3, 2), expected, used=2)


def test_golden_bear_off_not_compulsory():
    """docs/rules.md "Bearing off is never compulsory when another legal move with that die
    exists": 4 and 2, 2-1: 4/2/1 (no bear-off) -> {2,1} is legal, as is 2/off 4/3 -> {3}."""
    golden("nAEAgAQAAAAAAA", mk({4: 1, 2: 1}, OFF_OPP), (2, 1), [mk({2: 1, 1: 1}, OFF_OPP), mk({3: 1}, OFF_OPP)], used=2)


def test_golden_start_6_6():
    """docs/rules.md "Start" + "A turn" (doubles = four moves): from the start, each 6 can be
    24/18, 13/7 or 8/2; 18/12 (opponent's 5 checkers), 7/1 (2 checkers) and bearing off are
    impossible, so a play is a split (a, b, c) of the four 6s with a <= 2, b <= 5, c <= 3:
    11 plays."""
    splits = [(0, 4, 0), (0, 3, 1), (0, 2, 2), (0, 1, 3), (1, 3, 0), (1, 2, 1), (1, 1, 2), (1, 0, 3),
              (2, 2, 0), (2, 1, 1), (2, 0, 2)]  # fmt: skip
    opp = {1: 2, 12: 5, 17: 3, 19: 5}
    expected = [
        mk({24: 2 - a, 18: a, 13: 5 - b, 7: b, 8: 3 - c, 2: c, 6: 5}, opp) for a, b, c in splits
    ]
    expected = [validate_board(e) for e in expected]
    # mk drops zero counts naturally (a point with 0 stays 0)
    assert np.array_equal(mk({24: 2, 13: 5, 8: 3, 6: 5}, opp), START_BOARD)
    golden(START_POSITION_ID, START_BOARD.astype(np.int8), (6, 6), expected, used=4)


def test_start_2_1_has_15_plays():
    """docs/rules.md "Start"; `bgrl moves 4HPwATDgc/ABMA 21` lists 15 plays."""
    board = board_from_position_id("4HPwATDgc/ABMA")
    assert np.array_equal(board, START_BOARD)
    res = generate(board[None, :], np.array([[2, 1]], dtype=np.int8))
    assert res.counts[0] == 15
    assert res.dice_used[0] == 2
    assert len(reference_terminals(board.tolist(), (2, 1))[1]) == 15
    res12 = generate(board[None, :], np.array([[1, 2]], dtype=np.int8))
    assert np.array_equal(res12.boards, res.boards)


def test_pass_keeps_board_and_flip_round_trip():
    """A pass returns the board itself (docs/rules.md: pass only when no die can be played)."""
    board = mk({6: 3}, CLOSED, bar=2)
    res = generate(np.stack([board, flip(flip(board))]), np.array([[6, 6], [3, 1]], dtype=np.int8))
    assert (res.dice_used == 0).all()
    assert np.array_equal(res.boards, np.stack([board, board]))
