"""n-ply search (bgrl.agents.search): batched values equal slow loop references, filters, invariants."""

from __future__ import annotations

import numpy as np
import pytest

from bgrl.rules.board import Position, board_from_sides, flip
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.probabilities import equity, flip_probs
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_result
from bgrl.agents.search import (
    GNUBG_FILTERS,
    ROLL_WEIGHTS,
    ROLLS,
    MoveFilter,
    ReplyPruning,
    after_state_probs,
    best_replies,
    apply_filter,
    group_argmax,
    search_plays,
)
from positions import agent_game_positions


@pytest.fixture(scope="module")
def ev():
    from bgrl.evaluation.networks import load_network
    from bgrl._resources import shipped_checkpoint

    net, meta = load_network(shipped_checkpoint("default"))
    return NetEvaluator(net, meta["encoder"])


def pip_evaluator(after_states):
    """A cheap deterministic evaluator (numpy only): win chance from the pip difference."""
    b = np.asarray(after_states, dtype=np.int64)
    idx = np.arange(1, 25)
    mine = (np.maximum(b[:, 1:25], 0) * idx).sum(1) + 25 * b[:, 25]
    theirs = (np.maximum(-b[:, 1:25], 0) * (25 - idx)).sum(1) - 25 * b[:, 0]
    p = np.zeros((b.shape[0], 5))
    p[:, 0] = 1.0 / (1.0 + np.exp(-(theirs - mine) / 20.0))
    p[:, 1] = 0.2 * p[:, 0]
    p[:, 3] = 0.2 * (1 - p[:, 0])
    p[:, 2] = 0.01 * p[:, 0]
    p[:, 4] = 0.01 * (1 - p[:, 0])
    won = np.maximum(b, 0).sum(1) == 0
    p[won] = [1, 0, 0, 0, 0]
    return p


def exact(board):
    r = game_result(board)
    return np.array([r >= 1, r >= 2, r >= 3, 0, 0], dtype=float)


def ref_value(evaluator, a, ply, prune=None):
    """Straightforward loops: one after-state, one roll, one reply at a time. ``prune``: a
    (pruner, keep) pair: a roll's replies beyond ``keep`` are first cut to the pruner's best
    ``keep`` (ties to the earlier reply)."""
    if game_result(a):
        return exact(a)
    if ply == 0:
        return evaluator(a[None])[0]
    total = np.zeros(5)
    opp = flip(a)
    for d1 in range(1, 7):
        for d2 in range(1, 7):  # all 36 rolls, each 1/36
            replies = generate(opp[None], np.array([[d1, d2]], dtype=np.int8)).boards
            if prune is not None and len(replies) > prune[1]:
                cheap = [float(equity(prune[0](r[None])[0])) for r in replies]
                order = sorted(range(len(replies)), key=lambda i: (-cheap[i], i))[: prune[1]]
                replies = replies[sorted(order)]
            best, best_eq, best_p = None, -np.inf, None
            for r in replies:
                p = evaluator(r[None])[0]
                e = float(equity(p))
                if e > best_eq:
                    best, best_eq, best_p = r, e, p
            v = best_p if ply == 1 else ref_value(evaluator, best, ply - 1, prune)
            total += flip_probs(v) / 36.0
    return total


@pytest.fixture(scope="module")
def contact_after_states():
    from bgrl.agents.registry import load_agent

    boards, dice = agent_game_positions(load_agent("pubeval"), np.random.default_rng(5), 12, parallel=4)
    aft = generate(boards, dice)
    return aft.boards[np.random.default_rng(1).choice(aft.boards.shape[0], 6, replace=False)]


def test_rolls_and_weights():
    assert ROLLS.shape == (21, 2)
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)
    assert len({tuple(sorted(r)) for r in ROLLS.tolist()}) == 21
    assert ROLL_WEIGHTS[ROLLS[:, 0] == ROLLS[:, 1]] == pytest.approx(np.full(6, 1 / 36))


@pytest.mark.parametrize("which", ["net", "pips"])
def test_one_ply_equals_loop_reference(which, ev, contact_after_states):
    evaluator = ev if which == "net" else pip_evaluator
    got = after_state_probs(evaluator, contact_after_states, 1)
    for a, g in zip(contact_after_states, got):
        np.testing.assert_allclose(g, ref_value(evaluator, a, 1), atol=2e-6)


def test_two_ply_equals_loop_reference(contact_after_states):
    a = contact_after_states[:1]
    got = after_state_probs(pip_evaluator, a, 2)[0]
    np.testing.assert_allclose(got, ref_value(pip_evaluator, a[0], 2), atol=1e-9)


def test_pruned_search_equals_loop_reference(ev, contact_after_states):
    """Replies ranked by a cheap evaluator (the pip count), the best 3 valued by the network."""
    prune = ReplyPruning(pip_evaluator, 3)
    a = contact_after_states[:3]
    got = after_state_probs(ev, a, 1, prune)
    for x, g in zip(a, got):
        np.testing.assert_allclose(g, ref_value(ev, x, 1, (pip_evaluator, 3)), atol=2e-6)
    assert not np.allclose(got, after_state_probs(ev, a, 1), atol=1e-4)  # a pip count is a poor pruner: it shows


def test_pruned_two_ply_equals_loop_reference(contact_after_states):
    """At 2-ply every reply choice is pruned, the leaves' too (here the network is the pip
    evaluator and the pruner a reversed one, so that pruning changes the answer)."""
    def reversed_pips(b):
        return pip_evaluator(b)[:, ::-1].copy()

    a = contact_after_states[:1]
    got = after_state_probs(pip_evaluator, a, 2, ReplyPruning(reversed_pips, 2))[0]
    np.testing.assert_allclose(got, ref_value(pip_evaluator, a[0], 2, (reversed_pips, 2)), atol=1e-9)


def test_pruning_that_keeps_every_reply_changes_nothing(ev, contact_after_states):
    a = contact_after_states
    want = after_state_probs(pip_evaluator, a, 2)
    assert np.array_equal(after_state_probs(pip_evaluator, a, 2, ReplyPruning(ev, 10_000)), want)
    aft = generate(flip(a), np.tile(np.array([[6, 5]], dtype=np.int8), (a.shape[0], 1)))
    best, probs = best_replies(ev, aft.boards, aft.offsets, ReplyPruning(pip_evaluator, 10_000))
    best0, probs0 = best_replies(ev, aft.boards, aft.offsets)
    assert np.array_equal(best, best0) and np.array_equal(probs, probs0)


def test_pruned_choice_is_among_the_pruners_best(ev, contact_after_states):
    aft = generate(flip(contact_after_states), np.tile(np.array([[4, 2]], dtype=np.int8), (contact_after_states.shape[0], 1)))
    best, probs = best_replies(ev, aft.boards, aft.offsets, ReplyPruning(pip_evaluator, 2))
    cheap = equity(pip_evaluator(aft.boards))
    for g in range(aft.offsets.size - 1):
        lo, hi = aft.offsets[g], aft.offsets[g + 1]
        top = lo + np.argsort(-cheap[lo:hi], kind="stable")[:2]
        assert best[g] in top
        np.testing.assert_allclose(probs[g], ev(aft.boards[best[g]][None])[0], rtol=0, atol=2e-6)  # float32 rounding: batch size


@pytest.mark.parametrize("keep", [0, -1, True])
def test_reply_pruning_needs_a_positive_keep(keep):
    with pytest.raises(ValueError, match="keep"):
        ReplyPruning(pip_evaluator, keep)


def test_finished_game_is_exact_at_every_ply(ev):
    # mover has borne off everything, opponent still has all 15 with some in mover's home: backgammon
    won = board_from_sides([0] * 25, [2] * 5 + [0] * 18 + [5, 0]).astype(np.int8)
    assert game_result(won) == 3
    for ply in (0, 1, 2):
        np.testing.assert_array_equal(after_state_probs(ev, won[None], ply)[0], [1, 1, 1, 0, 0])


def test_opponent_who_cannot_move_passes(ev):
    # mover has a closed board and the opponent has a checker on the bar: every roll passes,
    # so the 1-ply value is the mover's own 0-ply value with the mover back on roll
    mover = [2, 2, 2, 2, 2, 2] + [0] * 17 + [3] + [0]
    opp = [0] * 5 + [14] + [0] * 18 + [1]
    a = board_from_sides(mover, opp).astype(np.int8)
    aft = generate(flip(a)[None].repeat(21, 0), ROLLS)
    assert (aft.dice_used == 0).all()
    want = flip_probs(ev(flip(a)[None]))[0]
    np.testing.assert_allclose(after_state_probs(ev, a[None], 1)[0], want, atol=1e-6)


def test_probabilities_stay_consistent(ev, contact_after_states):
    for ply in (1, 2):
        p = after_state_probs(ev, contact_after_states[:3], ply)
        assert ((p >= 0) & (p <= 1)).all()
        assert (p[:, 0] >= p[:, 1] - 1e-12).all() and (p[:, 1] >= p[:, 2] - 1e-12).all()
        assert (1 - p[:, 0] >= p[:, 3] - 1e-12).all() and (p[:, 3] >= p[:, 4] - 1e-12).all()


def test_batch_equals_one_by_one(ev, contact_after_states):
    batch = after_state_probs(ev, contact_after_states, 1)
    single = np.concatenate([after_state_probs(ev, a[None], 1) for a in contact_after_states])
    np.testing.assert_allclose(batch, single, atol=2e-6)


def test_group_argmax_first_max():
    v = np.array([1.0, 3.0, 3.0, -1.0, 5.0, 2.0, 5.0])
    off = np.array([0, 3, 4, 7])
    np.testing.assert_array_equal(group_argmax(v, off), [1, 3, 4])


def test_apply_filter_keeps_k_within_window():
    eq = np.array([0.10, 0.00, 0.09, 0.05, -0.50, 0.3, 0.2])
    parent = np.array([0, 0, 0, 0, 0, 1, 1])
    off = np.array([0, 5, 7])
    keep = apply_filter(eq, np.ones(7, bool), parent, off, MoveFilter(2, 0.16))
    np.testing.assert_array_equal(keep, [1, 0, 1, 0, 0, 1, 1])
    keep = apply_filter(eq, np.ones(7, bool), parent, off, MoveFilter(8, 0.06))
    np.testing.assert_array_equal(keep, [1, 0, 1, 1, 0, 1, 0])
    with pytest.raises(ValueError):
        MoveFilter(0, 0.1)


def test_search_plays_batch_and_plies(ev):
    pos = [Position.from_id("4HPwATDgc/ABMA").board, Position.from_id("4HPwATDgc/ABMA").board]
    aft = generate(np.stack(pos), np.array([[5, 3], [6, 4]], dtype=np.int8))
    r0 = search_plays(ev, aft.boards, aft.offsets, 0)
    r2 = search_plays(ev, aft.boards, aft.offsets, 2, GNUBG_FILTERS)
    assert (r0.ply == 0).all()
    for i in range(2):
        g = slice(aft.offsets[i], aft.offsets[i + 1])
        d = r2.ply[g]
        assert (d == 1).sum() + (d == 2).sum() <= 8 and 1 <= (d == 2).sum() <= 2
        assert r2.ply[r2.best[i]] == 2
        one = search_plays(ev, aft.group(i), np.array([0, aft.counts[i]]), 2, GNUBG_FILTERS)
        np.testing.assert_allclose(one.equity, r2.equity[g], atol=2e-6)
        assert one.best[0] == r2.best[i] - aft.offsets[i]
        # the 2-ply plays' values are the plain 2-ply values of their after-states
        deep = np.flatnonzero(d == 2)
        np.testing.assert_allclose(r2.probs[g][deep], after_state_probs(ev, aft.group(i)[deep], 2), atol=2e-6)


def test_chunked_search_equals_unchunked(ev, contact_after_states, monkeypatch):
    import bgrl.agents.search as search

    whole = after_state_probs(ev, contact_after_states, 2)
    monkeypatch.setattr(search, "CHUNK", 2)
    np.testing.assert_allclose(after_state_probs(ev, contact_after_states, 2), whole, atol=2e-6)
