"""`bgrl rate AGENT` (bgrl.arena.rating) and module:object agent specs (bgrl.agents.registry)."""

import json
from pathlib import Path

import numpy as np
import pytest

from bgrl.cli import main

AGENTS = Path(__file__).parents[1] / "agents" / "simple_agents.py"


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_rate_module_object_random_agent_is_below_beginner(capsys):
    spec = f"{AGENTS}:RandomPlayer"
    code, out, err = run(["rate", spec, "--json", "--max-games", "40"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    assert list(obj) == ["agent", "error_rate", "between", "matches"]
    assert obj["agent"] == spec
    assert obj["between"] == [None, "beginner"]
    assert obj["error_rate"] > 100  # random play loses far more than any level (beginner: 61)
    assert [m["opponent"] for m in obj["matches"]] == ["beginner"]
    m = obj["matches"][0]
    assert set(m) == {"opponent", "games", "ppg", "ci95"}
    assert 2 <= m["games"] <= 40 and m["ppg"] + m["ci95"] < 0


def test_rate_pubeval_lands_between_beginner_and_casual(capsys):
    # levels.json: beginner scores -0.37 against pubeval, casual +0.30
    code, out, _ = run(["rate", "pubeval", "--json", "--max-games", "800"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["between"] == ["beginner", "casual"]
    by = {m["opponent"]: m for m in obj["matches"]}
    assert by["beginner"]["ppg"] - by["beginner"]["ci95"] > 0
    assert by["casual"]["ppg"] + by["casual"]["ci95"] < 0
    assert sum(m["games"] for m in obj["matches"]) <= 800


@pytest.mark.parametrize("network,level,between", [("early", "beginner", [None, "casual"]),
                                                    ("default", "intermediate", ["casual", "advanced"])])
def test_rate_places_shipped_networks_at_their_level(capsys, network, level, between):
    code, out, _ = run(["rate", network, "--max-games", "400"], capsys)
    assert code == 0
    assert f"plays exactly like {level}" in out
    assert out.splitlines()[0].startswith(f"{network}: between {between[0]} and {between[1]}" if between[0]
                                          else f"{network}: below {between[1]}")


def test_rate_json_ends_of_ladder(capsys):
    code, out, _ = run(["rate", "early", "--json", "--max-games", "200"], capsys)
    assert json.loads(out)["between"] == [None, "casual"]


@pytest.mark.parametrize("spec,needle", [("no_such_module_xyz:agent", "cannot import agent"),
                                         (f"{AGENTS}:NoSuchThing", "has no attribute"),
                                         ("missing_file.py:agent", "cannot import agent"),
                                         (f"{AGENTS}:NOT_AN_AGENT", "expected an object with choose_play")])
def test_bad_agent_specs_exit_2(capsys, spec, needle):
    for cmd in (["rate", spec, "--max-games", "10"], ["match", spec, "random", "--games", "2"]):
        code, out, err = run(cmd, capsys)
        assert code == 2 and out == ""
        assert err.startswith("bgrl: error: ") and needle in err and err.count("\n") == 1


def test_illegal_play_names_position_and_play(capsys):
    code, _, err = run(["match", f"{AGENTS}:cheater", "random", "--games", "2"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "returned an illegal play" in err and "in position 4HPwATDgc/ABMA with dice" in err
    assert "after-state board [0, -2," in err


def test_match_accepts_callable_spec_and_dotted_module(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(AGENTS.parent))
    code, out, _ = run(["match", "simple_agents:first_play", "random", "--games", "4", "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["a"] == "simple_agents:first_play" and obj["games"] == 4


def test_play_chooser_agent_picks_the_returned_play():
    from bgrl.agents.registry import load_agent
    from bgrl.rules.board import START_BOARD
    from bgrl.rules.movegen import generate
    from bgrl.rules.notation import legal_plays
    from bgrl.rules.board import Position

    agent = load_agent(f"{AGENTS}:first_play")
    aft = generate(np.repeat(START_BOARD[None], 2, axis=0), np.array([[3, 1], [6, 5]], dtype=np.int8))
    k = agent.select(aft, np.random.default_rng(0))
    for i, d in enumerate([(3, 1), (6, 5)]):
        want = legal_plays(Position.start(), d)[0].after_state
        assert aft.offsets[i] <= k[i] < aft.offsets[i + 1]
        assert np.array_equal(aft.boards[k[i]], want)


def test_rate_rejects_bad_caps(capsys):
    code, _, err = run(["rate", "random", "--max-games", "1"], capsys)
    assert code == 2 and "--max-games must be >= 2" in err


@pytest.mark.parametrize("source,needle", [("import no_such_dependency_xyz\nagent = None\n", "ModuleNotFoundError"),
                                           ("def agent(:\n", "SyntaxError"),
                                           ("raise RuntimeError('boom')\n", "RuntimeError: boom")])
def test_agent_module_that_fails_to_import_exits_2(tmp_path, capsys, source, needle):
    f = tmp_path / "broken_agent.py"
    f.write_text(source)
    for cmd in (["rate", f"{f}:agent", "--max-games", "4"], ["match", f"{f}:agent", "random", "--games", "2"],
                ["benchmark", f"{f}:agent"]):
        code, out, err = run(cmd, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith(f"bgrl: error: cannot import agent '{f}:agent'") and needle in err


@pytest.mark.parametrize("cmd", [["rate", f"{AGENTS}:cheater", "--max-games", "4"], ["benchmark", f"{AGENTS}:cheater"]])
def test_illegal_play_in_rate_and_benchmark(capsys, cmd):
    code, out, err = run(cmd, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "returned an illegal play" in err and "in position 4HPwATDgc/ABMA with dice 65" in err


def test_agent_that_raises_is_one_line_exit_2(tmp_path, capsys):
    f = tmp_path / "raising_agent.py"
    f.write_text("def agent(position, dice, rng):\n    raise RuntimeError('boom from agent')\n")
    for cmd in (["rate", f"{f}:agent", "--max-games", "4"], ["match", f"{f}:agent", "random", "--games", "2"],
                ["match", f"{f}:agent", "random", "--games", "2", "--cube"]):
        code, out, err = run(cmd, capsys)
        assert code == 2 and err.count("\n") == 1, err
        assert "raised RuntimeError in position" in err and "boom from agent" in err and "Traceback" not in err
