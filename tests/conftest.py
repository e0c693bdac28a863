import os
import tempfile

import pytest
import torch

# the user's bgrl folder (the store of games, the player token) is a temporary one in the tests,
# never ~/.bgrl; subprocesses inherit it
os.environ["BGRL_HOME"] = tempfile.mkdtemp(prefix="bgrl-test-home-")
os.environ.pop("BGRL_STORE", None)

# one intra-op thread: tests run beside other processes, where two threads can be far slower
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    """A small network trained for a few hundred games (not a strong one)."""
    from bgrl.training.loop import TrainConfig, train

    run = tmp_path_factory.mktemp("tiny")
    return train(TrainConfig(games=200, hidden=16, parallel=16, eval_every=0, checkpoint_every=100), run, progress=False, log=lambda *_: None)


@pytest.fixture(autouse=True)
def _games_dir(tmp_path, monkeypatch):
    """`bgrl play` saves game records; in tests they go to a temporary folder, never ~/.bgrl."""
    monkeypatch.setenv("BGRL_GAMES_DIR", str(tmp_path / "games"))
