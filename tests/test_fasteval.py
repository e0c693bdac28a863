"""FastNetEvaluator (table-lookup first layer) == NetEvaluator."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgrl.evaluator import NetEvaluator
from bgrl.fasteval import FastNetEvaluator, best_evaluator
from bgrl.model import TDNet
from bgrl.movegen import generate
from positions import random_game_positions, synthetic_positions


@pytest.mark.parametrize("encoder,n_in", [("td198r", 202), ("td198", 198)])
def test_fast_equals_plain(encoder, n_in):
    torch.manual_seed(3)
    net = TDNet(n_in, hidden=40)
    with torch.no_grad():  # spread the weights so a wrong table entry shows
        for p in net.parameters():
            p.mul_(4.0)
    rng = np.random.default_rng(0)
    boards, dice = random_game_positions(rng, 400, 16)
    sb, sd = synthetic_positions(rng, 200)
    aft = generate(np.concatenate([boards, sb]), np.concatenate([dice, sd]))
    plain, fast = NetEvaluator(net, encoder), FastNetEvaluator(net, encoder)
    np.testing.assert_allclose(fast(aft.boards), plain(aft.boards), atol=2e-5)
    small = np.concatenate([fast(aft.boards[i : i + 50]) for i in range(0, 1000, 50)])  # the numpy path
    np.testing.assert_allclose(small, plain(aft.boards[:1000]), atol=2e-5)
    assert fast(aft.boards[:0]).shape == (0, 5)


def test_best_evaluator_falls_back():
    class Other(TDNet):
        pass

    assert type(best_evaluator(TDNet(202), "td198r")) is FastNetEvaluator
    assert type(best_evaluator(Other(202), "td198r")) is NetEvaluator
