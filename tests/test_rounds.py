"""Synchronous-rounds trainer (bgrl.training.rounds): the per-game update against a dense
autograd reference, determinism, the learner's merge order, checkpoint/resume."""

import numpy as np
import pytest
import torch

from bgrl.agents.base import group_argmax
from bgrl.rules.board import START_BOARD
from bgrl.evaluation.encoding import encode, num_features
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results
from bgrl.training.rounds import (LocalRunner, RoundsTrainer, TaskWorker, rounds_learner_factory, split_round,
                                  weights_to_numpy)

_PERM = [0, 3, 4, 1, 2]
_SIGN = torch.tensor([-1.0, 1.0, 1.0, 1.0, 1.0])


def _net(hidden=12, seed=3, encoder="td198"):
    torch.manual_seed(seed)
    return TDNet(num_features(encoder), hidden)


def reference_game_update(net, encoder, seed, gid, lam):
    """One game, frozen weights, dense traces by autograd: e_t = lam P(e_{t-1}) + grad V(s_t),
    update = sum_t delta_t . e_t (float64)."""
    rng = np.random.default_rng([seed, gid])
    dice = rng.integers(1, 7, size=(128, 2)).astype(np.int8)
    ev = NetEvaluator(net, encoder, exact=False)
    params = [net.fc1.weight, net.fc1.bias, net.fc2.weight, net.fc2.bias]
    e = [torch.zeros((5,) + p.shape, dtype=torch.float64) for p in params]
    acc = [torch.zeros(p.shape, dtype=torch.float64) for p in params]
    board = START_BOARD.copy()
    t = 0
    while True:
        if t >= dice.shape[0]:
            dice = np.concatenate([dice, rng.integers(1, 7, size=(128, 2)).astype(np.int8)])
        x = torch.from_numpy(encode(board[None], encoder))
        y = net(x)[0]
        grads = [torch.autograd.grad(y[o], params, retain_graph=True) for o in range(5)]
        g = [torch.stack([grads[o][i] for o in range(5)]).double() for i in range(4)]
        e = [lam * (ei[_PERM] * _SIGN.double().view(5, *([1] * (ei.dim() - 1)))) + gi for ei, gi in zip(e, g)]
        aft = generate(board[None], dice[t][None], validate=False)
        probs = ev(aft.boards)
        best = group_argmax(equity(probs), aft.offsets)[0]
        chosen = aft.boards[best]
        delta = torch.from_numpy(probs[best]).double() - y.detach().double()
        for a, ei in zip(acc, e):
            a += torch.tensordot(delta, ei, dims=([0], [0]))
        t += 1
        if game_results(chosen[None])[0] > 0:
            return acc, t
        board = -chosen[::-1].copy()


@pytest.mark.parametrize("lam", [0.0, 0.7, 1.0])
def test_task_update_equals_dense_autograd_reference(lam):
    net = _net()
    w = TaskWorker("td198", 12, lam, seed=5, bearoff=False)
    w.set_weights(weights_to_numpy(net), 0)
    out = w.run(weights_to_numpy(net), 0, first_game=11, n_games=1)
    ref, plies = reference_game_update(net, "td198", 5, 11, lam)
    assert out["lengths"][0] == plies
    for name, r in zip(("W1", "b1", "W2", "b2"), ref):
        got = torch.from_numpy(out[name]).double()
        scale = float(r.abs().max()) + 1e-6
        assert float((got - r).abs().max()) <= 2e-4 * scale, name


@pytest.mark.parametrize("lockstep", [None, 2])
def test_task_is_sum_of_its_games_and_depends_only_on_ids(lockstep):
    net = _net()
    wt = weights_to_numpy(net)
    w = TaskWorker("td198", 12, 0.7, seed=1, bearoff=True)
    both = w.run(wt, 0, 20, 5, lockstep=lockstep)  # lockstep 2: finished games' slots take the next games
    singles = [w.run(wt, 0, 20 + i, 1) for i in range(5)]
    again = TaskWorker("td198", 12, 0.7, seed=1, bearoff=True).run(wt, 7, 20, 5, lockstep=lockstep)
    for k in ("W1", "b1", "W2", "b2"):
        np.testing.assert_array_equal(both[k], again[k])  # bit for bit: a pure function
        np.testing.assert_allclose(both[k], sum(s[k] for s in singles), rtol=1e-4, atol=1e-6)
    assert list(both["lengths"]) == [int(s["lengths"][0]) for s in singles]
    assert list(both["results"]) == [int(s["results"][0]) for s in singles]
    assert both["plies"] == sum(s["plies"] for s in singles)
    if lockstep:
        assert both["steps"] > max(both["lengths"])  # games ran one after another in the slots
    other_seed = TaskWorker("td198", 12, 0.7, seed=2, bearoff=True).run(wt, 0, 20, 5, lockstep=lockstep)
    assert not np.array_equal(both["W1"], other_seed["W1"])


def test_split_round():
    assert split_round(16, 10, 4) == [(16, 4), (20, 4), (24, 2)]
    assert split_round(0, 3, 8) == [(0, 3)]


class _ShuffledRunner(LocalRunner):
    """Plays the tasks in reverse order (as a pool of actors might finish them) and returns them in task order."""

    def run_round(self, weights, round_id, tasks, lam, lockstep=None):
        outs = [self.worker.run(weights, round_id, g, n, lam, lockstep) for g, n in reversed(tasks)]
        return outs[::-1]


def test_rounds_trainer_applies_alpha_times_task_sums_in_order():
    net = _net()
    w0 = weights_to_numpy(net)
    runner = LocalRunner("td198", 12, 0.7, 4, True)
    tr = RoundsTrainer(net, round_games=5, task_games=2, alpha=0.05, lam=0.7, seed=4, runner=runner)
    out = tr.step()
    assert tr.next_game == 5 and out["finished"].shape == (5,) and set(out["finished"].tolist()) <= {1, 2, 3}
    assert out["plies"] == int(out["lengths"].sum()) and out["delta"] > 0
    expect = {k: torch.from_numpy(v.copy()) for k, v in w0.items()}
    for g, n in [(0, 2), (2, 2), (4, 1)]:
        o = runner.worker.run(w0, "x", g, n, 0.7)
        expect["fc1.weight"].add_(torch.from_numpy(o["W1"]), alpha=0.05)
        expect["fc1.bias"].add_(torch.from_numpy(o["b1"]), alpha=0.05)
        expect["fc2.weight"].add_(torch.from_numpy(o["W2"]), alpha=0.05)
        expect["fc2.bias"].add_(torch.from_numpy(o["b2"]), alpha=0.05)
    for k, v in net.state_dict().items():
        assert torch.equal(v, expect[k]), k
    # the order in which tasks are played does not matter
    net2 = _net()
    tr2 = RoundsTrainer(net2, 5, 2, 0.05, 0.7, 4, _ShuffledRunner("td198", 12, 0.7, 4, True))
    tr2.step()
    for k, v in net.state_dict().items():
        assert torch.equal(v, net2.state_dict()[k]), k


def test_local_rounds_train_resume_bit_for_bit(tmp_path):
    from bgrl.training.loop import TrainConfig, train

    cfg = TrainConfig(games=24, hidden=8, parallel=6, alpha=0.05, seed=2, eval_every=0, checkpoint_every=12)
    make, close = rounds_learner_factory("local-rounds", task_games=4)
    full = train(cfg, tmp_path / "full", progress=False, log=lambda *a: None, make_learner=make)
    make, close = rounds_learner_factory("local-rounds", task_games=4)
    assert train(cfg, tmp_path / "cut", progress=False, log=lambda *a: None, stop_after_checkpoints=1,
                 make_learner=make) is None
    make, close = rounds_learner_factory("local-rounds", task_games=4)
    resumed = train(None, tmp_path / "cut", resume=True, progress=False, log=lambda *a: None, make_learner=make)
    a = torch.load(full, weights_only=True)
    b = torch.load(resumed, weights_only=True)
    assert a["meta"]["games"] == b["meta"]["games"] == 24
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert a["trainer"]["td"]["next_game"] == 24
    # a rounds run cannot be resumed by the online trainer (nor the reverse)
    with pytest.raises(ValueError, match="rounds backend"):
        train(None, tmp_path / "cut", resume=True, progress=False, log=lambda *a: None, overrides={"games": 30})
    with pytest.raises(ValueError, match="task-games"):
        make, close = rounds_learner_factory("local-rounds", task_games=3)
        train(None, tmp_path / "cut", resume=True, progress=False, log=lambda *a: None, overrides={"games": 30},
              make_learner=make)


def test_cli_rounds_flag_errors(monkeypatch, capsys, tmp_path):
    from bgrl.cli import main
    from bgrl.training import ray_backend

    assert main(["train", "--backend", "local-rounds", "--lockstep", "0", "--run-dir", str(tmp_path / "x")]) == 2
    assert "--lockstep must be an integer >= 1" in capsys.readouterr().err
    assert main(["train", "--backend", "local-rounds", "--actors", "2", "--run-dir", str(tmp_path / "x")]) == 2
    assert "need --backend ray" in capsys.readouterr().err
    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    assert main(["train", "--backend", "ray", "--run-dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "pip install -e '.[ray]'" in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()
