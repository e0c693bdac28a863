"""The native vector environment (bgrl.env.vector) against N single environments, its autoreset
mode, seeding, masks and bad actions; and the counter-based dice streams (bgrl.rules.dice)."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import bgrl.env  # noqa: F401  (registers the envs)
from bgrl.rules.board import START_BOARD
from bgrl.rules.dice import roll_dice, seed_keys
from bgrl.evaluation.encoding import encode
from bgrl.env import BackgammonEnv, BackgammonSelfPlayEnv, BackgammonSelfPlayVectorEnv, BackgammonVectorEnv
from bgrl.env.backgammon import MAX_PLAYS
from bgrl.rules.movegen import generate

AGENT = "bgrl/Backgammon-v0"
SELF = "bgrl/BackgammonSelfPlay-v0"


def make_vec(env_id, n, **kw):
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", notation=False, **kw)


# ---------------------------------------------------------------------------- dice streams
def test_dice_streams_uniform_and_reproducible():
    keys = seed_keys(np.arange(2000, dtype=np.uint64))
    rolls = np.concatenate([roll_dice(keys, np.full(2000, t)) for t in range(18)])  # 36,000 rolls
    assert rolls.dtype == np.int8 and rolls.min() == 1 and rolls.max() == 6
    counts = np.bincount((rolls[:, 0] - 1) * 6 + rolls[:, 1] - 1, minlength=36)
    chi2 = ((counts - 1000.0) ** 2 / 1000.0).sum()
    assert chi2 < 70  # 35 degrees of freedom: P(chi2 > 70) < 0.001
    assert np.array_equal(roll_dice(keys, np.full(2000, 3)), roll_dice(keys.copy(), np.full(2000, 3)))
    assert seed_keys(5) == seed_keys(np.array([5]))[0] == seed_keys([5])[0]
    assert len(np.unique(keys)) == 2000
    with pytest.raises(TypeError):
        seed_keys(1.5)


# ---------------------------------------------------------------------------- registration, spaces
def test_make_vec_returns_the_native_vector_env():
    envs = make_vec(AGENT, 5, opponent="random")
    assert type(envs) is BackgammonVectorEnv and not envs.self_play
    assert type(make_vec(SELF, 2)) is BackgammonSelfPlayVectorEnv
    v = gym.make_vec("bgrl/BackgammonVector-v0", num_envs=3, opponent="pubeval")  # default mode: vector entry point
    assert type(v) is BackgammonVectorEnv and v.num_envs == 3
    assert gym.make_vec("bgrl/BackgammonVector-v0", num_envs=2, self_play=True).self_play
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_action_space == gym.spaces.Discrete(MAX_PLAYS) and MAX_PLAYS == 2226
    assert envs.action_space == gym.spaces.MultiDiscrete(np.full(5, MAX_PLAYS))
    obs, info = envs.reset(seed=0)
    assert obs.shape == (5, 202) and obs.dtype == np.float32 and envs.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (5, MAX_PLAYS)
    for key in ("dice", "legal_plays", "after_states", "action_mask", "board", "agent_color"):
        assert key in info
    with pytest.raises(ValueError, match="num_envs"):
        BackgammonVectorEnv(num_envs=0, opponent="random")


# ---------------------------------------------------------------------------- equality with single envs
def compare_info(vi, si, i, self_play):
    np.testing.assert_array_equal(vi["action_mask"][i], si["action_mask"])
    np.testing.assert_array_equal(vi["board"][i], si["board"])
    after = vi["after_states"][i]
    assert after.shape == (len(si["after_states"]), 26)
    if len(si["after_states"]):
        np.testing.assert_array_equal(after, np.stack(si["after_states"]))
        assert tuple(int(x) for x in vi["dice"][i]) == si["dice"]
    else:
        assert si["dice"] is None and not vi["dice"][i].any()
    if self_play:
        assert vi["to_move"][i] == si["to_move"] and vi["current_player"][i] == si["current_player"]
    else:
        assert vi["agent_color"][i] == si["agent_color"]
    if "winner" in si:
        assert vi["_winner"][i] and vi["winner"][i] == si["winner"] and vi["points"][i] == si["points"]
    else:
        assert "winner" not in vi or not vi["_winner"][i]


@pytest.mark.parametrize("steps", [150, pytest.param(1000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("self_play", [True, False])
def test_vector_env_equals_single_envs(self_play, steps):
    n, seed = 4, 21
    if self_play:
        venv = make_vec(SELF, n)
        singles = [BackgammonSelfPlayEnv(notation=False) for _ in range(n)]
    else:  # a deterministic opponent: the single envs make the same choices
        venv = make_vec(AGENT, n, opponent="pubeval", agent_color="alternate")
        singles = [BackgammonEnv(opponent="pubeval", agent_color="alternate", notation=False) for _ in range(n)]
    vobs, vinfo = venv.reset(seed=seed)
    sout = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    done = np.zeros(n, dtype=bool)
    ends = 0
    for t in range(steps):
        for i, (obs, info) in enumerate(sout):
            np.testing.assert_array_equal(vobs[i], obs, err_msg=f"step {t} game {i}")
            compare_info(vinfo, info, i, self_play)
        k = vinfo["action_mask"].sum(axis=1)
        actions = (rng.random(n) * np.maximum(k, 1)).astype(np.int64)
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions)
        assert not vtrunc.any()
        for i, e in enumerate(singles):
            if done[i]:  # NEXT_STEP autoreset: the vector env started a new game, action ignored
                obs, info = e.reset()
                rew, term = 0.0, False
            else:
                obs, rew, term, _, info = e.step(int(actions[i]))
            sout[i] = (obs, info)
            assert vrew[i] == rew and vterm[i] == term, f"step {t} game {i}"
        done = vterm.copy()
        ends += int(vterm.sum())
    assert ends >= steps // 100  # games ended and were auto-reset on the way


def test_seed_list_gives_each_game_its_own_stream():
    venv = make_vec(SELF, 3)
    obs, info = venv.reset(seed=[7, 100, 3])
    for i, s in enumerate([7, 100, 3]):
        o, inf = BackgammonSelfPlayEnv(notation=False).reset(seed=s)
        np.testing.assert_array_equal(obs[i], o)
        assert tuple(int(x) for x in info["dice"][i]) == inf["dice"]
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=[1, 2])


# ---------------------------------------------------------------------------- autoreset
def test_next_step_autoreset_semantics():
    n = 8
    venv = make_vec(SELF, n)
    obs, info = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        k = info["action_mask"].sum(axis=1)
        obs, rew, term, trunc, info = venv.step((rng.random(n) * k).astype(np.int64))
        if term.any():
            break
    else:
        raise AssertionError("no game ended")
    i = int(np.flatnonzero(term)[0])
    # the terminating step: terminal obs from the winner's side, reward = points, empty mask
    assert rew[i] in (1.0, 2.0, 3.0) and info["_winner"][i] and info["points"][i] == rew[i]
    assert not info["action_mask"][i].any() and len(info["after_states"][i]) == 0
    np.testing.assert_array_equal(obs[i], encode(info["board"][i][None])[0])
    # the next step ignores game i's action (any value), resets it: reward 0, not terminated
    k = info["action_mask"].sum(axis=1)
    actions = (rng.random(n) * np.maximum(k, 1)).astype(np.int64)
    actions[term] = 10**6
    obs2, rew2, term2, _, info2 = venv.step(actions)
    assert rew2[i] == 0.0 and not term2[i]
    assert info2["to_move"][i] == "white" and info2["action_mask"][i].any()
    np.testing.assert_array_equal(info2["board"][i], START_BOARD)
    np.testing.assert_array_equal(obs2[i], encode(START_BOARD[None])[0])
    assert "winner" not in info2 or not info2["_winner"][i]


def test_reset_mask_resets_only_marked_games():
    venv = make_vec(SELF, 4)
    _, info = venv.reset(seed=2)
    for _ in range(5):
        _, _, _, _, info = venv.step(np.zeros(4, dtype=np.int64))
    before = info["board"].copy()
    mask = np.array([False, True, False, True])
    obs, info = venv.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(info["board"][~mask], before[~mask])
    assert (info["board"][mask] == START_BOARD).all()
    aft = venv.unwrapped.after_states()
    assert aft.counts.tolist() == info["action_mask"].sum(axis=1).tolist()
    with pytest.raises(ValueError, match="reset_mask"):
        venv.reset(options={"reset_mask": np.zeros(4, dtype=bool)})


# ---------------------------------------------------------------------------- bad actions
def test_bad_actions_name_the_game_and_change_nothing():
    n = 4
    venv = make_vec(AGENT, n, opponent="pubeval")
    twin = make_vec(AGENT, n, opponent="pubeval")
    _, info = venv.reset(seed=5)
    twin.reset(seed=5)
    with pytest.raises(RuntimeError):
        make_vec(SELF, 2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(n + 1, dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        venv.step(np.zeros(n, dtype=np.float32))
    k = info["action_mask"].sum(axis=1)
    bad = np.zeros(n, dtype=np.int64)
    bad[2] = k[2]  # just outside game 2's mask
    with pytest.raises(ValueError, match="game 2"):
        venv.step(bad)
    bad[2] = -1
    with pytest.raises(ValueError, match="game 2"):
        venv.step(bad)
    # nothing was played: the env goes on exactly like its untouched twin
    ok = np.zeros(n, dtype=np.int64)
    a = venv.step(ok)
    b = twin.step(ok)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[4]["action_mask"], b[4]["action_mask"])


# ---------------------------------------------------------------------------- info contents
def test_info_groups_and_notation():
    venv = gym.make_vec(AGENT, num_envs=3, vectorization_mode="vector_entry_point", opponent="random")
    obs, info = venv.reset(seed=4)
    for i in range(3):
        aft = generate(info["board"][i][None], info["dice"][i][None])
        np.testing.assert_array_equal(info["after_states"][i], aft.boards)
        single = BackgammonEnv(opponent="random")
        _, sinfo = single.reset(seed=4 + i)
        if sinfo["agent_color"] == "white":  # same position when the random opponent has not played
            assert info["legal_plays"][i] == sinfo["legal_plays"]
        assert len(info["legal_plays"][i]) == len(info["after_states"][i]) == info["action_mask"][i].sum()
    assert len(info["after_states"]) == 3 and info["after_states"][-1].shape[1] == 26
    with pytest.raises(IndexError):
        info["after_states"][3]
    assert make_vec(SELF, 2).reset(seed=0)[1]["legal_plays"][0] == []  # notation=False


def test_opponent_form_random_and_wrappers():
    n = 16
    venv = gym.wrappers.vector.RecordEpisodeStatistics(make_vec(AGENT, n, opponent="random"))
    obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(300):
        k = info["action_mask"].sum(axis=1)
        obs, rew, term, trunc, info = venv.step((rng.random(n) * np.maximum(k, 1)).astype(np.int64))
        assert set(np.unique(rew)) <= {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}
        assert (rew[~term] == 0).all() and (rew[term] != 0).all()
        if term.any():
            seen += int(term.sum())
            assert (info["episode"]["r"][term] == rew[term]).all()
            assert set(info["agent_color"][term]) <= {"white", "black"}
    assert seen >= 10


@pytest.mark.parametrize("level", ["intermediate"])  # 0-ply network with equity noise
def test_level_opponents_in_batch_match_single_envs(level):
    # levels (bgrl.agents.levels, through load_agent) are called once per round for the whole batch;
    # their noise is reproducible per position, so game i is still the single env's game
    n, seed = 2, 40
    venv = make_vec(AGENT, n, opponent=level)
    singles = [BackgammonEnv(opponent=venv.opponent, notation=False) for _ in range(n)]
    vobs, vinfo = venv.reset(seed=seed)
    sout = [e.reset(seed=seed + i) for i, e in enumerate(singles)]
    done = np.zeros(n, dtype=bool)
    for t in range(20):
        for i, (obs, info) in enumerate(sout):
            np.testing.assert_array_equal(vobs[i], obs, err_msg=f"step {t} game {i}")
        actions = np.zeros(n, dtype=np.int64)
        vobs, vrew, vterm, _, vinfo = venv.step(actions)
        for i, e in enumerate(singles):
            sout[i] = e.reset() if done[i] else e.step(0)[::4]
        done = vterm.copy()
