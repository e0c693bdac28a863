"""Tests for bgrl.evaluation.pubeval (Tesauro's pubeval, 1993).

Two groups: checks that need nothing but numpy (a hand-computed score, a per-point loop
reference written straight from the published description, race detection), and
cross-checks against the independent C implementation in ``gnubg_nn``.

gnubg_nn boards are a pair of 25-int lists, each side in its own numbering (index 0..23
= its points 1..24, index 24 = its bar), ordered ``(opponent, side on roll)``.
Found empirically (and asserted below):

* ``gnubg_nn.pub_eval_score(pair)`` scores the position for ``pair[0]``, i.e. for the
  side that has just moved, choosing race/contact weights from that board itself.  So
  our after-state ``a`` (mover = the side that just played) corresponds to
  ``pair = [mover's lists, opponent's lists]`` = ``to_gnubg(flip(a))``.
* ``gnubg_nn.pub_best_move(pair, d1, d2)`` plays for ``pair[1]`` (the side on roll) and
  picks the race/contact weights from the position *before* the move, as pubeval.c
  prescribes; it returns ``[from, to, ...]`` with 0-based points of the roller's
  numbering (24 = bar, negative = borne off).
"""

from __future__ import annotations

import numpy as np
import pytest

from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.movegen import generate
from bgrl.evaluation.pubeval import WC, WIN_SCORE, WR, is_race, pubeval_inputs, pubeval_scores


# ----------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------


def to_gnubg(board: np.ndarray) -> list[list[int]]:
    """Our board (side on roll = mover) -> gnubg_nn pair ``[opponent, side on roll]``."""
    b = np.asarray(board, dtype=int)
    roller = [max(int(b[i + 1]), 0) for i in range(24)] + [int(b[25])]
    other = [max(-int(b[25 - q]), 0) for q in range(1, 25)] + [-int(b[0])]
    return [other, roller]


def apply_gnubg_move(board: np.ndarray, move: list[int]) -> np.ndarray:
    """Apply a ``pub_best_move`` result (0-based from/to pairs) to our board."""
    b = np.array(board, dtype=np.int8)
    for f, t in zip(move[0::2], move[1::2]):
        assert b[f + 1] > 0, (board, move)
        b[f + 1] -= 1
        if t >= 0:
            if b[t + 1] == -1:  # hit
                b[t + 1] = 0
                b[0] -= 1
            assert b[t + 1] >= 0, (board, move)
            b[t + 1] += 1
    return b


def random_positions(n_games: int, n_plies: int, seed: int):
    """Play ``n_games`` random games side by side for ``n_plies`` plies.

    Returns ``(positions, dice, after_states, offsets)``: the positions met (side on roll
    as mover, int8 (B, 26)), the dice rolled there (int8 (B, 2)) and every legal
    after-state of each (``after_states[offsets[i]:offsets[i+1]]``).  A finished game
    restarts from the opening position.
    """
    rng = np.random.default_rng(seed)
    boards = np.repeat(START_BOARD[None], n_games, axis=0)
    pos, dice, afters, counts = [], [], [], []
    for _ in range(n_plies):
        d = rng.integers(1, 7, size=(n_games, 2)).astype(np.int8)
        res = generate(boards, d)
        pos.append(boards)
        dice.append(d)
        afters.append(res.boards)
        counts.append(res.counts)
        pick = res.offsets[:-1] + (rng.random(n_games) * res.counts).astype(np.int64)
        chosen = res.boards[pick]
        over = np.clip(chosen[:, 1:26], 0, None).sum(axis=1) == 0
        boards = flip(chosen)
        boards[over] = START_BOARD
    counts = np.concatenate(counts)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return np.concatenate(pos), np.concatenate(dice), np.concatenate(afters), offsets


def reference_score(pos: np.ndarray, race: bool) -> float:
    """One position, scalar loops, following the published input description."""
    x = [0.0] * 122
    for j in range(1, 25):
        n = int(pos[25 - j])
        k = 5 * (j - 1)
        if n == -1:
            x[k] = 1.0
        if n == 1:
            x[k + 1] = 1.0
        if n >= 2:
            x[k + 2] = 1.0
        if n == 3:
            x[k + 3] = 1.0
        if n >= 4:
            x[k + 4] = (n - 3) / 2.0
    off = 15 - sum(int(v) for v in pos[1:26] if v > 0)
    if off == 15:
        return WIN_SCORE
    x[120] = -int(pos[0]) / 2.0
    x[121] = off / 15.0
    w = WR if race else WC
    return float(sum(w[i] * x[i] for i in range(122)))


# ----------------------------------------------------------------------------------
# numpy-only tests
# ----------------------------------------------------------------------------------


def test_weights_shape_and_known_entries():
    assert WR.shape == (122,) and WC.shape == (122,)
    assert WR.dtype == np.float64 and WC.dtype == np.float64
    # The race net ignores opponent blots: every "opponent blot" input weight is 0.
    assert np.all(WR[0:120:5] == 0.0)
    assert WC[0] == pytest.approx(0.25696) and WC[121] == pytest.approx(-2.75800)
    assert WR[1] == pytest.approx(-0.17160) and WR[121] == pytest.approx(3.42040)
    assert WR[119] == pytest.approx(-12.32252) and WC[120] == pytest.approx(5.62596)


def test_start_position_hand_computed():
    # Start position as an after-state, contact.  Mover: 2 on 24, 5 on 13, 3 on 8,
    # 5 on 6; point p is block 24 - p.  Opponent has no blots, nobody on bar or off.
    #   24-pt (block 0),  n=2: x[2]                  -1.66135
    #   13-pt (block 11), n=5: x[57] + x[59]*1        1.78389 + 0.36797
    #    8-pt (block 16), n=3: x[82] + x[83]          1.83120 + 0.58722
    #    6-pt (block 18), n=5: x[92] + x[94]*1        3.35809 + 0.57353
    expected = -1.66135 + 1.78389 + 0.36797 + 1.83120 + 0.58722 + 3.35809 + 0.57353
    assert pubeval_scores(START_BOARD) == pytest.approx(expected, abs=1e-9)
    assert pubeval_scores(START_BOARD[None]).shape == (1,)
    assert not is_race(START_BOARD)


def test_inputs_single_features():
    b = np.zeros(26, dtype=np.int8)
    b[7] = -1  # opponent blot on our 7-point -> block 17, slot 0
    b[20] = 6  # six on our 20-point -> block 4: made point + (6-3)/2 spares
    b[0] = -3  # three opponent checkers on the bar
    b[25] = 2  # our bar: no input in pubeval
    x = pubeval_inputs(b)
    expected = np.zeros(122)
    expected[5 * 17 + 0] = 1.0
    expected[5 * 4 + 2] = 1.0
    expected[5 * 4 + 4] = 1.5
    expected[120] = 1.5
    expected[121] = (15 - 8) / 15.0
    np.testing.assert_array_equal(x, expected)


def test_matches_loop_reference_on_random_after_states():
    _, _, afters, _ = random_positions(n_games=16, n_plies=60, seed=3)
    rows = afters[np.random.default_rng(0).choice(len(afters), size=600, replace=False)]
    race = is_race(rows)
    ours = pubeval_scores(rows, race)
    ref = np.array([reference_score(r, bool(f)) for r, f in zip(rows, race)])
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-9)
    # explicit weight choice is honoured
    ref_contact = np.array([reference_score(r, False) for r in rows])
    np.testing.assert_allclose(pubeval_scores(rows, False), ref_contact, atol=1e-9)


def test_all_off_scores_win_sentinel():
    b = np.zeros((2, 26), dtype=np.int8)
    b[:, 19] = -15  # opponent still has everything; mover has borne off all 15
    b[1, 1] = 1  # second row: one mover checker left
    s = pubeval_scores(b)
    assert s[0] == WIN_SCORE
    assert s[1] < 1000


def test_is_race():
    race = np.zeros(26, dtype=np.int8)
    race[1:7] = 2
    race[6] = 5  # mover: 15 checkers on 1..6
    race[10] = -15  # opponent entirely on our 10-point (its 15-point), past us
    contact = race.copy()
    contact[6] -= 1
    contact[11] = 1  # one mover checker behind the opponent's stack
    on_bar = race.copy()
    on_bar[6] -= 1
    on_bar[25] = 1
    opp_bar = race.copy()
    opp_bar[10] += 1
    opp_bar[0] = -1
    boards = np.stack([race, contact, on_bar, opp_bar, START_BOARD])
    np.testing.assert_array_equal(is_race(boards), [True, False, False, False, False])
    np.testing.assert_array_equal(is_race(flip(boards)), is_race(boards))
    assert is_race(boards).dtype == bool


def test_input_validation():
    with pytest.raises(ValueError):
        pubeval_scores(np.zeros((3, 25), dtype=np.int8))
    with pytest.raises(ValueError):
        pubeval_scores(np.zeros((3, 26), dtype=np.int8), race=np.zeros(2, dtype=bool))
    with pytest.raises(TypeError):
        pubeval_scores(np.zeros((3, 26), dtype=np.float32))


# ----------------------------------------------------------------------------------
# cross-checks against gnubg_nn
# ----------------------------------------------------------------------------------

_GNUBG_REASON = "gnubg_nn (pip extra 'gnubg') holds the independent C pubeval used as reference"


def test_scores_match_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason=_GNUBG_REASON)
    _, _, afters, _ = random_positions(n_games=32, n_plies=100, seed=11)
    rng = np.random.default_rng(5)
    rows = afters[rng.choice(len(afters), size=3000, replace=False)]
    rows = rows[np.clip(rows[:, 1:26], 0, None).sum(axis=1) > 0]  # skip won positions
    race = is_race(rows)
    assert race.sum() > 50 and (~race).sum() > 500  # both weight vectors exercised
    ours = pubeval_scores(rows)
    # pub_eval_score scores for pair[0]: the side that has just moved.
    theirs = np.array([gnubg_nn.pub_eval_score(to_gnubg(flip(r))) for r in rows])
    # gnubg computes in float32: allow its rounding.
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-4)


def test_best_move_matches_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason=_GNUBG_REASON)
    pos, dice, afters, offsets = random_positions(n_games=16, n_plies=40, seed=7)
    compared = agree = 0
    for i in range(len(pos)):
        group = afters[offsets[i] : offsets[i + 1]]
        if group.shape[0] == 1:
            continue  # forced play or pass: nothing to choose
        # pubeval.c: race flag taken from the position before the move
        s = pubeval_scores(group, race=is_race(pos[i]))
        ours = group[np.argmax(s)]
        mv = gnubg_nn.pub_best_move(to_gnubg(pos[i]), int(dice[i, 0]), int(dice[i, 1]))
        theirs = apply_gnubg_move(pos[i], mv)
        assert (group == theirs).all(axis=1).any(), "gnubg's play is not among our legal plays"
        compared += 1
        agree += bool((ours == theirs).all())
    assert compared >= 300
    assert agree == compared, f"{compared - agree} of {compared} choices differ"
