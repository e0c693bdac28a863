"""Search distillation (bgrl.training.distill): positions, targets and fitting."""

import numpy as np
import pytest
import torch

from bgrl.rules.board import flip
from bgrl.evaluation.networks import load_network
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.exact import exact_probs
from bgrl._resources import resolve_checkpoint
from bgrl.rules.outcome import game_results
from bgrl.agents.search import after_state_probs
from bgrl.training.distill import collect_positions, fit, search_targets


@pytest.fixture(scope="module")
def evaluator():
    net, meta = load_network(resolve_checkpoint("default"))
    return NetEvaluator(net, meta["encoder"])


def test_collect_positions_are_live_legal_and_not_exact(evaluator):
    a = collect_positions(evaluator, games=6, seed=3, parallel=4)
    assert a.dtype == np.int8 and a.ndim == 2 and a.shape[1] == 26
    assert a.shape[0] > 6 * 20  # a game has dozens of plays
    assert (game_results(a) == 0).all()
    assert not exact_probs(flip(a))[0].any()
    mover = np.where(a[:, 1:25] > 0, a[:, 1:25], 0).sum(1) + a[:, 25]
    opp = np.where(a[:, 1:25] < 0, -a[:, 1:25], 0).sum(1) - a[:, 0]
    assert (mover <= 15).all() and (opp <= 15).all() and (a[:, 25] >= 0).all() and (a[:, 0] <= 0).all()
    # reproducible by seed, different across seeds
    assert np.array_equal(a, collect_positions(evaluator, games=6, seed=3, parallel=4))
    assert not np.array_equal(a, collect_positions(evaluator, games=6, seed=4, parallel=4))


def test_collect_positions_rejects_bad_arguments(evaluator):
    with pytest.raises(ValueError, match="games"):
        collect_positions(evaluator, games=0)
    with pytest.raises(ValueError, match="noise"):
        collect_positions(evaluator, games=1, noise=-0.1)


def test_search_targets_are_the_search_values_in_chunks(evaluator):
    a = collect_positions(evaluator, games=1, seed=0)[:40]
    seen = []
    t = search_targets(evaluator, a, ply=1, chunk=16, progress=lambda d, n: seen.append((d, n)))
    assert t.dtype == np.float32 and t.shape == (40, 5)
    assert np.allclose(t, after_state_probs(evaluator, a, 1), atol=1e-6)
    assert seen == [(16, 40), (32, 40), (40, 40)]


def test_fit_moves_the_network_toward_the_targets(evaluator):
    torch.manual_seed(0)
    a = collect_positions(evaluator, games=4, seed=1)
    teacher = np.asarray(evaluator(a), dtype=np.float32)  # the default net's 0-ply values
    student, _ = load_network(resolve_checkpoint("default"))
    with torch.no_grad():  # a damaged copy of the teacher: far from the targets
        student.fc2.weight.mul_(0.5)
    hist = fit(student, "td198r", a, teacher, epochs=5, lr=3e-3, batch=32, log=lambda s: None)
    assert len(hist["holdout_equity_mae"]) == 6
    assert hist["holdout_equity_mae"][-1] < 0.5 * hist["holdout_equity_mae"][0]
    with pytest.raises(ValueError, match="targets"):
        fit(student, "td198r", a, teacher[:-1], log=lambda s: None)


def test_fit_decays_the_step_size_linearly_to_lr_final(evaluator):
    a = collect_positions(evaluator, games=3, seed=2)
    t = np.asarray(evaluator(a), dtype=np.float32)
    student, _ = load_network(resolve_checkpoint("default"))
    seen = []

    def on_epoch(ep, net, state):
        seen.append(state["optimizer"]["param_groups"][0]["lr"])

    fit(student, "td198r", a, t, epochs=3, lr=1e-3, lr_final=1e-4, batch=64, log=lambda s: None, on_epoch=on_epoch)
    assert np.allclose(seen, [1e-3, 5.5e-4, 1e-4])
    seen.clear()
    fit(student, "td198r", a, t, epochs=2, lr=2e-3, batch=64, log=lambda s: None, on_epoch=on_epoch)
    assert seen == [2e-3, 2e-3]


def test_select_phases_keeps_the_rows_of_the_named_phases():
    from bgrl.evaluation.phase import CRASHED, RACE, classify
    from bgrl.training.distill import select_phases
    from tests.rules.test_movegen import random_game_positions

    boards, _ = random_game_positions(np.random.default_rng(4), 3000, 64)
    targets = np.random.default_rng(0).random((boards.shape[0], 5)).astype(np.float32)
    b, t = select_phases(boards, targets, ["race", "crashed"])
    keep = np.isin(classify(boards), (RACE, CRASHED))
    assert 0 < b.shape[0] == keep.sum() < boards.shape[0]
    assert np.array_equal(b, boards[keep]) and np.array_equal(t, targets[keep])
    for bad in (["endgame"], []):
        with pytest.raises(ValueError, match="phases must be a non-empty list of contact, race, bearoff, crashed"):
            select_phases(boards, targets, bad)
