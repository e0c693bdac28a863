"""The fixed-meaning action mode, ``action_mode="checker"`` (issue 42, part 2).

One checker moved by one die per step, ``Discrete(156)`` (action = 6 * source + die - 1) in
every environment; the masks give exactly the steps that begin a legal full play, and the set
of full plays reachable step by step is the generator's (``bgrl.rules.movegen.generate``,
checked with ``bgrl.rules.notation.legal_plays`` too) on every golden rules case of
``tests/rules/test_movegen.py`` and on random and synthetic positions; gymnasium's ``check_env``;
a masked-out action loses the game (the single environments); whole games with masked random
steps; the opening 3-1 after a position reset.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import env_checker

import bgrl.env  # noqa: F401 - registers the ids
from bgrl.env import (CHECKER_ACTIONS, BackgammonEnv, BackgammonSelfPlayEnv, BackgammonVectorEnv, checker_action,
                      checker_move)
from bgrl.env.checker import CheckerTurns, apply_moves, single_moves
from bgrl.rules.board import START_BOARD, Position, board_from_position_id, flip
from bgrl.rules.movegen import generate
from bgrl.rules.notation import legal_plays

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from tests.rules.test_movegen import ROLLS, random_game_positions, synthetic_positions  # noqa: E402

START = "4HPwATDgc/ABMA"
HAS_PZ = importlib.util.find_spec("pettingzoo") is not None
OPENING_31_FIRST_STEPS = {(6, 1), (6, 3), (8, 1), (8, 3), (13, 3), (24, 1), (24, 3)}


def golden_cases() -> list[tuple[str, tuple[int, int]]]:
    """Every ``golden(ID, board, dice, ...)`` call of tests/rules/test_movegen.py (the held-out rules
    cases worked out by hand from docs/rules.md); a parametrised ``dice`` stands for all 21 rolls."""
    tree = ast.parse((TESTS / "rules/test_movegen.py").read_text(encoding="utf-8"))
    cases = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "golden"
                and isinstance(node.args[0], ast.Constant)):
            pid = node.args[0].value
            dice = node.args[2]
            rolls = [tuple(ast.literal_eval(dice))] if isinstance(dice, ast.Tuple) else ROLLS
            cases += [(pid, r) for r in rolls]
    return cases


def reachable(board: np.ndarray, dice) -> tuple[set[bytes], set[tuple[int, int]], int]:
    """Every full play reachable by masked steps from ``board`` with ``dice`` (after-states as
    bytes), the first steps (source, die), and the steps taken; asserts no step leads to a dead end."""
    after = generate(board[None], np.array([dice]), validate=False)
    used = int(after.dice_used[0])
    t = CheckerTurns(1)
    t.start(np.zeros(1, np.int64), board[None], np.array([dice]), np.array([used]))
    first = {checker_move(a) for a in np.flatnonzero(t.mask[0])}
    out: set[bytes] = set()
    steps = 0

    def rec(b, left, made, mask):
        nonlocal steps
        for a in np.flatnonzero(mask):
            t.boards[0], t.left[0], t.moves_made[0] = b, left, made
            steps += 1
            if t.apply(np.zeros(1, np.int64), np.array([a]))[0]:
                out.add(t.boards[0].tobytes())
            else:
                assert t.mask[0].any(), f"a masked step leads nowhere: {board.tolist()} {dice} action {a}"
                rec(t.boards[0].copy(), t.left[0].copy(), int(t.moves_made[0]), t.mask[0].copy())

    rec(t.boards[0].copy(), t.left[0].copy(), 0, t.mask[0].copy())
    return out, first, steps


def generator_plays(board, dice) -> set[bytes]:
    after = generate(board[None], np.array([dice]))
    return set() if not after.dice_used[0] else {r.tobytes() for r in after.group(0)}


def test_layout():
    assert CHECKER_ACTIONS == 156
    assert checker_action(25, 6) == 155 and checker_action(1, 1) == 6
    assert all(checker_move(checker_action(s, d)) == (s, d) for s in range(26) for d in range(1, 7))


def test_golden_rules_cases_step_by_step_equal_the_generator():
    cases = golden_cases()
    assert len(cases) >= 40  # every golden call, the dance case for all 21 rolls
    for pid, dice in cases:
        board = board_from_position_id(pid)
        want = generator_plays(board, dice)
        if not want:  # no legal play: the turn passes, no step is offered
            continue
        got, _first, _n = reachable(board, dice)
        assert got == want, (pid, dice)
        by_notation = {p.after_state.tobytes() for p in legal_plays(Position(board), dice)}
        assert got == by_notation, (pid, dice)


@pytest.mark.parametrize("seed, n", [(0, 12), pytest.param(1, 24, marks=pytest.mark.slow)])  # about 0.5 s a board
def test_random_and_synthetic_positions_step_by_step_equal_the_generator(seed, n):
    rng = np.random.default_rng(seed)
    boards = np.concatenate([random_game_positions(rng, n)[0], synthetic_positions(rng, n)[0]])
    for board in boards:
        for dice in ROLLS:
            want = generator_plays(board, dice)
            if want:
                assert reachable(board, dice)[0] == want, (board.tolist(), dice)


def test_single_moves_agree_with_the_reference_single_die_moves():
    """The one-checker step against the independent reference of tests/reference_movegen.py."""
    from reference_movegen import single_die_moves

    rng = np.random.default_rng(3)
    boards = np.concatenate([synthetic_positions(rng, 60)[0], random_game_positions(rng, 30)[0]])
    for b in boards:
        for d in range(1, 7):
            src = np.flatnonzero(single_moves(b[None], np.array([d]))[0])
            got = {tuple(int(x) for x in r) for r in apply_moves(np.repeat(b[None], src.size, 0), src, np.full(src.size, d))}
            assert got == {tuple(r) for r in single_die_moves(b.tolist(), d)}, (b.tolist(), d)


def test_higher_die_and_maximum_dice_rules_in_the_mask():
    # golden_higher_die_rule: 6-5, only one die can be played and either could: the 6 only
    b = board_from_position_id("cAAABgAEAAAAAA")
    _p, first, _n = reachable(b, (6, 5))
    assert first == {(13, 6)}
    # golden_both_dice_must_be_used: 6-5, the 7 blocked: 13/8 first (then 8/2), never 13/7
    b = board_from_position_id("cAAwAAAEAAAAAA")
    _p, first, _n = reachable(b, (6, 5))
    assert first == {(13, 5)}


@pytest.mark.parametrize("env_id, kw", [("bgrl/Backgammon-v0", {"opponent": "random"}),
                                        ("bgrl/BackgammonSelfPlay-v0", {})])
def test_opening_31_mask_gives_the_first_steps_of_its_plays(env_id, kw):
    env = gym.make(env_id, action_mode="checker", **kw).unwrapped
    obs, info = env.reset(seed=0, options={"position": START, "dice": [3, 1]})
    steps = {checker_move(a) for a in np.flatnonzero(info["action_mask"])}
    assert steps == OPENING_31_FIRST_STEPS
    plays, first, _n = reachable(START_BOARD, (3, 1))
    assert first == steps and len(plays) == 16
    assert list(obs[-6:]) == [1, 0, 1, 0, 0, 0]  # the dice left: one 1, one 3
    if env_id.endswith("SelfPlay-v0"):  # every 3-1 play through the env itself, a copy per branch
        state, finals = env.clone_state(), set()
        for a in np.flatnonzero(info["action_mask"]):
            env.restore_state(state)
            _o, _r, _t, _tr, i1 = env.step(int(a))
            mid = env.clone_state()
            for b in np.flatnonzero(i1["action_mask"]):
                env.restore_state(mid)
                _o, _r, _t, _tr, i2 = env.step(int(b))
                assert i2["to_move"] == "black" and i2["dice_left"].sum() in (2, 4)  # Black's turn, no checker moved
                finals.add(flip(i2["board"]).tobytes())
        assert finals == plays


def test_spaces_stay_fixed_and_whole_games_play_with_masked_random_steps():
    for make in (lambda: gym.make("bgrl/Backgammon-v0", action_mode="checker", opponent="random"),
                 lambda: gym.make("bgrl/BackgammonSelfPlay-v0", action_mode="checker", notation=False)):
        env = make()
        assert env.action_space == gym.spaces.Discrete(156)
        assert env.observation_space.shape == (208,)
        rng = np.random.default_rng(0)
        for ep in range(3):
            obs, info = env.reset(seed=ep)
            done, steps = False, 0
            while not done:
                assert env.action_space == gym.spaces.Discrete(156)
                assert env.observation_space.contains(obs)
                mask = info["action_mask"]
                assert mask.shape == (156,) and mask.any()
                a = int(rng.choice(np.flatnonzero(mask))) if steps % 2 else int(env.action_space.sample())
                obs, reward, done, trunc, info = env.step(a)
                steps += 1
            assert abs(reward) in (1, 2, 3) and info["winner"] in ("white", "black") and not trunc
            assert not info["action_mask"].any()


def test_check_env_default_colour():
    # tests/env/test_env_check.py runs check_env on every id, action mode and colour; here the
    # case issue 42 named: the default alternating colour and opponent
    env_checker.check_env(gym.make("bgrl/Backgammon-v0", action_mode="checker").unwrapped)
    # the step check plays an action sampled in the state before its seeded reset: legal there,
    # masked out after it, so it loses the game, the same way twice
    env = gym.make("bgrl/Backgammon-v0", action_mode="checker", opponent="pubeval").unwrapped
    for seed in (123, 7):
        env.reset(seed=seed)
        a = next(a for a in range(CHECKER_ACTIONS) if not env.action_masks()[a])
        first = env.step(a)
        env.reset(seed=seed)
        again = env.step(a)
        assert np.array_equal(first[0], again[0]) and first[1:4] == again[1:4] == (-1.0, True, False)
        assert first[4]["illegal_action"] == a and first[4]["winner"] != first[4]["agent_color"]


def test_stable_baselines3_check_env():
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    for colour in ("alternate", "white", "black"):
        sb3.check_env(gym.make("bgrl/Backgammon-v0", action_mode="checker", agent_color=colour, opponent="random"),
                      warn=True)


def test_illegal_steps_and_bad_modes():
    env = BackgammonSelfPlayEnv(action_mode="checker")
    env.reset(options={"position": START, "dice": [3, 1]})
    with pytest.raises(ValueError, match="illegal checker action 156") as e:  # outside the action space
        env.step(156)
    assert "\n" not in str(e.value) and "legal (source/die): 6/1" in str(e.value)
    with pytest.raises(ValueError, match="integer index"):
        env.step(1.5)
    env.step(checker_action(8, 3))
    with pytest.raises(ValueError, match="already moved"):
        env.set_dice(6, 6)
    with pytest.raises(ValueError, match="action_mode must be"):
        BackgammonSelfPlayEnv(action_mode="checkers")
    with pytest.raises(ValueError, match="cubeless"):
        BackgammonSelfPlayEnv(action_mode="checker", cube=True)


@pytest.mark.parametrize("self_play", [True, False])
def test_a_masked_out_action_loses_the_game(self_play):
    """An action of Discrete(156) the mask rules out (13/11 with 3-1: the opponent's point) ends
    the game: the side that played it loses a single game, the checkers it moved this turn go back."""
    env = (BackgammonSelfPlayEnv(action_mode="checker", render_mode="ansi") if self_play else
           BackgammonEnv(opponent="pubeval", agent_color="black", action_mode="checker", render_mode="ansi"))
    obs, info = env.reset(seed=1, options={"position": START, "dice": [3, 1]})
    mover = info["to_move"] if self_play else info["agent_color"]
    start_obs = obs
    obs, r, term, trunc, info = env.step(checker_action(8, 3))  # legal: the turn goes on
    assert (r, term) == (0.0, False) and not info["action_mask"][checker_action(13, 2)]
    obs, r, term, trunc, info = env.step(checker_action(13, 2))
    assert (r, term, trunc) == (-1.0, True, False)
    assert info["illegal_action"] == checker_action(13, 2) and info["points"] == 1
    assert info["winner"] == ("black" if mover == "white" else "white")
    assert not info["action_mask"].any() and info["dice"] is None and info["dice_left"].sum() == 0
    if not self_play:  # from the agent's side: the board as its turn began, the dice gone
        np.testing.assert_array_equal(info["board"], board_from_position_id(START))
        np.testing.assert_array_equal(obs[:-6], start_obs[:-6])
    assert "On roll" in env.render()
    with pytest.raises(gym.error.ResetNeeded):
        env.step(checker_action(6, 1))
    copy = env.clone_state()  # the finished game, restored later, keeps its reason
    _o, info = env.reset(seed=1)
    assert "illegal_action" not in info
    env.restore_state(copy)
    assert env._info()["illegal_action"] == checker_action(13, 2)


def test_one_turn_step_by_step_then_the_other_side():
    env = BackgammonSelfPlayEnv(action_mode="checker")
    _o, info = env.reset(options={"position": START, "dice": [3, 1]})
    _o, r, t, _tr, info = env.step(checker_action(8, 3))
    assert info["to_move"] == "white" and list(info["dice_left"]) == [1, 0, 0, 0, 0, 0] and r == 0 and not t
    assert {checker_move(a) for a in np.flatnonzero(info["action_mask"])} >= {(6, 1), (24, 1)}
    _o, r, t, _tr, info = env.step(checker_action(6, 1))  # 8/5 6/5: the roll is used up
    assert info["to_move"] == "black" and info["dice_left"].sum() in (2, 4)


def test_vector_env_checker_mode_is_the_single_envs():
    n = 6
    for sp in (True, False):
        kw = {} if sp else {"opponent": "pubeval"}
        v = BackgammonVectorEnv(n, self_play=sp, action_mode="checker", notation=False, **kw)
        assert v.single_action_space == gym.spaces.Discrete(156) and v.observation_space.shape == (n, 208)
        singles = [(BackgammonSelfPlayEnv if sp else BackgammonEnv)(action_mode="checker", notation=False, **kw)
                   for _ in range(n)]
        opts = {"position": [START] + [None] * (n - 1), "dice": [[3, 1]] + [None] * (n - 1)}
        obs, info = v.reset(seed=5, options=opts)
        state = []
        for i, e in enumerate(singles):
            o, inf = e.reset(seed=5 + i, options={"position": opts["position"][i], "dice": opts["dice"][i]})
            state.append((o, 0.0, False, inf))
        assert {checker_move(a) for a in np.flatnonzero(info["action_mask"][0])} == OPENING_31_FIRST_STEPS
        rng = np.random.default_rng(0)
        auto = np.zeros(n, dtype=bool)
        ended = 0
        for _ in range(400):
            for i in range(n):
                assert np.array_equal(state[i][0], obs[i]) and np.array_equal(state[i][3]["action_mask"], info["action_mask"][i])
            acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
            obs, r, term, _tr, info = v.step(acts)
            for i, e in enumerate(singles):
                if auto[i]:
                    o, inf = e.reset()
                    state[i] = (o, 0.0, False, inf)
                else:
                    o, rr, tt, _t, inf = e.step(int(acts[i]))
                    state[i] = (o, rr, tt, inf)
                assert state[i][1] == r[i] and state[i][2] == term[i]
            auto = term
            ended += int(term.sum())
        assert ended > 0
        bad = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in info["action_mask"]])
        bad[2] = checker_action(0, 1)
        with pytest.raises(ValueError, match="game 2: illegal checker action 0"):
            v.step(bad)


@pytest.mark.skipif(not HAS_PZ, reason="needs the pettingzoo extra")
def test_pettingzoo_checker_mode():
    from pettingzoo.test import api_test

    api_test(bgrl.env.pettingzoo_env(action_mode="checker"), num_cycles=200)
    env = bgrl.env.pettingzoo_env(action_mode="checker")
    env.reset(seed=0, options={"position": START, "dice": [3, 1]})
    ob = env.observe("white")
    assert env.action_space("white").n == 156 and ob["observation"].shape == (208,)
    assert {checker_move(a) for a in np.flatnonzero(ob["action_mask"])} == OPENING_31_FIRST_STEPS
    assert not env.observe("black")["action_mask"].any()
    rng = np.random.default_rng(0)
    for g in range(2):
        env.reset(seed=g)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not env.agents


@pytest.mark.slow  # about 12 s: a PPO run of 512 steps (pytest -m slow)
def test_the_stock_algorithm_example_runs():
    """Smoke test of scripts/examples/ppo_checker_mode.py (its documented figures come from a
    longer run, docs/environments.md)."""
    pytest.importorskip("sb3_contrib", reason="needs the examples extra: pip install -e '.[examples]'")
    import importlib.util as iu

    spec = iu.spec_from_file_location("ppo_checker_mode", TESTS.parent / "scripts" / "examples" / "ppo_checker_mode.py")
    mod = iu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(["--total-steps", "512", "--envs", "2", "--eval-games", "8"])
    assert out["steps"] >= 512 and set(out["eval"]) == {f"{p} vs {o}" for o in ("random", "pubeval")
                                                        for p in ("random policy", "trained, sampling", "trained, greedy")}
