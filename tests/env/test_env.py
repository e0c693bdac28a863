"""Conformance tests of the Gymnasium environments (bgrl.env)."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bgrl.env  # noqa: F401  (registers the envs)
from bgrl.rules.board import START_BOARD, Position, board_from_position_id, flip
from bgrl.evaluation.encoding import encode
from bgrl.env.backgammon import MAX_PLAYS, MAX_PLAYS_DICE, MAX_PLAYS_POSITION_ID, BackgammonEnv, BackgammonSelfPlayEnv
from bgrl.rules.movegen import generate
from bgrl.rules.notation import legal_plays

AGENT = "bgrl/Backgammon-v0"
SELF = "bgrl/BackgammonSelfPlay-v0"


def play(env, seed, max_steps=10_000):
    """Masked-random episode; returns the trajectory (obs, action, reward) and the last info."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    traj = [obs]
    for _ in range(max_steps):
        k = int(info["action_mask"].sum())
        a = int(rng.integers(k))
        obs, r, term, trunc, info = env.step(a)
        traj += [a, r, obs]
        if term or trunc:
            return traj, info
    raise AssertionError("episode did not end")


# ---------------------------------------------------------------------------- N
def test_max_plays_value_and_extreme_position():
    # Derivation in env/common.py (MAX_PLAYS, re-exported by bgrl.env.backgammon): exact DP over flows, bounds for the rest.
    assert MAX_PLAYS == 2226
    board = board_from_position_id(MAX_PLAYS_POSITION_ID)
    aft = generate(board[None], np.array([MAX_PLAYS_DICE], dtype=np.int8))
    assert int(aft.counts[0]) == MAX_PLAYS
    rows = {r.tobytes() for r in aft.group(0)}
    assert len(rows) == MAX_PLAYS  # distinct after-states
    assert gym.make(AGENT, opponent="random").action_space.n == MAX_PLAYS


def test_non_doubles_and_bar_cases_stay_below_n():
    board = board_from_position_id(MAX_PLAYS_POSITION_ID)
    dice = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], dtype=np.int8)
    counts = generate(np.repeat(board[None], len(dice), 0), dice).counts
    assert counts.max() == MAX_PLAYS and (counts[dice[:, 0] != dice[:, 1]] <= 225).all()


# ---------------------------------------------------------------------------- Gymnasium API
@pytest.mark.parametrize("env_id,kw", [(AGENT, {"opponent": "pubeval"}), (SELF, {})])
def test_check_env(env_id, kw):
    env = gym.make(env_id, **kw)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(gym.make(env_id, render_mode="ansi", **kw).unwrapped)


def test_ids_are_versioned_and_docstrings_follow_template():
    for env_id in (AGENT, SELF):
        spec = gym.spec(env_id)
        assert spec.version == 0 and spec.namespace == "bgrl"
        doc = gym.make(env_id, **({"opponent": "random"} if env_id == AGENT else {})).unwrapped.__doc__
        for head in ("Description", "Action Space", "Observation Space", "Rewards", "Starting State",
                     "Episode End", "Arguments", "Version History"):
            assert f"## {head}" in doc, (env_id, head)
    assert bgrl.env.__name__ == "bgrl.env"


@pytest.mark.parametrize("env_id,kw", [(AGENT, {"opponent": "pubeval", "agent_color": "alternate"}), (SELF, {})])
def test_same_seed_same_game(env_id, kw):
    t1, i1 = play(gym.make(env_id, **kw), seed=7)
    t2, i2 = play(gym.make(env_id, **kw), seed=7)
    assert len(t1) == len(t2)
    for x, y in zip(t1, t2):
        np.testing.assert_array_equal(x, y)
    assert i1["points"] == i2["points"] and i1["winner"] == i2["winner"]
    t3, _ = play(gym.make(env_id, **kw), seed=8)
    assert len(t3) != len(t1) or any(not np.array_equal(x, y) for x, y in zip(t1, t3))


def test_agent_env_episode_contents():
    env = gym.make(AGENT, opponent="random", agent_color="black")
    obs, info = env.reset(seed=3)
    assert info["agent_color"] == "black"
    assert env.unwrapped._white_on_roll is False  # the opponent (White) has already played
    steps = 0
    while True:
        k = len(info["after_states"])
        assert k >= 1 and info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (MAX_PLAYS,)
        assert info["action_mask"][:k].all() and not info["action_mask"][k:].any()
        assert info["legal_plays"] and len(info["legal_plays"]) == k
        np.testing.assert_array_equal(obs, encode(info["board"][None])[0])
        assert env.observation_space.contains(obs)
        # notation i <-> after-state i
        plays = legal_plays(Position(info["board"]), info["dice"])
        assert [p.notation for p in plays] == info["legal_plays"]
        assert all(np.array_equal(p.after_state, a) for p, a in zip(plays, info["after_states"]))
        np.testing.assert_array_equal(np.stack(info["after_states"]), env.unwrapped.after_states())
        obs, r, term, trunc, info = env.step(k - 1)
        steps += 1
        if term:
            break
        assert r == 0.0 and not trunc
    assert r in (-3.0, -2.0, -1.0, 1.0, 2.0, 3.0)
    assert (r > 0) == (info["winner"] == "black") and abs(r) == info["points"]
    assert info["legal_plays"] == [] and not info["action_mask"].any()
    with pytest.raises(RuntimeError):
        env.step(0)


def test_alternate_colours_and_option_override():
    env = gym.make(AGENT, opponent="random")
    colours = [env.reset(seed=1 if i == 0 else None)[1]["agent_color"] for i in range(4)]
    assert colours == ["white", "black", "white", "black"]
    assert env.reset(options={"agent_color": "black"})[1]["agent_color"] == "black"
    with pytest.raises(ValueError, match="agent_color"):
        gym.make(AGENT, opponent="random", agent_color="red")


def test_self_play_info_and_rewards():
    env = gym.make(SELF)
    obs, info = env.reset(seed=5)
    assert info["to_move"] == "white" and info["current_player"] == 0
    movers = []
    while True:
        movers.append(info["to_move"])
        assert info["current_player"] == (0 if info["to_move"] == "white" else 1)
        np.testing.assert_array_equal(obs, encode(info["board"][None])[0])
        obs, r, term, _, info = env.step(env.action_space.sample())  # mask-less sample is legal
        if term:
            break
        assert r == 0.0
    assert r in (1.0, 2.0, 3.0) and info["winner"] == movers[-1] and info["points"] == r
    assert {"white", "black"} <= set(movers)


@pytest.mark.parametrize("bad", [-1, MAX_PLAYS, 10**6, 1.5, "0", None, np.array([0, 1])])
def test_illegal_action_raises(bad):
    env = gym.make(AGENT, opponent="random")
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(bad)


def test_masked_out_action_raises():
    env = gym.make(SELF)
    _, info = env.reset(seed=0)
    k = int(info["action_mask"].sum())
    with pytest.raises(ValueError, match="illegal action"):
        env.step(k)
    env.step(np.int64(k - 1))  # numpy ints are fine


def test_passes_are_played_automatically():
    # White (the agent) on the bar against Black's closed board: no roll lets it enter.
    env = BackgammonEnv(opponent="random", agent_color="white")
    env.reset(seed=0)
    closed = np.zeros(26, dtype=np.int8)
    closed[25], closed[1] = 1, 14
    closed[19:25] = -2  # Black's home board closed (12 checkers; 3 borne off)
    u = env.unwrapped
    u._board, u._white_on_roll = closed, True
    reward = u._advance()
    # Black had to play (bear off) until White could enter, or won meanwhile.
    if u._over:
        assert reward < 0 and u._winner == "black"
    else:
        assert u._on_roll == "white" and reward == 0.0
        aft = generate(u._board[None], np.array([u._dice], dtype=np.int8))
        assert aft.dice_used[0] > 0 and len(u._after) == aft.counts[0]
        assert u._board[25] == 1 and (u._board[19:25] > -2).any()  # Black's board has opened


def test_missing_default_checkpoint_is_a_clear_error(monkeypatch, tmp_path):
    import bgrl.agents.base

    monkeypatch.setattr(bgrl.agents.base, "DEFAULT_CHECKPOINT", tmp_path / "nope.pt")
    with pytest.raises(ValueError, match="opponent='default'"):
        BackgammonEnv()


def test_checkpoint_opponent(tiny_checkpoint):
    env = gym.make(AGENT, opponent=str(tiny_checkpoint))
    _, info = play(env, seed=2)
    assert info["points"] in (1, 2, 3)


# ---------------------------------------------------------------------------- rendering, wrappers
def test_render_ansi_uses_white_numbering():
    env = gym.make(AGENT, opponent="random", agent_color="black", render_mode="ansi")
    _, info = env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str) and "On roll: Black (X)" in text
    assert text.splitlines()[0].split()[:3] == ["13", "14", "15"]  # White's numbering on top
    assert f"rolled {info['dice'][0]}-{info['dice'][1]}" in text
    # the side on roll is Black: the engine board (Black's view) flipped is White's view
    from bgrl.rules.render import white_view

    np.testing.assert_array_equal(white_view(info["board"], False), flip(info["board"]))
    start = gym.make(SELF, render_mode="ansi")
    start.reset(seed=0)
    assert "Position ID: 4HPwATDgc/ABMA" in start.render()
    np.testing.assert_array_equal(start.unwrapped._board, START_BOARD)


def test_record_episode_statistics():
    env = gym.wrappers.RecordEpisodeStatistics(gym.make(AGENT, opponent="random"))
    obs, info = env.reset(seed=9)
    total, n = 0.0, 0
    while True:
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        total += r
        n += 1
        if term or trunc:
            break
    assert info["episode"]["r"] == pytest.approx(total) and info["episode"]["l"] == n


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec(mode):
    n = 3
    envs = gym.make_vec(AGENT, num_envs=n, vectorization_mode=mode, opponent="random")
    try:
        obs, infos = envs.reset(seed=11)
        assert obs.shape == (n, envs.single_observation_space.shape[0])
        ends = 0
        for _ in range(150):
            masks = infos["action_mask"]
            assert masks.shape == (n, MAX_PLAYS)
            actions = np.array([envs.single_action_space.sample(mask=m) for m in masks])
            obs, rew, term, trunc, infos = envs.step(actions)
            ends += int(term.sum())
            assert set(np.unique(rew)) <= {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}
        assert ends >= 1
    finally:
        envs.close()


@pytest.mark.parametrize("make", [lambda: BackgammonEnv(opponent="random"), lambda: BackgammonSelfPlayEnv()])
def test_stable_baselines3_env_checker_finds_nothing(make):
    """Stable-Baselines3's own checker (spaces, dtypes, reset/step API, seeding) gives no warning."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker", reason="needs the examples extra")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(make(), warn=True)
