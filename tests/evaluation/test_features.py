"""Tests for bgrl.evaluation.features (gnubg-style hand-made inputs) and the td198g encoder."""

from __future__ import annotations

import numpy as np
import pytest

from bgrl.agents.registry import load_agent
from bgrl.rules.board import START_BOARD, flip
from bgrl.evaluation.encoding import encode, num_features
from bgrl.evaluation.features import ESCAPE_TABLE, SIDE_FEATURES, both_sides, escapes, hit_chance, side_features
from bgrl.rules.movegen import generate

ROLLS = [(a, b, 2 if a != b else 1) for a in range(1, 7) for b in range(1, a + 1)]


def game_positions(n: int, seed: int) -> np.ndarray:
    """Distinct positions from pubeval self-play (16 games side by side)."""
    rng = np.random.default_rng(seed)
    agent = load_agent("pubeval")
    boards = np.repeat(START_BOARD[None], 16, axis=0)
    out = []
    while sum(len(x) for x in out) < n:
        d = rng.integers(1, 7, size=(16, 2)).astype(np.int8)
        aft = generate(boards, d)
        out.append(boards.copy())
        nxt = aft.boards[agent.select(aft, rng)]
        over = np.clip(nxt[:, 1:26], 0, None).sum(axis=1) == 0
        boards = flip(nxt)
        boards[over] = START_BOARD
    return np.unique(np.concatenate(out), axis=0)


def exact_hit_chance(pos: np.ndarray) -> np.ndarray:
    """Share of the 36 rolls for which some legal play hits (the opponent's bar grows)."""
    total = np.zeros(len(pos))
    for a, b, w in ROLLS:
        aft = generate(pos, np.tile(np.array([a, b], dtype=np.int8), (len(pos), 1)))
        hit = np.zeros(len(pos), dtype=bool)
        np.logical_or.at(hit, aft.parent, aft.boards[:, 0] < pos[aft.parent, 0])
        total += w * hit
    return total / 36


def reference_escapes(board, p: int) -> int:
    """Escapes of a checker on point p, one roll at a time (module docstring's definition)."""
    def blocked(dist):
        q = p - dist
        return dist <= 12 and 1 <= q <= 24 and board[q] <= -2

    far = max([d for d in range(1, 13) if blocked(d)], default=0)
    if far == 0:
        return 36
    n = 0
    for a, b, w in ROLLS:
        if a != b:
            ok = any(d > far and not blocked(d) for d in (a, b))
            ok |= a + b > far and not blocked(a + b) and (not blocked(a) or not blocked(b))
        else:
            ok = False
            for k in range(1, 5):
                if blocked(k * a):
                    break
                ok |= k * a > far
        n += w * ok
    return n


def test_hit_chance_textbook_count():
    b = np.zeros(26, dtype=np.int8)
    b[19], b[24] = 1, 13  # ours: one checker 6 pips and thirteen 11 pips behind their blot
    b[13], b[1] = -1, -14  # theirs: the blot on our 13-point, the rest on our 1-point
    # 6s (11 rolls), 5-1 and 4-2 (2 each), 3-3 and 2-2 (1 each) from 19 = 17; from 24 only 6-5
    assert hit_chance(b[None])[0] == pytest.approx(17 / 36)
    assert exact_hit_chance(b[None])[0] == pytest.approx(17 / 36)


def test_hit_chance_matches_generator_on_game_positions():
    pos = game_positions(500, seed=1)
    ours = hit_chance(pos)
    exact = exact_hit_chance(pos)
    assert (exact > 0).sum() > 100  # positions with shots are well represented
    same = np.isclose(ours, exact)
    assert same.mean() >= 0.99
    assert np.abs(ours - exact).max() <= 3 / 36


def test_escape_table_and_escapes():
    assert ESCAPE_TABLE[0] == 36  # nothing blocked
    assert ESCAPE_TABLE[0b111111] == 0  # a full prime right in front
    assert ESCAPE_TABLE[0b1] == 35  # only 1-1 is stopped
    pos = game_positions(200, seed=2)[:80]
    esc = escapes(pos)
    for i in range(len(pos)):
        for p in range(1, 25):
            assert esc[i, p - 1] == reference_escapes(pos[i], p), (i, p)


def test_side_features_start_position_and_bounds():
    f = side_features(START_BOARD[None])[0]
    assert dict(zip(SIDE_FEATURES, f))["back_checker"] == pytest.approx(24 / 25)
    assert dict(zip(SIDE_FEATURES, f))["home_points"] == pytest.approx(1 / 6)
    assert dict(zip(SIDE_FEATURES, f))["hit_chance"] == 0.0
    pos = game_positions(400, seed=3)
    x = encode(pos, "td198g")
    assert x.shape == (len(pos), 220) == (len(pos), num_features("td198g"))
    assert np.array_equal(x[:, :202], encode(pos, "td198r"))
    assert (x[:, 202:] >= 0).all() and (x[:, 202:] <= 1).all()
    both = both_sides(pos)
    assert np.array_equal(both[:, 9:], side_features(flip(pos)))
    assert np.array_equal(both_sides(flip(pos))[:, :9], both[:, 9:])


def test_env_bounds_hold_for_td198g():
    from bgrl.env.backgammon import feature_bounds

    low, high = feature_bounds("td198g")
    x = encode(game_positions(300, seed=4), "td198g")
    assert (x >= low).all() and (x <= high).all()
