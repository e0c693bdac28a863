"""The PettingZoo AEC environment (bgrl.env.pettingzoo_env) under PettingZoo's own tests."""

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")  # the optional extra bgrl[pettingzoo]

from pettingzoo.test import api_test, seed_test  # noqa: E402

import bgrl.env  # noqa: E402
from bgrl.rules.board import START_BOARD  # noqa: E402
from bgrl.env import BackgammonSelfPlayEnv  # noqa: E402


def test_api_test():
    api_test(bgrl.env.pettingzoo_env(), num_cycles=200)


def test_seed_test():
    seed_test(lambda: bgrl.env.pettingzoo_env(), num_cycles=200)


def play(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    movers, boards = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        movers.append(agent)
        boards.append(info["board"].copy())
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return movers, boards, env


def test_game_contents_and_rewards():
    env = bgrl.env.pettingzoo_env()
    env.reset(seed=3)
    assert env.agents == ["white", "black"] and env.agent_selection == "white"
    obs, _, _, _, info = env.last()
    assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(info["board"], START_BOARD)
    assert obs["action_mask"].sum() == len(info["after_states"]) > 0
    assert not env.observe("black")["action_mask"].any()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(int(obs["action_mask"].sum()))
    movers, _, env = play(env, seed=3)
    assert {"white", "black"} <= set(movers) and env.agents == []
    assert not env.agents  # every agent stepped out after termination


def test_same_dice_as_the_self_play_env():
    # one rules core: with the same seed and the same choices the games are identical
    env = bgrl.env.pettingzoo_env()
    env.reset(seed=11)
    single = BackgammonSelfPlayEnv(notation=False)
    _, sinfo = single.reset(seed=11)
    for _ in range(40):
        agent = env.agent_selection
        obs, _, term, _, info = env.last()
        assert agent == sinfo["to_move"] and info["dice"] == sinfo["dice"]
        np.testing.assert_array_equal(info["after_states"], np.stack(sinfo["after_states"]))
        k = len(info["after_states"]) - 1
        env.step(k)
        _, r, sterm, _, sinfo = single.step(k)
        if sterm:
            assert env.terminations[agent] and env.rewards[agent] == r
            break


def test_array_infos_keep_one_schema_and_pass_the_api_tests():
    """infos="arrays": the same keys, shapes and dtypes on every step (TorchRL stores infos in
    tensors whose specs come from the first reset), and PettingZoo's own tests still pass."""
    from bgrl.env.pettingzoo import BackgammonAECEnv

    api_test(BackgammonAECEnv(infos="arrays"), num_cycles=200)
    seed_test(lambda: BackgammonAECEnv(infos="arrays"), num_cycles=200)
    env = BackgammonAECEnv(infos="arrays")
    env.reset(seed=5)
    schema = {a: {k: (np.asarray(v).shape, np.asarray(v).dtype) for k, v in env.infos[a].items()} for a in env.agents}
    assert schema["white"] == {"dice": ((2,), np.int8), "board": ((26,), np.int8), "points": ((), np.int64)}
    full = BackgammonAECEnv()
    full.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert {k: (np.asarray(v).shape, np.asarray(v).dtype) for k, v in info.items()} == schema[agent]
        if term or trunc:
            assert info["points"] == reward != 0 and not info["dice"].any()
            env.step(None)
            continue
        assert tuple(info["dice"]) == full.infos[agent]["dice"]  # the same game as the full infos
        np.testing.assert_array_equal(info["board"], full.infos[agent]["board"])
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        full.step(a)


def test_infos_argument_is_checked():
    from bgrl.env.pettingzoo import BackgammonAECEnv

    with pytest.raises(ValueError, match="infos must be 'full' or 'arrays'"):
        BackgammonAECEnv(infos="dict")


def test_torchrl_wrapper_specs():
    """TorchRL's PettingZooWrapper builds specs from the array infos and its check_env_specs passes
    (with infos="full" it cannot: None dice and variable-size after-states have no tensor spec)."""
    pytest.importorskip("torchrl", reason="needs the examples extra")
    import warnings

    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    from bgrl.env.pettingzoo import BackgammonAECEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the PettingZoo version TorchRL was tested with
        env = PettingZooWrapper(env=BackgammonAECEnv(infos="arrays"), use_mask=True, categorical_actions=True, seed=0)
    check_env_specs(env)
    td = env.reset()
    assert bool(td["white", "mask"][0]) and not bool(td["black", "mask"][0])
    assert int(td["white", "action_mask"].sum()) == int(env._env.observe("white")["action_mask"].sum()) > 0
