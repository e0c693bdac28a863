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
