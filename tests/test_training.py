"""Trainer: TD(lambda) maths, checkpoints (atomic, safe loading), resume."""

import numpy as np
import pytest
import torch

from bgrl.checkpoint import CheckpointError, load_checkpoint, load_network, save_checkpoint
from bgrl.encoding import encode, num_features
from bgrl.model import TDNet, flip_probs
from bgrl.training.loop import TrainConfig, train
from bgrl.training.td import TDLambda


def test_closed_form_gradients_match_autograd():
    torch.manual_seed(0)
    net = TDNet(num_features("td198"), 12)
    td = TDLambda(net, "td198", 4, 0.1, 0.7, np.random.default_rng(0))
    x = torch.from_numpy(encode(td.boards, "td198"))
    y, db1, dW2, db2, _ = td._grads(x)
    for g in range(2):
        for o in range(5):
            net.zero_grad()
            net(x[g : g + 1])[0, o].backward()
            assert torch.allclose(net.fc2.bias.grad, db2[g, o], atol=1e-6)
            assert torch.allclose(net.fc2.weight.grad, dW2[g, o], atol=1e-6)
            assert torch.allclose(net.fc1.bias.grad, db1[g, o], atol=1e-6)


def test_lambda_zero_update_is_semi_gradient_td0():
    """With lambda = 0 one step must equal alpha * sum_o delta_o * grad V_o (TD(0))."""
    torch.manual_seed(1)
    net = TDNet(num_features(), 10)
    ref = TDNet(num_features(), 10)
    ref.load_state_dict(net.state_dict())
    td = TDLambda(net, td_enc := "td198r", 1, 0.5, 0.0, np.random.default_rng(3))
    board = td.boards.copy()
    rng_copy = np.random.default_rng(3)
    td.step()
    # recompute by autograd
    from bgrl.agents import group_argmax
    from bgrl.evaluator import NetEvaluator
    from bgrl.model import equity
    from bgrl.movegen import generate

    dice = rng_copy.integers(1, 7, size=(1, 2)).astype(np.int8)
    aft = generate(board, dice)
    probs = NetEvaluator(ref, td_enc)(aft.boards)
    target = torch.tensor(probs[group_argmax(equity(probs), aft.offsets)][0], dtype=torch.float32)
    ref.train()
    y = ref(torch.from_numpy(encode(board, td_enc)))[0]
    (((target - y).detach()) * y).sum().backward()
    with torch.no_grad():
        for p in ref.parameters():
            p += 0.5 * p.grad
    for a, b in zip(net.parameters(), ref.parameters()):
        assert torch.allclose(a, b, atol=1e-5)


def test_flip_probs_involution():
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    assert np.allclose(flip_probs(flip_probs(p)), p)
    assert np.allclose(flip_probs(p), [0.4, 0.1, 0.01, 0.2, 0.05])


def test_train_resume_and_checkpoint(tmp_path):
    cfg = TrainConfig(games=60, hidden=8, parallel=8, eval_every=0, checkpoint_every=30, seed=5)
    train(cfg, tmp_path, progress=False, log=lambda *_: None)
    meta = load_checkpoint(tmp_path / "latest.pt")["meta"]
    assert meta["games"] >= 60 and meta["encoder"] and meta["config"]["lam"] == cfg.lam
    assert (tmp_path / "tb").is_dir() and any((tmp_path / "tb").iterdir())
    train(None, tmp_path, resume=True, progress=False, log=lambda *_: None, overrides={"games": 100})
    meta2 = load_checkpoint(tmp_path / "latest.pt")["meta"]
    assert meta2["games"] >= 100 and meta2["config"]["hidden"] == 8
    net, _ = load_network(tmp_path / "final.pt")
    assert net.hidden == 8
    assert not list(tmp_path.glob("*.tmp"))  # no temporary files left behind


def test_checkpoint_rejects_bad_files(tmp_path):
    net = TDNet(num_features(), 4)
    p = save_checkpoint(tmp_path / "ok.pt", net, {"encoder": "td198r", "games": 0})
    load_network(p)
    (tmp_path / "trunc.pt").write_bytes(p.read_bytes()[:100])
    with pytest.raises(CheckpointError):
        load_network(tmp_path / "trunc.pt")
    with pytest.raises(CheckpointError, match="not found"):
        load_network(tmp_path / "missing.pt")
    torch.save({"format": "other"}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a bgrl checkpoint"):
        load_network(tmp_path / "other.pt")

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    torch.save({"format": "bgrl-checkpoint/1", "x": Evil()}, tmp_path / "evil.pt")
    with pytest.raises(CheckpointError):
        load_network(tmp_path / "evil.pt")
    bad = TDNet(num_features(), 4)
    with torch.no_grad():
        bad.fc1.weight[0, 0] = float("nan")
    save_checkpoint(tmp_path / "nan.pt", bad, {"encoder": "td198r"})
    with pytest.raises(CheckpointError, match="NaN"):
        load_network(tmp_path / "nan.pt")


def test_traces_match_naive_backward_view():
    """Several steps with lambda > 0 equal a plain per-game implementation of
    e = lambda * P(e) + grad V (mover's frame) and w += alpha * sum_o delta_o e_o."""
    from bgrl.agents import group_argmax
    from bgrl.board import START_BOARD, flip
    from bgrl.evaluator import NetEvaluator, terminal_probs
    from bgrl.model import equity
    from bgrl.movegen import generate
    from bgrl.rules import game_results

    torch.manual_seed(2)
    G, lam, alpha, enc = 3, 0.8, 0.3, "td198r"
    net = TDNet(num_features(enc), 6)
    ref = TDNet(num_features(enc), 6)
    ref.load_state_dict(net.state_dict())
    td = TDLambda(net, enc, G, alpha, lam, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    params = list(ref.parameters())
    perm, sign = [0, 3, 4, 1, 2], torch.tensor([-1.0, 1, 1, 1, 1])
    traces = [None] * G
    boards = np.repeat(START_BOARD[None], G, axis=0)
    for _ in range(14):
        td.step()
        dice = rng.integers(1, 7, size=(G, 2)).astype(np.int8)
        x = torch.from_numpy(encode(boards, enc))
        y = ref(x)
        jac = []
        for g in range(G):
            rows = []
            for o in range(5):
                grads = torch.autograd.grad(y[g, o], params, retain_graph=True)
                rows.append([gr.clone() for gr in grads])
            jac.append(rows)
        aft = generate(boards, dice)
        probs = NetEvaluator(ref, enc)(aft.boards)
        best = group_argmax(equity(probs), aft.offsets)
        chosen = aft.boards[best]
        res = game_results(chosen)
        target = probs[best]
        target[res > 0] = terminal_probs(res[res > 0])
        delta = torch.tensor(target, dtype=torch.float32) - y.detach()
        with torch.no_grad():
            for g in range(G):
                if traces[g] is None:
                    traces[g] = [[t.clone() for t in jac[g][o]] for o in range(5)]
                else:
                    old = traces[g]
                    traces[g] = [[lam * sign[o] * old[perm[o]][k] + jac[g][o][k] for k in range(len(params))] for o in range(5)]
            for k, p in enumerate(params):
                p += alpha * sum(delta[g, o] * traces[g][o][k] for g in range(G) for o in range(5))
        for g in range(G):
            if res[g] > 0:
                traces[g] = None
        nxt = flip(chosen)
        nxt[res > 0] = START_BOARD
        boards = nxt
    for a, b in zip(net.parameters(), ref.parameters()):
        assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()


def test_resume_overrides_restart_alpha_schedule(tmp_path):
    from bgrl.cli import main

    assert main(["train", "--run-dir", str(tmp_path), "--games", "40", "--hidden", "8", "--parallel", "8", "--eval-every", "0", "--no-progress"]) == 0
    assert main(["train", "--resume", str(tmp_path), "--games", "80", "--alpha", "0.05", "--alpha-final", "0.01", "--no-progress"]) == 0
    cfg = load_checkpoint(tmp_path / "latest.pt")["meta"]["config"]
    assert cfg["alpha"] == 0.05 and cfg["alpha_final"] == 0.01 and cfg["hidden"] == 8
    assert 40 <= cfg["schedule_from"] < 80
    assert main(["train", "--resume", str(tmp_path), "--hidden", "16"]) == 2
    assert main(["train", "--resume", str(tmp_path), "--games", "50"]) == 2  # below the games played


def test_init_from_starts_at_the_given_weights(tmp_path):
    """`--init-from` (fine-tuning): a new run starts from the checkpoint's weights, keeps its
    encoder and size, and records where it started."""
    from bgrl.checkpoint import load_checkpoint, load_network
    from bgrl.resources import shipped_checkpoint
    from bgrl.training.loop import TrainConfig, train

    src_net, src_meta = load_network(shipped_checkpoint())
    final = train(TrainConfig(games=8, parallel=4, alpha=1e-9, eval_every=0, init_from="default"), tmp_path / "ft",
                  progress=False, log=lambda *a: None)
    payload = load_checkpoint(final)
    assert payload["meta"]["config"]["init_from"].endswith("default.pt")
    assert payload["meta"]["config"]["hidden"] == src_meta["hidden"]
    for k, v in src_net.state_dict().items():
        assert torch.allclose(payload["model"][k], v, atol=1e-5), k
