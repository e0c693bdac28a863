"""Game review: losses, marks, error rates and ratings; batched ranking; match --save-games;
the review CLI on saved games and on GNU Backgammon .mat exports; bad input."""

import json
from pathlib import Path

import numpy as np
import pytest

from bgrl.rules.board import Position
from bgrl.cli import main
from bgrl.agents.hints import HintRanker, RankedPlay, rank_plays
from bgrl.evaluation.probabilities import Probabilities, equity
from bgrl.rules.notation import legal_plays, play_from_notation
from bgrl.records.record import GameRecord, read_record
from bgrl.records.review import MARKS, RATINGS, mark_for, rating_for, review_record, review_records
from bgrl.records.review_report import format_review, review_json

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture(scope="module")
def evaluator():
    import torch

    from bgrl.agents.base import DEFAULT_CHECKPOINT
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.evaluator import NetEvaluator

    torch.set_num_threads(1)
    net, meta = load_network(DEFAULT_CHECKPOINT)
    return NetEvaluator(net, meta["encoder"])


def test_marks_and_ratings_scale():
    assert [t for t, _ in MARKS] == [0.16, 0.08, 0.04]
    assert [mark_for(x) for x in (0.0, 0.0399, 0.04, 0.0799, 0.08, 0.159, 0.16, 1.0, None)] == \
        [None, None, "doubtful", "doubtful", "bad", "bad", "very bad", "very bad", None]
    cases = {0.0: "supernatural", 1.99: "supernatural", 2.0: "world class", 4.9: "world class", 5.0: "expert",
             8.0: "advanced", 11.9: "advanced", 12.0: "intermediate", 18.0: "casual", 25.9: "casual",
             26.0: "beginner", 34.9: "beginner", 35.0: "awful", 400.0: "awful", None: None}
    assert {x: rating_for(x) for x in cases} == cases
    assert len(RATINGS) == 8


class ScriptedRanker:
    """Ranks the legal plays by a fixed equity per play: the canonical index times -step."""

    name = "scripted"

    def __init__(self, step):
        self.step = step
        self.calls = 0

    def __call__(self, position, dice):
        self.calls += 1
        plays = legal_plays(position, dice)
        return [RankedPlay(rank=i + 1, play=p, equity=-self.step * i, equity_loss=self.step * i,
                           probabilities=Probabilities(0.5, 0, 0, 0, 0)) for i, p in enumerate(plays)]


def _game(choices):
    """A record from the start: choices[i] = index (canonical order) of the play made."""
    rec = GameRecord(white="W", black="B")
    pos = Position.start()
    colour = "white"
    rolls = [(3, 1), (6, 5), (2, 1), (4, 4), (5, 3)]
    for dice, k in zip(rolls, choices):
        plays = legal_plays(pos, dice)
        rec.add_turn(colour, pos, dice, plays[k])
        pos = plays[k].position
        colour = "black" if colour == "white" else "white"
    return rec


def test_review_losses_marks_and_error_rates():
    rec = _game([0, 2, 1, 4, 0])  # white: 0, 1, 0 ; black: 2, 4
    ranker = ScriptedRanker(step=0.045)
    rv = review_record(rec, ranker)
    assert ranker.calls == 5  # no rank_many: one call per decision
    losses = [t.equity_loss for t in rv.turns]
    assert losses == pytest.approx([0, 0.09, 0.045, 0.18, 0])
    assert [t.mark for t in rv.turns] == [None, "bad", "doubtful", "very bad", None]
    assert [t.rank for t in rv.turns] == [1, 3, 2, 5, 1]
    w, b = rv.players["white"], rv.players["black"]
    assert (w.decisions, b.decisions) == (3, 2)
    assert w.error_rate == pytest.approx(1000 * 0.045 / 3) and w.rating == "intermediate"
    assert b.error_rate == pytest.approx(1000 * 0.27 / 2) and b.rating == "awful"
    assert b.marks == {"doubtful": 0, "bad": 1, "very bad": 1}
    # the played play is listed even when it ranks below the top few
    t4 = rv.turns[3]
    assert [r.rank for r in t4.shown(3)] == [1, 2, 3, 5]
    d = t4.as_dict(top=3)
    assert [a["played"] for a in d["alternatives"]] == [False, False, False, True]
    assert d["alternatives"][-1]["play"] == d["play"]


def test_pass_and_forced_turns():
    """A roll that cannot be played and a forced play: listed, never ranked or counted."""
    # mover has one checker on the bar, opponent holds 6 home points except the 1-point... closed board
    board = np.zeros(26, dtype=np.int8)
    board[25] = 1            # mover's checker on the bar
    board[1:3] = 1           # two mover checkers on its 1 and 2 point
    board[3] = 12            # the rest
    board[19:25] = -2        # opponent holds the mover's 19..24 points (its own home board)
    board[0] = 0
    board[18] = -3           # opponent's remaining 3 checkers
    pos = Position.from_board(board)
    assert legal_plays(pos, (6, 5)) == []
    rec = GameRecord(white="W", black="B", start_position_id=pos.position_id)
    rec.add_turn("white", pos, (6, 5), None)
    ranker = ScriptedRanker(0.01)
    rv = review_record(rec, ranker)
    t = rv.turns[0]
    assert (t.legal, t.decision, t.play, t.equity_loss, t.mark) == (0, False, None, None, None)
    assert ranker.calls == 0
    assert rv.players["white"].passes == 1 and rv.players["white"].decisions == 0
    assert rv.players["white"].error_rate is None and rv.players["white"].rating is None
    assert "no legal play" in format_review(rv)
    # forced: two checkers left on the 1-point, roll 2-1: both bear off, the only play
    board = np.zeros(26, dtype=np.int8)
    board[1] = 2
    board[19] = -15
    pos = Position.from_board(board)
    (only,) = legal_plays(pos, (2, 1))
    rec = GameRecord(white="W", black="B", start_position_id=pos.position_id)
    rec.add_turn("black", pos, (2, 1), only)
    rv = review_record(rec, ranker)
    t = rv.turns[0]
    assert (t.legal, t.decision, t.play, t.rank, t.equity_loss) == (1, False, "1/off(2)", None, None)
    assert ranker.calls == 0 and rv.players["black"].forced == 1
    assert "(forced)" in format_review(rv)


def test_rank_many_matches_rank_plays(evaluator):
    rng = np.random.default_rng(3)
    items, pos = [], Position.start()
    for _ in range(12):  # a random game's positions
        dice = tuple(int(x) for x in rng.integers(1, 7, size=2))
        plays = legal_plays(pos, dice)
        items.append((pos, dice))
        pos = plays[int(rng.integers(len(plays)))].position if plays else pos.flipped()
    ranker = HintRanker(evaluator, 0)
    many = ranker.rank_many(items)
    assert ranker.search_calls == 1
    for (p, d), got in zip(items, many):
        want = rank_plays(p, d, evaluator)
        assert len(got) == len(want)
        assert {r.play.notation for r in got} == {r.play.notation for r in want}
        eq_got = {r.play.notation: r.equity for r in got}
        for r in want:
            assert eq_got[r.play.notation] == pytest.approx(r.equity, abs=1e-5)
        assert [r.equity for r in got] == sorted((r.equity for r in got), reverse=True)


def test_search_ranker_at_1_ply_matches_hint_and_revalues_filtered_plays(evaluator):
    """rank_many at 1-ply orders plays as bgrl.agents.hints.rank_plays does; a play made that the
    move filter cut is valued at 1-ply like the best one (as gnubg's analysis does)."""
    from bgrl.agents.search import MoveFilter, after_state_probs

    rec = _game([3, 2, 5, 1, 4])
    narrow = HintRanker(evaluator, 1, (MoveFilter(1, 0.0),))  # only the 0-ply best goes to 1-ply
    items = [(Position.from_id(t.position_id), t.dice) for t in rec.turns]
    many = narrow.rank_many(items)
    for (p, d), got in zip(items, many):
        want = rank_plays(p, d, evaluator, ply=1, filters=(MoveFilter(1, 0.0),))
        assert [r.play.notation for r in got] == [r.play.notation for r in want]
        assert [r.ply for r in got] == [r.ply for r in want] and got[0].ply == 1 and got[-1].ply == 0
    raw = [next(r.ply for r in got if r.play.notation == t.play) for got, t in zip(many, rec.turns)]
    assert raw.count(0) >= 3  # the filter cut most of the plays made
    rv = review_record(rec, narrow)
    for t in rv.turns:
        assert t.ply == 1
        played = t.ranked[t.played_index]
        assert played.rank == t.rank and played.ply == 1 and played.play.notation == t.play
        direct = after_state_probs(evaluator, played.play.after_state[None], 1)[0]
        assert t.equity == pytest.approx(float(equity(direct)), abs=1e-6)
        assert t.equity_loss == pytest.approx(max(0.0, t.best_equity - t.equity))
        # ties share a rank: 1 + the plays valued deeper, or at the same ply and better by > 1e-9
        assert [r.rank for r in t.ranked] == [
            1 + sum(o.ply > r.ply or (o.ply == r.ply and o.equity > r.equity + 1e-9) for o in t.ranked) for r in t.ranked]
        deep = [r.equity for r in t.ranked if r.ply == 1]
        assert deep == sorted(deep, reverse=True) and t.ranked[0].ply == 1


def test_review_of_mat_uses_one_evaluator_call(evaluator):
    from bgrl.records.matfile import read_mat

    games = read_mat(DATA / "gnubg_money_nocube.mat")
    ranker = HintRanker(evaluator, 0, name="default")
    rvs = review_records([g.record for g in games], ranker, [g.notes for g in games])
    assert ranker.search_calls == 1
    assert [len(rv.turns) for rv in rvs] == [len(g.record.turns) for g in games]
    for rv in rvs:
        for t in rv.turns:
            if t.decision:
                mine = t.ranked[t.played_index]
                assert t.equity_loss >= 0 and mine.play.notation == t.play and mine.rank == t.rank
                assert t.rank == 1 + sum(r.equity > t.equity + 1e-9 for r in t.ranked)  # 0-ply: one depth
                if t.equity_loss == 0:
                    assert t.rank == 1
                assert t.equity_loss == pytest.approx(t.best_equity - t.equity)
    # gnubg 0-ply is a strong player: its error rate under our 0-ply network stays modest
    er = [rvs[0].players[c].error_rate for c in ("white", "black")]
    assert all(0 < x < 60 for x in er)


def test_match_records_and_self_review(tmp_path, evaluator):
    """The network's own plays, reviewed by the same network at 0-ply, lose nothing."""
    from bgrl.agents.base import NetAgent, RandomAgent
    from bgrl.arena.duel import play_match
    from bgrl.records.match_records import MatchRecorder, prepare_games_dir

    net, rnd = NetAgent(evaluator, name="net"), RandomAgent()
    plain = play_match(net, rnd, 4, seed=5)
    rec = MatchRecorder(prepare_games_dir(tmp_path / "g"), 4, ("net", "random"), seed=5)
    saved = play_match(net, rnd, 4, seed=5, recorder=rec)
    assert saved.ppg == plain.ppg and saved.win_rate == plain.win_rate  # recording changes nothing
    files = sorted((tmp_path / "g").glob("game-*.jsonl"))
    assert [f.name for f in files] == ["game-0001.jsonl", "game-0002.jsonl", "game-0003.jsonl", "game-0004.jsonl"]
    points = 0
    for i, f in enumerate(files):
        r = read_record(f)  # validates every play
        assert (r.white, r.black) == (("net", "random") if i % 2 == 0 else ("random", "net"))
        assert r.turns[0].position_id == "4HPwATDgc/ABMA" and r.seed == 5
        # each turn starts where the previous play left the board
        for a, b in zip(r.turns, r.turns[1:]):
            after = Position.from_id(a.position_id).flipped() if a.play is None else \
                play_from_notation(a.position_id, a.dice, a.play).position
            assert after.position_id == b.position_id and a.player != b.player
        last = play_from_notation(r.turns[-1].position_id, r.turns[-1].dice, r.turns[-1].play)
        from bgrl.rules.outcome import game_result

        assert game_result(last.after_state) == r.result["points"]
        sign = 1 if (r.result["winner"] == "white") == (i % 2 == 0) else -1
        points += sign * r.result["points"]
        rv = review_record(r, HintRanker(evaluator, 0))
        net_side = "white" if i % 2 == 0 else "black"
        assert rv.players[net_side].total_loss == pytest.approx(0.0, abs=1e-9)
        assert rv.players[net_side].decisions > 0
    assert points / 4 == pytest.approx(plain.ppg)


def test_prepare_games_dir_refuses_to_overwrite(tmp_path):
    from bgrl.records.match_records import prepare_games_dir

    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        prepare_games_dir(tmp_path / "f")
    d = tmp_path / "d"
    d.mkdir()
    (d / "game-0001.jsonl").write_text("{}")
    with pytest.raises(ValueError, match="already holds game records"):
        prepare_games_dir(d)


# ----------------------------------------------------------------------------- CLI
def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_match_save_games_then_review(tmp_path, capsys):
    d = tmp_path / "games"
    code, out, _ = run(["match", "default", "random", "--games", "2", "--seed", "1", "--save-games", str(d)], capsys)
    assert code == 0 and "2 game records written" in out
    f = d / "game-0001.jsonl"
    code, out, err = run(["review", str(f), "--level", "default"], capsys)
    assert code == 0, err
    assert "Game 1: default (White) vs random (Black)" in out and "error rate" in out
    assert "White (default)" in out and "supernatural" in out  # the network agrees with itself
    code, out, _ = run(["review", str(f), "--json", "--top", "2", "--level", "default"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["format"] == "bgrl-review-1" and obj["level"] == "default"
    assert set(obj) == {"format", "file", "level", "ranker", "games", "players", "summary", "errors_only"}
    g = obj["games"][0]
    assert set(g) == {"game", "white", "black", "result", "notes", "turns", "players"}
    t = next(t for t in g["turns"] if t["decision"])
    assert set(t) == {"turn", "player", "name", "position_id", "dice", "play", "legal_plays", "decision", "rank",
                      "equity", "best_equity", "equity_loss", "mark", "ply", "alternatives"}
    assert 1 <= len(t["alternatives"]) <= 3 and any(a["played"] for a in t["alternatives"])
    assert set(t["alternatives"][0]) == {"rank", "play", "position_id", "ply", "equity", "equity_loss", "probabilities",
                                         "played"}
    assert obj["players"]["white"]["error_rate"] == 0.0
    assert set(obj["players"]["black"]) == {"player", "name", "turns", "decisions", "forced", "passes", "total_loss",
                                            "error_rate", "rating", "marks"}
    # the default level is the judge of the game and the web board: its noise-free search at its own ply
    from bgrl.agents.levels import JUDGE_LEVEL, LEVELS

    ply = LEVELS[JUDGE_LEVEL].ply
    assert ply >= 1
    code, out, _ = run(["review", str(f), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["level"] == JUDGE_LEVEL and f"{ply}-ply" in obj["ranker"]
    assert {t["ply"] for t in obj["games"][0]["turns"] if t["decision"]} == {ply}
    # the same folder again: refused, nothing overwritten
    before = f.read_text()
    code, _, err = run(["match", "default", "random", "--games", "2", "--save-games", str(d)], capsys)
    assert code == 2 and "already holds game records" in err and f.read_text() == before


def test_cli_review_mat(capsys):
    code, out, err = run(["review", str(DATA / "gnubg_money_cube.mat"), "--game", "2"], capsys)
    assert code == 0, err
    assert "Game 2: alice (White) vs bob (Black)" in out and "cube action(s) read" in out and "WRONG DOUBLE" in out
    assert f"Review of {DATA / 'gnubg_money_cube.mat'} (.mat file, game 2 of 5)" in out  # not "1 game"
    code, out, _ = run(["review", str(DATA / "gnubg_money_cube.mat")], capsys)
    assert code == 0 and "(.mat file, 5 games)" in out
    code, out, _ = run(["review", str(DATA / "handwritten.mat"), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and [g["game"] for g in obj["games"]] == [1, 2]
    assert obj["games"][1]["result"] is None and obj["games"][0]["notes"]
    assert obj["players"]["white"]["turns"] == 4


@pytest.mark.parametrize(
    "make, args, words",
    [
        (None, ["--level", "expertish"], "unknown level 'expertish'"),
        (lambda p: p.write_text('{"type": "game", "format": "bgrl-game-1"}\n{oops\n'), [], "line 2: not JSON"),
        (lambda p: p.write_text(" 0 point match\n Game 1\n a : 0     b : 0\n  1) 31: 8/5 6/4\n"), [], "line 4"),
        (lambda p: p.write_text("just some text\n"), [], "not a game file"),
        (lambda p: None, [], "cannot read game file"),
        (None, ["--game", "3"], "holds 1 game"),
    ],
)
def test_cli_review_bad_input(tmp_path, capsys, make, args, words):
    p = tmp_path / "g.jsonl"
    if make is None:
        from bgrl.records.record import write_record

        write_record(_game([0, 0, 0]), p)
    else:
        make(p)
    code, out, err = run(["review", str(p), *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("bgrl: error: ") and words in err and err.count("\n") == 1


def test_review_json_helper_totals():
    rv = review_record(_game([1, 0, 1]), ScriptedRanker(0.05))
    obj = review_json([rv, rv], source="x", level="scripted")
    assert obj["players"]["white"]["decisions"] == 2 * rv.players["white"].decisions
    assert obj["players"]["white"]["total_loss"] == pytest.approx(2 * rv.players["white"].total_loss)


def test_cli_levels_match_then_review(tmp_path, capsys):
    """Named levels end to end: a level's own plays, reviewed at that level, lose nothing;
    a noisy level's do."""
    d = tmp_path / "lv"
    code, _, err = run(["match", "advanced", "casual", "--games", "2", "--seed", "4", "--save-games", str(d)], capsys)
    assert code == 0, err
    code, out, err = run(["review", str(d / "game-0002.jsonl"), "--level", "advanced", "--json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    assert obj["level"] == "advanced" and "level advanced" in obj["ranker"]
    g = obj["games"][0]
    assert (g["white"], g["black"]) == ("casual", "advanced")
    assert obj["players"]["black"]["error_rate"] == 0.0
    assert obj["players"]["white"]["total_loss"] > 0  # gnubg-style noise 0.08 errs


# ------------------------------------------------------------------ issue 17 item 8: a whole match, errors only
def _saved_game(path, choices, white="W", black="B"):
    from bgrl.records.record import write_record

    rec = _game(choices)
    rec.white, rec.black = white, black
    write_record(rec, path)
    return rec


def test_review_of_a_folder_and_several_files_sums_the_whole_match(tmp_path, capsys, monkeypatch):
    from bgrl.cli import review as review_cli

    d = tmp_path / "match"
    d.mkdir()
    _saved_game(d / "g1.jsonl", [0, 2, 1, 4, 0], white="ann", black="bob")  # ann 0 1 0, bob 2 4
    _saved_game(d / "g2.jsonl", [3, 0, 0, 0, 0], white="bob", black="ann")  # bob 3 0 0, ann 0 0 (colours swapped)
    (d / "notes.txt").write_text("not a game\n")
    step = 0.05
    monkeypatch.setattr(review_cli, "load_ranker", lambda level: ScriptedRanker(step))
    code, out, err = run(["review", str(d)], capsys)
    assert code == 0, err
    assert out.count("Review of ") == 2 and "notes.txt" not in out
    summary = out[out.index("Summary over 2 games in 2 files"):]
    rows = {ln.split()[0]: ln.split() for ln in summary.splitlines()[2:]}
    # ann: decisions with losses 0, 1, 0 (g1) and 0, 0 (g2) x step; bob: 2, 4 (g1) and 3, 0, 0 (g2)
    assert int(rows["ann"][1]) == 5 and int(rows["bob"][1]) == 5  # every opening-phase roll here is a choice
    ann_loss, bob_loss = step * (0 + 1 + 0 + 0 + 0), step * (2 + 4 + 3 + 0 + 0)
    assert float(rows["ann"][2]) == pytest.approx(ann_loss) and float(rows["bob"][2]) == pytest.approx(bob_loss)
    ann_rate = 1000 * ann_loss / int(rows["ann"][1])
    assert float(rows["ann"][3]) == pytest.approx(ann_rate, abs=0.05) and rating_for(ann_rate) in summary
    code, out2, _ = run(["review", str(d / "g1.jsonl"), str(d / "g2.jsonl"), "--json"], capsys)
    obj = json.loads(out2)
    assert obj["files"] == [str(d / "g1.jsonl"), str(d / "g2.jsonl")] and [g["file"] for g in obj["games"]] == obj["files"]
    assert set(obj["summary"]) == {"ann", "bob"} and obj["summary"]["ann"]["player"] == "white+black"
    assert obj["summary"]["bob"]["total_loss"] == pytest.approx(bob_loss)
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(["review", str(empty)], capsys)
    assert code == 2 and "no game file in this folder" in err


def test_review_errors_only_keeps_the_marked_plays(tmp_path, capsys, monkeypatch):
    from bgrl.cli import review as review_cli

    _saved_game(tmp_path / "g.jsonl", [0, 2, 1, 4, 0])
    monkeypatch.setattr(review_cli, "load_ranker", lambda level: ScriptedRanker(0.03))
    rv = review_record(_game([0, 2, 1, 4, 0]), ScriptedRanker(0.03))
    marked = [t.turn for t in rv.turns if t.mark]
    assert marked and len(marked) < len(rv.turns)  # losses 0.06 and 0.12 are marked; 0.03 and 0 are not
    code, out, _ = run(["review", str(tmp_path / "g.jsonl"), "--errors-only"], capsys)
    import re

    listed = [int(m.group(1)) for m in re.finditer(r"^ *(\d+)\. (?:White|Black)", out, re.M)]
    assert listed == marked
    assert "decisions" in out  # the summary still counts every turn
    code, out, _ = run(["review", str(tmp_path / "g.jsonl"), "--errors-only", "--json"], capsys)
    obj = json.loads(out)
    assert [t["turn"] for t in obj["games"][0]["turns"]] == marked and obj["errors_only"] is True
    assert obj["players"]["white"]["decisions"] == sum(1 for t in rv.turns if t.player == "white" and t.decision)


def test_review_text_is_compact_and_in_the_viewers_numbering():
    rec = _game([0, 2, 1, 4, 0])
    rv = review_record(rec, ScriptedRanker(0.01))
    text = format_review(rv)
    black = rv.turns[1]
    assert black.played.compact in text  # each play in its mover's numbering, compact
    seen = format_review(rv, viewer="white")
    assert "Every play is written in White's numbering" in seen
    assert f"{black.dice[0]}-{black.dice[1]}  {black.played.shown(True, other_side=True)}  loss" in seen
    white = rv.turns[0]
    assert f"{white.dice[0]}-{white.dice[1]}  {white.played.compact}  loss" in seen


def test_review_of_a_played_game_shows_the_computers_plays_in_the_players_numbering(tmp_path, capsys, monkeypatch):
    from bgrl.cli import review as review_cli

    rec = _saved_game(tmp_path / "g.jsonl", [0, 2, 1, 4, 0], white="beginner", black="human")
    monkeypatch.setattr(review_cli, "load_ranker", lambda level: ScriptedRanker(0.01))
    rv = review_record(rec, ScriptedRanker(0.01))
    white_turn = rv.turns[0]  # the computer's play, in Black's (the human's) numbering
    code, out, _ = run(["review", str(tmp_path / "g.jsonl")], capsys)
    assert "Every play is written in Black's numbering" in out
    assert f"{white_turn.played.shown(True, other_side=True)}  loss" in out
    code, out, _ = run(["review", str(tmp_path / "g.jsonl"), "--numbering", "mover"], capsys)
    assert "Every play is written" not in out and f"{white_turn.played.compact}  loss" in out
