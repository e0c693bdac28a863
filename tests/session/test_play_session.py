"""`bgrl play` as a view of bgrl.session.GameSession (issue 41): the store (--store, BGRL_STORE),
--resume, the games shared with `bgrl games` and the web board, and the review of a scripted
`bgrl play --cube --match 3` game that judges every cube action and reports match points."""

from __future__ import annotations

import ast
import io
import json
import re
import sys
from pathlib import Path

import pytest

from bgrl.cli import main
from bgrl.session.owner import local_player_token
from tests.cli.test_play_cube import Script

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BGRL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BGRL_STORE", raising=False)
    return tmp_path / "home"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_import_circle_and_no_result_tables_of_their_own():
    view, play = (ROOT / "bgrl" / "cli" / f"{n}.py" for n in ("play_view", "play"))
    assert not {m for m in _imports(view) if m.startswith("bgrl.cli.play")}  # the view imports the session, not the commands
    assert not (ROOT / "bgrl" / "cli" / "play_cube.py").exists()  # one command module, no re-export shim
    for p in (view, play):
        text = p.read_text()
        assert "HOW = {" not in text and "_HOW = {" not in text and '"gammon", 3: "backgammon"' not in text


def _stdin(monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_play_is_stored_resumed_and_listed(home, tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 'games.db'}"
    _stdin(monkeypatch, "8/5 6/5\nquit\ny\n")
    code = main(["play", "--store", url, "--opponent", "pubeval", "--position", "4HPwATDgc/ABMA", "--dice", "31",
                 "--no-save", "--seed", "4"])
    out = capsys.readouterr().out
    assert code == 0 and "You play 8/5 6/5" in out
    gid = re.search(r"bgrl play --resume ([0-9a-f]+) continues it", out).group(1)
    # bgrl games lists it, under this machine's player token
    assert main(["games", "list", "--store", url, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["games"]
    assert [(r["id"], r["finished"], r["level"]) for r in rows] == [(gid, False, "pubeval")]
    # --resume without an ID: the newest unfinished game of this player, where it was left
    monkeypatch.setenv("BGRL_STORE", url)
    _stdin(monkeypatch, "resign backgammon\ny\n\n")
    assert main(["play", "--resume", "--no-save"]) == 0
    out = capsys.readouterr().out
    assert f"Resuming game {gid}" in out and "to play" in out and "accepts your resignation" in out
    assert main(["games", "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["games"]
    assert row["id"] == gid and row["finished"] and row["result"] == -3
    # a finished or unknown game, or no unfinished one: one line, exit 2
    for argv, expect in ((["--resume", gid], "is finished"), (["--resume", "f00d" * 4], "no game"),
                         (["--resume"], "no unfinished game"), (["--resume", "--cube"], "exclude each other")):
        assert main(["play", "--no-save", *argv]) == 2
        err = capsys.readouterr().err
        assert expect in err and err.count("\n") == 1, err


def test_the_web_board_lists_a_terminal_game(home, tmp_path, monkeypatch, capsys):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from bgrl.service.app import Settings, create_app
    from bgrl.service.engine import Engine
    from bgrl.session.owner import HEADER
    from service_fakes import fake_evaluator

    url = f"sqlite:///{tmp_path / 'games.db'}"
    _stdin(monkeypatch, "8/5 6/5\nquit\ny\n")
    assert main(["play", "--store", url, "--level", "beginner", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--no-save"]) == 0
    gid = re.search(r"--resume ([0-9a-f]+)", capsys.readouterr().out).group(1)
    app = create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"), settings=Settings(pool_kind="thread", store=url))
    with TestClient(app) as c:
        mine = {HEADER: local_player_token()}
        assert [g["id"] for g in c.get("/v1/games", headers=mine).json()["games"]] == [gid]
        st = c.get(f"/v1/games/{gid}", headers=mine).json()
        assert st["turns"] >= 2 and st["dice"] is not None  # the web board continues it where the terminal left it


def test_bad_store_is_one_line(home, tmp_path, capsys):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database" * 200)
    assert main(["play", "--store", f"sqlite:///{bad}", "--no-save"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and err.count("\n") == 1


def test_scripted_cube_match_review_judges_every_cube_action_and_reports_match_points(home, monkeypatch):
    """`bgrl play --cube --match 3 --level beginner --seed 11`: the player plays the first legal play,
    doubles at every other cube prompt, takes then passes the computer's doubles, and asks for the
    review of every game: each review lists every double, take and pass of its game, judged, and
    the points with the cube and the score of the match; the last one who won the match."""
    from bgrl.cli import play as play_mod
    from bgrl.cli.play import level_ranker
    from bgrl.agents.levels import load_level

    # the judge of the review: a 0-ply level keeps the test fast (bgrl play's is world-class)
    monkeypatch.setattr(play_mod, "judge_ranker", lambda: level_ranker(load_level("intermediate"), "the judge"))
    script = Script(cube_words=["double", ""] * 100, answers=["take", "pass"] * 100, other="y", max_lines=20000)
    real = play_mod.TerminalGame.__init__

    def init(self, *a, **kw):
        kw["input"], kw["output"] = script, script.out
        real(self, *a, **kw)
        script.game = self

    monkeypatch.setattr(play_mod.TerminalGame, "__init__", init)
    assert main(["play", "--cube", "--match", "3", "--level", "beginner", "--no-save", "--seed", "11"]) == 0
    s = script.game.session
    out = script.out.getvalue()
    m = s.match
    assert m.over and max(m.score.values()) >= 3
    reviews = out.split("Review this game")[1:]
    assert len(reviews) == len(m.games)
    infos = s.cube_infos + [{"actions": s.cube_actions}]
    n_actions = 0
    for i, (text, info, gs) in enumerate(zip(reviews, infos, m.games)):
        assert f"Game {i + 1}: " in text and "by MWC" in text and "match winning chances after the play" in text
        lines = [ln for ln in text.splitlines() if "cube: " in ln]
        for a in info["actions"]:  # every double, take and pass is judged
            who = a["player"].capitalize()
            want = {"double": f"{who} (", "take": f"{who} (", "drop": f"{who} ("}[a["action"]]
            verb = {"double": f"doubles to {a['value']}", "take": "takes", "drop": "passes"}[a["action"]]
            assert any(want in ln and verb in ln and "right:" in ln for ln in lines), (a, lines)
            n_actions += 1
        # points with the cube, and the match score
        assert f"cube {gs.cube}: {gs.points} point" in text
        assert "Score of the 3-point match: White " in text
        assert f"wins a backgammon ({gs.result} points)" not in text or gs.cube == 1
    assert n_actions > 0
    winner = m.winner.capitalize()
    loser = "black" if m.winner == "white" else "white"
    assert f"{winner} (" in reviews[-1] and f"wins the match {m.score[m.winner]}-{m.score[loser]}." in reviews[-1]


def test_a_terminal_game_against_random_is_listed_on_the_web_but_continued_in_the_terminal(home, tmp_path, monkeypatch, capsys):
    """The web board plays the levels only: a terminal game against ``random`` is listed (not
    served here) and a command on it is a 400 ``not_served`` naming ``bgrl play --resume ID``;
    the stored game is unchanged and still resumes in the terminal."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from bgrl.service.app import Settings, create_app
    from bgrl.service.engine import Engine
    from bgrl.session.owner import HEADER
    from service_fakes import fake_evaluator

    url = f"sqlite:///{tmp_path / 'games.db'}"
    _stdin(monkeypatch, "8/5 6/5\nquit\ny\n")
    assert main(["play", "--store", url, "--opponent", "random", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--no-save"]) == 0
    gid = re.search(r"--resume ([0-9a-f]+)", capsys.readouterr().out).group(1)
    app = create_app(engine=Engine(evaluator=fake_evaluator, model_sha256="fake"), settings=Settings(pool_kind="thread", store=url))
    with TestClient(app) as c:
        mine = {HEADER: local_player_token()}
        row, = c.get("/v1/games", headers=mine).json()["games"]
        assert row["id"] == gid and row["served_here"] is False
        st = c.get(f"/v1/games/{gid}", headers=mine).json()
        r = c.post(f"/v1/games/{gid}/play", headers=mine, json={"position_id": st["plays"][0]["position_id"]})
        assert r.status_code == 400 and r.json()["code"] == "not_served" and f"bgrl play --resume {gid}" in r.json()["message"]
        assert c.get(f"/v1/games/{gid}", headers=mine).json()["turns"] == st["turns"]
    _stdin(monkeypatch, "quit\ny\n")
    assert main(["play", "--store", url, "--resume", gid, "--no-save"]) == 0
