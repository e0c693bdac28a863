"""The single environments' hot path (issue 42): ``plays_of_one`` (the compiled one-position
generator read without building an AfterStates) equals ``generate``; ``info["after_states"]`` is
a read-only sequence of rows that behaves as the tuple it replaced; the cubeless self-play step
plays the same games with the compiled generator as with the numpy one."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import bgrl.env  # noqa: F401
from bgrl.env.common import AfterStateRows, plays_of_one
from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.movegen import generate


def _positions(n=600, seed=0):
    rng = np.random.default_rng(seed)
    boards = np.repeat(START_BOARD[None], 32, axis=0)
    out = []
    while len(out) < n:
        dice = rng.integers(1, 7, size=(32, 2)).astype(np.int8)
        res = generate(boards, dice, validate=False)
        out.extend(zip(boards.copy(), dice))
        pick = res.offsets[:-1] + (rng.random(32) * res.counts).astype(np.int64)
        after = res.boards[pick]
        after[res.counts == 0] = boards[res.counts == 0]  # no play: the same board, other side
        nxt = flip(after)
        nxt[np.maximum(after, 0).sum(axis=1) == 0] = START_BOARD
        boards = np.ascontiguousarray(nxt, dtype=np.int8)
    return out[:n]


def test_plays_of_one_is_generate():
    from bgrl.evaluation import movegen_nb

    for board, dice in _positions():
        rows, used = plays_of_one(board, dice)
        ref = generate(board[None], dice[None], validate=False)
        np.testing.assert_array_equal(rows, ref.boards)
        assert used == int(ref.dice_used[0]) and rows.dtype == np.int8
    board, dice = _positions(1)[0]
    rows, used = movegen_nb.generate_one_rows(board, int(dice[0]), int(dice[1]))  # the public kernel call
    np.testing.assert_array_equal(rows, generate(board[None], dice[None]).boards)
    movegen_nb.unregister()  # the numpy generator: the fallback gives the same
    try:
        assert movegen_nb.generate_one_rows(board, int(dice[0]), int(dice[1])) is None
        for board, dice in _positions(60, seed=1):
            rows, used = plays_of_one(board, dice)
            ref = generate(board[None], dice[None], validate=False)
            np.testing.assert_array_equal(rows, ref.boards)
            assert used == int(ref.dice_used[0])
    finally:
        movegen_nb.register()


def test_after_state_rows_behave_as_a_tuple_of_rows():
    env = gym.make("bgrl/BackgammonSelfPlay-v0", notation=False)
    _, info = env.reset(seed=3)
    rows = info["after_states"]
    ref = generate(info["board"][None], np.array([info["dice"]], dtype=np.int8)).boards
    assert isinstance(rows, AfterStateRows) and len(rows) == ref.shape[0]
    np.testing.assert_array_equal(np.stack(rows), ref)
    np.testing.assert_array_equal(np.asarray(rows), ref)
    assert all(np.array_equal(a, b) for a, b in zip(rows, ref)) and np.array_equal(rows[-1], ref[-1])
    assert rows == tuple(ref) and rows != tuple(ref[:-1]) and len(rows[1:]) == len(ref) - 1
    with pytest.raises(ValueError):  # read-only: the env's own rows
        rows[0][3] = 1
    again = pickle.loads(pickle.dumps(rows))
    assert again == rows
    np.testing.assert_array_equal(env.unwrapped.after_states(), ref)


def test_self_play_games_equal_with_the_numpy_generator():
    """Same seed and actions: the fast step (compiled generator) and the numpy generator play the
    same game, observation for observation."""
    from bgrl.evaluation import movegen_nb

    def game(seed):
        env = gym.make("bgrl/BackgammonSelfPlay-v0", notation=False)
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        trace = [obs]
        done = False
        while not done:
            obs, r, done, _, info = env.step(int(rng.integers(len(info["after_states"]))))
            trace.append(obs)
        return np.stack(trace), r, info["winner"]

    fast = [game(s) for s in (0, 1)]
    movegen_nb.unregister()
    try:
        slow = [game(s) for s in (0, 1)]
    finally:
        movegen_nb.register()
    for (a, ra, wa), (b, rb, wb) in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
        assert ra == rb and wa == wb
