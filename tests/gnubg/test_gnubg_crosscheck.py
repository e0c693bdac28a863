"""Cross-check against GNU Backgammon (``gnubg_nn``, the optional ``[gnubg]`` extra).

* the full set of legal after-states of :func:`bgrl.rules.movegen.generate` equals the set of
  distinct legal results ``gnubg_nn.moves`` lists, over positions from random games,
  pubeval-vs-pubeval games, synthetic positions heavy in bar checkers / closed boards /
  bear-offs, and a subset with all 21 rolls;
* Position IDs: ``bgrl.rules.board.position_id(b) == gnubg_nn.position_id(...)`` and gnubg
  decodes our ID back to ``b``;
* the adapter's conventions (which side gnubg moves, the order of its result keys, passes).

Skipped when gnubg-nn is not installed.  The default run takes a few seconds; ``-m slow``
compares more than 100,000 cases.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install -e '.[gnubg]'")

from bgrl.rules.board import START_BOARD, START_POSITION_ID, board_from_position_id, flip, position_id  # noqa: E402
from bgrl.gnubg.adapter import (  # noqa: E402
    crosscheck_batch,
    from_gnubg,
    gnubg_afterstates,
    gnubg_position_id,
    position_id_roundtrip,
    to_gnubg,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from positions import ROLLS, all_rolls, mixed_cases, synthetic_positions  # noqa: E402


def _check(cases) -> int:
    total = 0
    failures = []
    for label, boards, dice in cases:
        dis = crosscheck_batch(boards, dice)
        failures += [f"[{label}] {d.describe()}" for d in dis]
        total += len(boards)
    assert not failures, f"{len(failures)} disagreement(s) with gnubg:\n" + "\n".join(failures[:10])
    return total


# ----------------------------------------------------------------------------------------
# adapter conventions
# ----------------------------------------------------------------------------------------


def test_start_position_conversion():
    pair = to_gnubg(START_BOARD)
    side = [0] * 25
    for pt, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[pt - 1] = n
    assert pair == [side, side]
    assert np.array_equal(from_gnubg(pair), START_BOARD)
    assert gnubg_position_id(START_BOARD) == START_POSITION_ID


def test_pair_order_opponent_then_on_roll():
    # 4HPwAVDgc/ABMA: the side on roll has the start position, the opponent one checker on
    # the bar (tests/rules/test_board.py, gnubg 1.07).  gnubg decodes it as (opponent, on roll).
    pair = gnubg_nn.board_from_position_id("4HPwAVDgc/ABMA")
    assert pair[0][24] == 1 and pair[1][24] == 0
    b = board_from_position_id("4HPwAVDgc/ABMA")
    assert to_gnubg(b) == [list(pair[0]), list(pair[1])]
    assert b[0] == -1


def test_gnubg_moves_side_one_and_keys_are_mover_after_play():
    # Asymmetric: the mover (side 1) on the bar against a 5-point board; the opponent has
    # nothing movable that would look like a legal entry.  Only side 1 may change, and the
    # decoded key keeps the order (opponent, mover) with the mover having just played.
    b = board_from_position_id("4HPwAVDgc/ABMA")
    b = flip(b)  # now the mover has the checker on the bar
    assert b[25] == 1
    pair = to_gnubg(b)
    for key in gnubg_nn.moves(pair, 6, 1):
        after = gnubg_nn.board_from_position_key(key)
        assert after[1][24] == 0, "the mover entered its bar checker"
        assert sum(after[1]) == 15 and sum(after[0]) == 15
    # from our side: every after-state has the mover's bar empty
    states = gnubg_afterstates(b, (6, 1))
    assert states and all(s[25] == 0 for s in states)


def test_pass_maps_to_the_unchanged_board():
    # The mover on the bar against a closed board: gnubg returns no result; we get a pass.
    b = [0] * 26
    b[25] = 1
    b[1] = 14
    for p in range(19, 25):
        b[p] = -2
    b[0] = -3
    b = np.array(b, dtype=np.int8)
    assert gnubg_nn.moves(to_gnubg(b), 6, 6) == ()
    assert gnubg_afterstates(b, (6, 6)) == {tuple(int(x) for x in b)}


def test_missing_gnubg_raises_helpful_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[gnubg\]'"):
        gnubg_position_id(START_BOARD)
    with pytest.raises(ImportError, match=r"needs the optional extra 'gnubg'"):
        gnubg_afterstates(START_BOARD, (3, 1))


# ----------------------------------------------------------------------------------------
# move generator vs gnubg
# ----------------------------------------------------------------------------------------


def test_start_position_all_21_rolls_match_gnubg():
    assert _check([("start", *all_rolls(START_BOARD[None, :].astype(np.int8)))]) == 21


def test_movegen_matches_gnubg():
    rng = np.random.default_rng(2024)
    # 750 random-game + 750 pubeval-game + 750 synthetic + 60 x 21 all-rolls = 3510 cases
    n = _check(mixed_cases(rng, n_random=750, n_agent=750, n_synth=750, n_all_rolls=60))
    assert n == 3510


def test_synthetic_extremes_all_rolls_match_gnubg():
    # bar-heavy / closed / bear-off positions with every roll (doubles included)
    rng = np.random.default_rng(77)
    sb, _ = synthetic_positions(rng, 60)
    assert _check([("synthetic-all-rolls", *all_rolls(sb))]) == 60 * len(ROLLS)


def test_position_id_roundtrip_with_gnubg():
    rng = np.random.default_rng(5)
    cases = mixed_cases(rng, n_random=500, n_agent=500, n_synth=500, n_all_rolls=0)
    boards = np.concatenate([c[1] for c in cases])
    bad = []
    for b in boards:
        if not position_id_roundtrip(b):
            bad.append(f"{position_id(b)} vs gnubg {gnubg_position_id(b)}")
        if not np.array_equal(from_gnubg(to_gnubg(b)), b):
            bad.append(f"to/from_gnubg round trip failed for {position_id(b)}")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.slow
def test_movegen_matches_gnubg_slow():
    rng = np.random.default_rng(99)
    # 40000 + 30000 + 30000 + 1000 x 21 = 121000 cases
    n = _check(mixed_cases(rng, n_random=40000, n_agent=30000, n_synth=30000, n_all_rolls=1000))
    assert n == 121000
