"""Exact bear-off database (bgrl.evaluation.bearoff), one-checker solver (bgrl.evaluation.onechecker) and their
use by the evaluator (issue 8: exact bear-off database; failing inputs)."""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from bgrl.evaluation import bearoff

from bgrl.evaluation import onechecker
from bgrl.rules.board import Position, flip
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.probabilities import equity, flip_probs

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
W = {r: (1 if r[0] == r[1] else 2) / 36 for r in ROLLS}


# ------------------------------------------------------------------ independent oracle
# A one-sided bear-off solver written from the rules alone (no bgrl.rules.movegen): positions
# are tuples (n1..n6), a die moves a checker p -> p - d, bears it off exactly, or with a
# larger die from the highest occupied point.


def _die_moves(pos, d):
    out = set()
    hi = max((p for p in range(6) if pos[p]), default=-1) + 1  # highest occupied point, 1..6
    for p in range(1, 7):
        if not pos[p - 1]:
            continue
        if p - d >= 1:
            q = list(pos)
            q[p - 1] -= 1
            q[p - d - 1] += 1
            out.add(tuple(q))
        elif p - d == 0 or p == hi:
            q = list(pos)
            q[p - 1] -= 1
            out.add(tuple(q))
    return out


def _plays(pos, roll):
    d1, d2 = roll
    seqs = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    res = set()
    for seq in seqs:
        front = {pos}
        for d in seq:
            nxt = set()
            for s in front:
                nxt |= _die_moves(s, d) if sum(s) else {s}
            front = nxt
        res |= front
    return res


@lru_cache(maxsize=None)
def _oracle_mean(pos):
    """Minimal expected rolls to bear off everything (criterion of bgrl.evaluation.bearoff)."""
    if sum(pos) == 0:
        return 0.0
    return 1.0 + sum(W[r] * min(_oracle_mean(a) for a in _plays(pos, r)) for r in ROLLS)


def _small_positions(max_checkers):
    return [p for p in product(range(max_checkers + 1), repeat=6) if 0 < sum(p) <= max_checkers]


# ------------------------------------------------------------------ one-sided database


def test_positions_and_index_roundtrip():
    pos = bearoff.positions()
    assert pos.shape == (54264, 6) and pos.dtype == np.int8
    assert len({tuple(r) for r in pos.tolist()}) == 54264
    assert pos.sum(1).max() == 15 and pos.min() == 0
    assert np.array_equal(bearoff.position_index(pos), np.arange(54264))
    with pytest.raises(ValueError):
        bearoff.position_index(np.array([0, 0, 0, 0, 0, 16]))
    with pytest.raises(ValueError):
        bearoff.position_index(np.array([0, 0, -1, 0, 0, 1]))


def test_enumeration_is_sorted_complete_and_cheap():
    """The position list is every composition of <= 15 checkers on 6 points, in key order
    (point 6 most significant), built without the 16**6 grid (that cost ~3 s at import)."""
    import tracemalloc

    def compositions(points: int, left: int):
        if points == 0:
            yield ()
            return
        for v in range(left + 1):
            for rest in compositions(points - 1, left - v):
                yield (v, *rest)

    expected = sorted(compositions(6, 15), key=lambda c: c[::-1])
    tracemalloc.start()
    try:
        got = bearoff._enumerate()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got.tolist() == [list(c) for c in expected]
    assert np.array_equal(got, bearoff.positions())
    assert peak < 32 * 2**20, f"enumeration peaked at {peak / 2**20:.0f} MiB"


def test_distributions_are_probabilities_with_known_values():
    db = bearoff.database()
    assert np.allclose(db.off.sum(1), 1.0, atol=1e-12) and np.allclose(db.first.sum(1), 1.0, atol=1e-12)
    assert db.off.min() >= 0 and db.first.min() >= 0
    one = bearoff.one_sided
    # one checker on the 6-point: off in one roll unless 1-1, 2-1, 3-1, 4-1, 3-2 (9/36)
    assert np.allclose(one(np.array([[0, 0, 0, 0, 0, 1]]))[0, :3], [0, 27 / 36, 9 / 36], atol=1e-7)
    assert np.allclose(one(np.array([[2, 0, 0, 0, 0, 0]]))[0, :2], [0, 1], atol=1e-7)
    # three checkers need two rolls unless a double (6/36 with 1-1 .. 6-6 all bearing off 4)
    assert np.allclose(one(np.array([[3, 0, 0, 0, 0, 0]]))[0, :3], [0, 6 / 36, 30 / 36], atol=1e-7)
    # first checker off: fewer than 15 checkers -> roll 0
    idx = bearoff.position_index(np.array([[0, 0, 0, 0, 0, 14], [0, 0, 0, 0, 0, 15]]))
    assert db.first[idx[0], 0] == 1.0 and db.first[idx[1], 0] == 0.0
    # 15 on the 6-point: a checker comes off in one roll only with exact landings, the
    # 6-point staying occupied: any 6 (11/36), 5-1, 4-2 (2/36 each), 3-3, 2-2 (1/36 each)
    assert db.first[idx[1], 1] == pytest.approx(17 / 36, abs=1e-7)


def test_mean_rolls_match_independent_oracle():
    """Expected rolls of every position with up to 4 checkers equal a solver written from
    the rules alone (minimal expected rolls is policy-independent, so ties do not matter)."""
    small = _small_positions(4)
    means = bearoff.database().mean_rolls()[bearoff.position_index(np.array(small))]
    oracle = np.array([_oracle_mean(p) for p in small])
    assert np.abs(means - oracle).max() < 1e-6


def test_db_is_minimal_expected_rolls_bellman():
    """On a sample of all sizes, every position's mean equals 1 + the roll-weighted
    minimum over the oracle's plays of the database's means (Bellman optimality)."""
    db_mean = bearoff.database().mean_rolls()
    rng = np.random.default_rng(0)
    pos = bearoff.positions()
    for i in rng.integers(1, len(pos), 150):
        p = tuple(int(x) for x in pos[i])
        rhs = 1.0 + sum(W[r] * min(db_mean[bearoff.position_index(np.array(a))] for a in _plays(p, r)) for r in ROLLS)
        assert db_mean[i] == pytest.approx(rhs, abs=1e-6), p


def test_shipped_file_is_package_data():
    p = bearoff.shipped_db_path()
    assert p.is_file() and p.name == "bearoff.npz"


def test_save_load_roundtrip_and_rejects_bad_files(tmp_path):
    db = bearoff.database()
    p = bearoff.save(db, tmp_path / "b.npz")
    back = bearoff.load(p)
    assert np.abs(back.off - db.off).max() < 1e-7 and np.abs(back.first - db.first).max() < 1e-7
    assert np.abs(back.two_sided - db.two_sided).max() < 1e-7
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="bear-off"):
        bearoff.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not a bgrl bear-off database"):
        bearoff.load(tmp_path / "other.npz")


@pytest.mark.slow
def test_rebuild_equals_shipped_file():
    built = bearoff.build()
    shipped = bearoff.database()
    assert np.abs(built.off - shipped.off).max() < 1e-7
    assert np.abs(built.first - shipped.first).max() < 1e-7
    assert np.abs(built.two_sided - shipped.two_sided).max() < 1e-7


@pytest.mark.slow
def test_missing_file_is_built_in_memory_with_a_warning(monkeypatch, tmp_path):
    monkeypatch.setattr(bearoff, "shipped_db_path", lambda: tmp_path / "missing.npz")
    monkeypatch.setattr(bearoff, "_DB", None)
    with pytest.warns(UserWarning, match="not found; building it in memory"):
        db = bearoff.database()
    shipped = bearoff.load(_shipped())
    assert np.abs(db.off - shipped.off).max() < 1e-7 and np.abs(db.two_sided - shipped.two_sided).max() < 1e-7


def _shipped():
    from bgrl._resources import shipped_path

    return shipped_path(bearoff.DB_FILENAME, package="bgrl.data")


# ------------------------------------------------------------------ two-sided probabilities


def _two_sided(mover, opp):
    b = np.zeros(26, dtype=np.int8)
    b[1:7] = mover
    b[24:18:-1] = -np.asarray(opp)
    return b


@lru_cache(maxsize=None)
def _oracle_two_sided_win(a, b):
    """True optimal P(win) of the side on roll (a) against b: each side maximises its own
    winning chance knowing the other's position (two-sided; no gammons asked)."""
    if sum(a) == 0:
        return 1.0
    total = 0.0
    for r in ROLLS:
        best = 0.0
        for x in _plays(a, r):
            best = max(best, 1.0 if sum(x) == 0 else 1.0 - _oracle_two_sided_win(b, x))
        total += W[r] * best
    return total


def test_exact_win_against_two_sided_optimum_small():
    """With up to 3 checkers a side exact_probs equals optimal two-sided play computed by
    an independent solver; the one-sided formula (min expected rolls) is within 0.02 of it
    and equal with one checker a side (no choice at all)."""
    small = _small_positions(3)
    rng = np.random.default_rng(1)
    singles = [p for p in small if sum(p) == 1]
    pairs = [(small[i], small[j]) for i, j in rng.integers(0, len(small), (200, 2))] + list(product(singles, singles))
    boards = np.stack([_two_sided(a, b) for a, b in pairs])
    known, p = bearoff.exact_probs(boards)
    k1, p1 = bearoff.one_sided_probs(boards)
    assert known.all() and k1.all()
    oracle = np.array([_oracle_two_sided_win(a, b) for a, b in pairs])
    assert np.abs(p[:, 0] - oracle).max() < 1e-6
    diff = np.abs(p1[:, 0] - oracle)
    assert diff.max() < 2e-2 and diff.max() > 1e-4  # the one-sided formula is not exact here
    single = np.array([sum(a) == 1 and sum(b) == 1 for a, b in pairs])
    assert diff[single].max() < 1e-6


def test_two_sided_table_bellman_with_independent_moves():
    """V(a, b) = sum_r w_r max_{a'} (1 if a' empty else 1 - V(b, a')) on a sample of the
    924 x 924 table, plays from the oracle's own move rules."""
    db = bearoff.database()
    small = bearoff.two_sided_positions()
    pos = bearoff.positions()
    where = {tuple(int(x) for x in pos[i]): k for k, i in enumerate(small)}
    rng = np.random.default_rng(6)
    for ka, kb in rng.integers(1, len(small), (120, 2)):
        a, b = (tuple(int(x) for x in pos[small[k]]) for k in (ka, kb))
        rhs = sum(W[r] * max(1.0 if sum(x) == 0 else 1.0 - db.two_sided[kb, where[x]] for x in _plays(a, r)) for r in ROLLS)
        assert db.two_sided[ka, kb] == pytest.approx(rhs, abs=1e-6), (a, b)


def test_exact_probs_known_mask_and_gammons():
    rng = np.random.default_rng(2)
    pos = bearoff.positions()
    ia, ib = rng.integers(1, len(pos), 400), rng.integers(1, len(pos), 400)
    boards = np.stack([_two_sided(pos[i], pos[j]) for i, j in zip(ia, ib)])
    known, p = bearoff.exact_probs(boards)
    assert known.all() and p.dtype == np.float64 and p.shape == (400, 5)
    assert (p[:, 0] >= p[:, 1]).all() and (p[:, 2] == 0).all() and (p[:, 4] == 0).all()
    assert ((p[:, 3] <= 1 - p[:, 0] + 1e-12)).all()
    # gammons only against a side with all 15 checkers
    assert (p[pos[ib].sum(1) < 15, 1] == 0).all() and (p[pos[ia].sum(1) < 15, 3] == 0).all()
    # not known: contact, a checker outside, a checker on the bar
    start = Position.start().board
    bar = _two_sided([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    bar[25] = 1
    out = _two_sided([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    out[7] = 1
    k2, p2 = bearoff.exact_probs(np.stack([start, bar, out]))
    assert not k2.any() and np.isnan(p2).all()
    with pytest.raises(ValueError, match="shape"):
        bearoff.exact_probs(np.zeros((3, 25), dtype=np.int8))


def test_exact_gammon_values():
    # 15 checkers on the 1-point against one checker on the 1-point, side with one on roll:
    # it always wins, and the other has borne off none -> a gammon every time.
    k, p = bearoff.exact_probs(np.stack([_two_sided([1, 0, 0, 0, 0, 0], [15, 0, 0, 0, 0, 0])]))
    assert p[0, 0] == pytest.approx(1.0) and p[0, 1] == pytest.approx(1.0)
    # the side with 15 on its 1-point on roll bears off 2 (or 4) at once: never a gammon loss
    k, p = bearoff.exact_probs(np.stack([_two_sided([15, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])]))
    assert p[0, 0] == pytest.approx(0.0) and p[0, 3] == pytest.approx(0.0)
    # 15 on the 6-point against one checker on the 6-point, the single checker on roll:
    # it wins at once with 27/36; else the other side, needing a first checker off, has one roll
    k, p = bearoff.exact_probs(np.stack([_two_sided([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 15])]))
    first = bearoff.database().first[bearoff.position_index(np.array([0, 0, 0, 0, 0, 15]))]
    assert p[0, 0] == pytest.approx(1.0, abs=1e-7)
    assert p[0, 1] == pytest.approx(27 / 36 + 9 / 36 * (1 - first[1]), abs=1e-7)


def test_exact_gammon_values_by_hand():
    """Two gammon lines derived by hand (where gnubg-nn 0-ply gives 1/36 and 0)."""
    db = bearoff.database()
    # A: one on the 1-point, two on the 6-point, on roll; B: 15 on its 3-point. B takes a
    # first checker off with every roll but 2-2 (3/1 four times), again and again, so
    # P(B's first off needs >= n rolls) = (1/36)^(n-1) and P(A wins a gammon) is
    # sum_n P_A(n) (1/36)^(n-1).
    pa = db.off[bearoff.position_index(np.array([1, 0, 0, 0, 0, 2]))]
    want = sum(pa[n] * (1 / 36) ** (n - 1) for n in range(1, len(pa)))
    _, p = bearoff.exact_probs(np.stack([_two_sided([1, 0, 0, 0, 0, 2], [0, 0, 15, 0, 0, 0])]))
    assert want > 1 / 36 + 0.013 and p[0, 1] == pytest.approx(want, abs=1e-7)
    # A: 8 on the 1-point, 7 on the 3-point, on roll; B: one on its 4-point, two on its
    # 5-point. A fails to take a checker off only with 2-2 (and then never again fails);
    # B finishes in one roll with 5-5 or 6-6: P(A loses a gammon) = (1/36) (2/36).
    _, p = bearoff.exact_probs(np.stack([_two_sided([8, 0, 7, 0, 0, 0], [0, 0, 0, 1, 2, 0])]))
    assert p[0, 3] == pytest.approx(2 / 36**2, abs=1e-7)


# ------------------------------------------------------------------ against gnubg-nn


def test_one_sided_agrees_with_gnubg():
    """gnubg-nn's one-sided database (16-bit) on a sample: per-roll probabilities agree to
    3e-3 and expected rolls to 3e-4 everywhere (16-bit rounding), to 1e-4 per roll on >= 99%
    of positions (over all 54,263: worst 0.00278 per roll, 2.0e-4 rolls in the mean).
    (The larger gaps are near-ties between plays, e.g. (1,1,4,0,2,0) vs (2,0,3,1,2,0),
    4.45367 vs 4.45371 rolls, which gnubg's rounded table orders the other way.)"""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(3)
    pos = bearoff.positions()
    db = bearoff.database()
    means = db.mean_rolls()
    worst, close = 0.0, 0
    idx = rng.choice(np.arange(1, len(pos)), 3000, replace=False)
    for i in idx:
        g = np.array(gnubg_nn.bearoff_probabilities(tuple(int(x) for x in pos[i])))  # g[k] = P(k + 1 rolls)
        ours = db.off[i, 1:]
        n = max(len(g), len(ours))
        d = np.abs(np.pad(ours, (0, n - len(ours))) - np.pad(g, (0, n - len(g)))).max()
        worst = max(worst, d)
        close += d < 1e-4
        assert (np.arange(1, len(g) + 1) * g).sum() / g.sum() == pytest.approx(means[i], abs=3e-4)
    assert worst < 3e-3 and close >= 0.99 * len(idx)


def test_two_sided_agrees_with_gnubg():
    """gnubg-nn 0-ply probabilities of bear-offs on a sample, gammons included.

    Where a side has more than 6 checkers gnubg also combines its one-sided distributions:
    within 1e-3 (measured 3e-4). With at most 6 checkers a side gnubg reads its two-sided
    database (play that maximises the chance to win knowing both positions), and our
    two-sided table of the same range agrees within 1e-4 (gnubg's is 16-bit; measured 4.9e-5).
    gnubg-nn's gammon chances miss rare lines (test_exact_gammon_values_by_hand shows two
    where it gives 1/36 and 0 against 0.0419 and 0.00154 derived by hand), so gammons
    agree within 1e-3 on 98% of the sample."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from bgrl.gnubg.adapter import to_gnubg

    rng = np.random.default_rng(4)
    pos = bearoff.positions()
    full = np.flatnonzero(pos.sum(1) == 15)
    small = np.flatnonzero(pos.sum(1) <= 6)
    n = 600
    ia, ib = rng.integers(1, len(pos), n), rng.integers(1, len(pos), n)
    deep = np.flatnonzero((pos.sum(1) == 15) & (pos @ np.arange(1, 7) >= 75))
    tiny = np.flatnonzero((pos.sum(1) >= 1) & (pos.sum(1) <= 2))
    ia[:150], ib[:150] = rng.choice(deep, 150), rng.choice(tiny, 150)  # gammon losses
    ia[150:300], ib[150:300] = rng.choice(small, 150), rng.choice(full, 150)  # gammon wins
    ia[300:450], ib[300:450] = rng.choice(small, 150), rng.choice(small, 150)
    boards = np.stack([_two_sided(pos[i], pos[j]) for i, j in zip(ia, ib)])
    known, p = bearoff.exact_probs(boards)
    g = np.array([gnubg_nn.probabilities(to_gnubg(b), 0) for b in boards])
    assert known.all()
    two_sided = (pos[ia].sum(1) <= 6) & (pos[ib].sum(1) <= 6)
    assert two_sided.sum() >= 150
    assert np.abs(p - g)[~two_sided, 0].max() < 1e-3
    assert np.abs(p - g)[two_sided, 0].max() < 1e-4
    assert (np.abs(p - g)[:, 1:].max(1) < 1e-3).mean() >= 0.98
    assert (p[:, 1] > 0.01).sum() >= 20 and (p[:, 3] > 0.01).sum() >= 20  # gammons were exercised


# ------------------------------------------------------------------ one checker a side


def _single_race_rolls(pips, max_n=40):
    """P(n rolls) to bring one checker home and off from ``pips`` away (no blocking: each
    roll moves it by the dice total, doubles four times)."""
    dist = np.zeros((pips + 1, max_n))
    dist[0, 0] = 1.0
    for p in range(1, pips + 1):
        for (d1, d2), w in W.items():
            step = 4 * d1 if d1 == d2 else d1 + d2
            dist[p, 1:] += w * dist[max(p - step, 0), :-1]
    return dist


def test_one_checker_solver_converged_and_matches_race_oracle():
    t = onechecker.table()
    assert t.residual < 1e-13
    boards, m, o = onechecker.one_checker_boards()
    assert boards.shape == (601, 26)
    v = t.value[m, o]
    assert np.isfinite(v).all() and (v >= 0).all() and (v <= 1).all()
    # no contact (mover's checker below the opponent's): an independent race oracle
    race = (m < o) & (m < 25) & (o > 0)
    dist = _single_race_rolls(24)
    for mm, oo, vv in zip(m[race], o[race], v[race]):
        pa, pb = dist[mm], dist[25 - oo]
        ge_b = np.cumsum(pb[::-1])[::-1]
        assert vv == pytest.approx(float((pa * ge_b).sum()), abs=1e-9)
    # agrees with the bear-off database where both apply
    kb, pb_ = bearoff.exact_probs(boards)
    assert kb.sum() == 36 and np.abs(pb_[kb, 0] - v[kb]).max() < 1e-7


def test_one_checker_bellman_through_legal_plays():
    """V(s) = sum_r w_r max_play (1 or 1 - V(flip(after))) checked with bgrl.rules.notation's
    legal plays on contact positions (hits included)."""
    from bgrl.rules.notation import legal_plays

    t = onechecker.table()
    boards, m, o = onechecker.one_checker_boards()
    contact = np.flatnonzero((m > o) | (m == 25) | (o == 0))
    for i in contact[::7]:
        pos = Position(boards[i])
        rhs = 0.0
        for r in ROLLS:
            vals = []
            for play in legal_plays(pos, r):
                a = play.after_state
                if (a > 0).sum() == 0:
                    vals.append(1.0)
                else:
                    f = flip(a)
                    vals.append(1.0 - t.value[int(np.argmax(f > 0)), int(np.argmin(f))])
            rhs += W[r] * max(vals)
        assert t.value[m[i], o[i]] == pytest.approx(rhs, abs=1e-12)


def test_combined_exact_probs():
    boards, m, o = onechecker.one_checker_boards()
    known, p = exact_probs(np.concatenate([boards, Position.start().board[None]]))
    assert known[:-1].all() and not known[-1]
    assert np.allclose(p[:-1, 0], onechecker.table().value[m, o]) and (p[:-1, 1:] == 0).all()


# ------------------------------------------------------------------ the evaluator uses it


@pytest.fixture(scope="module")
def default_evaluator():
    from bgrl.agents.registry import load_ranker

    return load_ranker("default").evaluator


def _exact_equities(after_states):
    known, p = exact_probs(flip(after_states))
    from bgrl.rules.outcome import game_results

    res = game_results(after_states)
    eq = equity(flip_probs(p))
    eq[res > 0] = res[res > 0]
    return known | (res > 0), eq


@pytest.mark.parametrize(
    "pid,dice,best,eq_best",
    [
        ("qxUAAFgbAAAAAA", "65", "6/off 5/off", 0.358),
        ("pQsAALUWAAAAAA", "11", "3/2 2/1 1/off 1/off", None),
    ],
)
def test_failing_bearoff_hints(capsys, pid, dice, best, eq_best):
    """issue 8, failing inputs: `bgrl hint` ranks the exact best bear-off play first."""
    from bgrl import play_from_notation
    from bgrl.cli import main

    assert main(["hint", pid, dice, "--json"]) == 0
    plays = json.loads(capsys.readouterr().out)["plays"]
    want = play_from_notation(Position.from_id(pid), dice, best)
    assert plays[0]["position_id"] == want.position_id
    after = np.stack([Position.from_id(p["position_id"]).board for p in plays])  # opponent on roll
    known, p = exact_probs(after)
    assert known.all()
    assert np.allclose([-equity(x) for x in p], [pl["equity"] for pl in plays], atol=1e-5)
    if eq_best is not None:
        assert plays[0]["equity"] == pytest.approx(eq_best, abs=1e-3)
        assert plays[1]["play"] == "6/1 6/off" and plays[1]["equity"] == pytest.approx(0.197, abs=1e-3)


def test_random_home_board_decisions_lose_nothing(default_evaluator):
    """300 random decisions with both sides in their home boards: the evaluator's choice
    (0-ply, the shipped network plus the database) never loses equity against the exact
    values."""
    from bgrl.agents.base import group_argmax
    from bgrl.rules.movegen import generate

    rng = np.random.default_rng(5)
    pos = bearoff.positions()
    ia, ib = rng.integers(1, len(pos), 300), rng.integers(1, len(pos), 300)
    boards = np.stack([_two_sided(pos[i], pos[j]) for i, j in zip(ia, ib)])
    dice = rng.integers(1, 7, (300, 2)).astype(np.int8)
    aft = generate(boards, dice)
    choice = group_argmax(equity(default_evaluator(aft.boards)), aft.offsets)
    known, ex = _exact_equities(aft.boards)
    assert known.all()
    best = np.maximum.reduceat(ex, aft.offsets[:-1])
    assert np.abs(best - ex[choice]).max() < 1e-9
    assert (aft.counts > 1).sum() > 200  # real choices were made


def test_one_checker_choices_exact(default_evaluator):
    """Every one-checker position and roll: the evaluator's win probability after each
    play is the solver's, and its choice is the best play."""
    from bgrl.agents.base import group_argmax
    from bgrl.rules.movegen import generate

    boards, m, o = onechecker.one_checker_boards()
    rolls = np.array(ROLLS, dtype=np.int8)
    aft = generate(np.repeat(boards, 21, axis=0), np.tile(rolls, (len(boards), 1)))
    probs = default_evaluator(aft.boards)
    known, ex = _exact_equities(aft.boards)
    assert known.all()
    assert np.abs(equity(probs) - ex).max() < 1e-9
    choice = group_argmax(equity(probs), aft.offsets)
    assert np.abs(np.maximum.reduceat(ex, aft.offsets[:-1]) - ex[choice]).max() < 1e-12
