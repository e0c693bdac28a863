"""Jellyfish .mat files: GNU Backgammon's own exports replay to GNU Backgammon's positions,
a hand-written file in the documented layout, the writer's round trip, and clear errors."""

import json
import re
from pathlib import Path

import pytest

from bgrl.records.matfile import MatError, mat_text, parse_mat, read_mat, write_mat
from bgrl.records.record import GameRecord, RecordError

DATA = Path(__file__).parents[1] / "data"
GNUBG_FILES = ["gnubg_money_1game.mat", "gnubg_money_nocube.mat", "gnubg_money_cube.mat"]


@pytest.mark.parametrize("name", GNUBG_FILES)
def test_gnubg_exports_replay_to_gnubgs_positions(name):
    """Every checker play of gnubg's .mat export, replayed by bgrl, passes through the
    Position IDs gnubg printed for the same game (scripts/tools/gnubg_mat_fixtures.py)."""
    ref = json.loads((DATA / "gnubg_mat_positions.json").read_text())[name]
    games = read_mat(DATA / name)
    assert [g.number for g in games] == [n for n, _ in ref]
    for g, (_, seq) in zip(games, ref):
        rec = g.record
        assert (rec.white, rec.black) == ("alice", "bob")  # left column = White
        names = {"white": rec.white, "black": rec.black}
        ours = [(names[t.player], sorted(t.dice), t.position_id) for t in rec.turns]
        theirs = [(p, sorted(int(c) for c in d), pid) for p, d, pid in seq]
        assert ours == theirs
        assert rec.start_on_roll == {"alice": "white", "bob": "black"}[seq[0][0]]
        # turns alternate
        assert all(a.player != b.player for a, b in zip(rec.turns, rec.turns[1:]))


def test_gnubg_export_details():
    (g,) = read_mat(DATA / "gnubg_money_1game.mat")
    rec = g.record
    assert rec.start_on_roll == "black" and rec.turns[0].play == "24/23 13/11"
    pas = [t for t in rec.turns if t.play is None]
    assert len(pas) == 1 and pas[0].dice == (6, 6) and pas[0].player == "white"  # "66:" = could not enter
    assert rec.result == {"type": "result", "winner": "black", "points": 1, "how": "resign"}
    assert [(a.action, a.value) for a in g.cube_actions][:1] == [("double", 2)]
    assert g.cube_actions[-1].action == "drop"
    nocube = read_mat(DATA / "gnubg_money_nocube.mat")
    assert [x.record.result["how"] for x in nocube] == ["single", "resign", "single"]
    assert nocube[0].notes == [] and nocube[0].match_length == 0
    cube = read_mat(DATA / "gnubg_money_cube.mat")
    assert cube[4].record.result == {"type": "result", "winner": "black", "points": 2, "how": "gammon"}  # 4 points at cube 2
    assert sum(a.action == "take" for x in cube for a in x.cube_actions) == 4


def test_handwritten_fixture():
    g1, g2 = read_mat(DATA / "handwritten.mat")
    r = g1.record
    assert (r.white, r.black, r.start_on_roll) == ("White Player", "Black Player", "white")
    assert [t.play for t in r.turns] == ["24/18 13/11", "13/7* 13/7 8/2(2)", "bar/22 13/8", "6/3* 3/2",
                                         "bar/22 13/9", "13/11 13/8"]
    assert [t.player for t in r.turns] == ["white", "black"] * 3
    # positions as GNU Backgammon 1.07 shows them after importing this file
    assert [t.position_id for t in r.turns] == ["4HPwATDgc/ABMA", "4HPkQSDgc/ABMA", "hm/BATDgc+QBUA",
                                                "4PPIASSGb8EBMA", "Dm/BATDg88gBUA", "4POSASQOb8EBMA"]
    assert r.result == {"type": "result", "winner": "white", "points": 1, "how": "resign"}
    assert [a.action for a in g1.cube_actions] == ["double", "take", "double", "drop"]
    assert any("4 cube action(s) read" in n for n in g1.notes)
    assert any("dropped" in n for n in g1.notes)
    r2 = g2.record
    assert (r2.white, r2.start_on_roll, r2.result) == ("Alice Smith(USA)", "black", None)
    assert [t.play for t in r2.turns] == ["8/5 6/5", "24/18 18/14"]


@pytest.mark.parametrize("name", GNUBG_FILES + ["handwritten.mat"])
def test_writer_round_trip(tmp_path, name):
    games = read_mat(DATA / name)
    recs = [g.record for g in games]
    path = write_mat(recs, tmp_path / "out.mat")
    back = read_mat(path)
    for a, b in zip(recs, back):
        assert [(t.player, t.position_id, t.dice, t.play) for t in a.turns] == \
               [(t.player, t.position_id, t.dice, t.play) for t in b.record.turns]
        assert b.record.result == a.result and a.start_on_roll == b.record.start_on_roll
    text = path.read_text()
    assert "(2)" not in text and "bar" not in text and "off" not in text  # .mat style: 25, 0, repeats written out
    # the same file with bgrl's words for the bar and off reads the same
    words = text.replace(" 25/", " bar/").replace("/0 ", "/off ").replace("/0\n", "/off\n")
    again = parse_mat(words)
    assert [t.play for t in again[0].record.turns] == [t.play for t in recs[0].turns]


def test_gam_file_one_game_without_scores():
    text = " alice                          bob\n  1) 31: 8/5 6/5               42: 8/4 6/4\n  2) 66: 24/18 24/18 13/7 13/7\n"
    (g,) = parse_mat(text)
    assert (g.record.white, g.record.black) == ("alice", "bob")
    assert [t.play for t in g.record.turns] == ["8/5 6/5", "8/4 6/4", "24/18(2) 13/7(2)"]


def test_names_on_two_lines_bom_and_crlf():
    text = "\ufeff 0 point match\r\n\r\n Game 1\r\n alice : 0\r\n bob : 0\r\n  1) 31: 8/5 6/5   42: 8/4 6/4\r\n"
    (g,) = parse_mat(text)
    assert (g.record.white, g.record.black) == ("alice", "bob")
    assert [t.play for t in g.record.turns] == ["8/5 6/5", "8/4 6/4"]


def test_match_file_is_reviewed_as_money():
    (g,) = parse_mat(" 7 point match\n\n Game 1\n a : 0        b : 0\n  1) 31: 8/5 6/5\n")
    assert g.match_length == 7 and "checker plays by cubeless money equity" in g.notes[0]


def test_second_match_in_one_file_is_ignored():
    text = (DATA / "handwritten.mat").read_text()
    games = parse_mat(text + "\n 5 point match\n\n Game 1\n x : 0     y : 0\n  1) 31: 8/5 6/5\n")
    assert len(games) == 2 and "only the first match" in games[-1].notes[-1]


def _one(body: str) -> str:
    return " 0 point match\n\n Game 1\n alice : 0                      bob : 0\n" + body


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "no game found"),
        ("hello\nworld\n", "no game found"),
        (_one("  1) 31: 8/5 6/4                 42: 8/4 6/4\n"), "line 5: alice (white), roll 31"),
        (_one("  1) 31: 8/5 6/5\n  2) 42: 8/4 6/4\n"), "line 6: alice (white) rolls 42 but it is bob's turn"),
        (_one("  1) 31:                         42: 8/4 6/4\n"), "wrote no play, but the roll can be played"),
        (_one("  1) 31: 8/5 6/5  hello world    42: 8/4 6/4\n"), "line 5"),
        (_one("  1) 31: 8/5 6/5  42: 8/4 6/4  21: 6/4\n"), "more than two actions"),
        (_one("  1) 31: 8/5 6/5   Wins 1 point\n  2) 42: 8/4 6/4\n"), "after the game ended"),
        (" 0 point match\n\n Game 1\n  1) 31: 8/5 6/5\n", "before the players' names"),
        (_one("  1) 31: 8/5 xx/5\n"), "line 5"),
        # cube actions and results that do not add up (found by a breaker's trial)
        (_one("  1) 31: 8/5 6/5                 Doubles => -2\n"), "line 5: cannot read the cube action 'Doubles => -2'"),
        (_one("  1) 31: 8/5 6/5                 Doubles => two\n"), "expected 'Doubles => N'"),
        (_one("  1) 31: 8/5 6/5                 Doubles => 2\n  2)  Drops\n                                  Wins 3 points\n"),
         "bob (black) wins 3 point(s) after a dropped double: expected 'Wins 1 point'"),
        (_one("  1) 31: 8/5 6/5   Wins 5 points\n"), "by resignation with the cube at 1: expected 1, 2 or 3"),
        (_one("  1) 31: 8/5 6/5                 Doubles => 2\n  2)  Takes                          42: 8/4 6/4\n  3)  Wins 3 points\n"),
         "with the cube at 2: expected 2, 4 or 6"),
        (" -3 point match\n\n Game 1\n alice : 0    bob : 0\n  1) 31: 8/5 6/5\n", "line 1: cannot read the match length"),
        (" three point match\n\n Game 1\n alice : 0    bob : 0\n  1) 31: 8/5 6/5\n", "expected ' N point match'"),
        (" 31 point match\n\n Game 1\n alice : 0    bob : 0\n  1) 31: 8/5 6/5\n", "line 1: match length 31 is beyond the match equity table"),
        (_one("  1) 31: 8/5 6/5                 Raccoons => 2\n"), "no beaver was made to it"),
    ],
)
def test_bad_mat_names_the_line(text, words):
    with pytest.raises(MatError, match=re.escape(words)):
        parse_mat(text, "f.mat")


def test_mat_error_is_a_record_error(tmp_path):
    assert issubclass(MatError, RecordError) and issubclass(MatError, ValueError)
    with pytest.raises(MatError, match="cannot read"):
        read_mat(tmp_path / "missing.mat")


def test_mat_text_layout():
    from bgrl.rules.board import Position
    from bgrl.rules.notation import legal_plays

    rec = GameRecord(white="w", black="b", start_on_roll="black")
    p = next(x for x in legal_plays(Position.start(), (2, 1)) if x.notation == "24/23 13/11")
    rec.add_turn("black", Position.start(), (2, 1), p)
    text = mat_text(rec)
    lines = text.splitlines()
    assert lines[0] == " 0 point match" and lines[2] == " Game 1"
    assert lines[4] == "  1)" + " " * 29 + "21: 24/23 13/11"  # right column at 33, as gnubg writes it


def test_exported_match_game_fixture():
    """A game saved by `bgrl match --save-games` and written by write_mat (GNU Backgammon 1.07
    imports this file with the same positions: scripts/tools/gnubg_mat_fixtures.py --check)."""
    from bgrl.records.record import read_record

    rec = read_record(DATA / "bgrl_match_game.jsonl")
    (g,) = read_mat(DATA / "bgrl_match_game.mat")
    assert [(t.player, t.position_id, sorted(t.dice), t.play) for t in g.record.turns] == \
           [(t.player, t.position_id, sorted(t.dice), t.play) for t in rec.turns]
    assert g.record.result == rec.result and (g.record.white, g.record.black) == (rec.white, rec.black)
    assert sum(t.play is None for t in rec.turns) == 16  # dances survive the round trip
    assert (DATA / "bgrl_match_game.mat").read_text() == mat_text(rec)


def test_raccoon_after_a_beaver_is_read():
    from pathlib import Path

    (g,) = parse_mat(Path(__file__).parents[1].joinpath("data").joinpath("raccoon.mat").read_text(), "raccoon.mat")
    acts = [(a.player, a.action, a.value) for a in g.cube_actions]
    assert acts[-3:] == [("black", "double", 2), ("white", "beaver", 4), ("black", "beaver", 8)]
