"""Smoke tests of every CLI command (run in-process through bgrl.cli.main)."""

import io
import json
import sys

import pytest

from bgrl.cli import main


def run(args, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_json_opening_21(capsys):
    code, out, _ = run(["moves", "4HPwATDgc/ABMA", "21", "--json"], capsys)
    obj = json.loads(out)
    assert code == 0
    assert obj["position_id"] == "4HPwATDgc/ABMA" and obj["dice"] == [2, 1]
    assert len(obj["plays"]) == 15
    assert all(set(p) == {"play", "position_id"} for p in obj["plays"])


@pytest.mark.parametrize("dice", [["53"], ["5-3"], ["5", "3"]])
def test_moves_dice_forms(capsys, dice):
    code, out, _ = run(["moves", "4HPwATDgc/ABMA", *dice, "--json"], capsys)
    assert code == 0 and json.loads(out)["dice"] == [5, 3]


def test_moves_text(capsys):
    code, out, _ = run(["moves", "4HPwATDgc/ABMA", "6-6"], capsys)
    assert code == 0 and "24/18(2) 13/7(2)" in out


def test_moves_bad_input(capsys):
    code, _, err = run(["moves", "notanid", "21"], capsys)
    assert code == 2 and "14 base64" in err
    code, _, err = run(["moves", "4HPwATDgc/ABMA", "71"], capsys)
    assert code == 2 and "two digits" in err


def test_moves_batch(capsys, monkeypatch):
    text = "4HPwATDgc/ABMA 21\n4HPwATDgc/ABMA 6-6\nbad line\n4HPwATDgc/ABMA 0-0\n\n"
    code, out, _ = run(["moves", "--batch", "-"], capsys, stdin=text, monkeypatch=monkeypatch)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 1  # some lines failed
    assert len(lines) == 4
    assert len(lines[0]["plays"]) == 15 and lines[1]["dice"] == [6, 6]
    assert "error" in lines[2] and lines[2]["line"] == 3
    assert "error" in lines[3]


def test_moves_batch_fuzz(capsys, monkeypatch, tmp_path):
    import numpy as np

    rng = np.random.default_rng(11)
    good = "4HPwATDgc/ABMA 21"
    lines = []
    for _ in range(300):
        cut = rng.integers(0, len(good) + 1)
        s = list(good[:cut])
        if s and rng.random() < 0.5:
            s[rng.integers(len(s))] = chr(int(rng.integers(32, 127)))
        lines.append("".join(s))
    f = tmp_path / "in.txt"
    f.write_text("\n".join(lines) + "\n")
    code, out, _ = run(["moves", "--batch", str(f)], capsys)
    for obj in map(json.loads, out.splitlines()):
        assert ("error" in obj) != ("plays" in obj)
        if "plays" in obj:  # only well-formed input gets an answer
            assert len(obj["position_id"]) == 14 and len(obj["dice"]) == 2


def test_match_random_vs_pubeval(capsys):
    code, out, _ = run(["match", "pubeval", "random", "--games", "40", "--seed", "3", "--json"], capsys)
    r = json.loads(out)
    assert code == 0 and r["games"] == 40 and r["ppg"] > 0.5
    assert 0 <= r["win_rate"] <= 1 and r["ci95"] > 0


def test_match_bad_agent(capsys):
    code, _, err = run(["match", "nobody", "random", "--games", "2"], capsys)
    assert code == 2 and "unknown agent" in err


def test_hint_json(capsys, tiny_checkpoint):
    code, out, _ = run(["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", str(tiny_checkpoint), "--ply", "0", "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and len(obj["plays"]) == 16 and obj["ply"] == 0
    eqs = [p["equity"] for p in obj["plays"]]
    assert eqs == sorted(eqs, reverse=True)
    assert obj["plays"][0]["equity_loss"] == 0 and all(p["equity_loss"] >= 0 for p in obj["plays"])
    assert [p["rank"] for p in obj["plays"]] == list(range(1, 17))
    pr = obj["plays"][0]["probabilities"]
    assert set(pr) == {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
    assert pr["win"] >= pr["win_gammon"] >= pr["win_backgammon"]


def test_hint_corrupt_checkpoint(capsys, tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    code, _, err = run(["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", str(bad)], capsys)
    assert code == 2 and "bgrl checkpoint" in err


def test_play_session(capsys, monkeypatch, tiny_checkpoint):
    # a few commands then resign: exercises drawing, hints, illegal input and the result
    script = "help\nboard\nhint\n24/1\nresign gammon\ny\n"
    code, out, _ = run(["play", "--opponent", str(tiny_checkpoint), "--seed", "5"], capsys, stdin=script, monkeypatch=monkeypatch)
    assert code == 0
    assert "13 14 15 16 17 18" in out and "Illegal play '24/1'" in out
    assert "Black wins a gammon (2 points) by resignation" in out and "Result for you: -2" in out


def test_play_black_computer_opens(capsys, monkeypatch, tiny_checkpoint):
    code, out, _ = run(["play", "--color", "black", "--opponent", "pubeval", "--seed", "1"], capsys, stdin="quit\n", monkeypatch=monkeypatch)
    assert code == 0 and out.index("White (O) rolls") < out.index("black to play")


def test_play_opening_roll(capsys, monkeypatch):
    code, out, _ = run(["play", "--opening-roll", "--opponent", "pubeval", "--seed", "2"], capsys, stdin="quit\n", monkeypatch=monkeypatch)
    assert code == 0 and "Opening roll: White" in out and "moves first with" in out


def test_opening_roll_rule():
    import numpy as np

    from bgrl.rules.dice import opening_roll

    rng = np.random.default_rng(0)
    for _ in range(200):
        white_first, dice, throws = opening_roll(rng)
        w, b = throws[-1]
        assert w != b and all(x == y for x, y in throws[:-1])  # only ties are re-rolled
        assert white_first == (w > b) and dice == (max(w, b), min(w, b))
