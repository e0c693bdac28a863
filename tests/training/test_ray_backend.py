"""`bgrl train --backend ray`: determinism (local rounds = 1 actor = 2 actors), an actor killed
mid-round, checkpoint/resume through the CLI, and (slow) Ray's two-node cluster simulation.
Skipped when Ray (the `bgrl[ray]` extra) is not installed."""

import os
import time

import pytest
import torch

ray = pytest.importorskip("ray")

from bgrl.evaluation.model import TDNet  # noqa: E402
from bgrl.evaluation.encoding import ENCODER as ENC, num_features  # noqa: E402
from bgrl.training.rounds import LocalRunner, RoundsTrainer  # noqa: E402
from bgrl.training.ray_backend import RayRunner  # noqa: E402

_OBJECT_STORE = 80 * 1024 * 1024


@pytest.fixture(scope="module")
def local_ray():
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if ray.is_initialized():
        ray.shutdown()
    # logical CPUs for scheduling only: the module's two_actors fixture holds two actors (num_cpus=1
    # each) while the CLI tests start their own; with 2 the CLI's actors waited forever
    ray.init(num_cpus=8, object_store_memory=_OBJECT_STORE, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def two_actors(local_ray):
    r = RayRunner(ENC, 8, 0.7, 6, True, actors=2)
    yield r
    r.close()


def _weights_after(runner, rounds=2, seed=6):
    torch.manual_seed(seed)
    net = TDNet(num_features(ENC), 8)
    tr = RoundsTrainer(net, round_games=8, task_games=2, alpha=0.05, lam=0.7, seed=seed, runner=runner)
    for _ in range(rounds):
        tr.step()
    return {k: v.clone() for k, v in net.state_dict().items()}


def _same(a, b):
    return all(torch.equal(a[k], b[k]) for k in a)


_LOCAL = {}


def _local():
    if not _LOCAL:
        _LOCAL.update(_weights_after(LocalRunner(ENC, 8, 0.7, 6, True)))
    return _LOCAL


def test_local_equals_one_and_two_actors_bit_for_bit(two_actors):
    one = RayRunner(ENC, 8, 0.7, 6, True, handles=two_actors.actors[:1])
    assert _same(_local(), _weights_after(one))
    assert _same(_local(), _weights_after(two_actors))
    assert one.replayed_tasks == two_actors.replayed_tasks == 0
    torch.manual_seed(6)
    assert not _same(_local(), TDNet(num_features(ENC), 8).state_dict())  # training moved the weights


def test_ray_train_checkpoints_and_resumes_like_local_rounds(two_actors, tmp_path):
    from bgrl.cli import main
    from bgrl.training.loop import TrainConfig, train

    def make(net, config, exact):
        runner = RayRunner(config.encoder, net.hidden, config.lam, config.seed, config.bearoff, handles=two_actors.actors)
        return RoundsTrainer(net, config.parallel, 2, config.alpha, config.lam, config.seed, runner)

    cfg = TrainConfig(games=24, hidden=8, parallel=8, alpha=0.1, seed=6, eval_every=0, checkpoint_every=8)
    quiet = {"progress": False, "log": lambda *a: None}
    assert train(cfg, tmp_path / "a", stop_after_checkpoints=2, make_learner=make, **quiet) is None  # "killed" at 16
    assert (tmp_path / "a" / "latest.pt").is_file() and list((tmp_path / "a" / "tb").iterdir())
    train(None, tmp_path / "a", resume=True, make_learner=make, **quiet)
    assert main(["train", "--backend", "local-rounds", "--task-games", "2", "--games", "24", "--hidden", "8", "--parallel", "8",
                 "--seed", "6", "--eval-every", "0", "--no-progress", "--run-dir", str(tmp_path / "b")]) == 0
    a = torch.load(tmp_path / "a" / "final.pt", weights_only=True)
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=True)
    assert a["meta"]["games"] == b["meta"]["games"] == 24
    assert _same(a["model"], b["model"])


def test_killed_actor_is_restarted_and_its_games_replayed(two_actors):
    r = two_actors
    killed = []

    def kill_once(runner):
        if not killed:
            pid = ray.get(runner.actors[0].pid.remote())
            ray.kill(runner.actors[0], no_restart=False)  # mid-round: its first task is in flight
            killed.append(pid)

    r.after_submit = kill_once
    before = r.replayed_tasks
    got = _weights_after(r)
    r.after_submit = None
    assert killed and r.replayed_tasks > before
    for _ in range(300):  # the replay may have gone to the other actor while this one restarted
        try:
            pid = ray.get(r.actors[0].pid.remote())
            break
        except ray.exceptions.RayActorError:
            time.sleep(0.1)
    assert pid != killed[0]  # a restarted process
    assert _same(_local(), got)


@pytest.mark.slow
def test_cli_ray_backend_trains_checkpoints_and_resumes(local_ray, tmp_path):
    from bgrl.cli import main

    common = ["--hidden", "8", "--parallel", "8", "--task-games", "2", "--seed", "3", "--eval-every", "0",
              "--checkpoint-every", "8", "--no-progress"]
    assert main(["train", "--backend", "ray", "--actors", "2", "--games", "16", "--run-dir", str(tmp_path / "a")] + common) == 0
    assert main(["train", "--backend", "ray", "--actors", "1", "--resume", str(tmp_path / "a"), "--games", "24",
                 "--no-progress"]) == 0
    assert main(["train", "--backend", "local-rounds", "--games", "24", "--run-dir", str(tmp_path / "b")] + common) == 0
    a = torch.load(tmp_path / "a" / "final.pt", weights_only=True)
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=True)
    assert a["meta"]["games"] == b["meta"]["games"] == 24
    assert _same(a["model"], b["model"])


@pytest.mark.slow
def test_two_node_cluster_simulation_matches_local():
    from ray.cluster_utils import Cluster

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": _OBJECT_STORE,
                                                            "include_dashboard": False})
    cluster.add_node(num_cpus=1, object_store_memory=_OBJECT_STORE)
    try:
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        cluster.wait_for_nodes()
        r = RayRunner(ENC, 8, 0.7, 6, True, actors=2)
        try:
            nodes = {ray.get(a.node.remote()) for a in r.actors}
            got = _weights_after(r)
        finally:
            r.close()
        assert len(ray.nodes()) == 2 and len(nodes) == 2  # one actor on each node
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert _same(_weights_after(LocalRunner(ENC, 8, 0.7, 6, True)), got)


def test_cli_rejects_ray_flags_without_ray_backend(capsys):
    from bgrl.cli import main

    assert main(["train", "--actors", "2", "--games", "4"]) == 2
    assert "--actors needs --backend ray" in capsys.readouterr().err


def test_ray_run_records_its_backend_and_the_printed_resume_command_works(local_ray, tmp_path, capsys):
    """After a Ray run, `bgrl train --resume RUN --games N` (as printed, no --backend) continues
    on Ray with the run's number of actors, and ends with the weights of local-rounds."""
    from bgrl.cli import main

    common = ["--hidden", "6", "--parallel", "8", "--task-games", "2", "--seed", "5", "--eval-every", "0", "--no-progress"]
    assert main(["train", "--backend", "ray", "--actors", "2", "--games", "8", "--run-dir", str(tmp_path / "a")] + common) == 0
    td = torch.load(tmp_path / "a" / "latest.pt", weights_only=True)["trainer"]["td"]
    assert (td["backend"], td["actors"]) == ("ray", 2)
    out = capsys.readouterr().out
    cmd = next(line.split("#")[0].split() for line in out.splitlines() if "bgrl train --resume" in line)
    assert cmd[:4] == ["bgrl", "train", "--resume", str(tmp_path / "a")]
    assert main(cmd[1:] + ["--no-progress"]) == 0
    assert "resuming with --backend ray --actors 2 (recorded in the run folder)" in capsys.readouterr().out
    total = int(cmd[cmd.index("--games") + 1])
    assert main(["train", "--backend", "local-rounds", "--games", str(total), "--run-dir", str(tmp_path / "b")] + common) == 0
    a = torch.load(tmp_path / "a" / "final.pt", weights_only=True)
    b = torch.load(tmp_path / "b" / "final.pt", weights_only=True)
    assert a["meta"]["games"] == b["meta"]["games"] == total
    assert _same(a["model"], b["model"])
