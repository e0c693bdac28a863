"""Plays that tie share a rank (bgrl.agents.hints.shared_ranks): rank = 1 + the plays ranked strictly above
(deeper ply, or the same ply and equity higher by more than 1e-9), in hints and reviews,
text and JSON alike."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.rules.board import Position
from bgrl.cli import main
from bgrl.agents.hints import TIE_TOL, RankedPlay, shared_ranks, with_shared_ranks
from bgrl.evaluation.probabilities import Probabilities
from bgrl.rules.notation import legal_plays
from bgrl.cli.play import hint_table
from bgrl.records.record import GameRecord
from bgrl.records.review import review_record
from bgrl.records.review_report import format_review

# the mover's 4 checkers on its 6-point, the opponent's last checker on its 1-point: every
# play of 2-1 loses a single game for sure (exact bear-off values), so the two plays tie
TIED_PID = "AQAAgAcAAAAAAA"


def test_shared_ranks_definition():
    assert shared_ranks([0.5, 0.5, 0.2, 0.5, 0.1]).tolist() == [1, 1, 4, 1, 5]
    assert shared_ranks([0.3, 0.3 - TIE_TOL / 2, 0.3 - 10 * TIE_TOL]).tolist() == [1, 1, 3]
    # a shallower ply comes after every deeper play, whatever its equity
    assert shared_ranks([0.1, 0.1, 0.9, 0.9], ply=[1, 1, 0, 0]).tolist() == [1, 1, 3, 3]
    assert shared_ranks([]).tolist() == []
    with pytest.raises(ValueError, match="same length"):
        shared_ranks([0.1, 0.2], ply=[0])


def _rows(equities, plies=None):
    plays = legal_plays(Position.start(), (3, 1))
    plies = plies or [0] * len(equities)
    return [RankedPlay(rank=i + 1, play=plays[i], equity=e, equity_loss=equities[0] - e,
                       probabilities=Probabilities(0.5, 0, 0, 0, 0), ply=d) for i, (e, d) in enumerate(zip(equities, plies))]


def test_with_shared_ranks_keeps_order_and_is_idempotent():
    rows = _rows([0.2, 0.2, 0.2, 0.1])
    once = with_shared_ranks(rows)
    assert [r.rank for r in once] == [1, 1, 1, 4] and [r.play for r in once] == [r.play for r in rows]
    assert with_shared_ranks(once) == once


def test_play_hint_table_shares_ranks():
    text = hint_table(_rows([0.2, 0.2, 0.1]), "test", 0, top=0)
    ranks = [int(line.split()[0]) for line in text.splitlines()[2:5]]
    assert ranks == [1, 1, 3]


class TiedRanker:
    """The first ``ties`` legal plays (canonical order) tie at equity 0, the others lose
    0.1 each; ranks numbered 1, 2, 3, ... as a naive ranker would."""

    name = "tied"

    def __init__(self, ties):
        self.ties = ties

    def __call__(self, position, dice):
        plays = legal_plays(position, dice)
        eq = [0.0 if i < self.ties else -0.1 * i for i in range(len(plays))]
        return [RankedPlay(rank=i + 1, play=p, equity=e, equity_loss=-e, probabilities=Probabilities(0.5, 0, 0, 0, 0))
                for i, (p, e) in enumerate(zip(plays, eq))]


@pytest.mark.parametrize("played", [2, 4])  # listed within the top 3 / below it
def test_review_play_tied_with_best_is_rank_1(played):
    plays = legal_plays(Position.start(), (3, 1))
    rec = GameRecord(white="W", black="B")
    rec.add_turn("white", Position.start(), (3, 1), plays[played])
    rv = review_record(rec, TiedRanker(ties=5))
    t = rv.turns[0]
    assert (t.rank, t.equity_loss, t.mark, t.played_index) == (1, 0.0, None, played)
    assert [r.rank for r in t.ranked[:6]] == [1, 1, 1, 1, 1, 6]
    d = t.as_dict(top=3)
    assert d["rank"] == 1
    alts = d["alternatives"]
    assert [a["played"] for a in alts].count(True) == 1
    mine = next(a for a in alts if a["played"])
    assert mine["rank"] == 1 and mine["play"] == plays[played].notation
    assert len(alts) == (3 if played < 3 else 4)
    text = format_review(rv, top=3)
    arrows = [ln for ln in text.splitlines() if ln.lstrip().startswith(">")]
    assert len(arrows) == 1 and arrows[0].split()[1] == "1." and plays[played].notation in arrows[0]


def test_cli_hint_text_and_json_share_ranks(capsys):
    assert main(["hint", TIED_PID, "21"]) == 0
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines() if ln.strip()[:1].isdigit()]
    assert len(rows) == 2 and [r[0] for r in rows] == ["1", "1"]
    assert main(["hint", TIED_PID, "21", "--json"]) == 0
    plays = json.loads(capsys.readouterr().out)["plays"]
    assert [p["rank"] for p in plays] == [1, 1] and [p["equity_loss"] for p in plays] == [0.0, 0.0]


def test_service_hint_shares_ranks():
    pytest.importorskip("fastapi")
    from bgrl.service.engine import Engine

    def flat(boards):  # every after-state valued alike
        return np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(boards), 1))

    eng = Engine(evaluator=flat, model_sha256="fake")
    rows = eng.hint(Position.start(), (3, 1), top=4)
    assert len(rows) == 4 and [r.rank for r in rows] == [1, 1, 1, 1]


def test_exact_plays_tie_across_the_filter_at_any_ply(capsys):
    """Bear-off values are exact at every ply: a search must not rank plays cut by its move
    filter (kept at 0-ply) below searched plays of the same exact equity."""
    import bgrl
    from bgrl.cli import main

    agent = bgrl.load_agent("world-class")
    for pid, dice in (("BQAAqNUDAAAAAA", (4, 3)), ("DQAAkDIAAAAAAA", (3, 1))):
        ranked = agent.hint(Position.from_id(pid), dice, ply=2)
        assert {r.ply for r in ranked} == {2}  # exact: valued alike at every depth
        best = ranked[0].equity
        assert all(r.rank == 1 for r in ranked if abs(r.equity - best) < 1e-9)
        assert [r.rank for r in ranked] == sorted(r.rank for r in ranked)
    # every play of the first position loses the game for certain: all share rank 1
    assert {r.rank for r in agent.hint(Position.from_id("BQAAqNUDAAAAAA"), (4, 3))} == {1}
    assert main(["hint", "BQAAqNUDAAAAAA", "43", "--level", "world-class", "--top", "0"]) == 0
    out = capsys.readouterr().out
    assert "-0.000" not in out and out.count("+0.000") == 10
