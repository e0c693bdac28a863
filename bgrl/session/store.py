"""The store of game sessions: one table of games in SQLite (the default, a file in the user's bgrl
folder) or PostgreSQL (for several workers or replicas), through SQLAlchemy Core 2.x and psycopg 3.

Every game row carries a version number. :meth:`GameStore.update` is one atomic
``UPDATE ... WHERE id = :id AND owner = :owner AND version = :version``: of two concurrent commands
on one game, one succeeds and the other gets :class:`ConflictError`, and the row stays consistent.

The schema is versioned by the table ``bgrl_schema``. A new store is built by the version 1 DDL
(:data:`V1_DDL`) and brought up to :data:`SCHEMA_VERSION` by :data:`MIGRATIONS`, so the upgrade of an
old store and the creation of a new one run the same statements. A store written by a newer bgrl is
refused. See docs/store.md.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from time import monotonic, sleep
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, make_url

__all__ = [
    "StoreError",
    "ConflictError",
    "NoGameError",
    "DamagedGameError",
    "SCHEMA_VERSION",
    "DEFAULT_URL",
    "store_url",
    "masked",
    "StoredGame",
    "GameStore",
]

#: The schema this bgrl writes; it reads stores of this version and older (upgrading them).
SCHEMA_VERSION = 2

_FORMS = "sqlite:///PATH or postgresql://user:password@host:port/db"


class StoreError(ValueError):
    """The store cannot be opened or used; the message is one line naming the file or the URL
    (with its password masked)."""


class ConflictError(StoreError):
    """A version check failed: the game was changed by another command since it was read."""


class NoGameError(StoreError):
    """The game to change is not in the store, or is another owner's (deleted meanwhile)."""


class DamagedGameError(StoreError):
    """A stored game's row cannot be read (its state or summary is not a JSON object): ``game_id``
    and ``reason`` say which and why. The row can still be deleted."""

    def __init__(self, message: str, game_id: str, reason: str):
        super().__init__(message)
        self.game_id = game_id
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# URLs


def _bgrl_home() -> Path:
    home = os.environ.get("BGRL_HOME")
    return Path(home).expanduser() if home else Path.home() / ".bgrl"


def _default_url() -> str:
    return "sqlite:///" + str(_bgrl_home() / "bgrl.db")


#: The default store: a SQLite file in the user's bgrl folder ($BGRL_HOME, else ~/.bgrl), as at import.
DEFAULT_URL: str = _default_url()


def store_url(url: str | None = None) -> str:
    """The store to use: ``url`` if given, else the environment variable ``BGRL_STORE``, else the
    SQLite file ``bgrl.db`` in the user's bgrl folder (``$BGRL_HOME``, else ``~/.bgrl``)."""
    if url:
        return url
    return os.environ.get("BGRL_STORE") or _default_url()


_USER = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://[^:/?#@]*:")
# a password given as a query parameter (libpq's password, sslpassword)
_QUERY_PASSWORD = re.compile(r"([?&](?:ssl)?pass(?:word|wd)?=)[^&#]*", re.IGNORECASE)


def _password_span(text: str) -> tuple[int, int] | None:
    """Where the password of ``scheme://user:password@host...`` is in ``text``, or None. It runs
    to the last ``@`` before the end of the host (the first ``/``, ``?`` or ``#`` after an ``@``),
    so that an ``@`` written in it unencoded (``user:Sec@ret@host``) is part of it; an ``@`` only
    after ``host:port/`` is not a password's."""
    m = _USER.match(text)
    if m is None:
        return None
    start = m.end()
    at = text.find("@", start)
    if at < 0:
        return None

    def stop(i: int) -> int:
        found = [j for j in (text.find(c, i) for c in "/?#") if j >= 0]
        return min(found) if found else len(text)
    first = stop(start)
    if at > first and text[start:first].isdigit():  # host:port/db?...@...: no password
        return None
    return start, text.rfind("@", start, stop(at))


def masked(url: str) -> str:
    """``url`` with its passwords shown as ``***``: the one of ``user:password@`` (an unencoded
    ``@`` in it included) and those given as query parameters (``?password=...``)."""
    text = str(url)
    span = _password_span(text)
    if span is not None and span[1] > span[0]:
        text = text[:span[0]] + "***" + text[span[1]:]
    return _QUERY_PASSWORD.sub(r"\1***", text)


def _secrets(url: str) -> list[str]:
    """The passwords a store URL carries, as they may appear in a driver's message: the whole
    password of ``user:password@`` and its parts between unencoded ``@``, SQLAlchemy's reading of
    it, and the query's password parameters; longest first."""
    found: set[str] = set()
    span = _password_span(str(url))
    if span is not None and span[1] > span[0]:
        password = str(url)[span[0]:span[1]]
        found.add(password)
        found.update(part for part in password.split("@") if len(part) >= 3)  # a fragment a driver may quote
    try:
        parsed = make_url(url)
        if parsed.password:
            found.add(str(parsed.password))
        for key, value in parsed.query.items():
            if _QUERY_PASSWORD.match(f"?{key}="):
                found.update(str(v) for v in (value if isinstance(value, tuple) else (value,)) if v)
    except Exception:
        pass
    return sorted(found, key=len, reverse=True)


def _one_line(text: object) -> str:
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(text).__name__


def _reason(err: BaseException) -> str:
    """The driver's first line for a SQLAlchemy error (without SQLAlchemy's SQL and link lines)."""
    orig = getattr(err, "orig", None)
    return _one_line(orig if orig is not None else err)


def _parse(url: str) -> tuple[URL, Path | None]:
    """The SQLAlchemy URL for a store URL, and the file for SQLite (None in memory)."""
    if not isinstance(url, str) or not url:
        raise StoreError(f"store URL {url!r} is empty: expected {_FORMS}")
    try:
        parsed = make_url(url)
    except Exception:
        raise StoreError(f"unknown store URL {masked(url)!r}: expected {_FORMS}") from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        database = parsed.database
        if not database or database == ":memory:":
            return parsed.set(drivername="sqlite+pysqlite", database=":memory:"), None
        path = Path(database).expanduser()
        return parsed.set(drivername="sqlite+pysqlite", database=str(path)), path
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        if not parsed.database:
            raise StoreError(f"store URL {masked(url)!r} names no database: expected {_FORMS}")
        return parsed.set(drivername="postgresql+psycopg"), None
    raise StoreError(f"unknown store URL {masked(url)!r}: expected {_FORMS}")


# ---------------------------------------------------------------------------------------------
# Schema and migrations

#: The first schema, kept as the starting point of the migrations: a new store is made by these
#: statements and then brought up to SCHEMA_VERSION by MIGRATIONS (the same SQL on SQLite and PostgreSQL).
V1_DDL: tuple[str, ...] = (
    "CREATE TABLE bgrl_schema (version INTEGER NOT NULL)",
    "CREATE TABLE games ("
    " id TEXT PRIMARY KEY,"
    " owner TEXT NOT NULL,"
    " version INTEGER NOT NULL,"
    " finished BOOLEAN NOT NULL,"
    " created_at DOUBLE PRECISION NOT NULL,"
    " updated_at DOUBLE PRECISION NOT NULL,"
    " state TEXT NOT NULL)",
    "CREATE INDEX ix_games_owner ON games (owner)",
    "INSERT INTO bgrl_schema (version) VALUES (1)",
)

#: MIGRATIONS[v]: the statements that take a store from schema v to v + 1 (run in one transaction,
#: followed by the update of bgrl_schema).
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE games ADD COLUMN summary TEXT NOT NULL DEFAULT '{}'",),
}

assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION)), "one migration per schema version"

_meta = sa.MetaData()
_games = sa.Table(
    "games",
    _meta,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text, nullable=False, index=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
)
_schema = sa.Table("bgrl_schema", _meta, sa.Column("version", sa.Integer, nullable=False))

# a constant key for PostgreSQL's advisory lock around creating or migrating the schema
_PG_LOCK_KEY = 0x6267726C  # "bgrl"


# ---------------------------------------------------------------------------------------------
# Games


@dataclass(frozen=True)
class StoredGame:
    """One game as stored: its state and summary are JSON objects; times are epoch seconds (UTC).
    ``damaged``: None, or (a damaged row listed by :meth:`GameStore.list` with ``with_damaged``) why
    the row cannot be read; its state and summary are then empty."""

    id: str
    owner: str
    version: int
    state: dict
    summary: dict
    finished: bool
    created_at: float
    updated_at: float
    damaged: str | None = None


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value), "null")


def _dump(obj: Any, what: str) -> str:
    if not isinstance(obj, dict):
        raise StoreError(f"a game's {what} must be a JSON object (dict), not {type(obj).__name__}")
    try:
        return json.dumps(obj, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StoreError(f"a game's {what} is not JSON: {_one_line(err)}") from None


def _check_text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise StoreError(f"a game's {what} must be a non-empty string, not {value!r}")
    return value


def _check_version(version: Any) -> int:
    if isinstance(version, bool) or not isinstance(version, int):
        raise StoreError(f"a game's version must be an integer, not {version!r}")
    return version


class GameStore:
    """The games of every player, in SQLite or PostgreSQL. Open it with :meth:`GameStore.open`."""

    def __init__(self, url: str, engine: sa.Engine, path: Path | None) -> None:
        self.url = url
        self._engine = engine
        self._path = path

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str | None = None) -> GameStore:
        """Open the store at ``url`` (else $BGRL_STORE, else the default SQLite file): create the SQLite
        folder and file, and create the schema or migrate it to SCHEMA_VERSION."""
        url = store_url(url)
        sa_url, path = _parse(url)
        if path is not None:
            _prepare_sqlite_path(path)
        engine = _make_engine(sa_url, path)
        store = cls(url, engine, path)
        try:
            store._setup()
        except BaseException:
            engine.dispose()
            raise
        return store

    def _where(self) -> str:
        return str(self._path) if self._path is not None else masked(self.url)

    def _fail(self, err: BaseException) -> StoreError:
        """A one-line StoreError for an error of the database."""
        reason = _reason(err)
        if self._path is not None:
            if isinstance(err, sa_exc.DatabaseError) and "not a database" in reason:
                return StoreError(f"{self._path} is not a bgrl store: {reason}")
            return StoreError(f"store {self._path}: {reason}")
        if isinstance(err, sa_exc.OperationalError) or isinstance(err, sa_exc.InterfaceError):
            return StoreError(f"cannot reach the store {masked(self.url)}: {self._scrub(reason)}")
        return StoreError(f"store {masked(self.url)}: {self._scrub(reason)}")

    def _scrub(self, text: str) -> str:
        for secret in _secrets(self.url):
            text = text.replace(secret, "***")
        return text

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except sa_exc.SQLAlchemyError as err:
            raise self._fail(err) from None

    def _read_schema(self, conn: sa.Connection, locked: bool = True) -> int | None:
        """The store's schema version, or None for an empty database. Outside the lock (``locked``
        False) another process may be creating the schema between two reads: a games table without
        bgrl_schema is then left to the check under the lock."""
        inspector = sa.inspect(conn)
        if not inspector.has_table("bgrl_schema"):
            if inspector.has_table("games") and locked:
                raise StoreError(f"{self._where()} is not a bgrl store: it has a table games but no bgrl_schema")
            return None
        version = conn.execute(sa.select(sa.func.max(_schema.c.version))).scalar()
        if version is None:
            raise StoreError(f"{self._where()} is not a bgrl store: its table bgrl_schema is empty")
        version = int(version)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store {masked(self.url)} was written by a newer bgrl "
                f"(schema {version}; this bgrl reads up to {SCHEMA_VERSION}): upgrade bgrl"
            )
        return version

    def _setup(self) -> None:
        with self._errors():
            with self._engine.connect() as conn:  # read only: the usual case, a store already up to date
                current = self._read_schema(conn, locked=False)
            if current == SCHEMA_VERSION:
                return
            with self._engine.connect() as conn:  # write: create or migrate, under a lock, checking again
                if self._engine.dialect.name == "sqlite":
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                else:
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
                current = self._read_schema(conn)
                if current is None:
                    for statement in V1_DDL:
                        conn.exec_driver_sql(statement)
                    current = 1
                for version in range(current, SCHEMA_VERSION):
                    for statement in MIGRATIONS[version]:
                        conn.exec_driver_sql(statement)
                    conn.execute(_schema.update().values(version=version + 1))
                conn.commit()

    # -- games ---------------------------------------------------------------------------------

    def _game(self, row: sa.Row, with_damaged: bool = False) -> StoredGame:
        """The StoredGame of a row. A row whose state or summary is not a JSON object raises
        :class:`DamagedGameError`, or with ``with_damaged`` is returned with ``damaged`` saying why."""
        reason = None
        state: Any = {}
        summary: Any = {}
        try:
            state = json.loads(row.state)
            summary = json.loads(row.summary) if row.summary else {}
        except (TypeError, ValueError) as err:  # not JSON (RecursionError is a RuntimeError: nested too deep)
            reason = f"not JSON: {_one_line(err)}"
        except RecursionError:
            reason = "not JSON: nested too deep"
        if reason is None:
            for what, value in (("state", state), ("summary", summary)):
                if not isinstance(value, dict):
                    reason = f"its {what} is a JSON {_json_kind(value)}, not an object"
                    break
        try:
            meta = dict(id=str(row.id), owner=str(row.owner), version=int(row.version), finished=bool(row.finished),
                        created_at=float(row.created_at), updated_at=float(row.updated_at))
        except (TypeError, ValueError) as err:
            reason = reason or f"a column of an unexpected type: {_one_line(err)}"
            meta = dict(id=str(row.id), owner=str(row.owner), version=0, finished=False, created_at=0.0, updated_at=0.0)
        if reason is not None:
            if not with_damaged:
                raise DamagedGameError(f"game {str(row.id)[:40]} in the store {self._where()} is damaged ({reason}); "
                                       "delete it (bgrl games delete ID, or DELETE /v1/games/ID)", str(row.id), reason)
            return StoredGame(**meta, state={}, summary={}, damaged=reason)
        return StoredGame(**meta, state=state, summary=summary)

    def create(
        self,
        owner: str,
        state: dict,
        summary: dict | None = None,
        finished: bool = False,
        game_id: str | None = None,
    ) -> StoredGame:
        """Store a new game at version 1 (its id a fresh 64-bit random hex unless ``game_id`` is given)."""
        owner = _check_text(owner, "owner")
        game_id = secrets.token_hex(8) if game_id is None else _check_text(game_id, "id")
        summary = {} if summary is None else summary
        state_text, summary_text = _dump(state, "state"), _dump(summary, "summary")
        now = time.time()
        values = dict(
            id=game_id, owner=owner, version=1, finished=bool(finished), created_at=now, updated_at=now,
            state=state_text, summary=summary_text,
        )
        with self._errors():
            try:
                with self._engine.begin() as conn:
                    conn.execute(_games.insert().values(**values))
            except sa_exc.IntegrityError:
                raise StoreError(f"a game {game_id} is already in the store {self._where()}") from None
        return StoredGame(game_id, owner, 1, json.loads(state_text), json.loads(summary_text), bool(finished), now, now)

    def get(self, game_id: str, owner: str | None = None) -> StoredGame | None:
        """The game, or None when there is none (or it belongs to another owner, when ``owner`` is given).
        :class:`DamagedGameError` for a row that cannot be read (it can still be deleted)."""
        query = sa.select(_games).where(_games.c.id == game_id)
        if owner is not None:
            query = query.where(_games.c.owner == owner)
        with self._errors(), self._engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else self._game(row)

    def update(
        self,
        game_id: str,
        owner: str,
        version: int,
        state: dict,
        summary: dict | None = None,
        finished: bool = False,
    ) -> StoredGame:
        """Replace the game's state (and summary) if it is still at ``version``; the stored version becomes
        ``version + 1``. :class:`ConflictError` when the game has another version (it was changed meanwhile),
        :class:`NoGameError` when there is no such game of this owner (deleted meanwhile)."""
        owner = _check_text(owner, "owner")
        version = _check_version(version)
        summary = {} if summary is None else summary
        state_text, summary_text = _dump(state, "state"), _dump(summary, "summary")
        now = time.time()
        mine = sa.and_(_games.c.id == game_id, _games.c.owner == owner)
        with self._errors(), self._engine.begin() as conn:
            # the write comes first, so that SQLite takes its write lock (waiting on the busy timeout)
            # before anything is read; PostgreSQL re-checks the WHERE clause after a concurrent update
            done = conn.execute(
                _games.update()
                .where(mine, _games.c.version == version)
                .values(version=version + 1, state=state_text, summary=summary_text, finished=bool(finished), updated_at=now)
            ).rowcount
            row = conn.execute(sa.select(_games).where(mine)).first()
        if row is None:
            raise NoGameError(f"no game {game_id} of this owner in the store {self._where()}")
        if done != 1:
            raise ConflictError(f"game {game_id} was changed meanwhile: it is at version {row.version}, not {version}")
        return self._game(row)

    def list(self, owner: str, finished: bool | None = None, limit: int | None = 200,
             with_damaged: bool = False) -> list[StoredGame]:
        """The owner's games, the most recently updated first: all, or only those finished (True) or in
        progress (False); at most ``limit`` (None: all). A row that cannot be read raises
        :class:`DamagedGameError`, or with ``with_damaged`` is listed with ``damaged`` saying why (so that
        one damaged game does not hide the others)."""
        query = sa.select(_games).where(_games.c.owner == owner)
        if finished is not None:
            query = query.where(_games.c.finished == bool(finished))
        query = query.order_by(_games.c.updated_at.desc(), _games.c.id.desc())
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
                raise StoreError(f"a list's limit must be a non-negative integer or None, not {limit!r}")
            query = query.limit(limit)
        with self._errors(), self._engine.connect() as conn:
            return [self._game(row, with_damaged) for row in conn.execute(query)]

    def delete(self, game_id: str, owner: str) -> bool:
        """Delete the owner's game; False when there is none (or it is another owner's)."""
        with self._errors(), self._engine.begin() as conn:
            return conn.execute(_games.delete().where(_games.c.id == game_id, _games.c.owner == owner)).rowcount > 0

    def purge_finished(self, older_than_s: float) -> int:
        """Delete the finished games not updated for ``older_than_s`` seconds; the number deleted.
        Games in progress are never purged."""
        if isinstance(older_than_s, bool) or not isinstance(older_than_s, (int, float)) or not older_than_s >= 0:
            raise StoreError(f"purge_finished needs a number of seconds >= 0, not {older_than_s!r}")
        cutoff = time.time() - float(older_than_s)
        with self._errors(), self._engine.begin() as conn:
            return conn.execute(
                _games.delete().where(_games.c.finished == sa.true(), _games.c.updated_at < cutoff)
            ).rowcount

    def close(self) -> None:
        """Close the store's connections."""
        self._engine.dispose()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GameStore({masked(self.url)!r})"

    __str__ = __repr__


# ---------------------------------------------------------------------------------------------
# Engines


def _prepare_sqlite_path(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a bgrl store file")
    if path.exists():
        if not path.is_file():
            raise StoreError(f"{path} is not a bgrl store: not a regular file")
        if not os.access(path, os.R_OK):
            raise StoreError(f"{path} cannot be read: permission denied")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"cannot create the folder of the store {path}: {err.strerror or err}") from None


_BUSY_TIMEOUT_MS = 30_000


def _use_wal(cursor: Any) -> None:
    """Put the SQLite file in WAL mode (readers do not block the writer, so several processes can share
    the file). The mode is kept in the file; switching needs a lock that SQLite does not wait for, so
    when several connections make a new store at once this retries for up to the busy timeout."""
    mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
    deadline = monotonic() + _BUSY_TIMEOUT_MS / 1000
    while str(mode).lower() != "wal":
        try:
            cursor.execute("PRAGMA journal_mode = WAL").fetchone()
            return  # WAL, or a file system where SQLite cannot use it (the rollback journal stays)
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err) or monotonic() > deadline:
                raise
            sleep(0.005)


def _make_engine(sa_url: URL, path: Path | None) -> sa.Engine:
    if sa_url.get_backend_name() == "sqlite":
        if path is None:  # in memory: one connection shared by every thread
            engine = sa.create_engine(
                sa_url, poolclass=sa.pool.StaticPool, connect_args={"check_same_thread": False}
            )
        else:
            engine = sa.create_engine(
                sa_url, connect_args={"timeout": _BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
            )

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cursor = dbapi_conn.cursor()
            try:
                cursor.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
                if path is not None:
                    _use_wal(cursor)
            finally:
                cursor.close()

        return engine
    connect_args: dict[str, Any] = {}
    if "connect_timeout" not in sa_url.query:
        connect_args["connect_timeout"] = 10
    try:
        return sa.create_engine(sa_url, pool_pre_ping=True, connect_args=connect_args)
    except ImportError:
        raise StoreError(
            f"the store {masked(sa_url.render_as_string(hide_password=False))} needs psycopg 3: "
            "install bgrl's optional extra 'postgres'"
        ) from None
