"""Smoke test of the RL-library-style examples under scripts/examples/."""

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "scripts" / "examples"


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


@pytest.mark.slow  # about 25-30 s: a learning run (pytest -m slow)
def test_sb3_maskable_ppo_learns_to_beat_random(capsys):
    """The example's untrained policy is exactly the uniform random policy (its score layer starts
    at zero), whose win rate against random is 1/2 by symmetry (same dice, colours alternating).
    Over 400 games a win rate's standard error is at most 0.025, so the threshold 0.60 is 4 standard
    errors above 1/2: a policy that learnt nothing passes with probability below 5e-5. After 4,096
    decisions the sampling policy wins about 0.77-0.84 (seeds 0-2), the greedy one 0.94-0.98."""
    pytest.importorskip("sb3_contrib", reason="needs the examples extra: pip install -e '.[examples]'")
    ppo = _load("sb3_maskable_ppo")
    out = ppo.main(["--total-steps", "4096", "--eval-games", "400", "--seed", "0"])
    rand, sampled, greedy = out["random policy"], out["MaskablePPO"], out["MaskablePPO greedy"]
    assert sampled["games"] == greedy["games"] == 400
    assert sampled["win_rate"] >= 0.60 and greedy["win_rate"] >= 0.60
    assert sampled["ppg"] - sampled["ci95"] > rand["ppg"] + rand["ci95"]  # the intervals do not overlap
    assert "MaskablePPO        vs random" in capsys.readouterr().out


@pytest.mark.slow  # about 25-30 s: a learning run (pytest -m slow)
def test_torchrl_pettingzoo_self_play_learns():
    """Learning check: the trained network against its own initial weights, on paired dice. Were
    nothing learnt, the two players would be the same and every pair of games would cancel
    (ppg 0, win rate 1/2); with 400 games a win rate's standard error is at most 0.025, so 0.60
    is 4 standard errors above 1/2. After 3,000 plays it wins about 0.97 of them (seed 0)."""
    pytest.importorskip("torchrl", reason="needs the examples extra: pip install -e '.[examples]'")
    pytest.importorskip("pettingzoo", reason="needs the pettingzoo extra")
    trl = _load("torchrl_pettingzoo")
    out = trl.main(["--total-steps", "3000", "--eval-games", "400", "--seed", "0"])
    vs_initial, vs_random, initial = out["trained vs initial"], out["trained vs random"], out["initial vs random"]
    assert vs_initial["games"] == 400
    assert vs_initial["win_rate"] >= 0.60 and vs_initial["ppg"] - vs_initial["ci95"] > 0
    assert vs_random["win_rate"] >= 0.60 and vs_random["ppg"] > initial["ppg"]
