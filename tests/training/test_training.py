"""Trainer: TD(lambda) maths, checkpoints (atomic, safe loading), resume."""

import numpy as np
import pytest
import torch

from bgrl.evaluation.networks import CheckpointError, load_checkpoint, load_network, save_checkpoint
from bgrl.evaluation.encoding import encode, num_features
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import flip_probs
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
    from bgrl.agents.base import group_argmax
    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.evaluation.probabilities import equity
    from bgrl.rules.movegen import generate

    dice = rng_copy.integers(1, 7, size=(1, 2)).astype(np.int8)
    aft = generate(board, dice)
    probs = NetEvaluator(ref, td_enc, exact=False)(aft.boards)
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
    from bgrl.agents.base import group_argmax
    from bgrl.rules.board import START_BOARD, flip
    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.evaluation.probabilities import terminal_probs
    from bgrl.evaluation.probabilities import equity
    from bgrl.rules.movegen import generate
    from bgrl.rules.outcome import game_results

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
        probs = NetEvaluator(ref, enc, exact=False)(aft.boards)
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
    from bgrl.evaluation.networks import load_checkpoint, load_network
    from bgrl._resources import shipped_checkpoint
    from bgrl.training.loop import TrainConfig, train

    src_net, src_meta = load_network(shipped_checkpoint())
    final = train(TrainConfig(games=8, parallel=4, alpha=1e-9, eval_every=0, init_from="default"), tmp_path / "ft",
                  progress=False, log=lambda *a: None)
    payload = load_checkpoint(final)
    assert payload["meta"]["config"]["init_from"].endswith("default.pt")
    assert payload["meta"]["config"]["hidden"] == src_meta["hidden"]
    for k, v in src_net.state_dict().items():
        assert torch.allclose(payload["model"][k], v, atol=1e-5), k


# ---------------------------------------------------------------------------- fast trainer (issue 8)
def _pair(enc, G, lam, hidden=12, alpha=0.05, seed=1, **kw):
    from reference_td import DenseTraceTDLambda

    torch.manual_seed(0)
    a = TDNet(num_features(enc), hidden)
    b = TDNet(num_features(enc), hidden)
    b.load_state_dict(a.state_dict())
    fast = TDLambda(a, enc, G, alpha, lam, np.random.default_rng(seed), **kw)
    dense = DenseTraceTDLambda(b, enc, G, alpha, lam, np.random.default_rng(seed))
    return a, b, fast, dense


@pytest.mark.parametrize("enc,G,lam,kernel", [("td198r", 6, 0.7, None), ("td198r", 6, 0.7, False), ("td198", 3, 0.0, None),
                                              ("td198r", 3, 1.0, None)])
def test_fast_trainer_equals_dense_traces(enc, G, lam, kernel):
    """The history-row trainer plays the same games and reaches the same weights as the
    dense-trace reference (which test_traces_match_naive_backward_view checks against a
    per-game autograd implementation), over finished games and fresh ones."""
    a, b, fast, dense = _pair(enc, G, lam, kernel=kernel)
    finished = 0
    for step in range(130):
        oa, ob = fast.step(), dense.step()
        assert np.array_equal(fast.boards, dense.boards), step
        assert np.array_equal(oa["finished"], ob["finished"]) and np.array_equal(oa["lengths"], ob["lengths"])
        finished += len(oa["finished"])
    assert finished >= 1
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.allclose(p, q, atol=2e-6), (p - q).abs().max()


def test_after_state_tables_equal_net_evaluator():
    """Table look-ups give NetEvaluator's values (bounds, terminal results included) on
    positions of every kind: random games and synthetic bar / closed-board / bear-off ones."""
    from positions import random_game_positions, synthetic_positions

    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.evaluation.table import TableNetEvaluator
    from bgrl.rules.movegen import generate

    rng = np.random.default_rng(4)
    for enc in ("td198r", "td198", "td198g"):
        torch.manual_seed(3)
        net = TDNet(num_features(enc), 10)
        from bgrl.evaluation.exact import exact_probs

        pairs = ((TableNetEvaluator(net, enc, exact=False, small_batch=0), NetEvaluator(net, enc, exact=False)),
                 (TableNetEvaluator(net, enc, exact=exact_probs, small_batch=0), NetEvaluator(net, enc)))
        for boards, dice in (random_game_positions(rng, 600), synthetic_positions(rng, 600)):
            after = generate(boards, dice).boards
            for fast, ref in pairs:
                assert np.allclose(fast(after), ref(after), atol=2e-6)


def _first_max(values, offsets):
    """Plain-loop reference: the first index of each group's largest number (NaN skipped; a
    group of NaNs gives its first index)."""
    out = []
    for i in range(len(offsets) - 1):
        best, v_best = offsets[i], None
        for r in range(offsets[i], offsets[i + 1]):
            if not np.isnan(values[r]) and (v_best is None or values[r] > v_best):
                best, v_best = r, values[r]
        out.append(best)
    return np.array(out)


def test_group_argmax_owner_and_compiled_twin_agree():
    """The one numpy owner (bgrl.agents.base.group_argmax) against a plain loop and against the
    TD trainer's compiled twin (which values rows by their cubeless equity): ties to the first,
    NaN never chosen while its group holds a number, -inf groups to their first row."""
    from bgrl.agents.base import group_argmax
    from bgrl.evaluation.probabilities import equity
    from bgrl.training import _kernels

    rng = np.random.default_rng(0)
    counts = rng.integers(1, 9, size=400)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    m = int(offsets[-1])
    probs = rng.integers(0, 4, size=(m, 5)) / 4.0  # coarse: many equal equities, the first wins
    probs[rng.random(m) < 0.05] = np.nan
    probs[offsets[7]:offsets[8]] = np.nan  # a group of NaNs only
    values = equity(probs)
    values[offsets[9]:offsets[10]] = -np.inf
    g = int(np.flatnonzero(counts >= 3)[0])
    values[offsets[g]:offsets[g + 1]] = -np.inf
    values[offsets[g]] = np.nan  # a NaN first, then -inf rows (a masked play): the -inf wins
    want = _first_max(values, offsets)
    assert want[g] == offsets[g] + 1
    finite = values[np.isfinite(values)]
    assert np.isnan(values).any() and np.unique(finite).size < finite.size  # NaNs and ties
    np.testing.assert_array_equal(group_argmax(values, offsets), want)
    np.testing.assert_array_equal(group_argmax(values.astype(np.float32), offsets), want)
    if _kernels.AVAILABLE:
        probs[offsets[9]:offsets[10]] = [0.0, 0.0, 0.0, 1.0, 1.0]  # the lowest equity the twin can see
        best = np.empty(offsets.size - 1, dtype=np.int64)
        _kernels.group_argmax(probs, offsets, best)
        np.testing.assert_array_equal(best, _first_max(equity(probs), offsets))
        np.testing.assert_array_equal(best, group_argmax(equity(probs), offsets))
    np.testing.assert_array_equal(group_argmax(np.array([np.nan, np.nan, 1.0]), [0, 2, 3]), [0, 2])
    np.testing.assert_array_equal(group_argmax(np.array([np.nan]), np.array([0, 1], dtype=np.uint64)), [0])
    np.testing.assert_array_equal(group_argmax(np.array([3, 7, 7], dtype=np.int16), [0, 3]), [1])
    assert group_argmax(np.zeros(0), [0]).shape == (0,)
    for bad in ([0, 0, 2], [0, 2, 2], [0, 1], [1, 2], [0.0, 2.0], [[0, 2]]):  # empty groups, wrong ends, dtypes
        with pytest.raises(ValueError, match="offsets must"):
            group_argmax(np.zeros(2), bad)
    for bad in (np.array([[1.0], [3.0]]), np.array(2.0), np.array([1 + 1j, 2j]), np.array(["a", "b"])):
        with pytest.raises(ValueError, match="values must be a 1-D array of real numbers"):  # an (M, 1) column too
            group_argmax(bad, [0, 2])


def test_exact_bearoff_values_are_used():
    """With the bear-off database, exact bear-off after-states get the database's values
    (flipped to the player's side), never the network's."""
    from bgrl.evaluation.bearoff import exact_probs
    from bgrl.rules.board import flip
    from bgrl.evaluation.probabilities import flip_probs
    from bgrl.evaluation.table import TableNetEvaluator
    from bgrl.rules.movegen import generate

    from positions import synthetic_positions

    boards, dice = synthetic_positions(np.random.default_rng(5), 800)
    after = generate(boards, dice).boards
    known, ex = exact_probs(flip(after))
    from bgrl.rules.outcome import game_results

    known &= game_results(after) == 0
    assert known.sum() > 20
    net = TDNet(num_features(), 8)
    got = TableNetEvaluator(net, "td198r", exact=exact_probs, small_batch=0)(after)
    assert np.allclose(got[known], flip_probs(ex[known]), atol=1e-12)
    plain = TableNetEvaluator(net, "td198r", exact=False, small_batch=0)(after)
    assert np.allclose(got[~known], plain[~known])


def test_bearoff_positions_add_no_gradient_and_use_exact_values():
    """A game whose position is an exact bear-off adds no history row (V does not depend on
    the weights there) and its delta uses the exact value."""
    from bgrl.evaluation.bearoff import exact_probs
    from bgrl.rules.board import Position

    net = TDNet(num_features(), 8)
    td = TDLambda(net, "td198r", 2, 0.1, 0.7, np.random.default_rng(0), exact=exact_probs)
    bo = Position.from_id("qxUAAFgbAAAAAA").board  # both sides bearing off (issue 8's example)
    td.boards = np.stack([bo, td.boards[1]])
    before = [p.clone() for p in net.parameters()]
    td.step()
    assert td._n == 1 and td._owner[0] == 1  # only the contact game recorded a row
    assert any(not torch.equal(p, q) for p, q in zip(before, net.parameters()))


def _tiny(**kw):
    base = dict(games=40, hidden=8, parallel=4, eval_every=0, checkpoint_every=10, seed=3, alpha=0.05)
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.parametrize("kill_after", [1, 2])
def test_resume_is_bit_for_bit(tmp_path, kill_after):
    """A run stopped right after its k-th checkpoint (as if killed there) and resumed ends
    with exactly the weights of the run that was never stopped."""
    quiet = dict(progress=False, log=lambda *_: None)
    full = train(_tiny(), tmp_path / "full", **quiet)
    assert train(_tiny(), tmp_path / "cut", stop_after_checkpoints=kill_after, **quiet) is None
    assert not (tmp_path / "cut" / "final.pt").exists()
    played = load_checkpoint(tmp_path / "cut" / "latest.pt")["meta"]["games"]
    assert 10 * kill_after <= played < 40
    resumed = train(None, tmp_path / "cut", resume=True, **quiet)
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    assert a["meta"]["games"] == b["meta"]["games"] and a["meta"]["plies"] == b["meta"]["plies"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert a["trainer"]["rng"] == b["trainer"]["rng"]


def test_resume_after_kill_then_more_games_matches_one_long_run(tmp_path):
    """Stopped twice, resumed twice with a larger total: still the uninterrupted weights."""
    quiet = dict(progress=False, log=lambda *_: None)
    full = train(_tiny(games=36), tmp_path / "full", **quiet)
    train(_tiny(games=24), tmp_path / "cut", stop_after_checkpoints=1, **quiet)
    train(None, tmp_path / "cut", resume=True, stop_after_checkpoints=1, **quiet)
    resumed = train(None, tmp_path / "cut", resume=True, overrides={"games": 36}, **quiet)
    # the first segment targeted 24 games; with a constant alpha everything else agrees
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_config_file_and_flags(tmp_path):
    from bgrl.cli import main

    (tmp_path / "c.toml").write_text('games = 12\nhidden = 6\nparallel = 4\nalpha-final = 0.01\nlambda = 0.5\neval_every = 0\n')
    assert main(["train", "--config", str(tmp_path / "c.toml"), "--run-dir", str(tmp_path / "r"), "--parallel", "3",
                 "--no-progress"]) == 0
    cfg = load_checkpoint(tmp_path / "r" / "final.pt")["meta"]["config"]
    assert (cfg["hidden"], cfg["parallel"], cfg["alpha_final"], cfg["lam"], cfg["games"]) == (6, 3, 0.01, 0.5, 12)
    (tmp_path / "c.json").write_text('{"games": 8, "hidden": 5, "parallel": 2, "eval-every": 0, "run_dir": "%s"}' % (tmp_path / "j"))
    assert main(["train", "--config", str(tmp_path / "c.json"), "--no-progress"]) == 0
    assert load_checkpoint(tmp_path / "j" / "final.pt")["meta"]["hidden"] == 5
    (tmp_path / "bad.toml").write_text("gamez = 3\n")
    assert main(["train", "--config", str(tmp_path / "bad.toml"), "--run-dir", str(tmp_path / "b")]) == 2
    (tmp_path / "broken.toml").write_text("games = = 3\n")
    assert main(["train", "--config", str(tmp_path / "broken.toml"), "--run-dir", str(tmp_path / "b")]) == 2


def test_cli_messages_resume_and_run_folder(tmp_path, capsys):
    from bgrl.cli import main

    run = tmp_path / "r"
    assert main(["train", "--run-dir", str(run), "--games", "10", "--hidden", "6", "--parallel", "4", "--eval-every", "0",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "done: " in out and f"bgrl match {run / 'final.pt'} pubeval" in out and f"bgrl play --opponent {run / 'final.pt'}" in out
    # an existing run folder is refused before anything says it will be used
    assert main(["train", "--run-dir", str(run), "--games", "10", "--no-progress"]) == 2
    cap = capsys.readouterr()
    assert "run folder:" not in cap.out + cap.err and "--resume" in cap.err
    # a finished run resumed without --games: no claim that --games was given
    assert main(["train", "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "is finished" in err and "got" not in err and "--games" in err
    # errors name the flag
    assert main(["train", "--run-dir", str(tmp_path / "s"), "--seed", "-1"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert main(["train", "--run-dir", str(tmp_path / "s"), "--games", "0"]) == 2
    assert "--games must be >= 1" in capsys.readouterr().err
    assert main(["train", "--run-dir", str(tmp_path / "s"), "--lambda", "2"]) == 2
    assert "--lambda" in capsys.readouterr().err


def test_resume_with_corrupt_latest_offers_snapshot(tmp_path, capsys):
    from bgrl.cli import main

    run = tmp_path / "r"
    train(_tiny(games=30, eval_every=10, eval_games=2), run, progress=False, log=lambda *_: None)
    snaps = sorted(run.glob("games_*.pt"))
    assert snaps
    (run / "latest.pt").write_bytes(b"not a checkpoint")
    assert main(["train", "--resume", str(run), "--games", "60", "--no-progress"]) == 2
    err = capsys.readouterr().err
    newest = max(snaps, key=lambda p: int(p.stem.split("_")[1]))
    assert "corrupt" in err and str(newest) in err


def test_short_resumed_segment_logs_training_scalars(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = tmp_path / "r"
    train(_tiny(games=20), run, progress=False, log=lambda *_: None)
    for f in (run / "tb").iterdir():
        f.unlink()
    train(None, run, resume=True, overrides={"games": 30}, progress=False, log=lambda *_: None)
    ea = EventAccumulator(str(run / "tb"))
    ea.Reload()
    assert "train/td_error_mse" in ea.Tags()["scalars"] and "train/game_length_plies" in ea.Tags()["scalars"]


def test_benchmark_hook_is_called_and_logged(tmp_path):
    calls = []

    def hook(evaluator, games):
        from bgrl.rules.board import START_BOARD

        p = evaluator(START_BOARD[None])
        calls.append(games)
        return {"all": float(p[0, 0]), "note": "text is not logged"}

    out = []
    train(_tiny(games=40, benchmark_every=15), tmp_path / "r", progress=False, log=out.append, benchmark=hook)
    assert len(calls) == 2 and calls[0] >= 15
    assert any("[benchmark" in line and "all" in line for line in out)


def test_ctrl_c_saves_a_state_that_resumes_bit_for_bit(tmp_path):
    """Ctrl-C (SIGINT) mid-run: the step finishes, latest.pt is saved, KeyboardInterrupt is
    raised; resuming gives exactly the weights of the run that was never interrupted."""
    import signal

    quiet = dict(progress=False, log=lambda *_: None)
    full = train(_tiny(games=30, benchmark_every=13), tmp_path / "full", benchmark=lambda ev, g: {}, **quiet)

    def interrupt(ev, games):
        signal.raise_signal(signal.SIGINT)
        return {}

    with pytest.raises(KeyboardInterrupt):
        train(_tiny(games=30, benchmark_every=13), tmp_path / "cut", benchmark=interrupt, **quiet)
    assert 13 <= load_checkpoint(tmp_path / "cut" / "latest.pt")["meta"]["games"] < 30
    resumed = train(None, tmp_path / "cut", resume=True, benchmark=lambda ev, g: {}, **quiet)
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


def test_benchmark_flag_without_the_module_is_a_clean_error(tmp_path, monkeypatch, capsys):
    import bgrl.cli.train as tcli
    from bgrl.cli import main

    monkeypatch.setattr(tcli, "_benchmark_hook", lambda: None)
    assert main(["train", "--run-dir", str(tmp_path / "r"), "--benchmark-every", "5"]) == 2
    assert "--benchmark-every" in capsys.readouterr().err


@pytest.mark.parametrize("content, words", [(b"\xb8\x00\xff\x10binary", "not a text file"), (b"run_dir = 5\n", "run_dir must be a string")])
def test_config_file_errors_name_the_flag(tmp_path, capsys, content, words):
    """adversarial check: a binary --config file or a run_dir of the wrong type is a one-line
    error naming --config."""
    from bgrl.cli import main

    cfg = tmp_path / "c.toml"
    cfg.write_bytes(content)
    assert main(["train", "--config", str(cfg), "--run-dir", str(tmp_path / "r"), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "--config" in err and words in err



@pytest.mark.parametrize("lam", [0.7, 0.0, 1.0, 0.05])
def test_chain_update_equals_full_rows(lam):
    """The compiled update through chains of input changes (issue 39) gives the weight
    changes of the full-row update (each row's inputs in full, the update before issue 39)
    within float32 association, at every step of games that finish and start again, with
    rows dropping out (lambda^age underflowing: lambda = 0.05 and 0)."""
    from bgrl.training import _kernels

    if not _kernels.AVAILABLE:  # pragma: no cover
        pytest.skip("numba is not installed")
    torch.manual_seed(0)
    td = TDLambda(TDNet(num_features("td198r"), 16), "td198r", 5, 0.05, lam, np.random.default_rng(3), kernel=True)
    rng = np.random.default_rng(0)
    finished, linked, roots = 0, 0, 0
    for step in range(160):
        finished += len(td.step()["finished"])
        n, t, G = td._n, td.t, td.G
        k, pk = td._k[:n], td._pk[:n]
        age = t - k
        lam_pow = np.power(lam, np.arange(t + 2, dtype=np.float64))
        w = np.where(td._alive[:n], lam_pow[age], 0.0).astype(np.float32)
        root = (pk < 0) | (lam_pow[np.where(pk >= 0, t - pk, 0)].astype(np.float32) == 0)
        both = rng.normal(0, 0.05, size=(2 * G, 5)).astype(np.float32)
        sel = td._owner[:n] + G * (age & 1)
        common = (td._Hh.numpy()[:n], td._gy.numpy()[:n], w, sel, k % td._R, both, td._ring.numpy())
        full = _kernels.history_update(td._cols[:n], td._vals[:n], td._nnz[:n], *common, td.net.n_inputs)
        alive = td._alive[:n].copy()
        chain = _kernels.chain_update(td._cols[:n], td._vals[:n], td._nnz[:n], td._dcols[:n], td._dvals[:n], td._dnnz[:n],
                                      pk, k, td._owner[:n], alive, t, lam_pow, G, td._R, td._Hh.numpy()[:n],
                                      td._gy.numpy()[:n], both, td._ring.numpy(), td.net.n_inputs)
        for x, y in zip(full, chain):
            assert np.allclose(x, y, rtol=1e-5, atol=1e-6), (step, np.abs(x - y).max())
        assert np.array_equal(alive, td._alive[:n] & (w > 0))  # rows whose weight underflowed drop out
        live = w > 0
        linked += int((~root & live).sum())
        roots += int((root & live & (pk >= 0)).sum())  # chains cut where the older rows dropped out
    assert finished >= 1
    if lam > 0:
        assert linked > 0
    if lam == 0.05:
        assert roots > 0


def test_compiled_compaction_and_choice_equal_numpy():
    """The trainer's compiled compaction and greedy choice (issue 39) give the numpy code's
    history arrays and plays: two trainers on the same dice, one inside compiled.disabled(),
    play the same games and hold the same history rows after every step."""
    from bgrl.evaluation import compiled
    from bgrl.training import _kernels

    if not _kernels.AVAILABLE:  # pragma: no cover
        pytest.skip("numba is not installed")
    compiled.ensure(import_numba=True)
    torch.manual_seed(0)
    a = TDNet(num_features("td198r"), 8)
    b = TDNet(num_features("td198r"), 8)
    b.load_state_dict(a.state_dict())
    x = TDLambda(a, "td198r", 4, 0.0, 0.5, np.random.default_rng(5), kernel=True)  # alpha 0: the same weights
    y = TDLambda(b, "td198r", 4, 0.0, 0.5, np.random.default_rng(5), kernel=True)
    compactions = 0
    for step in range(120):
        n_before = x._n
        x.step()
        with compiled.disabled():
            y.step()
        compactions += x._n < n_before
        assert np.array_equal(x.boards, y.boards), step
        n = x._n
        assert n == y._n
        for u, v in ((x._k, y._k), (x._owner, y._owner), (x._alive, y._alive), (x._B, y._B), (x._pk, y._pk),
                     (x._nnz, y._nnz), (x._dnnz, y._dnnz), (x._last, y._last)):
            assert np.array_equal(u[:n] if u.shape[0] != 4 else u, v[:n] if v.shape[0] != 4 else v), step
        assert torch.equal(x._Hh[:n], y._Hh[:n]) and torch.equal(x._gy[:n], y._gy[:n])
    assert compactions > 0
