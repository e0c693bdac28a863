"""Last-roll races from exact bear-off values: the take point is 25% (a dead cube), so the
money decision is double/take when the opponent's chance is at least 25% and double/pass
below it, over every last-roll position with two checkers left on the side on roll."""

import itertools

import numpy as np
import pytest

from bgrl.evaluation import cube as C
from bgrl.evaluation.exact import exact_probs
from bgrl.rules.cube import CubeState


def boards():
    for a, b in itertools.combinations_with_replacement(range(1, 7), 2):
        bd = np.zeros(26, dtype=np.int8)
        bd[a] += 1
        bd[b] += 1
        bd[24] = -1  # the opponent's last checker on its 1-point: off next roll whatever it rolls
        yield (a, b), bd


@pytest.mark.parametrize("pts, board", list(boards()))
def test_last_roll_take_point_is_25_percent(pts, board):
    known, p = exact_probs(board[None])
    assert known[0]
    win = float(p[0, 0])
    assert C.is_last_roll(board) and C.cube_life(board) == 0.0
    d = C.money_cube_decision(p[0], CubeState(), C.cube_life(board))
    opp = 1.0 - win
    if win <= 0.5:
        assert d.decision == "no double"
    elif opp >= 0.25 - 1e-12:
        assert (d.decision, d.take) == ("double, take", True)
        assert d.double_take == pytest.approx(2 * (2 * win - 1))
    else:
        assert (d.decision, d.take) == ("double, pass", False)
    assert C.money_take_point(np.array([opp, 0, 0, 0, 0]), 0.0) == pytest.approx(0.25)


def test_both_sides_of_the_take_point_occur():
    opp = [1.0 - float(exact_probs(b[None])[1][0, 0]) for _, b in boards()]
    assert any(0.25 <= o < 0.5 for o in opp) and any(o < 0.25 for o in opp)
