"""The environments' cube option: masks by the rules, cube units in the observation, matches."""

import numpy as np
import pytest
from gymnasium.utils import env_checker as C

from bgrl.env.backgammon import MAX_PLAYS, BackgammonSelfPlayEnv
from bgrl.env.cube import CUBE_FEATURES, check_cube_options
from bgrl.evaluation.encoding import ENCODER, num_features

ND, DBL, TAKE, PASS = (MAX_PLAYS + i for i in range(4))


def to_decide(env, info, rng):
    """Play random legal plays until a cube decision before the roll comes up."""
    for _ in range(500):
        if info["phase"] == "decide":
            return info
        legal = np.flatnonzero(info["action_mask"])
        _, _, term, _, info = env.step(int(rng.choice(legal[legal < MAX_PLAYS])))
        assert not term
    raise AssertionError("no cube decision")


def test_default_unchanged():
    e = BackgammonSelfPlayEnv(notation=False)
    obs, info = e.reset(seed=1)
    assert e.action_space.n == MAX_PLAYS and obs.shape == (num_features(ENCODER),)
    assert "cube" not in info and "phase" not in info


def test_cube_spaces_masks_take_and_ownership():
    e = BackgammonSelfPlayEnv(notation=False, cube=True)
    obs, info = e.reset(seed=2)
    assert e.action_space.n == MAX_PLAYS + 4 and obs.shape == (num_features(ENCODER) + CUBE_FEATURES,)
    assert info["phase"] == "play" and info["dice"] is not None  # no cube before the opening roll
    info = to_decide(e, info, np.random.default_rng(0))
    assert set(np.flatnonzero(info["action_mask"])) == {ND, DBL} and info["dice"] is None
    doubler = info["to_move"]
    assert e.action_space.sample() in (ND, DBL)
    with pytest.raises(ValueError, match="cube decision before the roll") as exc:
        e.step(0)
    assert "\n" not in str(exc.value)
    obs, r, term, _, info = e.step(DBL)
    taker = info["to_move"]
    assert taker != doubler and r == 0 and not term and info["phase"] == "answer"
    assert set(np.flatnonzero(info["action_mask"])) == {TAKE, PASS}
    assert obs[-1] == 1.0  # answering a double
    obs, r, term, _, info = e.step(TAKE)
    assert info["cube"]["value"] == 2 and info["cube"]["owner"] == taker
    assert info["to_move"] == doubler and info["phase"] == "play"
    f = obs[-CUBE_FEATURES:]
    assert f[0] == pytest.approx(1 / 15) and f[3] == 1.0  # value 2, the opponent of the actor owns it
    # from now on the doubler never gets a cube step until it owns the cube; the taker does
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(60):
        if info["phase"] == "decide":
            seen.add(info["to_move"])
            _, _, term, _, info = e.step(ND)
        else:
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, _, info = e.step(int(rng.choice(legal)))
        if term:
            break
    assert doubler not in seen


def test_pass_ends_the_game_for_the_cube_value():
    e = BackgammonSelfPlayEnv(notation=False, cube=True)
    _, info = e.reset(seed=4)
    info = to_decide(e, info, np.random.default_rng(2))
    doubler = info["to_move"]
    e.step(DBL)
    obs, r, term, _, info = e.step(PASS)
    assert term and r == -1.0 and info["winner"] == doubler and info["points"] == 1
    assert not info["action_mask"].any() and e.observation_space.contains(obs)


def test_match_crawford_game_has_no_cube_steps():
    e = BackgammonSelfPlayEnv(notation=False, cube=True, match_length=3)
    e.reset(seed=5)
    e._table.score = {"white": 2, "black": 0}  # white has just reached 2 of 3: the next game is the Crawford game
    _, info = e.reset()
    assert info["cube"]["crawford"] and info["cube"]["score"] == {"white": 2, "black": 0}
    rng = np.random.default_rng(3)
    term = False
    while not term:
        assert info["phase"] == "play"
        _, r, term, _, info = e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    # the game after it: post-Crawford, doubling allowed again; the score is kept until the match ends
    _, info = e.reset()
    assert not info["cube"]["crawford"] or info["cube"]["match_over"] is False


def test_cube_env_passes_gymnasium_checks_and_random_games():
    for kw in ({"cube": True}, {"cube": True, "match_length": 7}):
        e = BackgammonSelfPlayEnv(notation=False, **kw)
        C.check_action_space(e.action_space)
        C.check_observation_space(e.observation_space)
        C.check_reset_return_type(e)
        C.check_reset_seed_determinism(e)
        C.check_reset_options(e)
        C.env_reset_passive_checker(e)
        e.reset(seed=5)
        C.env_step_passive_checker(e, e.action_space.sample())
        e.reset(seed=123)  # the checker samples its action before its seeded reset: start from that state
        C.check_step_determinism(e)
        C.check_returned_data_not_reused(e)
        obs, info = e.reset(seed=3)
        for _ in range(300):
            obs, r, term, _, info = e.step(e.action_space.sample())
            assert e.observation_space.contains(obs)
            if term:
                obs, info = e.reset()


@pytest.mark.parametrize("cube, n, what", [("yes", 0, "cube must be True or False"), (False, 5, "needs cube=True"),
                                           (True, 26, "match_length must be"), (True, -1, "match_length must be")])
def test_bad_cube_options(cube, n, what):
    with pytest.raises(ValueError, match=what):
        check_cube_options(cube, n)
    with pytest.raises(ValueError, match=what):
        BackgammonSelfPlayEnv(cube=cube, match_length=n)


def test_pettingzoo_cube_api_and_masks():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from bgrl.env.pettingzoo import BackgammonAECEnv

    e = BackgammonAECEnv(cube=True, match_length=5)
    api_test(e, num_cycles=100)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    seen = set()
    for agent in e.agent_iter(max_iter=400):
        obs, r, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        other = "black" if agent == "white" else "white"
        assert not e.observe(other)["action_mask"].any()
        legal = np.flatnonzero(obs["action_mask"])
        seen.add(info["phase"])
        if info["phase"] == "decide":
            assert set(legal) == {ND, DBL}
        elif info["phase"] == "answer":
            assert set(legal) == {TAKE, PASS}
        e.step(int(rng.choice(legal)))
    assert {"play", "decide"} <= seen


class Fixed:
    def __init__(self, double, take):
        self.double, self.take = double, take

    def doubles(self, position, cube):
        return self.double

    def takes(self, position, cube):
        return self.take


def test_backgammon_env_default_unchanged_and_cube_against_the_opponent():
    from bgrl.env.backgammon import BackgammonEnv

    e = BackgammonEnv(opponent="pubeval", notation=False)
    obs, info = e.reset(seed=1)
    assert e.action_space.n == MAX_PLAYS and "cube" not in info
    # the opponent doubles at once and the agent passes: -1
    e = BackgammonEnv(opponent="pubeval", notation=False, cube=True, agent_color="black", opponent_cube=Fixed(True, True))
    obs, info = e.reset(seed=1)
    while info["phase"] != "answer":
        a = ND if info["phase"] == "decide" else int(np.flatnonzero(info["action_mask"])[0])
        obs, r, term, _, info = e.step(a)
        assert not term
    assert set(np.flatnonzero(info["action_mask"])) == {TAKE, PASS} and obs[-1] == 1.0
    obs, r, term, _, info = e.step(PASS)
    assert term and r == -1.0 and info["winner"] == "white"
    # the agent doubles and the opponent passes: +1; then takes: the opponent owns a 2-cube
    for take, want in ((False, 1.0), (True, None)):
        e = BackgammonEnv(opponent="pubeval", notation=False, cube=True, agent_color="white", opponent_cube=Fixed(False, take))
        obs, info = e.reset(seed=2)
        while info["phase"] != "decide":
            obs, r, term, _, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
        obs, r, term, _, info = e.step(DBL)
        if want is not None:
            assert term and r == want and info["points"] == 1
        else:
            assert not term and info["cube"] == {**info["cube"], "value": 2, "owner": "black"}
            assert info["phase"] == "play"  # the agent rolls after the take
    with pytest.raises(ValueError, match="opponent_cube must have"):
        BackgammonEnv(opponent="pubeval", cube=True, opponent_cube=object())
