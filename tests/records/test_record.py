"""Game records (bgrl-game-1): round trip, atomic write, clear errors."""

import json

import pytest

from bgrl.rules.board import Position
from bgrl.rules.notation import legal_plays
from bgrl.records.record import GameRecord, RecordError, read_record, write_record


def _two_turns() -> GameRecord:
    rec = GameRecord(white="human", black="expert", seed=3)
    pos = Position.start()
    play = next(p for p in legal_plays(pos, (3, 1)) if p.notation == "8/5 6/5")
    rec.add_turn("white", pos, (1, 3), play)
    rec.add_turn("black", play.position, (6, 6), legal_plays(play.position, (6, 6))[0])
    return rec


def test_round_trip(tmp_path):
    rec = _two_turns()
    rec.finish("white", 1, "resign")
    path = write_record(rec, tmp_path / "g.jsonl")
    back = read_record(path)
    assert [t.play for t in back.turns] == [t.play for t in rec.turns]
    assert back.turns[0].dice == (3, 1)
    assert back.result == {"type": "result", "winner": "white", "points": 1, "how": "resign"}
    assert json.loads(path.read_text().splitlines()[1])["dice"] == [3, 1]


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda L: L.__setitem__(1, "{oops"), "line 2: not JSON"),
        (lambda L: L.__setitem__(0, '{"type": "game", "format": "other"}'), "line 1: expected a header"),
        (lambda L: L.__setitem__(1, L[1].replace('"8/5 6/5"', '"8/2 6/5"')), "illegal play"),
        (lambda L: L.__setitem__(1, L[1].replace("4HPwATDgc/ABMA", "nonsense")), "line 2"),
        (lambda L: L.__setitem__(1, L[1].replace("[3, 1]", "[7, 1]")), "line 2"),
    ],
)
def test_corrupt_records_name_the_line(tmp_path, mutate, words):
    path = write_record(_two_turns(), tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    mutate(lines)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=words):
        read_record(path)


def test_empty_and_missing(tmp_path):
    (tmp_path / "e.jsonl").write_text("")
    with pytest.raises(RecordError, match="empty file"):
        read_record(tmp_path / "e.jsonl")
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "missing.jsonl")


def _lines_of_match_game():
    from pathlib import Path

    return (Path(__file__).parents[1] / "data" / "bgrl_match_game.jsonl").read_text().splitlines()


def _edit(lines, index, **changes):
    obj = json.loads(lines[index])
    obj.update(changes)
    out = list(lines)
    out[index] = json.dumps(obj)
    return out


@pytest.mark.parametrize("edit, words", [
    (lambda L: _edit(L, 2, position_id="4HPwATDgc/ABMA"), "is not the one the previous turn left"),
    (lambda L: _edit(L, 1, player="black"), "first turn is black's"),
    (lambda L: _edit(L, 0, start_on_roll="green"), "start_on_roll must be"),
    (lambda L: _edit(L, 0, start_position_id="AAAAAAAAAAAAAA"), "line 2"),
    (lambda L: _edit(L, 1, turn="x"), "turn must be an integer"),
    (lambda L: _edit(L, 1, dice=[63, ""]), "dice must be"),
    (lambda L: _edit(L, len(L) - 1, winner="black" if json.loads(L[-1])["winner"] == "white" else "white"), "result line says"),
])
def test_inconsistent_games_are_refused(tmp_path, edit, words):
    """A record must hang together (adversarial check): each line may be valid alone and the
    game still impossible."""
    lines = _lines_of_match_game()
    assert read_record(_write(tmp_path, lines)).result is not None  # the fixture itself is fine
    with pytest.raises(RecordError, match=words):
        read_record(_write(tmp_path, edit(lines)))


def _write(tmp_path, lines):
    p = tmp_path / "g.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p
