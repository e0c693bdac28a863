"""Synchronous-rounds trainer (bgrl.training.rounds): the actors' games against a plain
greedy reference, the learner's replay against a dense autograd reference, the pipeline of
rounds (round k played with the weights learned through round k - 2), determinism,
checkpoint/resume and the backend a run folder records."""

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
from bgrl.training.ray_backend import rounds_learner_factory
from bgrl.training.rounds import (LocalRunner, ReplayLearner, RoundsTrainer, TaskWorker, recorded_backend, split_round,
                                  weights_to_numpy)

_PERM = [0, 3, 4, 1, 2]
_SIGN = torch.tensor([-1.0, 1.0, 1.0, 1.0, 1.0], dtype=torch.float64)


def _net(hidden=12, seed=3, encoder="td198"):
    torch.manual_seed(seed)
    return TDNet(num_features(encoder), hidden)


def reference_game(net, encoder, seed, gid):
    """One greedy 0-ply game with the plain evaluator: its chosen after-states."""
    rng = np.random.default_rng([seed, gid])
    dice = rng.integers(1, 7, size=(128, 2)).astype(np.int8)
    ev = NetEvaluator(net, encoder, exact=False)
    board, out, t = START_BOARD.copy(), [], 0
    while True:
        if t >= dice.shape[0]:
            dice = np.concatenate([dice, rng.integers(1, 7, size=(128, 2)).astype(np.int8)])
        aft = generate(board[None], dice[t][None], validate=False)
        best = group_argmax(equity(ev(aft.boards)), aft.offsets)[0]
        chosen = aft.boards[best]
        out.append(chosen)
        t += 1
        if game_results(chosen[None])[0] > 0:
            return np.array(out)
        board = -chosen[::-1].copy()


def reference_replay(net, encoder, chosen, lengths, G, alpha, lam):
    """Online TD(lambda) over recorded games with dense autograd traces (float64), G slots
    in lockstep, a finished slot taking the next game in id order (exact values off)."""
    params = [net.fc1.weight, net.fc1.bias, net.fc2.weight, net.fc2.bias]
    ev = NetEvaluator(net, encoder, exact=False)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    n = len(lengths)
    slot = [i if i < n else -1 for i in range(G)]
    ply = [0] * G
    nxt = min(G, n)
    traces = [None] * G
    boards = [START_BOARD.copy() for _ in range(G)]
    while any(s >= 0 for s in slot):
        act = [j for j in range(G) if slot[j] >= 0]
        played = np.array([chosen[starts[slot[j]] + ply[j]] for j in act])
        target = torch.from_numpy(ev(played)).double()  # before this ply's update
        acc = [torch.zeros(p.shape, dtype=torch.float64) for p in params]
        for r, j in enumerate(act):
            x = torch.from_numpy(encode(boards[j][None], encoder))
            with torch.enable_grad():
                y = net(x)[0]
                grads = [torch.autograd.grad(y[o], params, retain_graph=True) for o in range(5)]
            g = [torch.stack([grads[o][i] for o in range(5)]).double() for i in range(4)]
            if traces[j] is None:
                traces[j] = g
            else:
                traces[j] = [lam * (e[_PERM] * _SIGN.view(5, *([1] * (e.dim() - 1)))) + gi for e, gi in zip(traces[j], g)]
            delta = target[r] - y.detach().double()
            for a, e in zip(acc, traces[j]):
                a += torch.tensordot(delta, e, dims=([0], [0]))
        with torch.no_grad():
            for p, a in zip(params, acc):
                p.add_((alpha * a).float())
        for r, j in enumerate(act):
            ply[j] += 1
            if ply[j] == lengths[slot[j]]:
                traces[j] = None
                boards[j] = START_BOARD.copy()
                if nxt < n:
                    slot[j], ply[j] = nxt, 0
                    nxt += 1
                else:
                    slot[j] = -1
            else:
                boards[j] = -played[r][::-1].copy()


@pytest.mark.parametrize("lockstep", [None, 2])
def test_task_plays_greedy_games_by_id(lockstep):
    net = _net()
    wt = weights_to_numpy(net)
    w = TaskWorker("td198", 12, None, seed=5, bearoff=False)
    out = w.run(wt, "k", 11, 4, lockstep=lockstep)
    again = TaskWorker("td198", 12, None, seed=5, bearoff=False).run(wt, "other", 11, 4, lockstep=None)
    np.testing.assert_array_equal(out["chosen"], again["chosen"])  # the lockstep never changes a game
    assert out["chosen"].dtype == np.int8 and out["plies"] == int(out["lengths"].sum()) == out["chosen"].shape[0]
    ends = np.cumsum(out["lengths"])
    for i in range(4):
        ref = reference_game(net, "td198", 5, 11 + i)
        np.testing.assert_array_equal(out["chosen"][ends[i] - len(ref):ends[i]], ref)
        assert out["results"][i] == game_results(ref[-1:])[0]
    other_seed = TaskWorker("td198", 12, None, seed=6, bearoff=False).run(wt, "k", 11, 4)
    assert not np.array_equal(out["lengths"], other_seed["lengths"]) or not np.array_equal(out["chosen"], other_seed["chosen"])


@pytest.mark.parametrize("G", [1, 3])
def test_replay_equals_dense_autograd_reference(G):
    net = _net()
    rec = TaskWorker("td198", 12, None, seed=2, bearoff=False).run(weights_to_numpy(net), "k", 0, 4)
    ref = _net()
    reference_replay(ref, "td198", rec["chosen"], rec["lengths"], G, alpha=0.05, lam=0.7)
    learner = ReplayLearner(net, "td198", G, 0.05, 0.7, exact=None)
    out = learner.replay(rec["chosen"], rec["lengths"], rec["results"])
    assert out["steps"] >= int(rec["lengths"].sum()) / G and out["delta"] > 0
    moved = max(float((a - b).abs().max()) for a, b in zip(net.state_dict().values(), _net().state_dict().values()))
    assert moved > 1e-3
    for k, v in net.state_dict().items():
        assert float((v - ref.state_dict()[k]).abs().max()) <= 1e-4 * max(1.0, float(v.abs().max())), k


def test_replay_refuses_plays_that_are_not_whole_games():
    net = _net()
    rec = TaskWorker("td198", 12, None, seed=2, bearoff=True).run(weights_to_numpy(net), "k", 0, 2)
    learner = ReplayLearner(net, "td198", 2, 0.05, 0.7)
    with pytest.raises(ValueError, match="whole games"):
        learner.replay(rec["chosen"][:-1], rec["lengths"] - np.array([0, 1]))
    with pytest.raises(ValueError, match="do not fit"):
        learner.replay(rec["chosen"], rec["lengths"] + 1)
    with pytest.raises(ValueError, match="whole games"):
        learner.replay(rec["chosen"], rec["lengths"], 4 - rec["results"])


def test_split_round():
    assert split_round(16, 10, 4) == [(16, 4), (20, 4), (24, 2)]
    assert split_round(0, 3, 8) == [(0, 3)]


class _RecordingRunner(LocalRunner):
    """Records the weights of every round it is handed; plays the tasks in reverse order (as
    a pool of actors might finish them) and returns them in task order."""

    def __init__(self, *a):
        super().__init__(*a)
        self.seen = []

    def submit(self, weights, round_id, tasks, lockstep=None):
        self.seen.append(({k: v.copy() for k, v in weights.items()}, tasks))
        return super().submit(weights, round_id, tasks, lockstep)

    def run_round(self, weights, round_id, tasks, lockstep=None):
        outs = [self.worker.run(weights, round_id, g, n, lockstep) for g, n in reversed(tasks)]
        return outs[::-1]


def test_round_k_is_played_with_the_weights_learned_through_round_k_minus_2():
    net = _net()
    runner = _RecordingRunner("td198", 12, 0.7, 4, True)
    tr = RoundsTrainer(net, round_games=5, task_games=2, alpha=0.05, lam=0.7, seed=4, runner=runner)
    w0 = weights_to_numpy(net)
    out = tr.step()
    assert tr.next_game == 5 and out["finished"].shape == (5,) and set(out["finished"].tolist()) <= {1, 2, 3}
    assert out["plies"] == int(out["lengths"].sum()) and out["delta"] > 0
    w1 = weights_to_numpy(net)
    tr.step()
    tr.step()
    assert [t for _, t in runner.seen] == [split_round(g, 5, 2) for g in (0, 5, 10, 15)]
    for (w, _), expect in zip(runner.seen, (w0, w0, w1)):
        assert all(np.array_equal(w[k], expect[k]) for k in w)
    # the learner's step: round 0's games (played with w0) replayed from w0
    net2 = _net()
    rec = [TaskWorker("td198", 12, None, 4, True).run(w0, "k", g, n) for g, n in split_round(0, 5, 2)]
    ReplayLearner(net2, "td198", 32, 0.05, 0.7, exact=runner.worker.exact).replay(
        np.concatenate([r["chosen"] for r in rec]), np.concatenate([r["lengths"] for r in rec]))
    assert all(np.array_equal(v, w1[k]) for k, v in weights_to_numpy(net2).items())


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
    td = a["trainer"]["td"]
    assert td["next_game"] == 24 and td["backend"] == "local-rounds" and set(td["play_weights"]) == set(a["model"])
    assert recorded_backend(td) == ("local-rounds", 1)
    # a rounds run cannot be resumed by the online trainer (nor the reverse)
    with pytest.raises(ValueError, match="rounds backend"):
        train(None, tmp_path / "cut", resume=True, progress=False, log=lambda *a: None, overrides={"games": 30})
    with pytest.raises(ValueError, match="task-games"):
        make, close = rounds_learner_factory("local-rounds", task_games=3)
        train(None, tmp_path / "cut", resume=True, progress=False, log=lambda *a: None, overrides={"games": 30},
              make_learner=make)


def test_recorded_backend():
    assert recorded_backend(None) is None
    assert recorded_backend({"rng": "{}"}) == ("local", 1)
    assert recorded_backend({"algorithm": "rounds"}) == ("local-rounds", 1)  # a run from before the record
    assert recorded_backend({"algorithm": "rounds", "backend": "ray", "actors": 3}) == ("ray", 3)
    assert recorded_backend({"algorithm": "rounds", "backend": "??", "actors": "x"}) == ("local-rounds", 1)


def test_cli_resumes_a_rounds_run_with_the_printed_commands(tmp_path, capsys):
    """Every resume command `bgrl train` prints after a rounds run works as printed: the run
    folder records its backend, so `--backend` is not needed."""
    from bgrl.cli import main

    run = tmp_path / "r"
    assert main(["train", "--backend", "local-rounds", "--games", "8", "--parallel", "8", "--task-games", "4",
                 "--hidden", "6", "--eval-every", "0", "--no-progress", "--run-dir", str(run)]) == 0
    out = capsys.readouterr().out
    printed = [line.split("#")[0].split() for line in out.splitlines() if "bgrl train --resume" in line]
    assert printed and all(cmd[:3] == ["bgrl", "train", "--resume"] for cmd in printed)
    for cmd in printed:
        assert main(cmd[1:] + ["--no-progress"]) == 0, cmd
        out = capsys.readouterr().out
        assert "resuming with --backend local-rounds (recorded in the run folder)" in out
    td = torch.load(run / "latest.pt", weights_only=True)["trainer"]["td"]
    assert td["backend"] == "local-rounds" and td["next_game"] == 16
    # an explicit online backend is refused with the reason
    assert main(["train", "--resume", str(run), "--backend", "local", "--games", "40", "--no-progress"]) == 2
    assert "rounds backend" in capsys.readouterr().err


def test_rounds_backends_default_to_128_games_a_round(tmp_path, capsys):
    import json

    from bgrl.cli import main

    assert main(["train", "--backend", "local-rounds", "--games", "1", "--hidden", "4", "--task-games", "64",
                 "--eval-every", "0", "--no-progress", "--run-dir", str(tmp_path / "d")]) == 0
    assert json.loads((tmp_path / "d" / "config.json").read_text())["parallel"] == 128
    assert "done: 128 games" in capsys.readouterr().out


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


def test_a_ray_run_resumes_without_ray_on_local_rounds(monkeypatch, capsys, tmp_path):
    """A run recorded as `--backend ray` resumed where Ray is missing: the printed command
    still works, on local-rounds (the same weights)."""
    from bgrl.cli import main
    from bgrl.training import ray_backend

    run = tmp_path / "r"
    assert main(["train", "--backend", "local-rounds", "--games", "8", "--parallel", "8", "--task-games", "4",
                 "--hidden", "6", "--eval-every", "0", "--no-progress", "--run-dir", str(run)]) == 0
    payload = torch.load(run / "latest.pt", weights_only=True)
    payload["trainer"]["td"]["backend"] = "ray"
    payload["trainer"]["td"]["actors"] = 2
    from bgrl.evaluation.networks import load_network, save_checkpoint

    net, _ = load_network(run / "latest.pt")
    save_checkpoint(run / "latest.pt", net, payload["meta"], trainer=payload["trainer"])
    capsys.readouterr()
    monkeypatch.setattr(ray_backend, "ray_available", lambda: False)
    assert main(["train", "--resume", str(run), "--games", "16", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Ray is not installed here, so it continues with --backend local-rounds" in out
