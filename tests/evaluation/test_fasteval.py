"""TableNetEvaluator (table-lookup first layer) == NetEvaluator."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.table import TableNetEvaluator, network_evaluator
from bgrl.evaluation.model import TDNet
from bgrl.rules.movegen import generate
from positions import random_game_positions, synthetic_positions


@pytest.mark.parametrize("encoder,n_in,hidden", [("td198r", 202, 40), ("td198", 198, 40), ("td198g", 220, 40), ("td198g", 220, 33)])
def test_fast_equals_plain(encoder, n_in, hidden):
    torch.manual_seed(3)
    net = TDNet(n_in, hidden=hidden)
    with torch.no_grad():  # spread the weights so a wrong table entry shows
        for p in net.parameters():
            p.mul_(4.0)
    rng = np.random.default_rng(0)
    boards, dice = random_game_positions(rng, 400, 16)
    sb, sd = synthetic_positions(rng, 200)
    aft = generate(np.concatenate([boards, sb]), np.concatenate([dice, sd]))
    plain, fast = NetEvaluator(net, encoder), TableNetEvaluator(net, encoder)
    np.testing.assert_allclose(fast(aft.boards), plain(aft.boards), atol=2e-5)
    small = np.concatenate([fast(aft.boards[i : i + 50]) for i in range(0, 1000, 50)])  # the numpy path
    np.testing.assert_allclose(small, plain(aft.boards[:1000]), atol=2e-5)
    assert fast(aft.boards[:0]).shape == (0, 5)


def test_network_evaluator_falls_back():
    class Other(TDNet):
        pass

    assert type(network_evaluator(TDNet(202), "td198r")) is TableNetEvaluator
    assert type(network_evaluator(Other(202), "td198r")) is NetEvaluator


def test_shipped_td198g_network():
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.table import supports
    from bgrl._resources import resolve_checkpoint

    net, meta = load_network(resolve_checkpoint("td198g"))
    assert meta["encoder"] == "td198g" and supports(net, "td198g")
    assert type(network_evaluator(net, "td198g")) is TableNetEvaluator
    rng = np.random.default_rng(4)
    boards, dice = random_game_positions(rng, 300, 16)
    aft = generate(boards, dice)
    plain, fast = NetEvaluator(net, "td198g"), TableNetEvaluator(net, "td198g")
    np.testing.assert_allclose(fast(aft.boards), plain(aft.boards), atol=2e-5)  # torch path
    np.testing.assert_allclose(fast(aft.boards[:30]), plain(aft.boards[:30]), atol=2e-5)  # numpy path


def test_unsupported_encoder_rejected():
    with pytest.raises(ValueError, match="td198g"):
        TableNetEvaluator(TDNet(220), "td198r")


def test_refresh_follows_the_weights():
    """After the weights change, refresh() gives the new network's values (the trainers'
    use); without it the table still holds the old first layer."""
    torch.manual_seed(5)
    net = TDNet(202, hidden=16)
    rng = np.random.default_rng(6)
    boards, dice = random_game_positions(rng, 200, 16)
    after = generate(boards, dice).boards
    fast = TableNetEvaluator(net, "td198r", exact=False)
    before = fast(after)
    with torch.no_grad():
        net.fc1.weight.mul_(3.0)
    assert not np.allclose(fast(after), NetEvaluator(net, "td198r", exact=False)(after), atol=1e-3)
    fast.refresh()
    np.testing.assert_allclose(fast(after), NetEvaluator(net, "td198r", exact=False)(after), atol=2e-5)
    assert not np.allclose(fast(after), before, atol=1e-3)


def test_deprecated_names_are_aliases():
    from bgrl.evaluation import table

    assert table.FastNetEvaluator is TableNetEvaluator and table.best_evaluator is network_evaluator

