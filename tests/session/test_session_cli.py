"""`bgrl games list|show|export|delete` and the terminal's player token (issue 41)."""

from __future__ import annotations

import json

import pytest

from bgrl.cli import main
from bgrl.records.files import read_games_text
from bgrl.service.engine import Engine
from bgrl.session.game import GameSession
from bgrl.session.owner import is_token, local_player_token, new_token
from bgrl.session.store import GameStore

from service_fakes import fake_evaluator


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("BGRL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("BGRL_STORE", raising=False)
    return tmp_path / "home"


def _played(seed: int, finish: bool) -> GameSession:
    eng = Engine(evaluator=fake_evaluator, model_sha256="fake")
    s = GameSession.new(level="beginner", seed=seed)
    s.advance(eng)
    n = 0
    while s.game.over is None and (finish or n < 3):
        s.play(eng, s.plays[0].position_id)
        n += 1
    return s


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_tokens():
    t = new_token()
    assert is_token(t) and len(t) == 32 and t != new_token()
    assert not is_token("abc") and not is_token("G" * 32) and not is_token(None)


def test_the_local_token_is_made_once_and_kept(home):
    t = local_player_token()
    assert is_token(t) and local_player_token() == t and (home / "player_token").stat().st_mode & 0o077 == 0
    (home / "player_token").write_text("not a token")
    with pytest.raises(ValueError, match="does not hold a player token"):
        local_player_token()


def test_games_list_show_export_delete(home, capsys):
    url = f"sqlite:///{home / 'g.db'}"
    me, other = local_player_token(), new_token()
    with GameStore.open(url) as store:
        done, going = _played(1, True), _played(2, False)
        store.create(me, done.to_state(), done.summary(), finished=done.finished, game_id=done.id)
        store.create(me, going.to_state(), going.summary(), finished=going.finished, game_id=going.id)
        theirs = _played(3, False)
        store.create(other, theirs.to_state(), theirs.summary(), game_id=theirs.id)
    code, out, _ = run(capsys, "games", "list", "--store", url, "--json")
    rows = json.loads(out)["games"]
    assert code == 0 and {r["id"] for r in rows} == {done.id, going.id}  # never another player's
    assert {r["id"]: r["finished"] for r in rows} == {done.id: True, going.id: False}
    code, out, _ = run(capsys, "games", "list", "--store", url, "--which", "in-progress")
    assert code == 0 and going.id in out and done.id not in out
    code, out, _ = run(capsys, "games", "show", done.id, "--store", url)
    assert code == 0 and done.state()["over"]["text"] in out
    code, out, _ = run(capsys, "games", "export", done.id, "--store", url)
    records, *_ = read_games_text(out, "export")
    assert code == 0 and len(records) == 1 and len(records[0].turns) == len(done.record.turns)
    code, out, _ = run(capsys, "games", "export", done.id, "--store", url, "--format", "mat")
    assert code == 0 and "Game 1" in out
    code, _, err = run(capsys, "games", "show", theirs.id, "--store", url)
    assert code == 2 and "no game" in err
    code, out, _ = run(capsys, "games", "list", "--store", url, "--token", other, "--json")
    assert [r["id"] for r in json.loads(out)["games"]] == [theirs.id]
    code, out, _ = run(capsys, "games", "delete", going.id, "--store", url)
    assert code == 0 and "deleted" in out
    code, out, _ = run(capsys, "games", "list", "--store", url, "--json")
    assert [r["id"] for r in json.loads(out)["games"]] == [done.id]


def test_games_bad_input_is_one_line(home, capsys, tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database at all" * 100)
    code, _, err = run(capsys, "games", "list", "--store", f"sqlite:///{bad}")
    assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "games", "show", "--store", f"sqlite:///{tmp_path / 'ok.db'}")
    assert code == 2 and "needs the game's id" in err
    code, _, err = run(capsys, "games", "list", "--token", "xyz", "--store", f"sqlite:///{tmp_path / 'ok.db'}")
    assert code == 2 and "--token" in err
    code, _, err = run(capsys, "games", "list", "--store", "postgresql://u:secret@127.0.0.1:1/db")
    assert code == 2 and "secret" not in err and "***" in err


def test_games_with_damaged_rows_are_listed_and_deletable(home, capsys):
    """One damaged row (state not JSON, a summary that is a JSON list, a state of another format)
    hides none of the player's other games: list marks it, show names it in one line, delete
    removes it."""
    import sqlite3

    url = f"sqlite:///{home / 'g.db'}"
    me = local_player_token()
    games = [_played(s, False) for s in (1, 2, 3, 4)]
    with GameStore.open(url) as store:
        for s in games:
            store.create(me, s.to_state(), s.summary(), game_id=s.id)
    good, not_json, list_summary, other_format = (s.id for s in games)
    with sqlite3.connect(home / "g.db") as db:
        db.execute("UPDATE games SET state = '{oops' WHERE id = ?", (not_json,))
        db.execute("UPDATE games SET summary = '[1, 2]' WHERE id = ?", (list_summary,))
        db.execute("UPDATE games SET state = '{\"format\": \"other\"}' WHERE id = ?", (other_format,))
    code, out, err = run(capsys, "games", "list", "--store", url, "--json")
    assert code == 0, err
    rows = {r["id"]: r for r in json.loads(out)["games"]}
    assert set(rows) == {good, not_json, list_summary, other_format}
    assert "damaged" not in rows[good] and rows[good]["level"] == "beginner"
    assert "not JSON" in rows[not_json]["damaged"] and "array" in rows[list_summary]["damaged"]
    code, out, err = run(capsys, "games", "list", "--store", url)
    assert code == 0 and "Traceback" not in err
    lines = {ln.split()[0]: ln for ln in out.splitlines()[1:]}
    assert "damaged" in lines[not_json] and "damaged" in lines[list_summary] and "in progress" in lines[good]
    for gid in (not_json, other_format):
        for action in ("show", "export"):
            code, _, err = run(capsys, "games", action, gid, "--store", url)
            assert code == 2 and "damaged" in err and f"bgrl games delete {gid}" in err, err
            assert len(err.strip().splitlines()) == 1
    for gid in (not_json, list_summary, other_format):
        code, out, err = run(capsys, "games", "delete", gid, "--store", url)
        assert code == 0 and f"deleted game {gid}" in out, err
    code, _, err = run(capsys, "games", "delete", not_json, "--store", url)
    assert code == 2 and "no game" in err
    code, out, _ = run(capsys, "games", "list", "--store", url, "--json")
    assert [r["id"] for r in json.loads(out)["games"]] == [good]
