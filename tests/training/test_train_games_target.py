"""``bgrl train --games N`` stops after the step that reaches N, so it may end above N
(games that end on the same lockstep ply all count; a rounds backend plays whole rounds).
The rounding is documented (--help, the final summary) rather than removed, so that a
resumed run still matches an uninterrupted one bit for bit (tests/training/test_training.py)."""

from __future__ import annotations

import re

import pytest

from bgrl.evaluation.networks import load_checkpoint
from bgrl.cli import main


def test_help_documents_the_rounding(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["train", "--help"])
    assert ei.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "total games to reach" in text and "can end slightly above" in text
    assert "at most --parallel - 1 more" in text and "whole rounds of --parallel games" in text


def test_rounds_backend_ends_on_a_whole_round_and_says_so(tmp_path, capsys):
    run = tmp_path / "r"
    assert main(["train", "--backend", "local-rounds", "--run-dir", str(run), "--games", "5", "--parallel", "8",
                 "--task-games", "4", "--lockstep", "4", "--hidden", "6", "--eval-every", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    played = load_checkpoint(run / "final.pt")["meta"]["games"]
    assert played == 8  # one round of --parallel games
    assert re.search(r"done: 8 games \(target 5; the last step finished 3 more: games end in lockstep\)", out), out


def test_exact_target_is_not_annotated(tmp_path, capsys):
    run = tmp_path / "r"
    assert main(["train", "--backend", "local-rounds", "--run-dir", str(run), "--games", "8", "--parallel", "8",
                 "--task-games", "4", "--lockstep", "4", "--hidden", "6", "--eval-every", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "done: 8 games (8 in this session" in out and "target" not in out.split("done:")[1].splitlines()[0]
