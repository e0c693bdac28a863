"""Reset to a chosen position and dice, set the dice, copy a game (issue 42, part 3).

``reset(options={"position": ID_or_XGID, "dice": [d1, d2]})`` in every environment (single,
self-play, vector per game and for all, PettingZoo), read by ``bgrl.rules.xgid.read_position``;
a dead-locked position (``DeadPositionError``) is a one-line ValueError (issue 40 too);
``set_dice``, ``set_next_dice``, ``clone_state`` / ``restore_state`` for search.
"""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest

import bgrl.env  # noqa: F401 - registers the ids
from bgrl.env import BackgammonEnv, BackgammonSelfPlayEnv, BackgammonVectorEnv, EnvState
from bgrl.rules.board import START_BOARD, Position, board_from_position_id, position_ids
from bgrl.rules.movegen import generate
from bgrl.rules.notation import legal_plays

START = "4HPwATDgc/ABMA"
OPENING_31 = {p.notation for p in legal_plays(Position.start(), (3, 1))}
# both sides on the bar against closed home boards: neither side can ever move
_dead = np.zeros(26, dtype=np.int8)
_dead[1:7], _dead[25], _dead[19:25], _dead[0] = 2, 1, -2, -1
DEAD_ID = position_ids(_dead[None])[0]
HAS_PZ = importlib.util.find_spec("pettingzoo") is not None


def _single_envs():
    return [gym.make("bgrl/Backgammon-v0", opponent="random").unwrapped,
            gym.make("bgrl/Backgammon-v0", opponent="pubeval", agent_color="black").unwrapped,
            gym.make("bgrl/BackgammonSelfPlay-v0").unwrapped]


def _set(rows) -> set[bytes]:
    return {np.asarray(r, dtype=np.int8).tobytes() for r in rows}


def test_opening_31_offers_exactly_its_16_plays_in_the_single_envs():
    assert len(OPENING_31) == 16
    for env in _single_envs():
        _obs, info = env.reset(seed=3, options={"position": START, "dice": [3, 1]})
        assert info["dice"] == (3, 1)
        assert set(info["legal_plays"]) == OPENING_31 and len(info["legal_plays"]) == 16
        assert np.array_equal(info["board"], START_BOARD)
        assert int(info["action_mask"].sum()) == 16
        assert _set(info["after_states"]) == _set(generate(START_BOARD[None], np.array([[3, 1]])).boards)
    # the agent is on roll in the chosen position, whatever its colour
    env = gym.make("bgrl/Backgammon-v0", opponent="pubeval").unwrapped
    _obs, info = env.reset(options={"position": START, "dice": [1, 3], "agent_color": "black"})
    assert info["agent_color"] == "black" and info["dice"] == (3, 1) and len(info["legal_plays"]) == 16


def test_xgid_with_dice_and_another_position():
    env = BackgammonSelfPlayEnv()
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    _obs, info = env.reset(options={"position": xgid})  # the XGID's dice are the first roll
    assert info["dice"] == (3, 1) and set(info["legal_plays"]) == OPENING_31
    _obs, info = env.reset(options={"position": xgid, "dice": "62"})  # the option wins
    assert info["dice"] == (6, 2)
    pid = "0FfwATDgc/ABMA"  # another position: its plays are the generator's
    _obs, info = env.reset(options={"position": pid, "dice": [5, 5]})
    board = board_from_position_id(pid)
    assert np.array_equal(info["board"], board)
    assert _set(info["after_states"]) == _set(generate(board[None], np.array([[5, 5]])).boards)


def test_dice_alone_and_the_stream_after_it():
    env = BackgammonSelfPlayEnv()
    _o, info = env.reset(seed=11, options={"dice": [6, 6]})
    assert info["dice"] == (6, 6) and np.array_equal(info["board"], START_BOARD)
    env.step(0)
    a = BackgammonSelfPlayEnv()
    a.reset(seed=11)
    # the chosen roll does not use the stream: the next roll is the stream's first
    assert env._dice == a._dice


@pytest.mark.parametrize("make", [lambda: BackgammonEnv(opponent="random"), BackgammonSelfPlayEnv,
                                  lambda: BackgammonVectorEnv(2, opponent="random")])
def test_dead_position_is_a_clear_value_error_and_nothing_changes(make):
    env = make()
    env.reset(seed=1)
    before = env.clone_state()
    with pytest.raises(ValueError, match="dead position: neither side can ever move") as e:
        env.reset(options={"position": DEAD_ID})
    assert "\n" not in str(e.value)
    after = env.clone_state()
    for k, v in before.data.items():
        if isinstance(v, np.ndarray):
            assert np.array_equal(v, after.data[k]), k


@pytest.mark.parametrize("options, match", [
    ({"position": "not an id"}, "cannot be read"),
    ({"position": 42}, "Position ID or an XGID"),
    ({"position": START, "dice": [7, 1]}, "pair of ints 1..6"),
    ({"position": START, "dice": [3]}, "pair of ints 1..6"),
    ({"dice": "x"}, "pair of ints 1..6"),
])
def test_bad_options_are_one_line_value_errors(options, match):
    for env in _single_envs() + [BackgammonVectorEnv(2, self_play=True)]:
        with pytest.raises(ValueError, match=match) as e:
            env.reset(options=options)
        assert "\n" not in str(e.value)


def test_a_finished_game_is_refused():
    finished = np.zeros(26, dtype=np.int8)
    finished[20] = -3  # the mover has borne off its 15 checkers
    with pytest.raises(ValueError, match="finished game"):
        BackgammonSelfPlayEnv().reset(options={"position": position_ids(finished[None])[0]})


def test_vector_env_position_for_all_games_and_per_game():
    v = BackgammonVectorEnv(3, opponent="random", notation=True)
    _obs, info = v.reset(seed=0, options={"position": START, "dice": [3, 1]})
    for i in range(3):
        assert set(info["legal_plays"][i]) == OPENING_31
        assert tuple(info["dice"][i]) == (3, 1)
    pid = "0FfwATDgc/ABMA"
    _obs, info = v.reset(seed=0, options={"position": [START, None, pid], "dice": [[3, 1], None, [5, 5]]})
    assert set(info["legal_plays"][0]) == OPENING_31
    assert tuple(info["dice"][2]) == (5, 5) and np.array_equal(info["board"][2], board_from_position_id(pid))
    single = BackgammonEnv(opponent="random")
    _o, si = single.reset(seed=1)  # game 1 is the single env seeded 0 + 1
    assert tuple(info["dice"][1]) == si["dice"]
    with pytest.raises(ValueError, match="Position ID or an XGID"):
        v.reset(options={"position": [START, START]})  # neither one value nor one per game
    sp = BackgammonVectorEnv(2, self_play=True)
    _obs, info = sp.reset(options={"position": START, "dice": [3, 1]})
    assert list(info["to_move"]) == ["white", "white"] and int(info["action_mask"][0].sum()) == 16


@pytest.mark.skipif(not HAS_PZ, reason="needs the pettingzoo extra")
def test_pettingzoo_position_and_dice():
    env = bgrl.env.pettingzoo_env()
    env.reset(seed=0, options={"position": START, "dice": [3, 1]})
    assert env.agent_selection == "white"
    assert env.infos["white"]["dice"] == (3, 1) and len(env.infos["white"]["after_states"]) == 16
    assert int(env.observe("white")["action_mask"].sum()) == 16
    with pytest.raises(ValueError, match="dead position"):
        env.reset(options={"position": DEAD_ID})
    cube = bgrl.env.pettingzoo_env(cube=True)
    cube.reset(options={"position": START, "dice": [3, 1]})
    assert cube.infos["white"]["dice"] == (3, 1) and len(cube.infos["white"]["after_states"]) == 16


def test_set_dice_branches_on_every_roll_of_a_copy():
    env = gym.make("bgrl/Backgammon-v0", opponent="pubeval").unwrapped
    env.reset(seed=5, options={"position": START, "dice": [3, 1]})
    state = env.clone_state()
    counts = {}
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            env.restore_state(state)
            _obs, info = env.set_dice(d1, d2)
            assert info["dice"] == (d1, d2)
            assert len(info["legal_plays"]) == len(legal_plays(Position.start(), (d1, d2)))
            counts[(d1, d2)] = len(info["legal_plays"])
    assert counts[(3, 1)] == 16 and counts[(2, 1)] == 15
    env.restore_state(state)
    assert env._dice == (3, 1)


def test_set_dice_refusals():
    env = BackgammonSelfPlayEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.set_dice(3, 1)
    bar = np.zeros(26, dtype=np.int8)  # on the bar against five points: only a 6 enters
    bar[25], bar[6], bar[20:25], bar[12] = 1, 3, -2, -3
    env.reset(options={"position": position_ids(bar[None])[0], "dice": [6, 1]})
    with pytest.raises(ValueError, match="no legal play"):
        env.set_dice(5, 5)
    with pytest.raises(ValueError, match="two ints 1..6"):
        env.set_dice(0, 3)
    _obs, info = env.set_dice(6, 2)
    assert info["dice"] == (6, 2)
    cube = BackgammonSelfPlayEnv(cube=True)
    cube.reset(seed=0)
    cube.step(int(np.flatnonzero(cube.action_masks())[0]))
    while cube._phase == "play":
        cube.step(int(np.flatnonzero(cube.action_masks())[0]))
    with pytest.raises(ValueError, match="cube step"):
        cube.set_dice(3, 1)


def test_set_next_dice_sets_the_rolls_thrown_inside_step():
    env = BackgammonSelfPlayEnv()
    env.reset(seed=2, options={"position": START, "dice": [3, 1]})
    env.set_next_dice((6, 6), (2, 1))
    _o, _r, _t, _tr, info = env.step(0)
    assert info["dice"] == (6, 6) and info["to_move"] == "black"
    _o, _r, _t, _tr, info = env.step(0)
    assert info["dice"] == (2, 1)
    # against an opponent: its roll comes first, then the agent's
    env = BackgammonEnv(opponent="pubeval", agent_color="white")
    env.reset(seed=2, options={"position": START, "dice": [3, 1]})
    env.set_next_dice((5, 5), (4, 2))
    _o, _r, _t, _tr, info = env.step(0)
    assert info["dice"] == (4, 2)
    with pytest.raises(ValueError, match="pairs of ints"):
        env.set_next_dice((7, 1))


@pytest.mark.parametrize("make", [lambda: BackgammonEnv(opponent="random", notation=False),
                                  lambda: BackgammonSelfPlayEnv(notation=False),
                                  lambda: BackgammonEnv(opponent="random", notation=False, action_mode="checker"),
                                  lambda: BackgammonSelfPlayEnv(notation=False, cube=True)])
def test_clone_and_restore_replay_exactly(make):
    env = make()
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(7):  # into the game
        mask = env.action_masks()
        _o, _r, term, _t, _i = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term:
            env.reset()
    state = env.clone_state()
    assert isinstance(state, EnvState)

    def play(seed):
        r = np.random.default_rng(seed)
        out = []
        for _ in range(40):
            o, rew, term, _t, info = env.step(int(r.choice(np.flatnonzero(env.action_masks()))))
            out.append((o.copy(), rew, term, info["dice"]))
            if term:
                break
        return out

    first = play(1)
    env.restore_state(state)
    again = play(1)
    assert len(first) == len(again)
    for a, b in zip(first, again):
        assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]
    env.restore_state(state)  # a copy can be restored again
    assert len(play(1)) == len(first)
    with pytest.raises(ValueError, match="restore_state takes an EnvState"):
        BackgammonVectorEnv(2, self_play=True).restore_state(state)


def test_vector_clone_and_restore():
    v = BackgammonVectorEnv(4, self_play=True, notation=False)
    v.reset(seed=0)
    s = v.clone_state()
    rng = np.random.default_rng(0)
    acts = [np.array([rng.integers(1 << 30) for _ in range(4)]) for _ in range(20)]

    def run():
        out = []
        for a in acts:
            k = np.diff(v.after_states().offsets)
            o, r, t, _tr, _i = v.step(np.where(k > 0, a % np.maximum(k, 1), 0))
            out.append((o.copy(), r.copy()))
        return out

    x = run()
    v.restore_state(s)
    y = run()
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(x, y))
