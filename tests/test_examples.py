"""Smoke test of the RL-library-style examples under scripts/examples/."""

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts" / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cleanrl_style_dqn_beats_random_more_often_than_a_random_policy(capsys):
    dqn = _load("dqn_vector")
    out = dqn.main(["--total-steps", "3000", "--num-envs", "32", "--eval-games", "200", "--seed", "0"])
    trained, rand = out["DQN agent"], out["random policy"]
    assert trained["win_rate"] > rand["win_rate"]
    assert trained["ppg"] - trained["ci95"] > 0  # it beats random, with 95% confidence
    assert "DQN agent      vs random" in capsys.readouterr().out
