"""Rollouts (bgrl.agents.rollout, ``bgrl rollout``): dice, statistics, exact values, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.agents.rollout import (CANDIDATE_FILTER, Roller, candidate_plays, rollout_boards,
                                 stratified_rolls)
from bgrl.cli import main
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.probabilities import OUTPUTS, equity, flip_probs, terminal_probs
from bgrl.evaluation.pubeval import pubeval_scores
from bgrl.rules.board import Position, flip, position_id
from bgrl.rules.notation import legal_plays
from bgrl.rules.outcome import game_results


def pip_evaluator(after_states):
    """A small, fast evaluator (the evaluator protocol): a logistic of Tesauro's pubeval score,
    so its best play is pubeval's (a real player, whose games end)."""
    a = np.asarray(after_states, dtype=np.int8)
    w = 1.0 / (1.0 + np.exp(-np.clip(pubeval_scores(a), -50, 50) / 4.0))
    p = np.zeros((a.shape[0], 5))
    p[:, 0] = w
    p[:, 1] = 0.15 * w
    p[:, 3] = 0.15 * (1.0 - w)
    res = game_results(a)
    if (res > 0).any():
        p[res > 0] = terminal_probs(res[res > 0])
    return p


def exact_evaluator(after_states):
    """Exact values of bear-off after-states (the opponent on roll), finished games exact."""
    a = np.asarray(after_states, dtype=np.int8)
    res = game_results(a)
    out = np.zeros((a.shape[0], 5))
    live = res == 0
    known, ex = exact_probs(flip(a[live]))
    assert known.all(), "exact_evaluator only serves positions the bear-off database knows"
    out[live] = flip_probs(ex)
    out[~live] = terminal_probs(res[~live])
    return out


def board(mover: dict, opp: dict) -> np.ndarray:
    """A board from {point: checkers} of each side, each in its own numbering."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mover.items():
        b[p] += n
    for p, n in opp.items():
        b[25 - p] -= n
    return b


# a race of a few checkers a side, all at home: the two-sided bear-off table is exact here
BEAROFF = board({6: 2, 5: 1, 4: 1, 2: 1}, {5: 2, 4: 1, 3: 2, 1: 1})
MIDGAME = Position.from_id("4PPIBSCwZ/ABMA")  # the start, then 6-4 24/14, 3-1 8/5 6/5, 5-2 13/11 13/8


def test_stratified_rolls_cover_every_pair_once_per_cycle():
    first, second = (x.astype(np.int64) for x in stratified_rolls(2 * 1296, seed=3))
    code1 = (first[:, 0] - 1) * 6 + first[:, 1] - 1
    code2 = (second[:, 0] - 1) * 6 + second[:, 1] - 1
    for blk in range(0, 2 * 1296, 36):  # every aligned block of 36: each first and each second roll once
        assert len(set(code1[blk:blk + 36].tolist())) == 36
        assert len(set(code2[blk:blk + 36].tolist())) == 36
    pairs = code1 * 36 + code2
    assert len(set(pairs[:1296].tolist())) == 1296  # all ordered pairs in one cycle
    assert np.array_equal(pairs[:1296], pairs[1296:])  # then the cycle repeats
    other = stratified_rolls(1296, seed=4)
    assert not np.array_equal(first[:1296], other[0])  # the order depends on the seed


def test_same_seed_same_numbers_different_seed_different():
    b = MIDGAME.board[None]
    r1 = rollout_boards(pip_evaluator, b, trials=24, seed=5, truncate=6)
    r2 = rollout_boards(pip_evaluator, b, trials=24, seed=5, truncate=6)
    r3 = rollout_boards(pip_evaluator, b, trials=24, seed=6, truncate=6)
    assert np.array_equal(r1.probs, r2.probs) and np.array_equal(r1.equity_se, r2.equity_se)
    assert not np.array_equal(r1.probs, r3.probs)
    assert r1.seed == 5 and r1.trials == 24 and r1.truncate == 6
    full = [rollout_boards(pip_evaluator, b, trials=8, seed=s, variance_reduction=False) for s in (5, 5, 6)]
    assert np.array_equal(full[0].probs, full[1].probs) and not np.array_equal(full[0].probs, full[2].probs)
    assert full[0].truncate is None and full[0].mean_plies[0] > 10


def test_standard_error_shrinks_like_one_over_sqrt_trials():
    b = MIDGAME.board[None]
    small = rollout_boards(pip_evaluator, b, trials=64, seed=1, variance_reduction=False, truncate=12)
    big = rollout_boards(pip_evaluator, b, trials=256, seed=1, variance_reduction=False, truncate=12)
    ratio = float(big.equity_se[0] / small.equity_se[0])
    assert 0.35 < ratio < 0.65, ratio  # 1/sqrt(4) = 0.5
    win_ratio = float(big.probs_se[0, 0] / small.probs_se[0, 0])
    assert 0.35 < win_ratio < 0.65, win_ratio
    # the standard error is the spread of the trials over sqrt(trials): equity values are -3..3
    assert 0.005 < float(big.equity_se[0]) < 3.0 / np.sqrt(256)


def test_variance_reduction_keeps_the_mean_and_shrinks_the_error():
    b = MIDGAME.board[None]
    plain = rollout_boards(pip_evaluator, b, trials=72, seed=2, variance_reduction=False, truncate=6)
    vr = rollout_boards(pip_evaluator, b, trials=72, seed=2, variance_reduction=True, truncate=6)
    assert vr.equity_se[0] < 0.7 * plain.equity_se[0]
    gap = abs(float(vr.equity[0] - plain.equity[0]))
    assert gap < 3.0 * float(np.hypot(vr.equity_se[0], plain.equity_se[0]))


def test_bearoff_rolls_out_to_its_exact_value():
    known, ex = exact_probs(BEAROFF[None])
    assert known[0]
    want = float(equity(ex[0]))
    # played to the end (no early stop): with exact values the luck cancels the dice completely
    vr = rollout_boards(exact_evaluator, BEAROFF[None], trials=36, seed=0, exact=False)
    assert abs(float(vr.equity[0]) - want) < 1e-6 and float(vr.equity_se[0]) < 1e-6  # the table's float32 rounding
    assert np.allclose(vr.probs[0], ex[0], atol=1e-6)
    # without variance reduction: within three standard errors
    plain = rollout_boards(exact_evaluator, BEAROFF[None], trials=144, seed=0, exact=False, variance_reduction=False)
    assert float(plain.equity_se[0]) > 0.01
    assert abs(float(plain.equity[0]) - want) < 3 * float(plain.equity_se[0])
    # the exact value stops every trial at once
    stop = rollout_boards(pip_evaluator, BEAROFF[None], trials=10, seed=0)
    assert np.allclose(stop.probs[0], ex[0]) and float(stop.equity_se[0]) == 0.0 and stop.mean_plies[0] == 0


def test_truncation_zero_is_the_evaluation():
    b = MIDGAME.board[None]
    r = rollout_boards(pip_evaluator, b, trials=5, seed=0, truncate=0)
    static = flip_probs(pip_evaluator(flip(b)))
    assert np.allclose(r.probs, static) and float(r.equity_se[0]) == 0.0


def test_plays_ranked_best_first_and_cover_the_candidates():
    pos = Position.start()
    roller = Roller(pip_evaluator, name="pips")
    rows = roller.plays(pos, (3, 1), trials=12, seed=0, truncate=2)
    cands = candidate_plays(pip_evaluator, legal_plays(pos, (3, 1)), CANDIDATE_FILTER)
    assert {r.play.notation for r in rows} == {p.notation for p in cands}
    assert 1 <= len(rows) <= CANDIDATE_FILTER.keep
    eq = [r.equity for r in rows]
    assert eq == sorted(eq, reverse=True) and rows[0].rank == 1
    row = rows[0].as_dict()
    assert list(row) == ["rank", "play", "position_id", "equity", "equity_se", "probabilities", "probabilities_se"]
    assert list(row["probabilities"]) == list(OUTPUTS) == list(row["probabilities_se"])


def test_a_play_that_wins_is_exact():
    pos = Position(board({1: 1}, {6: 15}))  # bearing off the last checker wins a gammon
    rows = Roller(pip_evaluator).plays(pos, (2, 1), trials=4, seed=0)
    assert rows[0].play.notation.endswith("off") and rows[0].equity == 2.0 and rows[0].equity_se == 0.0


@pytest.mark.parametrize("bad, err", [({"trials": 0}, ValueError), ({"truncate": -1}, ValueError),
                                      ({"trials": 2.5}, TypeError), ({"ply": 4}, ValueError)])
def test_bad_arguments_raise(bad, err):
    kw = {"trials": 4, **bad}
    with pytest.raises(err):
        rollout_boards(pip_evaluator, MIDGAME.board[None], **kw)


def test_finished_position_raises():
    with pytest.raises(ValueError, match="game is over"):
        Roller(pip_evaluator).position(Position(board({}, {20: 15})), trials=4)


# --- the command --------------------------------------------------------------------------

def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


HEADER = ["position_id", "level", "trials", "truncate", "seed", "equity", "equity_se", "probabilities", "probabilities_se"]


def test_cli_json_fields_without_and_with_dice(capsys):
    code, out, _ = run(["rollout", MIDGAME.position_id, "--trials", "6", "--truncate", "2", "--seed", "3", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == HEADER
    assert obj["level"] == "expert" and obj["trials"] == 6 and obj["truncate"] == 2 and obj["seed"] == 3
    assert obj["position_id"] == MIDGAME.position_id
    assert list(obj["probabilities"]) == list(OUTPUTS) == list(obj["probabilities_se"])
    code, out2, _ = run(["rollout", MIDGAME.position_id, "--trials", "6", "--truncate", "2", "--seed", "3", "--json"], capsys)
    assert out2 == out  # same seed, same numbers
    code, out, _ = run(["rollout", "4HPwATDgc/ABMA", "64", "--trials", "4", "--truncate", "1", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == HEADER + ["plays"] and obj["truncate"] == 1
    assert len(obj["plays"]) >= 2 and obj["plays"][0]["rank"] == 1
    assert [list(r) for r in obj["plays"]] == [["rank", "play", "position_id", "equity", "equity_se", "probabilities",
                                               "probabilities_se"]] * len(obj["plays"])
    eqs = [r["equity"] for r in obj["plays"]]
    assert eqs == sorted(eqs, reverse=True) and obj["equity"] == eqs[0]


def test_cli_text(capsys):
    code, out, _ = run(["rollout", MIDGAME.position_id, "--trials", "3", "--truncate", "1"], capsys)
    assert code == 0 and "equity" in out and "3 trials truncated after 1 plies, seed 0" in out


@pytest.mark.parametrize("args, words", [
    (["--level", "grandmaster-x"], "unknown level"),
    (["--trials", "0"], "--trials must be >= 1"),
    (["--trials", "-5"], "--trials must be >= 1"),
    (["--trials", "99999999999999999999"], "--trials must be at most 100,000"),
    (["--truncate", "-1"], "--truncate must be >= 0"),
])
def test_cli_bad_input_one_line_exit_2(capsys, args, words):
    code, out, err = run(["rollout", "4HPwATDgc/ABMA", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("bgrl: error: ") and words in err and err.count("\n") == 1


def test_cli_finished_position(capsys):
    pid = position_id(board({}, {20: 15}))
    code, _, err = run(["rollout", pid, "--trials", "4"], capsys)
    assert code == 2 and "game is over" in err and err.count("\n") == 1


def test_one_ply_checker_play_runs_in_both_modes():
    b = MIDGAME.board[None]
    for vr in (True, False):
        r = rollout_boards(pip_evaluator, b, trials=3, seed=0, ply=1, truncate=2, variance_reduction=vr)
        assert np.isfinite(r.equity).all() and r.mean_plies[0] == 2
    # the same trial rolls the same dice: 0-ply trials of one root agree with a batch of two roots
    one = rollout_boards(pip_evaluator, b, trials=6, seed=9, truncate=3)
    two = rollout_boards(pip_evaluator, np.concatenate([b, Position.start().board[None]]), trials=6, seed=9, truncate=3)
    assert np.allclose(one.probs[0], two.probs[0])


# --- bgrl hint --rollout: the same engine as bgrl rollout POSITION DICE -------------------

def test_hint_rollout_equals_the_rollout_of_the_plays(capsys):
    # truncated after 2 plies: after 1 ply with variance reduction every seed gives the same
    # numbers (the luck of the one roll cancels its outcome exactly)
    args = ["4HPwATDgc/ABMA", "64", "--trials", "4", "--truncate", "2", "--seed", "5", "--json"]
    code, out, _ = run(["rollout", *args], capsys)
    assert code == 0
    rolled = json.loads(out)
    code, out, _ = run(["hint", *args, "--rollout", "--level", "expert"], capsys)  # rollout's default level
    assert code == 0
    hinted = json.loads(out)
    assert hinted["dice"] == [6, 4] and hinted["rollout"] is True and hinted["level"] == "expert"
    assert hinted["plays"] == rolled["plays"]
    assert {k: hinted[k] for k in rolled if k != "plays"} == {k: v for k, v in rolled.items() if k != "plays"}
    code, out, _ = run(["hint", *args, "--rollout", "--seed", "6"], capsys)
    assert json.loads(out)["plays"] != rolled["plays"]  # another seed, other dice


@pytest.mark.parametrize("args, words", [
    (["64", "--rollout", "--trials", "0"], "--trials must be >= 1"),
    (["64", "--rollout", "--truncate", "-2"], "--truncate must be >= 0"),
    (["--cube", "--rollout"], "give DICE"),
    (["64", "--rollout", "--explain"], "not with --batch or --explain"),
])
def test_hint_rollout_bad_input_one_line_exit_2(capsys, args, words):
    code, out, err = run(["hint", "4HPwATDgc/ABMA", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("bgrl: error: ") and words in err and err.count("\n") == 1
