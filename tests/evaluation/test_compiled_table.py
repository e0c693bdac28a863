"""The compiled forward pass (bgrl.evaluation.table_nb) and the one-position fast paths of
``bgrl.hint``, ``HintRanker.rank`` and ``Agent.choose_play`` against the numpy paths.

Tolerance: probabilities within ``table_nb.TOLERANCE`` (2e-6, float32 rounding: the features'
and the output layer's sums run in another order than numpy's BLAS, and the sigmoid's exp is
Cephes' expf, not numpy's); finished games and exact values bit for bit. Rankings: the same
order, except between plays whose equities lie within 4 x the tolerance of each other (a tie
to float32 rounding), which may swap.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from positions import random_game_positions, synthetic_positions  # noqa: E402

table_nb = pytest.importorskip("bgrl.evaluation.table_nb")
if not table_nb.AVAILABLE:  # pragma: no cover
    pytest.skip("numba is not available", allow_module_level=True)

import bgrl  # noqa: E402
from bgrl.agents.hints import HintRanker  # noqa: E402
from bgrl.agents.levels import LEVELS, load_level  # noqa: E402
from bgrl.evaluation import compiled  # noqa: E402
from bgrl.evaluation.networks import open_network  # noqa: E402
from bgrl.evaluation.table import TableNetEvaluator  # noqa: E402
from bgrl.evaluation.probabilities import equity  # noqa: E402
from bgrl.rules.board import Position, position_id  # noqa: E402
from bgrl.rules.movegen import generate  # noqa: E402
from bgrl._resources import shipped_checkpoint  # noqa: E402

TOL = table_nb.TOLERANCE
EQ_TOL = 4 * TOL  # equity = a signed sum of the five probabilities


def _decisions(n: int, seed: int):
    rng = np.random.default_rng(seed)
    b, d = random_game_positions(rng, n // 2)
    sb, sd = synthetic_positions(rng, n - n // 2)
    return np.concatenate([b, sb]), np.concatenate([d, sd])


def _after_states(seed: int = 0) -> np.ndarray:
    """After-states of random and synthetic decisions (races, bear-offs, one checker a side,
    hits, closed boards among them) and two finished games."""
    b, d = _decisions(600, seed)
    aft = generate(b, d).boards
    won = np.zeros((2, 26), dtype=np.int8)
    won[0, 5] = -3  # the side that played has borne off its last checker: a single game...
    won[1, 20] = -15  # ... and a backgammon
    one = np.zeros((2, 26), dtype=np.int8)
    one[0, 3], one[0, 20] = 1, -1  # one checker a side (exact, contact)
    one[1, 2], one[1, 22] = 1, -1
    return np.concatenate([aft, won, one])


NETWORKS = ["default", "td198g", "distilled2"]  # td198r, td198g (80 / more hidden units)


@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_forward_pass_within_float32_rounding(name, backend):
    ev = open_network(shipped_checkpoint(name), backend=backend, cache=False).evaluator
    ev.compiled = True
    a = _after_states()
    for lo in range(0, a.shape[0], 64):  # the torch evaluator's compiled batches are <= 64 positions
        part = np.concatenate([a[lo:lo + 60], a[-4:]])
        got = ev(part)
        with compiled.disabled():
            want = ev(part)
        assert got.dtype == np.float64 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
        assert np.array_equal(got[-4:], want[-4:])  # finished games and exact values: the same bits
        assert (got >= 0).all() and (got[:, 1] <= got[:, 0]).all() and (got[:, 3] <= 1 - got[:, 0] + 1e-12).all()


def test_both_evaluators_use_the_kernel_at_any_size_on_the_cpu():
    torch_ev = open_network(shipped_checkpoint("default"), backend="torch").evaluator
    np_ev = open_network(shipped_checkpoint("default"), backend="numpy").evaluator
    assert torch_ev.small_batch == 64 and torch_ev.compiled_max() > 1 << 40
    assert np_ev.compiled_max() > 1 << 40
    trainer_ev = TableNetEvaluator(torch_ev.net, "td198r", small_batch=0)  # the trainers' evaluator: the kernel too
    assert trainer_ev.compiled_max() > 1 << 40
    a = _after_states()[:300]
    ev = open_network(shipped_checkpoint("default"), backend="numpy", cache=False).evaluator
    ev.compiled = True
    got = ev(a)
    with compiled.disabled():
        np.testing.assert_allclose(got, ev(a), rtol=0, atol=TOL)


def _same_ranking(eq_a: np.ndarray, eq_b: np.ndarray) -> None:
    """Orders by equity agree, except that plays within EQ_TOL of each other may swap."""
    oa, ob = np.argsort(-eq_a, kind="stable"), np.argsort(-eq_b, kind="stable")
    for i, j in zip(oa, ob):
        if i != j:
            assert abs(eq_a[i] - eq_a[j]) <= EQ_TOL, (eq_a[i], eq_a[j])


def test_rankings_agree():
    ev = load_level("expert").evaluator
    b, d = _decisions(300, 5)
    for i in range(len(b)):
        aft = generate(b[i:i + 1], d[i:i + 1]).boards
        got = equity(ev(aft))
        with compiled.disabled():
            want = equity(ev(aft))
        assert np.abs(got - want).max() <= EQ_TOL
        _same_ranking(got, want)


def _old_hint(pos, dice, level, ply, top):
    """bgrl.hint before the one-position fast path: the level opened at each call, every play
    named (legal_plays), the batch ranker (rank_many)."""
    from bgrl.agents.levels import LevelAgent

    lv = LEVELS[level]
    agent = LevelAgent(lv, open_network(shipped_checkpoint(lv.network)).evaluator)
    rows = HintRanker.from_agent(agent, ply).rank_many([(pos, dice)])[0]
    return rows[:top] if top else rows


def _rows_agree(new, old):
    assert len(new) == len(old)
    for r, o in zip(new, old):
        assert abs(r.equity - o.equity) <= EQ_TOL and r.ply == o.ply
        assert np.allclose(r.probabilities.to_array(), o.probabilities.to_array(), rtol=0, atol=TOL)
    by_play = {o.play: o for o in old}
    for r in new:  # the same plays, named the same; a row's place may differ only in a float32 tie
        o = by_play.get(r.play)
        if o is None:
            assert any(abs(r.equity - x.equity) <= EQ_TOL for x in old), r.play
            continue
        assert o.play.moves == r.play.moves and o.play.after_state.tobytes() == r.play.after_state.tobytes()
        assert abs(o.rank - r.rank) <= sum(abs(x.equity - r.equity) <= EQ_TOL for x in old)


@pytest.mark.parametrize("ply, n", [(0, 120), (1, 8)])
def test_hint_fast_path_equals_the_old_path(ply, n):
    b, d = _decisions(n, 11)
    for i in range(n):
        pos, dice = Position(b[i]), (int(d[i, 0]), int(d[i, 1]))
        if pos.off[0] == 15 or pos.off[1] == 15:
            continue
        new = bgrl.hint(pos, dice, level="expert", ply=ply, top=10)
        with compiled.disabled():
            old = _old_hint(pos, dice, "expert", ply, 10)
            exact_old = _old_hint(pos, dice, "expert", ply, None)
            exact_new = HintRanker.from_agent(load_level("expert"), ply).rank(pos, dice)
        assert exact_new == exact_old, (position_id(b[i]), dice)  # both numpy: the very same rows
        _rows_agree(new, old)


def test_choose_play_fast_path_equals_the_old_path():
    agent = bgrl.load_agent("expert")
    b, d = _decisions(200, 13)
    for i in range(len(b)):
        pos, dice = Position(b[i]), (int(d[i, 0]), int(d[i, 1]))
        if pos.off[0] == 15 or pos.off[1] == 15:
            continue
        got = agent.choose_play(pos, dice)
        with compiled.disabled():
            plays = bgrl.legal_plays(pos, dice)
            same_numpy = agent.choose_play(pos, dice)
            if plays:
                aft = generate(pos.board[None], np.array([dice], dtype=np.int8))
                k = int(agent.select(aft, None)[0])
                old = next(p for p in plays if p.after_state.tobytes() == aft.boards[k].tobytes())
            else:
                old = None
        assert same_numpy == old
        if old is None:
            assert got is None
        elif got != old:  # only a float32 tie may choose the other play
            e = equity(agent.evaluator(np.stack([got.after_state, old.after_state])))
            assert abs(e[0] - e[1]) <= EQ_TOL


def test_random_agent_chooses_as_before():
    agent = bgrl.load_agent("random")
    b, d = _decisions(100, 17)
    for i in range(len(b)):
        pos, dice = Position(b[i]), (int(d[i, 0]), int(d[i, 1]))
        if pos.off[0] == 15 or pos.off[1] == 15:
            continue
        got = agent.choose_play(pos, dice, np.random.default_rng(i))
        plays = bgrl.legal_plays(pos, dice)
        aft = generate(pos.board[None], np.array([dice], dtype=np.int8))
        k = int(agent.select(aft, np.random.default_rng(i))[0]) if plays else None
        assert got == (next(p for p in plays if p.after_state.tobytes() == aft.boards[k].tobytes()) if plays else None)


def test_hint_top_builds_only_the_shown_rows_and_levels_open_once(monkeypatch):
    from bgrl.agents import levels
    from bgrl.rules import notation

    pos = Position.start()
    bgrl.hint(pos, (3, 1), level="expert", ply=0)
    opened = []
    monkeypatch.setattr("bgrl.evaluation.networks.open_network", lambda *a, **k: opened.append(a) or None)
    named = []
    real = notation.legal_plays_batch
    monkeypatch.setattr("bgrl.agents.base.legal_plays_batch", lambda after: named.append(after.boards.shape[0]) or real(after))
    rows = bgrl.hint(pos, (3, 1), level="expert", ply=0, top=3)
    assert len(rows) == 3 and [r.rank for r in rows] == [1, 2, 3] and named == [3] and not opened
    all_rows = bgrl.hint(pos, (3, 1), level="expert", ply=0)
    assert [r.play for r in all_rows[:3]] == [r.play for r in rows] and len(all_rows) == 16
    assert load_level("expert").evaluator is load_level("expert").evaluator
    assert ("expert", 0) in levels._RANKERS


# ------------------------------------------------- the table rows and the table build (issue 39)
# Bit for bit: the compiled rows kernel gives the numpy evaluator's integers, the compiled point
# rows the numpy table's float32 bits, so the torch path of large batches (training, rollouts)
# gives the same values with the kernels on or off.


def test_table_rows_equal_numpy():
    from bgrl.evaluation import table_np

    a = _after_states(4)
    for level in ("expert", "intermediate"):
        ev = load_level(level).evaluator
        with compiled.disabled():
            ref = ev._rows(a)
        compiled.ensure()
        rows, on_p, on_o, race, cand = table_nb.table_rows(a, ev._race)
        for x, y in zip(ref, (rows, on_p, on_o, race)):
            assert x.dtype == y.dtype and np.array_equal(x, y)
        # every position an exact source knows is a candidate
        from bgrl.evaluation.exact import exact_probs
        from bgrl.rules.board import flip

        known, _ = exact_probs(flip(a))
        over = on_p == 0
        assert not (known & ~over & ~cand).any()
        assert table_np._CANDIDATE_EXACT[0] is exact_probs


@pytest.mark.parametrize("encoder, inputs", [("td198", 198), ("td198r", 202), ("td198g", 220)])
@pytest.mark.parametrize("hidden", [1, 5, 80])
def test_table_build_bit_for_bit(encoder, inputs, hidden):
    from bgrl.evaluation.table_np import first_layer_tables

    rng = np.random.default_rng(hidden)
    w1 = (rng.standard_normal((hidden, inputs)) * rng.choice([1e-3, 1.0, 30.0])).astype(np.float32)
    b1 = rng.standard_normal(hidden).astype(np.float32)
    with compiled.disabled():
        ref = first_layer_tables(w1, b1, encoder)
    compiled.ensure()
    got = first_layer_tables(w1, b1, encoder)
    for x, y in zip(ref, got):
        assert (x is None) == (y is None)
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x.view(np.uint32), y.view(np.uint32))


def test_torch_path_same_values_with_kernels_on_and_off():
    """Where the kernels do not run, large batches take torch's path (the trainers' too, with
    small_batch=0); its values equal the compiled forward pass's to float32 rounding."""
    a = _after_states(5)
    for level in ("world-class", "expert", "intermediate"):  # 640, 320 and 80 units
        ev = load_level(level).evaluator
        trainer_ev = TableNetEvaluator(ev.net, ev.encoder, small_batch=0)
        with compiled.disabled():
            ref = trainer_ev(a)  # torch's path
            assert np.array_equal(ev(a), ref)  # above small_batch: torch's path too
        compiled.ensure()
        got = ev(a)
        np.testing.assert_allclose(got, ref, rtol=0, atol=TOL)
        assert np.array_equal(trainer_ev(a), got)
        assert not np.array_equal(got, ref)  # the kernel really ran (float32 sums in another order)


def test_saturated_hidden_units_give_the_same_values_at_their_speed():
    """A unit whose input is below -64 (sigmoid under 1.6e-28; subnormal below about -87) is
    valued within float32 rounding of numpy's exact sigmoid (the kernel clamps there)."""
    ev = load_level("world-class").evaluator
    a = _after_states(5)[:200]
    pre = ev._np_table[ev._rows(a)[0]].sum(axis=1) + ev._np_bias + ev._features_of(a) @ ev._np_features
    assert (pre < -87).any()  # real positions do saturate units of this network below the subnormal edge
    compiled.ensure()
    got = ev(a)
    with compiled.disabled():
        np.testing.assert_allclose(got, ev(a), rtol=0, atol=TOL)


def test_bag_rows_leave_out_exact_zeros_only():
    ev = load_level("expert").evaluator
    tab = ev._np_table
    assert (tab[list(table_nb.ZERO_ROWS)] == 0).all()
    a = _after_states(6)
    compiled.ensure()
    rows = table_nb.table_rows(a, True)[0]
    flat, offsets = table_nb.bag_rows(rows, tab.shape[0])
    ends = np.append(offsets[1:], len(flat))
    zero = set(table_nb.ZERO_ROWS)
    for r in range(0, len(a), 97):
        assert flat[offsets[r]:ends[r]].tolist() == [t for t in rows[r].tolist() if t not in zero]
