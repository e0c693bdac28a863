"""The store of game sessions (bgrl.session.store), against SQLite and PostgreSQL.

Every test taking the ``url`` or ``store`` fixture runs twice: on a SQLite file in tmp_path, and on
PostgreSQL at $BGRL_TEST_POSTGRES (default postgresql://bgrl:bgrl@127.0.0.1:5432/bgrl_test) in a
schema of its own, dropped afterwards. Where that PostgreSQL cannot be reached the PostgreSQL cases
skip with the reason, unless BGRL_REQUIRE_POSTGRES=1 (as .ci/run sets), where they fail.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

import bgrl.session.store as store_module
from bgrl.session.store import (
    DEFAULT_URL,
    SCHEMA_VERSION,
    V1_DDL,
    ConflictError,
    DamagedGameError,
    GameStore,
    NoGameError,
    StoredGame,
    StoreError,
    masked,
    store_url,
)

ROOT = Path(__file__).resolve().parents[2]
PG_DEFAULT = "postgresql://bgrl:bgrl@127.0.0.1:5432/bgrl_test"


def _pg_base() -> str:
    return os.environ.get("BGRL_TEST_POSTGRES") or PG_DEFAULT


def _engine(url: str) -> sa.Engine:
    """A plain SQLAlchemy engine on a store URL (to build or inspect a store behind its back)."""
    return sa.create_engine(store_module._parse(url)[0])


@pytest.fixture(scope="session")
def _postgres_unreachable() -> str | None:
    """None when the test PostgreSQL answers, else why not."""
    url = _pg_base()
    try:
        engine = sa.create_engine(store_module._parse(url)[0], connect_args={"connect_timeout": 5})
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        finally:
            engine.dispose()
    except Exception as err:  # noqa: BLE001 - any failure is a reason to skip
        return f"PostgreSQL at {masked(url)} is unreachable ({store_module._reason(err)}); set BGRL_TEST_POSTGRES"
    return None


@pytest.fixture
def postgres_url(_postgres_unreachable):
    """A store URL on the test PostgreSQL whose search_path is a fresh schema, dropped afterwards."""
    if _postgres_unreachable:
        if os.environ.get("BGRL_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"BGRL_REQUIRE_POSTGRES=1 but {_postgres_unreachable}")
        pytest.skip(_postgres_unreachable)
    schema = "bgrl_test_" + secrets.token_hex(6)
    base = _pg_base()
    admin = _engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'bgrl.db'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def store(url):
    s = GameStore.open(url)
    try:
        yield s
    finally:
        s.close()


def _schema_version(url: str) -> int:
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return conn.exec_driver_sql("SELECT version FROM bgrl_schema").scalar_one()
    finally:
        engine.dispose()


# ---------------------------------------------------------------------------------------------
# create / get / update / list / delete / purge


def test_create_and_get(store):
    g = store.create("alice", {"board": [0, 2, -5], "turn": 1}, {"opponent": "expert"})
    assert isinstance(g, StoredGame)
    assert len(g.id) == 16 and int(g.id, 16) >= 0
    assert (g.owner, g.version, g.finished) == ("alice", 1, False)
    assert g.created_at == g.updated_at > 1.7e9
    assert store.get(g.id) == g
    assert store.get(g.id, "alice") == g
    assert store.get("nosuchgame") is None
    mine = store.create("alice", {}, game_id="chosen-id", finished=True)
    assert (mine.id, mine.summary, mine.finished) == ("chosen-id", {}, True)
    assert store.get("chosen-id").finished is True
    with pytest.raises(StoreError, match="chosen-id is already in the store"):
        store.create("bob", {"x": 1}, game_id="chosen-id")
    assert store.get("chosen-id").owner == "alice"


def test_update_versions(store):
    g = store.create("alice", {"ply": 0})
    g2 = store.update(g.id, "alice", 1, {"ply": 1}, {"errors": 0})
    assert (g2.version, g2.state, g2.summary, g2.finished) == (2, {"ply": 1}, {"errors": 0}, False)
    assert g2.created_at == g.created_at and g2.updated_at >= g.updated_at
    g3 = store.update(g.id, "alice", 2, {"ply": 2}, finished=True)
    assert (g3.version, g3.summary, g3.finished) == (3, {}, True)
    assert store.get(g.id) == g3
    with pytest.raises(ConflictError, match="at version 3, not 2"):
        store.update(g.id, "alice", 2, {"ply": 99})
    assert issubclass(ConflictError, StoreError) and issubclass(StoreError, ValueError)
    with pytest.raises(StoreError, match="^no game nosuch") as info:
        store.update("nosuch", "alice", 1, {})
    assert not isinstance(info.value, ConflictError)
    assert store.get(g.id) == g3


def test_list_newest_first_and_filters(store, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=lambda: clock[0]))
    ids = []
    for i in range(4):
        clock[0] += 10
        ids.append(store.create("alice", {"i": i}, finished=i % 2 == 1).id)
    store.create("bob", {"i": 9})
    assert [g.id for g in store.list("alice")] == ids[::-1]
    clock[0] += 10
    store.update(ids[0], "alice", 1, {"i": 0, "moved": True})
    assert [g.id for g in store.list("alice")] == [ids[0], ids[3], ids[2], ids[1]]
    assert [g.id for g in store.list("alice", finished=True)] == [ids[3], ids[1]]
    assert [g.id for g in store.list("alice", finished=False)] == [ids[0], ids[2]]
    assert [g.id for g in store.list("alice", limit=2)] == [ids[0], ids[3]]
    assert len(store.list("alice", limit=None)) == 4
    assert [g.state for g in store.list("bob")] == [{"i": 9}]
    assert store.list("carol") == []


def test_delete(store):
    g = store.create("alice", {"x": 1})
    assert store.delete(g.id, "bob") is False
    assert store.get(g.id) is not None
    assert store.delete(g.id, "alice") is True
    assert store.get(g.id) is None
    assert store.delete(g.id, "alice") is False


def test_a_game_deleted_meanwhile_is_no_game(store):
    """A command's write after a DELETE: NoGameError (the service answers 404), not a conflict."""
    g = store.create("alice", {"x": 1})
    assert store.delete(g.id, "alice")
    with pytest.raises(NoGameError, match=f"^no game {g.id} of this owner"):
        store.update(g.id, "alice", 1, {"x": 2})
    assert issubclass(NoGameError, StoreError) and not issubclass(NoGameError, ConflictError)


def _write_column(url: str, gid: str, column: str, text: str) -> None:
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f"UPDATE games SET {column} = :t WHERE id = :id"), {"t": text, "id": gid})
    finally:
        engine.dispose()


@pytest.mark.parametrize("column, text, reason", [
    ("state", "{oops", "not JSON"),
    ("state", "[1, 2]", "its state is a JSON array, not an object"),
    ("summary", "[1]", "its summary is a JSON array, not an object"),
    ("summary", '"x"', "its summary is a JSON string, not an object"),
    ("state", "[" * 100_000, "not JSON"),
])
def test_a_damaged_row_is_named_listed_and_deletable(store, url, column, text, reason):
    """A row whose state or summary is not a JSON object: get names it (DamagedGameError), list
    refuses as before unless asked for the damaged rows (then it is marked, the others whole),
    and delete removes it."""
    good = store.create("alice", {"ok": 1}, {"level": "expert"})
    bad = store.create("alice", {"ok": 2})
    _write_column(url, bad.id, column, text)
    with pytest.raises(DamagedGameError) as info:
        store.get(bad.id, "alice")
    assert info.value.game_id == bad.id and reason in info.value.reason
    assert bad.id in str(info.value) and "delete it" in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, StoreError)
    with pytest.raises(DamagedGameError):
        store.list("alice")
    rows = {g.id: g for g in store.list("alice", with_damaged=True)}
    assert rows[good.id] == store.get(good.id) and rows[good.id].damaged is None
    assert reason in rows[bad.id].damaged and (rows[bad.id].state, rows[bad.id].summary) == ({}, {})
    assert rows[bad.id].version == 1 and rows[bad.id].owner == "alice"
    assert store.delete(bad.id, "alice") is True
    assert store.list("alice") == [store.get(good.id)]


def test_purge_finished_keeps_games_in_progress(store, monkeypatch):
    clock = [2_000_000.0]
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=lambda: clock[0]))
    old_done = store.create("alice", {"n": 1}, finished=True)
    old_playing = store.create("alice", {"n": 2})
    old_finished_later = store.create("bob", {"n": 3})
    clock[0] += 3600
    store.update(old_finished_later.id, "bob", 1, {"n": 3}, finished=True)
    clock[0] += 86_400
    recent_done = store.create("alice", {"n": 4}, finished=True)
    assert store.purge_finished(86_400 + 1) == 1  # only old_done: updated 86,400 + 3,600 s ago
    assert store.get(old_done.id) is None
    assert store.purge_finished(60) == 1  # old_finished_later
    assert {g.id for g in store.list("alice")} == {old_playing.id, recent_done.id}
    clock[0] += 10 * 365 * 86_400
    assert store.purge_finished(0) == 1  # recent_done; a game in progress is never purged
    assert [g.id for g in store.list("alice")] == [old_playing.id]
    with pytest.raises(StoreError):
        store.purge_finished(-1)


# ---------------------------------------------------------------------------------------------
# ownership


def test_another_owner_sees_nothing(store):
    g = store.create("alice", {"secret": True})
    assert store.get(g.id, "bob") is None
    assert store.get(g.id, "alice") == g
    assert store.list("bob") == []
    assert store.delete(g.id, "bob") is False
    with pytest.raises(StoreError, match="^no game") as info:
        store.update(g.id, "bob", 1, {"stolen": True})
    assert not isinstance(info.value, ConflictError)
    assert store.get(g.id) == g


# ---------------------------------------------------------------------------------------------
# JSON


def test_json_round_trip(store):
    state = {
        "board": [0, -2, 0, 0, 0, 0, 5, 0, 3] + [0] * 16,
        "dice": [6, 2],
        "seed": 2**53 - 1,
        "equity": -0.123456789012345,
        "name": "Zoë 🎲 \"quoted\" \\ back",
        "nested": {"a": [None, True, False, {"b": []}], "empty": {}},
    }
    summary = {"errors": [0.0, 1e-300, -1e300], "result": "gammon"}
    g = store.create("alice", state, summary)
    assert store.get(g.id).state == state and store.get(g.id).summary == summary
    assert g.state == state


@pytest.mark.parametrize(
    "state, summary",
    [([1, 2], None), ("text", None), (None, None), ({"x": float("nan")}, None), ({"x": float("inf")}, None),
     ({"x": object()}, None), ({"x": 1}, [1]), ({"x": 1}, {"y": float("-inf")})],
)
def test_bad_json_refused(store, state, summary):
    with pytest.raises(StoreError):
        store.create("alice", state, summary)
    assert store.list("alice") == []
    g = store.create("alice", {"ok": 1})
    with pytest.raises(StoreError):
        store.update(g.id, "alice", 1, state, summary)
    assert store.get(g.id) == g


# ---------------------------------------------------------------------------------------------
# concurrency


def test_concurrent_updates_threads(url):
    n = 8
    stores = [GameStore.open(url) for _ in range(2)]  # two engines, as two workers would have
    try:
        g = stores[0].create("alice", {"ply": 0})
        barrier = threading.Barrier(n)
        results: list[object] = [None] * n

        def play(i: int) -> None:
            barrier.wait()
            try:
                results[i] = stores[i % 2].update(g.id, "alice", 1, {"ply": 1, "by": i})
            except ConflictError as err:
                results[i] = err

        threads = [threading.Thread(target=play, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        wins = [r for r in results if isinstance(r, StoredGame)]
        assert len(wins) == 1, results
        assert sum(isinstance(r, ConflictError) for r in results) == n - 1, results
        row = stores[1].get(g.id, "alice")
        assert row == wins[0] and row.version == 2 and row.state["ply"] == 1

        # read-modify-write with retries: no increment lost, one version per success
        def bump(s: GameStore, times: int) -> None:
            done = 0
            while done < times:
                cur = s.get(g.id, "alice")
                try:
                    s.update(g.id, "alice", cur.version, {**cur.state, "ply": cur.state["ply"] + 1})
                    done += 1
                except ConflictError:
                    pass

        threads = [threading.Thread(target=bump, args=(stores[i % 2], 10)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        row = stores[0].get(g.id)
        assert (row.state["ply"], row.version) == (1 + 40, 2 + 40)
    finally:
        for s in stores:
            s.close()


_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from bgrl.session.store import ConflictError, GameStore
url, game_id, go, rounds = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
store = GameStore.open(url)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
try:
    store.update(game_id, "alice", 1, {"n": 0, "winner": os.getpid()})
    first = "ok"
except ConflictError:
    first = "conflict"
done = 0
while done < rounds:
    g = store.get(game_id, "alice")
    try:
        store.update(game_id, "alice", g.version, {**g.state, "n": g.state["n"] + 1})
        done += 1
    except ConflictError:
        pass
store.close()
print(json.dumps({"first": first, "pid": os.getpid()}), flush=True)
"""


def test_concurrent_updates_two_processes_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with GameStore.open(url) as s:
        g = s.create("alice", {"n": -1})
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", _CHILD, str(ROOT), url, g.id, str(go), "15"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready", p.stderr.read()
        go.touch()
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    assert sorted(r["first"] for r in results) == ["conflict", "ok"]
    winner = next(r["pid"] for r in results if r["first"] == "ok")
    with GameStore.open(url) as s:
        row = s.get(g.id, "alice")
    assert row.state == {"n": 30, "winner": winner}
    assert row.version == 2 + 30


def test_fresh_store_opened_at_once(url):
    """Several workers starting on one new store: one creates the schema, the others wait and use it."""
    n = 4
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n

    def start(i: int) -> None:
        barrier.wait()
        try:
            with GameStore.open(url) as s:
                results[i] = s.create(f"p{i}", {"i": i}).id
        except Exception as err:  # noqa: BLE001
            results[i] = err

    threads = [threading.Thread(target=start, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(isinstance(r, str) for r in results), results
    assert _schema_version(url) == SCHEMA_VERSION
    with GameStore.open(url) as s:
        assert [len(s.list(f"p{i}")) for i in range(n)] == [1] * n


def test_two_stores_share_games(url):
    with GameStore.open(url) as a, GameStore.open(url) as b:
        g = a.create("alice", {"x": 1})
        assert b.get(g.id, "alice") == g
        g2 = b.update(g.id, "alice", 1, {"x": 2})
        assert a.get(g.id) == g2
        with pytest.raises(ConflictError):
            a.update(g.id, "alice", 1, {"x": 3})


# ---------------------------------------------------------------------------------------------
# schema and migrations


def test_new_store_schema(store, url):
    assert _schema_version(url) == SCHEMA_VERSION == 2
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            columns = {c["name"] for c in inspector.get_columns("games")}
            indexed = {col for ix in inspector.get_indexes("games") for col in ix["column_names"]}
            rows = conn.exec_driver_sql("SELECT count(*) FROM bgrl_schema").scalar_one()
    finally:
        engine.dispose()
    assert columns == {"id", "owner", "version", "finished", "created_at", "updated_at", "state", "summary"}
    assert "owner" in indexed
    assert rows == 1
    store.close()
    with GameStore.open(url):  # opening again changes nothing
        pass
    assert _schema_version(url) == SCHEMA_VERSION


def test_migration_from_v1(url):
    if url.startswith("sqlite"):
        Path(make_url(url).database).parent.mkdir(parents=True, exist_ok=True)
    engine = _engine(url)
    state = {"board": [1, 2, 3], "dice": [3, 1]}
    try:
        with engine.begin() as conn:
            for statement in V1_DDL:
                conn.exec_driver_sql(statement)
            conn.execute(
                sa.text("INSERT INTO games (id, owner, version, finished, created_at, updated_at, state) "
                        "VALUES (:id, :owner, 7, :finished, 100.5, 200.25, :state)"),
                {"id": "oldgame", "owner": "alice", "finished": False, "state": json.dumps(state)},
            )
    finally:
        engine.dispose()
    assert _schema_version(url) == 1
    with GameStore.open(url) as s:
        g = s.get("oldgame", "alice")
        assert g == StoredGame("oldgame", "alice", 7, state, {}, False, 100.5, 200.25)
        assert s.list("alice") == [g]
        g2 = s.update("oldgame", "alice", 7, {**state, "dice": [6, 6]}, {"errors": 1})
        assert (g2.version, g2.summary) == (8, {"errors": 1})
    assert _schema_version(url) == SCHEMA_VERSION
    with GameStore.open(url) as s:
        assert s.get("oldgame").summary == {"errors": 1}


def test_newer_schema_refused(url):
    with GameStore.open(url) as s:
        g = s.create("alice", {"keep": "me"})
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE bgrl_schema SET version = 3")
    finally:
        engine.dispose()
    with pytest.raises(StoreError) as info:
        GameStore.open(url)
    message = str(info.value)
    assert message == f"store {masked(url)} was written by a newer bgrl (schema 3; this bgrl reads up to 2): upgrade bgrl"
    assert "\n" not in message
    assert _schema_version(url) == 3
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql(f"SELECT state FROM games WHERE id = '{g.id}'").scalar_one() == '{"keep":"me"}'
    finally:
        engine.dispose()


# ---------------------------------------------------------------------------------------------
# bad stores: one-line errors naming the file or the URL


def test_corrupt_sqlite_file(tmp_path):
    path = tmp_path / "broken.db"
    garbage = bytes(range(256)) * 64
    path.write_bytes(garbage)
    with pytest.raises(StoreError) as info:
        GameStore.open(f"sqlite:///{path}")
    assert str(info.value) == f"{path} is not a bgrl store: file is not a database"
    assert path.read_bytes() == garbage  # nothing lost


def test_sqlite_that_is_not_a_bgrl_store(tmp_path):
    path = tmp_path / "other.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE games (name TEXT)")
    engine.dispose()
    with pytest.raises(StoreError, match=f"^{path} is not a bgrl store"):
        GameStore.open(f"sqlite:///{path}")


def test_directory_as_store(tmp_path):
    with pytest.raises(StoreError) as info:
        GameStore.open(f"sqlite:///{tmp_path}")
    assert str(info.value) == f"{tmp_path} is a directory, not a bgrl store file"


def test_unreachable_postgres_masks_password():
    url = "postgresql://bgrl:s3cret-pw@127.0.0.1:1/bgrl_test"
    with pytest.raises(StoreError) as info:
        GameStore.open(url)
    message = str(info.value)
    assert message.startswith("cannot reach the store postgresql://bgrl:***@127.0.0.1:1/bgrl_test")
    assert "s3cret" not in message and "\n" not in message


def test_postgres_without_psycopg(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # importing it now raises ImportError
    with pytest.raises(StoreError) as info:
        GameStore.open("postgresql://bgrl:pw@127.0.0.1:5432/bgrl_test")
    assert str(info.value) == "the store postgresql+psycopg://bgrl:***@127.0.0.1:5432/bgrl_test needs psycopg 3: " \
        "install bgrl's optional extra 'postgres'"


@pytest.mark.parametrize("bad", ["mysql://u:pw@host/db", "nonsense", "http://example.org/x", "postgresql+psycopg2://u:pw@h/db"])
def test_unknown_url_scheme(bad):
    with pytest.raises(StoreError) as info:
        GameStore.open(bad)
    message = str(info.value)
    assert "sqlite:///PATH" in message and "postgresql://user:password@host:port/db" in message
    assert ":pw@" not in message and "\n" not in message


# ---------------------------------------------------------------------------------------------
# URLs


def test_store_url_and_default(monkeypatch, tmp_path):
    assert DEFAULT_URL.startswith("sqlite:///") and DEFAULT_URL.endswith("bgrl.db")
    monkeypatch.setenv("BGRL_STORE", "sqlite:///from/env.db")
    assert store_url("sqlite:///given.db") == "sqlite:///given.db"
    assert store_url() == "sqlite:///from/env.db"
    monkeypatch.delenv("BGRL_STORE")
    monkeypatch.setenv("BGRL_HOME", str(tmp_path / "home"))
    assert store_url() == f"sqlite:///{tmp_path / 'home' / 'bgrl.db'}"
    monkeypatch.delenv("BGRL_HOME")
    assert store_url() == "sqlite:///" + str(Path.home() / ".bgrl" / "bgrl.db")


def test_open_default_creates_the_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("BGRL_STORE", raising=False)
    monkeypatch.setenv("BGRL_HOME", str(tmp_path / "a" / "b"))
    with GameStore.open() as s:
        s.create("alice", {})
    assert (tmp_path / "a" / "b" / "bgrl.db").is_file()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'a' / 'b' / 'bgrl.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
    engine.dispose()


def test_masked():
    assert masked("postgresql://bgrl:pw@db.example:5432/bgrl") == "postgresql://bgrl:***@db.example:5432/bgrl"
    assert masked("postgresql://bgrl@db/bgrl") == "postgresql://bgrl@db/bgrl"
    assert masked("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    assert "pw" not in masked("weird://u:pw@h")
    # a password as a query parameter, and an "@" written unencoded in the password
    assert masked("postgresql://bgrl@127.0.0.1:5999/x?password=TopSecret1") == "postgresql://bgrl@127.0.0.1:5999/x?password=***"
    assert masked("postgresql://bgrl:Sec@ret@host/x") == "postgresql://bgrl:***@host/x"
    assert masked("postgresql://u:p@h/db?sslpassword=a1&Password=b2&options=-csearch_path%3Dx") == \
        "postgresql://u:***@h/db?sslpassword=***&Password=***&options=-csearch_path%3Dx"
    assert masked("postgresql://u:a/b?c@h:5432/db") == "postgresql://u:***@h:5432/db"
    # no password: nothing masked, an "@" after host:port/ included
    assert masked("postgresql://h:5432/db?options=a@b") == "postgresql://h:5432/db?options=a@b"
    assert masked("postgresql://u@h/db?options=a@b") == "postgresql://u@h/db?options=a@b"


@pytest.mark.parametrize("url, secrets_", [
    ("postgresql://bgrl@127.0.0.1:1/x?password=TopSecret1", ["TopSecret1"]),
    ("postgresql://bgrl:Sec@ret@127.0.0.1:1/x", ["Sec", "ret@"]),
    ("postgresql://bgrl:pw1@127.0.0.1:1/x?sslpassword=Other9&password=Third8", ["pw1", "Other9", "Third8"]),
])
def test_unreachable_postgres_masks_every_password(url, secrets_):
    """The error of a store that cannot be reached shows no password: neither a query parameter's
    nor any part of one with an unencoded "@" (whose rest SQLAlchemy reads as the host)."""
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError) as info:
        GameStore.open(url)
    message = str(info.value)
    assert message.startswith("cannot reach the store postgresql://bgrl") and "***" in message and "\n" not in message
    for secret in secrets_:
        assert secret not in message, message


def test_repr_masks_password(store, url):
    assert store.url == url
    for text in (str(store), repr(store)):
        assert masked(url) in text
        if make_url(url).password:
            assert f":{make_url(url).password}@" not in text and "***" in text
