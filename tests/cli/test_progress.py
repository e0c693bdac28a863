"""The one rule for progress bars (bgrl.cli._common.show_progress): a bar on a terminal only,
none with --json or when stdout or stderr is not a tty; rate, match, benchmark and review use it."""

import io
import json
import sys

import numpy as np
import pytest

from bgrl.cli import main
from bgrl.cli._common import show_progress


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize("out_tty,err_tty,json_output,shown", [
    (True, True, False, True),
    (True, True, True, False),     # --json
    (False, True, False, False),   # stdout piped: bgrl match ... | head
    (True, False, False, False),   # stderr redirected to a file
    (False, False, False, False),
])
def test_show_progress_rule(monkeypatch, out_tty, err_tty, json_output, shown):
    monkeypatch.setattr(sys, "stdout", _Stream(out_tty))
    monkeypatch.setattr(sys, "stderr", _Stream(err_tty))
    assert show_progress(json_output) is shown


def test_show_progress_survives_a_stream_without_isatty(monkeypatch):
    monkeypatch.setattr(sys, "stdout", object())
    assert show_progress() is False


def _run_as_if_terminal(monkeypatch, args, out_tty=True):
    out, err = _Stream(out_tty), _Stream(True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("args,unit", [
    (["match", "random", "pubeval", "--games", "40"], "game"),
    (["rate", "random", "--max-games", "40"], "game"),
    (["benchmark", "pubeval"], "decision"),
])
def test_commands_show_a_bar_on_a_terminal_only(monkeypatch, args, unit):
    code, out, err = _run_as_if_terminal(monkeypatch, args)
    assert code == 0 and f"{unit}" in err and "%" in err  # tqdm drew on stderr
    code, out, err = _run_as_if_terminal(monkeypatch, args + ["--json"])
    assert code == 0 and err == "" and json.loads(out)  # --json: quiet, and stdout is one JSON object
    code, out, err = _run_as_if_terminal(monkeypatch, args, out_tty=False)
    assert code == 0 and err == ""  # in a pipe: quiet


def test_benchmark_chunks_give_the_one_call_choices():
    """choices() calls select on SELECT_CHUNK decisions at a time: the same plays as one call
    on every decision, and progress counts every decision once."""
    from bgrl.agents.base import PubevalAgent
    from bgrl.arena.benchmark import SELECT_CHUNK, choices, load_benchmark

    bench = load_benchmark()
    assert bench.decisions > SELECT_CHUNK  # several chunks
    agent = PubevalAgent()
    sizes = []
    k = choices(agent, bench, progress=sizes.append)
    whole = agent.select(bench.after_states(), np.random.default_rng(0)) - bench.offsets[:-1]
    np.testing.assert_array_equal(k, whole)
    assert sum(sizes) == bench.decisions and max(sizes) <= SELECT_CHUNK


def test_review_progress_counts_the_decisions():
    from pathlib import Path

    from bgrl.agents.registry import load_ranker
    from bgrl.cli.review import load_games
    from bgrl.records.review import review_records
    from bgrl.rules.board import Position
    from bgrl.rules.notation import legal_plays

    records, notes, _ = load_games(Path(__file__).parents[1] / "data" / "bgrl_match_game.jsonl")
    decisions = sum(len(legal_plays(Position.from_id(t.position_id), t.dice)) > 1 for r in records for t in r.turns)
    ranker = load_ranker("beginner")
    done = []
    review_records(records, ranker, notes, progress=done.append)
    assert decisions > 0 and sum(done) == decisions
