"""Game records of cube games (tester's defects): the bgrl-game-1 record a cube session writes
is read back (points with the cube, cube lines checked), a file of several games is read, the
.mat export carries the cube actions so that it reads back with the session's cube actions and
points, and reading a large .mat file is fast and can be stopped."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bgrl.cli import main
from bgrl.records import matfile
from bgrl.records.cube_review import review_cube
from bgrl.records.files import read_games, read_games_text, record_cube_info
from bgrl.records.matfile import mat_text, parse_mat
from bgrl.records.record import ReadStopped, RecordError, parse_records, read_record, write_record
from bgrl.rules.match import MatchRules
from bgrl.service.engine import Engine
from bgrl.session.game import GameSession

from service_fakes import fake_evaluator

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture(scope="module")
def engine():
    return Engine(evaluator=fake_evaluator, model_sha256="fake")


def play_session(engine, monkeypatch, rules: MatchRules, seed: int, games: int = 3, answers=("take",),
                 p_double: float = 0.05) -> GameSession:
    """A cube session played to its end (a match) or for ``games`` games (money): the player
    picks random plays and doubles at random, the computer doubles at random and answers the
    player's doubles with ``answers`` in turn; the player takes, passes or beavers at random."""
    import bgrl.agents.cube as agents_cube

    rnd = random.Random(seed)
    said = iter(answers * 1000)
    s = GameSession.new(level="beginner", seed=seed, rules=rules)

    def answer(agent, board, cube):
        a = next(said)
        return "take" if a == "beaver" and s.match.why_no_beaver(s.computer) is not None else a

    monkeypatch.setattr(agents_cube, "wants_double", lambda d, cube=None: rnd.random() < p_double)
    monkeypatch.setattr(agents_cube, "answer_double", answer)
    s.advance(engine)
    while True:
        while s.game.over is None:
            if s.awaiting == "cube":
                s.cube_action(engine, "double" if rnd.random() < p_double else "roll")
            elif s.awaiting == "answer":
                opts = ["take", "take", "pass"] + (["beaver"] if s.match.why_no_beaver(s.human) is None else [])
                s.cube_action(engine, rnd.choice(opts))
            else:
                s.play(engine, rnd.choice(s.plays).position_id)
        if s.match.over or (not rules.is_match and len(s.match.games) >= games):
            return s
        s.next_game(engine)


def _export(records) -> str:
    """What ``bgrl games export ID`` (format bgrl) writes: the records one after the other."""
    return "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for rec in records for line in rec.lines())


def _doubled_and_taken(engine, monkeypatch) -> GameSession:
    """A money game in which the player doubles at once and the computer takes, played out."""
    s = GameSession.new(level="beginner", seed=3, rules=MatchRules())
    import bgrl.agents.cube as agents_cube

    monkeypatch.setattr(agents_cube, "wants_double", lambda d, cube=None: False)
    monkeypatch.setattr(agents_cube, "answer_double", lambda agent, board, cube: "take")
    s.advance(engine)
    s.cube_action(engine, "double")
    while s.game.over is None:
        if s.awaiting is not None:
            s.cube_action(engine, "roll")
        else:
            s.play(engine, s.plays[0].position_id)
    return s


# ------------------------------------------------------------------ 1. the bgrl record of a cube game
def test_a_cube_games_record_is_read_back_with_points_times_the_cube(engine, monkeypatch, tmp_path):
    s = _doubled_and_taken(engine, monkeypatch)
    gs = s.match.games[-1]
    assert gs.cube == 2 and gs.points == 2 * gs.result
    path = write_record(s.record, tmp_path / "g.jsonl")
    rec = read_record(path)  # was: "a single is worth 1 point(s), got 2"
    assert rec.result["points"] == gs.points and rec.cube["value"] == 1 and rec.cube["match_length"] == 0
    assert [(c.player, c.action, c.value, c.turn) for c in rec.cube_actions] == [
        (s.human, "double", 2, 0), (s.computer, "take", 2, 0)]
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["type"] for x in lines[:4]] == ["game", "cube", "cube", "turn"] and lines[0]["cube"]["max_value"] == 32768
    # the cube review sees the double and the take
    info = record_cube_info(rec)
    assert [(a.action, a.position_id) for a in info["actions"]] == [("double", rec.start_position_id),
                                                                    ("take", rec.start_position_id)]


def test_bgrl_review_reads_a_cube_games_record_and_judges_its_cube(engine, monkeypatch, tmp_path, capsys):
    s = _doubled_and_taken(engine, monkeypatch)
    path = write_record(s.record, tmp_path / "g.jsonl")
    assert main(["review", str(path), "--level", "intermediate", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    cube = obj["games"][0]["cube"]
    assert [(c["player"], c["action"]) for c in cube if c["action"] != "no double"][:2] == [
        (s.human, "double"), (s.computer, "take")]


def test_records_written_before_they_held_the_cube_are_read(engine, monkeypatch, tmp_path):
    """``bgrl play --cube`` wrote points with the cube and no cube lines: any cube 1..2^15 is accepted."""
    s = _doubled_and_taken(engine, monkeypatch)
    lines = [x for x in s.record.lines() if x["type"] != "cube"]
    del lines[0]["cube"]
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert read_record(old).result == s.record.result
    lines[-1]["points"] = 3 * s.match.games[-1].result  # no cube makes that
    old.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(RecordError, match=f"line {len(lines)}: a (single|gammon|backgammon) is worth . point.s. times the cube"):
        read_record(old)


def _edited(s: GameSession, edit) -> list[str]:
    lines = s.record.lines()
    edit(lines)
    return [json.dumps(x) for x in lines]


@pytest.mark.parametrize("edit, words", [
    (lambda L: L[-1].update(points=L[-1]["points"] * 2), r"with the cube at 2 is worth \d point\(s\), got"),
    (lambda L: L[1].update(value=4), "doubles to 4: expected 2"),
    (lambda L: L[1].update(player="black" if L[1]["player"] == "white" else "white"), "only the side about to roll may double"),
    (lambda L: L.pop(1), "but no double was offered"),
    (lambda L: L.pop(2), "rolls while .* double to 2 waits for its answer"),
    (lambda L: L[2].update(action="beaver", value=4), "beavers are not played here"),
    (lambda L: L[2].update(player=L[1]["player"]), "answers its own double"),
    (lambda L: L[2].update(action="dance"), "cube action must be one of"),
    (lambda L: L[0]["cube"].update(crawford=True), "neither side is 1 point away"),
    (lambda L: L[0]["cube"].update(value=3), "header's cube value must be a power of 2"),
    (lambda L: L[0]["cube"].update(colour="white"), "unknown field"),
])
def test_inconsistent_cube_records_are_refused_in_one_line(engine, monkeypatch, edit, words):
    s = _doubled_and_taken(engine, monkeypatch)
    with pytest.raises(RecordError, match=words) as e:
        parse_records("\n".join(_edited(s, edit)), "g.jsonl")
    assert "g.jsonl" in str(e.value) and "\n" not in str(e.value)


def test_a_dropped_double_ends_the_record_with_the_doublers_single_game(engine, monkeypatch):
    import bgrl.agents.cube as agents_cube

    monkeypatch.setattr(agents_cube, "answer_double", lambda agent, board, cube: "pass")
    s = GameSession.new(level="beginner", seed=5, rules=MatchRules())
    s.advance(engine)
    s.cube_action(engine, "double")
    assert s.game.over is not None and s.record.result == {"type": "result", "winner": s.human, "points": 1, "how": "resign"}
    rec = parse_records(_export([s.record]), "g.jsonl")[0]
    assert [c.action for c in rec.cube_actions] == ["double", "drop"] and rec.result["points"] == 1
    bad = [json.loads(x) for x in _export([s.record]).splitlines()]
    bad[-1]["winner"] = s.computer
    with pytest.raises(RecordError, match="after the drop .* the result is"):
        parse_records("\n".join(json.dumps(x) for x in bad), "g.jsonl")
    text = mat_text([s.record])
    assert " Doubles => 2" in text and " Drops" in text and "Wins 1 point" in text


# ------------------------------------------------------------------ a session's export of several games
@pytest.mark.parametrize("rules, seed", [(MatchRules(match_length=7), 1), (MatchRules(), 3),
                                         (MatchRules(jacoby=True, beavers=True), 1)])
def test_a_sessions_export_of_every_game_is_read_with_its_cube(engine, monkeypatch, tmp_path, rules, seed):
    s = play_session(engine, monkeypatch, rules, seed, answers=("take", "pass", "beaver", "take"))
    records = s.all_records()
    assert len(records) == len(s.match.games) >= 2 and any(r.cube_actions for r in records)
    path = tmp_path / "export.jsonl"
    path.write_text(_export(records))
    recs, notes, kind, cubes = read_games(path, with_cube=True)  # was: the points refused, then the 2nd header
    assert kind == "bgrl-game-1" and len(recs) == len(records)
    for rec, gs, info, cube in zip(recs, s.match.games, s.cube_infos + [{"actions": s.cube_actions}], cubes):
        assert rec.result["points"] == gs.points and rec.result["winner"] == gs.winner
        assert [(a["player"], a["action"], a["value"], a["turn"], a["position_id"]) for a in info["actions"]] == \
            [(a.player, a.action, a.value, a.turn, a.position_id) for a in cube["actions"]]
        assert cube["match_length"] == rules.match_length


def test_read_record_takes_one_game_and_read_records_several(engine, monkeypatch, tmp_path):
    from bgrl.records.record import read_records

    s = _doubled_and_taken(engine, monkeypatch)
    path = tmp_path / "two.jsonl"
    path.write_text(_export([s.record, s.record]))
    assert [r.result for r in read_records(path)] == [s.record.result] * 2
    with pytest.raises(RecordError, match="two.jsonl: holds 2 games; expected one"):
        read_record(path)


# ------------------------------------------------------------------ 2. the .mat export
@pytest.mark.parametrize("rules, seed", [(MatchRules(match_length=7), 0), (MatchRules(match_length=5), 1),
                                         (MatchRules(), 2), (MatchRules(beavers=True), 1)])
def test_mat_export_round_trip_keeps_the_cube_actions_and_points(engine, monkeypatch, rules, seed):
    s = play_session(engine, monkeypatch, rules, seed, answers=("take", "pass", "beaver", "take"))
    records = s.all_records()
    text = mat_text(records, rules.match_length)
    games = parse_mat(text, "export.mat")
    assert len(games) == len(records) == len(s.match.games)
    infos = s.cube_infos + [{"actions": s.cube_actions, "start": s.game_start}]
    n_actions = 0
    for g, rec, gs, info in zip(games, records, s.match.games, infos):
        assert [(t.player, t.position_id, t.play) for t in g.record.turns] == [(t.player, t.position_id, t.play) for t in rec.turns]
        want = [(a["player"], a["action"], a["value"], a["turn"], a["position_id"]) for a in info["actions"]]
        assert [(a.player, a.action, a.value, a.turn, a.position_id) for a in g.cube_actions] == want
        n_actions += len(want)
        assert g.points == gs.points  # "Wins N points": with the cube
        if rules.is_match:
            assert list(g.score) == info["start"]["score"]
    assert n_actions > 0
    # the cube review judges each double of the session as a double made, not a missed one
    # (the judge here doubles everywhere: a position where nobody doubled is a missed double)
    recs, _, _, cubes = read_games_text(text, "export.mat", with_cube=True)
    rows = review_cube(cubes, lambda ps, cs: [_double_take() for _ in ps])
    for judged, info in zip(rows, infos):
        doubles = {(a["turn"] + 1, a["player"]) for a in info["actions"] if a["action"] == "double"}
        made = {(r.turn, r.player): r for r in judged if r.kind == "double"}
        assert all(made[d].action == "double" and made[d].error is None for d in doubles)
        assert {d for d, r in made.items() if r.action == "double"} == doubles


def _double_take():
    from bgrl.evaluation.cube import CubeDecision

    return CubeDecision("double, take", True, 0.1, 0.4, 1.0)


def test_a_double_before_the_first_roll_is_read_from_a_mat_file():
    """bgrl's sessions have no opening roll: the first player may double before its first roll."""
    text = (" 0 point match\n\n Game 1\n alice : 0                      bob : 0\n"
            "  1)  Doubles => 2                Takes\n  2) 31: 8/5 6/5\n")
    (g,) = parse_mat(text, "x.mat")
    assert g.record.start_on_roll == "white" and [a.action for a in g.cube_actions] == ["double", "take"]
    assert g.cube_actions[0].position_id == "4HPwATDgc/ABMA" and g.cube_actions[0].turn == 0


# ------------------------------------------------------------------ 3. reading large .mat files
def _big_mat(copies: int) -> str:
    lines = (DATA / "gnubg_money_nocube.mat").read_text().splitlines()
    game = lines[lines.index(" Game 1") + 2: lines.index(" Game 2")]
    out = [" 0 point match", ""]
    for k in range(1, copies + 1):
        out += [f" Game {k}", " alice : 0                      bob : 0"] + game
    return "\n".join(out) + "\n"


def _slow(monkeypatch):
    """Every game read play by play (the reference reader)."""
    def refuse(self, *args):
        raise matfile._ReadSlowly("the reference")

    monkeypatch.setattr(matfile._FastBoard, "roll", refuse)


@pytest.mark.parametrize("name", ["gnubg_money_1game.mat", "gnubg_money_cube.mat", "gnubg_money_nocube.mat",
                                  "handwritten.mat", "bgrl_match_game.mat", "raccoon.mat", "planted_wrong_pass.mat"])
def test_the_batched_reader_gives_what_the_play_by_play_reader_gives(monkeypatch, name):
    text = (DATA / name).read_text()
    fast = parse_mat(text, name)
    with monkeypatch.context() as m:
        _slow(m)
        slow = parse_mat(text, name)
    fields = ("number", "record", "notes", "match_length", "cube_actions", "score", "crawford", "points")
    assert [[getattr(g, f) for f in fields] for g in fast] == [[getattr(g, f) for f in fields] for g in slow]


def test_the_first_error_of_the_file_is_named_as_before(monkeypatch):
    text = _big_mat(3)
    lines = text.splitlines()
    # game 2: an illegal play (found by the batch); game 3: a take without a double (found at once)
    i2 = [i for i, ln in enumerate(lines) if ln.startswith("  4) ")][1]
    lines[i2] = lines[i2].replace("61: 23/22 11/5", "61: 23/22 11/4")
    i3 = [i for i, ln in enumerate(lines) if ln.startswith("  6) ")][2]
    lines[i3] = "  6)  Takes"
    bad = "\n".join(lines) + "\n"
    with pytest.raises(matfile.MatError) as fast:
        parse_mat(bad, "x.mat")
    with monkeypatch.context() as m:
        _slow(m)
        with pytest.raises(matfile.MatError) as slow:
            parse_mat(bad, "x.mat")
    assert str(fast.value) == str(slow.value) and f"line {i2 + 1}:" in str(fast.value)


def test_reading_can_be_stopped():
    text = _big_mat(40)
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(ReadStopped, match="big.mat: reading stopped"):
        read_games_text(text, "big.mat", stop=stop)
    assert not isinstance(ReadStopped("x"), RecordError) and issubclass(ReadStopped, RuntimeError)
    with pytest.raises(ReadStopped):
        read_games_text(_export([parse_mat(text, "big.mat")[0].record]) * 3, "g.jsonl", stop=lambda: True)
    recs, _, _ = read_games_text(text, "big.mat", stop=lambda: False)
    assert len(recs) == 40
