"""Tester's defects in game records and their callers: result lines that do not add up,
dice written low first and turn numbers out of order, unwritable save folders found only
after the games, and player names that inject terminal escapes or run to any length."""

import io
import json

import pytest

from bgrl.cli import main
from bgrl.records.record import RecordError, read_record
from bgrl.records.review import review_record
from bgrl.records.review_report import format_review, review_json
from tests.records.test_record import _edit
from tests.records.test_record import _lines_of_match_game as _lines


def _write(tmp_path, lines, name="g.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def _cut_with_result(result: dict) -> list[str]:
    """The tester's recipe: a real record cut to 10 lines (header + 9 turns), a result appended."""
    return _lines()[:10] + [json.dumps({"type": "result", **result})]


# ------------------------------------------------------------------ 1. the result line
@pytest.mark.parametrize("result, words", [
    ({"winner": "black", "points": 7, "how": "resign"}, "resignation is worth 1, 2 or 3 points"),
    ({"winner": "black", "points": -2, "how": "resign"}, "resignation is worth 1, 2 or 3 points"),
    ({"winner": "black", "points": 0, "how": "resign"}, "resignation is worth 1, 2 or 3 points"),
    ({"winner": None, "points": 1, "how": "resign"}, "winner must be 'white' or 'black'"),
    ({"winner": "black", "points": 0, "how": "draw"}, "a draw has winner null and 0 points"),
    ({"winner": None, "points": 1, "how": "draw"}, "a draw has winner null and 0 points"),
    ({"winner": "black", "points": True, "how": "resign"}, "points must be an integer"),
    ({"winner": "black", "points": 1.0, "how": "resign"}, "points must be an integer"),
    ({"winner": "black", "points": 1, "how": "forfeit"}, "how must be one of single, gammon, backgammon, resign, draw"),
    ({"winner": "white", "points": 3, "how": "single"}, "a single is worth 1 point"),  # 2 is a single at a cube of 2
    ({"winner": "white", "points": 12, "how": "gammon"}, r"a gammon is worth 2 point\(s\) times the cube"),
    ({"winner": "white", "points": 3 * 2**16, "how": "backgammon"}, "times the cube .a power of 2 up to 32768"),
])
def test_result_line_must_add_up(tmp_path, result, words):
    path = _write(tmp_path, _cut_with_result(result))
    with pytest.raises(RecordError, match=f"line 11: .*{words}"):
        read_record(path)
    with pytest.raises(RecordError, match=words):  # checked even without the game check
        read_record(path, check=False)


@pytest.mark.parametrize("result", [
    {"winner": "black", "points": 1, "how": "resign"},
    {"winner": "white", "points": 3, "how": "resign"},
    {"winner": None, "points": 0, "how": "draw"},
])
def test_good_result_lines_are_read(tmp_path, result):
    assert read_record(_write(tmp_path, _cut_with_result(result))).result == {"type": "result", **result}


def test_played_out_result_with_no_turn_is_refused(tmp_path):
    lines = [_lines()[0], json.dumps({"type": "result", "winner": "white", "points": 1, "how": "single"})]
    with pytest.raises(RecordError, match="no turn was played"):
        read_record(_write(tmp_path, lines))


def test_writer_hows_are_exactly_the_reader_hows():
    from bgrl.records.match_records import HOW as MATCH_HOW
    from bgrl.records.record import HOWS
    from bgrl.rules.outcome import RESULT_NAMES  # what bgrl.session.game writes for a game played out

    written = set(MATCH_HOW.values()) | set(RESULT_NAMES.values()) | {"resign", "draw"}  # + Game.resign / agree_draw
    assert written == set(HOWS)


def test_review_cli_refuses_bad_result_in_one_line(tmp_path, capsys):
    path = _write(tmp_path, _cut_with_result({"winner": "black", "points": 7, "how": "resign"}))
    assert main(["review", str(path)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.startswith("bgrl: error: ") and cap.err.count("\n") == 1
    assert "line 11" in cap.err and "1, 2 or 3 points" in cap.err and "wins by resignation" not in cap.err


# ------------------------------------------------------------------ 4. dice order and turn numbers
def test_writer_emits_high_die_first_and_turns_in_order():
    objs = [json.loads(line) for line in _lines()[1:-1]]
    assert [o["turn"] for o in objs] == list(range(1, len(objs) + 1))
    assert all(o["dice"][0] >= o["dice"][1] for o in objs)


@pytest.mark.parametrize("edit, words", [
    (lambda L: _edit(L, 1, dice=[3, 6]), r"line 2: dice \[3, 6\] are written low die first; expected the high die first, \[6, 3\]"),
    (lambda L: _edit(L, 2, turn=5), "line 3: turn number 5, expected 2"),
    (lambda L: _edit(L, 1, turn=0), "line 2: turn number 0, expected 1"),
])
def test_low_first_dice_and_wrong_turn_numbers_refused(tmp_path, edit, words):
    with pytest.raises(RecordError, match=words):
        read_record(_write(tmp_path, edit(_lines())))
    with pytest.raises(RecordError, match=words):
        read_record(_write(tmp_path, edit(_lines())), check=False)


def test_turn_field_still_optional(tmp_path):
    lines = _lines()
    for i in range(1, len(lines) - 1):
        obj = json.loads(lines[i])
        del obj["turn"]
        lines[i] = json.dumps(obj)
    assert len(read_record(_write(tmp_path, lines)).turns) == len(lines) - 2


# ------------------------------------------------------------------ 2. unwritable save folders
@pytest.fixture
def unwritable(monkeypatch):
    """Every temporary file fails as in a folder the process may not write (we run as root,
    so chmod does not deny writes)."""
    import tempfile

    def deny(*args, dir=None, **kwargs):
        raise PermissionError(13, "Permission denied", str(dir))

    monkeypatch.setattr(tempfile, "mkstemp", deny)


def test_match_save_games_unwritable_refused_before_any_game(tmp_path, capsys, unwritable, monkeypatch):
    import bgrl.arena.duel

    played = []
    real = bgrl.arena.duel.play_match
    monkeypatch.setattr(bgrl.arena.duel, "play_match", lambda *a, **k: played.append(1) or real(*a, **k))
    d = tmp_path / "games"
    assert main(["match", "random", "random", "--games", "3", "--save-games", str(d)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgrl: error: --save-games ") and err.count("\n") == 1 and "Permission denied" in err
    assert played == [] and list(d.iterdir()) == []


def test_play_save_unwritable_refused_before_the_game(tmp_path, capsys, unwritable, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--opponent", "random", "--save", str(tmp_path / "games")]) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith("bgrl: error: --save ") and cap.err.count("\n") == 1 and "Permission denied" in cap.err
    assert "--no-save" in cap.err and cap.out == ""  # no greeting, no board: the game never started


@pytest.mark.parametrize("option", ["--save", "--save-games"])
def test_save_folder_under_a_file_refused(tmp_path, capsys, option, monkeypatch):
    (tmp_path / "afile").write_text("x")
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    argv = ["play", "--opponent", "random"] if option == "--save" else ["match", "random", "random", "--games", "2"]
    assert main(argv + [option, str(tmp_path / "afile" / "sub")]) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith(f"bgrl: error: {option} ") and cap.err.count("\n") == 1 and cap.out == ""


def test_match_write_failure_mid_match_names_the_option(tmp_path, capsys, monkeypatch):
    import bgrl.records.match_records

    def fail(record, path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(bgrl.records.match_records, "write_record", fail)
    assert main(["match", "random", "random", "--games", "2", "--save-games", str(tmp_path / "g")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgrl: error: --save-games ") and "game-0001.jsonl" in err and err.count("\n") == 1


def test_writable_folder_check_leaves_nothing(tmp_path):
    from bgrl._fileio import check_writable_dir

    d = check_writable_dir(tmp_path / "a" / "b")
    assert d.is_dir() and list(d.iterdir()) == []


# ------------------------------------------------------------------ 3. player names from a record
EVIL = "\u001b[31mRED\n FAKE LINE\u202e"


class FirstIsBest:
    """A ranker with no network: the legal plays in canonical order, equal equities."""

    name = "first"

    def __call__(self, position, dice):
        from bgrl.agents.hints import RankedPlay
        from bgrl.evaluation.probabilities import Probabilities
        from bgrl.rules.notation import legal_plays

        return [RankedPlay(rank=i + 1, play=p, equity=0.0, equity_loss=0.0, probabilities=Probabilities(0.5, 0, 0, 0, 0))
                for i, p in enumerate(legal_plays(position, dice))]


def test_names_escaped_and_cut_in_review(tmp_path):
    lines = _edit(_lines()[:6], 0, white=EVIL, black="x" * 100_000)
    rec = read_record(_write(tmp_path, lines))
    rv = review_record(rec, FirstIsBest())
    text = format_review(rv)
    assert "\u001b" not in text and "\u202e" not in text and "FAKE LINE" in text
    assert not any(line.startswith(" FAKE LINE") for line in text.splitlines())
    assert "\\x1b[31mRED\\n FAKE LINE\\u202e" in text
    assert "x" * 41 not in text and "x" * 39 + "…" in text
    assert max(len(line) for line in text.splitlines()) < 300
    obj = review_json([rv])
    dumped = json.dumps(obj)
    assert "x" * 41 not in dumped and len(dumped) < 20_000
    assert obj["games"][0]["white"] == EVIL  # short enough: kept raw in JSON (json escapes it)


def test_shown_name():
    from bgrl.records.review_report import shown_name

    assert shown_name("default") == "default"
    assert shown_name("a\tb\x00c") == "a\\tb\\x00c"
    assert shown_name("é" * 50) == "é" * 39 + "…"
