"""Issue 42: multi-game rounds learn. Before, a round summed each game's TD(lambda) update
computed against the round's frozen weights and applied it as one step; at the default
alpha the first 32-game round saturated every sigmoid (every play valued at a win
probability of 1.000, gradients exactly 0) and the network never recovered. Now the
learner replays the round's games online (bgrl.training.rounds), so the rounds backends
learn like the online trainer at their defaults."""

import numpy as np
import torch

from bgrl.agents.base import NetAgent, RandomAgent
from bgrl.arena.duel import play_match
from bgrl.evaluation.encoding import ENCODER, num_features
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.model import TDNet
from bgrl.training.rounds import DEFAULT_ROUND_GAMES, LocalRunner, RoundsTrainer, TaskWorker, weights_to_numpy


def _trainer(seed=7, hidden=80):
    torch.manual_seed(seed)
    net = TDNet(num_features(ENCODER), hidden)
    runner = LocalRunner(ENCODER, hidden, 0.7, seed, True)
    return net, RoundsTrainer(net, DEFAULT_ROUND_GAMES, None, 0.1, 0.7, seed, runner)


def test_default_rounds_do_not_saturate_and_beat_random():
    net, tr = _trainer()
    w0 = torch.cat([p.detach().flatten() for p in net.parameters()]).clone()
    for _ in range(4):  # 512 games, rounds of 128 at the default alpha 0.1
        out = tr.step()
        assert np.isfinite(out["delta"]) and out["delta"] < 0.1
    moved = float((torch.cat([p.detach().flatten() for p in net.parameters()]) - w0).norm())
    assert 1.0 < moved < 60.0  # the frozen-weights sum moved them by ~216 in its first round
    # the values of the positions of a fresh round: far from the saturated 1.000 of the collapse
    rec = TaskWorker(ENCODER, 80, None, 99, True).run(weights_to_numpy(net), "k", 10_000, 8)
    ev = NetEvaluator(net, ENCODER, exact=False)
    win = ev(rec["chosen"])[:, 0]
    assert 0.2 < float(win.mean()) < 0.8
    assert float((win > 0.999).mean()) < 0.2
    r = play_match(NetAgent(NetEvaluator(net, ENCODER), name="net"), RandomAgent(), 200, seed=1, names=("net", "random"))
    assert r.ppg > 1.5, r.ppg
