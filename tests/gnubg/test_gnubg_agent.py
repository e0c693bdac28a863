"""GNU Backgammon as an agent (``bgrl match gnubg``, ``gnubg:N``) and as the benchmark's judge.

Needs the optional extra (gnubg-nn); the test of the error message for a missing extra
runs without it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from bgrl.agents.registry import load_agent
from bgrl.rules.board import START_BOARD, Position, flip
from bgrl.cli import main
from bgrl.agents.gnubg import parse_gnubg_spec
from bgrl.rules.movegen import generate


def test_parse_spec():
    assert parse_gnubg_spec("gnubg") == 0
    assert parse_gnubg_spec("gnubg:2") == 2
    for bad in ("gnubg:", "gnubg:x", "gnubg:9", "gnubg2", "gnubg:-1"):
        with pytest.raises(ValueError, match="expected 'gnubg' or 'gnubg:N'"):
            parse_gnubg_spec(bad)


def test_missing_extra_gives_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import gnubg_nn now raises ImportError
    with pytest.raises(ValueError, match=r"gnubg-nn.*pip install"):
        load_agent("gnubg:1")
    assert main(["match", "gnubg", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgrl: error: agent 'gnubg' needs") and err.count("\n") == 1


gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install -e '.[gnubg]'")

from bgrl.agents.gnubg import GnubgAgent, gnubg_play_equities, infer_dice  # noqa: E402


def _game_positions(n: int, seed: int):
    """Positions (and rolls) with a choice from pubeval self-play."""
    rng = np.random.default_rng(seed)
    agent = load_agent("pubeval")
    boards = np.repeat(START_BOARD[None], 16, axis=0)
    pos, dice = [], []
    while len(pos) < n:
        d = rng.integers(1, 7, size=(16, 2)).astype(np.int8)
        aft = generate(boards, d)
        for i in np.flatnonzero(aft.counts >= 2):
            pos.append(boards[i])
            dice.append(d[i])
        nxt = aft.boards[agent.select(aft, rng)]
        over = np.clip(nxt[:, 1:26], 0, None).sum(axis=1) == 0
        boards = flip(nxt)
        boards[over] = START_BOARD
    return np.stack(pos[:n]), np.stack(dice[:n])


def test_infer_dice_recovers_a_roll_with_the_same_plays(monkeypatch):
    import bgrl.agents.gnubg as ga

    monkeypatch.setattr(ga, "_CHUNK", 16)  # several generator calls
    pos, dice = _game_positions(60, seed=3)
    aft = generate(pos, dice)
    got = infer_dice(aft, np.arange(pos.shape[0]))
    again = generate(pos, got)
    assert np.array_equal(again.offsets, aft.offsets)
    for i in range(pos.shape[0]):
        assert {r.tobytes() for r in again.group(i)} == {r.tobytes() for r in aft.group(i)}


def test_gnubg_0ply_agent_picks_its_best_0ply_equity():
    pos, dice = _game_positions(80, seed=4)
    aft = generate(pos, dice)
    k = GnubgAgent(0).select(aft, np.random.default_rng(0))
    eq = gnubg_play_equities(aft.boards, 0)
    for i in range(pos.shape[0]):
        lo, hi = aft.offsets[i], aft.offsets[i + 1]
        assert lo <= k[i] < hi
        assert eq[k[i]] == pytest.approx(eq[lo:hi].max(), abs=1e-6)


def test_nply_agent_skips_single_play_positions():
    # 328RAAATDxjhYA 2-6 has one legal play and crashes gnubg-nn's n-ply best_move (DESIGN.md)
    agent = load_agent("gnubg:1")
    play = agent.choose_play(Position.from_id("328RAAATDxjhYA"), (6, 2))
    assert play is not None
    play = agent.choose_play(Position.from_id("4HPwATDgc/ABMA"), (3, 1))
    assert play.notation == "8/5 6/5"


def test_noise_makes_weaker_choices_reproducibly():
    pos, dice = _game_positions(60, seed=5)
    aft = generate(pos, dice)
    a = GnubgAgent(0, noise=0.3)
    k1 = a.select(aft, np.random.default_rng(7))
    k2 = a.select(aft, np.random.default_rng(7))
    assert np.array_equal(k1, k2)
    assert not np.array_equal(k1, GnubgAgent(0).select(aft, np.random.default_rng(7)))
    with pytest.raises(ValueError):
        GnubgAgent(1, noise=0.1)


def test_cli_match_accepts_gnubg(capsys):
    assert main(["match", "gnubg", "random", "--games", "4", "--json"]) == 0
    import json

    obj = json.loads(capsys.readouterr().out)
    assert obj["games"] == 4 and obj["ppg"] > 0
    assert main(["match", "gnubg:9", "random", "--games", "2"]) == 2
    assert "expected 'gnubg' or 'gnubg:N'" in capsys.readouterr().err


def test_benchmark_equities_are_gnubgs():
    """The shipped benchmark's stored equities are gnubg-nn's, recomputed on a sample."""
    from bgrl.arena.benchmark import load_benchmark

    b = load_benchmark()
    rng = np.random.default_rng(0)
    rows = rng.choice(b.after_board.shape[0], 300, replace=False)
    np.testing.assert_allclose(gnubg_play_equities(b.after_board[rows], 0), b.equity_0ply[rows], atol=2e-6)
    two = rows[b.ply[rows] == 2][:6]
    assert two.size == 6
    np.testing.assert_allclose(gnubg_play_equities(b.after_board[two], 2), b.equity[two], atol=2e-6)


def test_pubeval_matches_gnubg_on_positions_from_gnubg_games():
    """Our pubeval against gnubg-nn's ``pub_eval_score`` on the benchmark's after-states
    (positions from games between GNU Backgammon players; tests/evaluation/test_pubeval.py covers
    random games)."""
    from bgrl.arena.benchmark import load_benchmark
    from bgrl.gnubg.adapter import to_gnubg
    from bgrl.evaluation.pubeval import pubeval_scores
    from bgrl.rules.outcome import game_results, is_race

    b = load_benchmark()
    rows = b.after_board[game_results(b.after_board) == 0]
    rows = rows[np.random.default_rng(1).choice(rows.shape[0], 3000, replace=False)]
    assert is_race(rows).sum() > 100 and (~is_race(rows)).sum() > 1000
    ours = pubeval_scores(rows)
    theirs = np.array([gnubg_nn.pub_eval_score(to_gnubg(flip(r))) for r in rows])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-4)
