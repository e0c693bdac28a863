"""bgrl.env.sb3: the Stable-Baselines3 VecEnv over the native vector env (issue 42)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="needs the examples extra: pip install -e '.[examples]'")

import gymnasium as gym  # noqa: E402
from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor, VecNormalize  # noqa: E402
from stable_baselines3.common.utils import check_for_correct_spaces  # noqa: E402

import bgrl.env  # noqa: E402,F401
from bgrl.env.backgammon import MAX_PLAYS  # noqa: E402
from bgrl.env.sb3 import BackgammonSB3VecEnv  # noqa: E402


def _random_actions(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


@pytest.mark.parametrize("kw", [{"action_mode": "checker", "opponent": "random"}, {"opponent": "random"},
                                {"self_play": True}])
def test_protocol_same_step_reset_and_masks(kw):
    venv = BackgammonSB3VecEnv(4, **kw)
    assert isinstance(venv, VecEnv) and venv.num_envs == 4
    n_actions = 156 if kw.get("action_mode") == "checker" else MAX_PLAYS
    assert venv.action_space == gym.spaces.Discrete(n_actions)
    check_for_correct_spaces(venv, venv.observation_space, venv.action_space)
    wrapped = VecMonitor(VecCheckNan(venv, raise_exception=True))
    wrapped.seed(1)
    obs = wrapped.reset()
    assert obs.shape == (4, *venv.observation_space.shape) and venv.observation_space.contains(obs[0])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600 if kw.get("action_mode") == "checker" else 300):
        masks = np.stack(wrapped.env_method("action_masks"))
        assert masks.shape == (4, n_actions) and masks.dtype == bool and masks.any(axis=1).all()  # never a dead row
        np.testing.assert_array_equal(masks, venv.action_masks())
        obs, rewards, dones, infos = wrapped.step(_random_actions(rng, masks))
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 4
        for i in range(4):
            if dones[i]:
                ended += 1
                info = infos[i]
                assert abs(rewards[i]) in (1, 2, 3) and info["points"] == abs(rewards[i])
                assert info["winner"] in ("white", "black") and info["TimeLimit.truncated"] is False
                assert info["terminal_observation"].shape == venv.observation_space.shape
                assert "episode" in info  # VecMonitor read the same-step reset
                assert not np.array_equal(info["terminal_observation"], obs[i])  # obs[i]: the new game's first
            else:
                assert rewards[i] == 0 and "terminal_observation" not in infos[i]
    assert ended > 0
    norm = VecNormalize(BackgammonSB3VecEnv(2, opponent="random"), norm_reward=False)
    obs = norm.reset()
    for _ in range(5):
        obs, _r, _d, _i = norm.step(_random_actions(rng, norm.env_method("action_masks")))
    assert np.isfinite(obs).all()


def test_seeded_games_are_the_single_envs():
    """After ``seed(s)``, game i is the self-play single env reset with seed s + i (same dice)."""
    venv = BackgammonSB3VecEnv(3, self_play=True)
    venv.seed(11)
    obs = venv.reset()
    for i in range(3):
        single = gym.make("bgrl/BackgammonSelfPlay-v0", notation=False)
        o, info = single.reset(seed=11 + i)
        np.testing.assert_array_equal(obs[i], o)
        assert tuple(venv.venv._dice[i]) == info["dice"]
    venv.seed(11)
    np.testing.assert_array_equal(venv.reset(), obs)  # seeding again repeats the games


def test_reset_options_attributes_and_methods():
    venv = BackgammonSB3VecEnv(2, opponent="random")
    venv.set_options({"position": "4HPwATDgc/ABMA", "dice": [3, 1]})
    venv.reset()
    assert venv.action_masks().sum(axis=1).tolist() == [16, 16]  # the 16 plays of the opening 3-1
    assert venv.get_attr("num_envs") == [2, 2]
    assert all(callable(m) for m in venv.get_attr("action_masks"))  # sb3-contrib's is_masking_supported
    assert len(venv.env_method("action_masks", indices=[1])) == 1
    assert venv.env_is_wrapped(gym.Wrapper) == [False, False]
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    with pytest.raises(ValueError, match="set_attr"):
        venv.set_attr("agent_color", "white", indices=[0])
    venv.set_attr("agent_color", "white")
    assert venv.venv.agent_color == "white"
    with pytest.raises(ValueError, match="observation"):
        BackgammonSB3VecEnv(2, observation="pixels")
    with pytest.raises(ValueError, match="action_mode='play'"):
        BackgammonSB3VecEnv(2, observation="after_states", action_mode="checker")


def test_after_state_observations_are_the_boards_and_plays():
    venv = BackgammonSB3VecEnv(3, opponent="random", observation="after_states")
    obs = venv.reset()
    assert obs.shape == (3, MAX_PLAYS + 1, 26) and obs.dtype == np.int8
    after = venv.venv.after_states()
    for i in range(3):
        k = int(after.counts[i])
        np.testing.assert_array_equal(obs[i, 1:1 + k], after.group(i))
        assert not obs[i, 1 + k:].any()


@pytest.mark.parametrize("kw", [{"action_mode": "checker"}, {"observation": "after_states"}])
def test_maskable_ppo_trains_on_it(kw):
    sb3c = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = BackgammonSB3VecEnv(2, opponent="random", **kw)
    assert is_masking_supported(venv) and get_action_masks(venv).shape == (2, venv.action_space.n)
    if "observation" in kw:
        import importlib.util as iu
        from pathlib import Path

        path = Path(__file__).parents[2] / "scripts" / "examples" / "sb3_maskable_ppo.py"
        spec = iu.spec_from_file_location("sb3_maskable_ppo", path)
        mod = iu.module_from_spec(spec)
        spec.loader.exec_module(mod)
        policy = mod.AfterStatePolicy
    else:
        policy = "MlpPolicy"
    model = sb3c.MaskablePPO(policy, venv, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    assert model.num_timesteps >= 64
