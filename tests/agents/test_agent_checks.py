"""Batched agents checked (issue 42, part 6): a ``select`` answer outside a game's own slice of
after-states (a per-game index, an index out of range, a wrong shape or dtype) is one line
naming the agent, the game and the index, exit status 2, in ``bgrl match`` (with and without
the cube), ``bgrl rate`` and ``bgrl benchmark``; a correct batched agent plays as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.arena.checks import AgentChoiceError, check_choices
from bgrl.cli import main
from bgrl.rules.board import START_BOARD
from bgrl.rules.movegen import generate

AGENTS = '''
import numpy as np


class PerGame:
    """The environments' convention: index 0 of each game's own plays (wrong for select)."""
    def select(self, after, rng):
        return np.zeros(after.offsets.size - 1, dtype=np.int64)


class OutOfRange:
    def select(self, after, rng):
        return after.offsets[1:].copy()  # one past each game's last row


class Floats:
    def select(self, after, rng):
        return after.offsets[:-1].astype(float)


class Short:
    def select(self, after, rng):
        return after.offsets[:1].copy()


class Nothing:
    def select(self, after, rng):
        return None


class Right:
    """The batched convention: the first play of each game, as a global row index."""
    def select(self, after, rng):
        return after.offsets[:-1].copy()
'''


@pytest.fixture()
def agents(tmp_path):
    f = tmp_path / "batched_agents.py"
    f.write_text(AGENTS)
    return f


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("obj, needle", [
    ("PerGame", r"chose index 0 for game 2, outside that game's after-states .* look like per-game indices"),
    ("OutOfRange", r"chose index \d+ for game 0, outside that game's after-states"),
    ("Floats", r"returned ndarray .* \(dtype float64\) for 2 games; expected an integer array of shape \(2,\)"),
    ("Short", r"returned an array of shape \(1,\) for 2 games; expected shape \(2,\)"),
    ("Nothing", r"returned NoneType None \(dtype object\)"),
])
def test_bgrl_match_refuses_a_bad_batched_answer_in_one_line(agents, capsys, obj, needle):
    import re

    spec = f"{agents}:{obj}"
    for extra in ([], ["--cube"]):
        code, out, err = run(["match", spec, "random", "--games", "4", *extra], capsys)
        assert code == 2 and out == "", err
        assert err.startswith(f"bgrl: error: agent '{spec}' ") and err.count("\n") == 1, err
        assert "Traceback" not in err and re.search(needle, err), err


def test_the_agent_is_named_as_player_b_too(agents, capsys):
    code, _out, err = run(["match", "random", f"{agents}:PerGame", "--games", "4"], capsys)
    assert code == 2 and f"agent '{agents}:PerGame' chose index 0 for game" in err and err.count("\n") == 1


def test_bgrl_rate_and_benchmark_refuse_too(agents, capsys):
    code, _out, err = run(["rate", f"{agents}:PerGame", "--max-games", "4"], capsys)
    assert code == 2 and err.count("\n") == 1 and "chose index 0 for" in err, err
    code, _out, err = run(["benchmark", f"{agents}:OutOfRange"], capsys)
    assert code == 2 and err.count("\n") == 1 and "for decision 0" in err, err


def test_a_right_batched_agent_plays(agents, capsys):
    code, out, err = run(["match", f"{agents}:Right", "random", "--games", "4", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["games"] == 4


def test_check_choices_directly():
    after = generate(np.repeat(START_BOARD[None], 3, axis=0), np.array([[3, 1], [6, 5], [2, 2]]))
    good = after.offsets[:-1] + np.array([1, 0, 2])
    assert np.array_equal(check_choices(good.astype(np.int32), after, "me"), good)
    with pytest.raises(AgentChoiceError, match=r"agent 'me' chose index 1 for game 11") as e:
        check_choices(np.array([0, 1, 2]), after, "me", games=[10, 11, 12])
    assert isinstance(e.value, ValueError) and "per-game" in str(e.value)
    with pytest.raises(AgentChoiceError, match="dtype bool"):
        check_choices(np.array([True, False, True]), after, "me")
    with pytest.raises(AgentChoiceError, match=r"index -1 for decision 0"):
        check_choices(np.array([-1, 20, 30]), after, "me", what="decision")


def test_rate_names_a_place_only_when_the_intervals_settle_it(capsys):
    # 4 games against one level cannot settle anything: no place, the estimate said as such
    code, out, err = run(["rate", "pubeval", "--max-games", "4", "--start", "casual", "--json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    assert obj["settled"] is False and obj["between"][0] is None and len(obj["estimate"]) == 2
    code, out, _ = run(["rate", "pubeval", "--max-games", "4", "--start", "casual"], capsys)
    first = out.splitlines()[0]
    assert first.startswith("pubeval: not placed at 95% (") and "the points per game alone suggest " in first
    assert "did not settle a place" in out
    # settled: the JSON keeps its four keys
    code, out, _ = run(["rate", "pubeval", "--json", "--max-games", "800"], capsys)
    obj = json.loads(out)
    assert list(obj) == ["agent", "error_rate", "between", "matches"] and obj["between"] == ["beginner", "casual"]
