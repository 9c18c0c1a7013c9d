"""The database: one engine per app, short sessions, SQLite tuned for a single server.

How to use it (web handlers, the table runtime, the CLI)::

    with get_db().session() as s:   # commits on success, rolls back on an exception
        s.add(row)

Keep a session short and never emit, sleep or wait inside it: SQLite has one writer. For
SQLite the sessions of one process are therefore taken one at a time (a re-entrant,
green-aware lock), and a statement waits for another process's write lock (the admin CLI,
a backup tool) — in short slices that yield (`_wait_busy`), never in SQLite's own busy
handler, which sleeps inside C where eventlet cannot switch away: while one write waits, the
process goes on serving /healthz (its own connection), voice, the tables' states and timers.
The busy timeout bounds a whole session, from asking for it: the wait for this process's
other sessions and every statement's wait for another process's lock come out of one
allowance, so a decision queued behind other waiting writes is still answered (applied, or
refused as "database is locked", rolled back whole) within the timeout.

What only reads (a page, the logged-in user, the chat's last lines) opens `reading()`
instead: it takes no lock (WAL lets a reader work beside any writer, ours or another
process's), and its connection is `query_only`, so a write slipped into it fails loudly
rather than racing the writers::

    with get_db().reading() as s:
        user = s.get(User, user_id)

The few statements a live table runs at every action and every «Готов» go one step lower:
`run` executes a Core statement on the driver's cursor of a `core()` connection, compiled
once per dialect by SQLAlchemy (`Prepared`), inside the same transaction and deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import current_app
from sqlalchemy import Connection, Dialect, Engine, Insert, Select, Update, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import Session, create_engine

from app.config import FILE_MODE, sqlite_path

EXTENSION = "svara.db"
SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT = 5, 517
#: The longest slice a statement waits for another process's lock before it tries again.
BUSY_SLICE = 0.02
#: The execution option carrying a session's deadline (`time.monotonic()`) to `_wait_busy`.
DEADLINE = "svara_deadline"


class Database:
    """An engine and the way to open sessions on it."""

    def __init__(self, url: str, busy_timeout: float = 30.0):
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            _create_private(url)
            # Sessions are handed between green threads/threads; the lock below serialises them.
            # `timeout` 0: SQLite never waits in C; `_wait_busy` waits in slices instead.
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 0}
        # The hand row is written at every action with the hand file as JSON (app/tables/
        # store.py): orjson encodes it (docs/performance.md, «CPU per action, 2026-12-06»).
        self.engine: Engine = create_engine(url, json_serializer=json_text, **kwargs)
        self.busy_timeout = busy_timeout
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "do_execute", _wait_busy(busy_timeout, "execute"))
            event.listen(self.engine, "do_executemany", _wait_busy(busy_timeout, "executemany"))
            event.listen(self.engine, "do_execute_no_params", _wait_busy(busy_timeout, "execute"))
        # Created here, after eventlet's monkey-patching, so under eventlet it is green.
        self._lock = threading.RLock() if self.is_sqlite else None
        self._kept: Connection | None = None  # `_held`

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed when the block ends, rolled back on error.
        Under SQLite it gets the busy timeout once, for the wait for the lock and every
        statement together (module docstring)."""
        with self._turn() as deadline, self._transaction(deadline) as s:
            yield s

    @contextmanager
    def core(self) -> Iterator[Connection]:
        """`session` without the ORM: a connection in one transaction, for Core statements
        only. The live tables' writes at every action and reads at every «Готов» take it: a
        session costs more than those statements (docs/performance.md, «CPU per action,
        2026-12-06»). Under SQLite it is one connection held from turn to turn (`_held`)."""
        with self._turn() as deadline:
            held = self._held() if deadline is not None else None
            taken = self.engine.connect() if held is None else contextlib.nullcontext(held)
            with taken as connection:
                if deadline is not None:
                    connection.execution_options(**{DEADLINE: deadline})
                with connection.begin():
                    yield connection

    def _held(self) -> Connection | None:
        """The connection SQLite's `core` transactions share: they take turns (`_turn`), and
        taking a connection from the pool and giving it back (its reset) cost a table more
        than an action's statements (docs/performance.md, «SQLAlchemy's share of an action,
        2026-12-06»). None inside a transaction of its own (a turn taken again by the same
        thread: that one gets a connection of the pool); a connection SQLAlchemy gave up
        (invalidated) is replaced. Closed by `dispose`."""
        held = self._kept
        if held is None or held.invalidated:
            if held is not None:
                held.close()
            held = self._kept = self.engine.connect()
        return None if held.in_transaction() else held

    @contextmanager
    def _turn(self) -> Iterator[float | None]:
        """This process's turn at the database: under SQLite its writers' lock, taken within
        the busy timeout, and the deadline that timeout sets for the statements (None:
        another database waits in its own way)."""
        if self._lock is None:
            yield None
            return
        deadline = time.monotonic() + self.busy_timeout
        if not self._lock.acquire(timeout=self.busy_timeout):
            locked = sqlite3.OperationalError("database is locked (this process's writes wait)")
            raise OperationalError(None, None, locked)
        try:
            yield deadline
        finally:
            self._lock.release()

    @contextmanager
    def _transaction(self, deadline: float | None = None) -> Iterator[Session]:
        """One transaction; its statements wait for another process's lock until `deadline`."""
        with Session(self.engine, expire_on_commit=False) as s:
            if deadline is not None:
                s.connection(execution_options={DEADLINE: deadline})
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session that only reads: not behind the writers' lock (module docstring); what it
        read stays loaded after the block."""
        if not self.is_sqlite:
            with self.session() as s:
                yield s
            return
        with Session(self.engine, expire_on_commit=False) as s:
            connection = s.connection()
            connection.exec_driver_sql("PRAGMA query_only=1")
            try:
                yield s
            finally:  # before closing gives the connection back (closing keeps what was read)
                connection.exec_driver_sql("PRAGMA query_only=0")

    def dispose(self) -> None:
        with self._turn():
            if self._kept is not None:
                self._kept.close()
                self._kept = None
        self.engine.dispose()


def json_text(value: Any, **options: Any) -> str:
    """JSON text by orjson, the standard library's (with `options`) for what orjson refuses
    (an integer beyond 64 bits, a non-string key, a lone surrogate): the same JSON value,
    non-ASCII as UTF-8 instead of \\u escapes. Read back by the standard library."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(value, **options)


def _create_private(url: str) -> None:
    """A new SQLite file is made owner-only before SQLite opens it (docs/hosting.md, «The
    instance folder»): SQLite gives its WAL and SHM files the database's own mode, so under
    any umask none of them is readable by others."""
    path = sqlite_path(url)
    if path is None or path.exists():
        return
    with contextlib.suppress(FileExistsError):  # another process made it first
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers (the CLI) work while the server writes; foreign keys are on."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the
    # process being killed (kill -9, tests/faults/), only an OS crash or power loss may undo
    # the last ones, and the database stays consistent either way. A sync per commit held
    # the eventlet hub ~6 ms per action and capped one process at ~60 actions/s
    # (docs/performance.md, «Server load»).
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _busy(failure: sqlite3.OperationalError) -> bool:
    """Another connection holds the lock this statement needs. Not a stale snapshot
    (SQLITE_BUSY_SNAPSHOT): that one never clears while its transaction lasts."""
    code = getattr(failure, "sqlite_errorcode", SQLITE_BUSY)
    return code & 0xFF == SQLITE_BUSY and code != SQLITE_BUSY_SNAPSHOT


def refused_as_busy(failure: BaseException) -> bool:
    """A session failed because another process held the lock past the busy timeout (a
    backup, a long admin command): a player is told «busy, try again», not «server»."""
    cause = getattr(failure, "orig", failure)
    return isinstance(cause, sqlite3.OperationalError) and _busy(cause)


def _wait_busy(timeout: float, method: str) -> Callable[..., bool]:
    """A `do_execute` hook: run the statement, waiting out another process's lock up to its
    session's deadline (`timeout` seconds from now outside `Database.session`: `_until_free`)."""

    def execute(cursor: Any, statement: str, *rest: Any) -> bool:
        parameters, context = rest[:-1], rest[-1]  # (parameters, context), or (context,)
        deadline = context.execution_options.get(DEADLINE) or time.monotonic() + timeout
        _until_free(lambda: getattr(cursor, method)(statement, *parameters), deadline)
        return True

    return execute


def _until_free(statement: Callable[[], object], deadline: float) -> None:
    """Run `statement`; while another process holds the lock it needs, sleep a slice (green
    under eventlet: `time.sleep` is patched) and try again, up to `deadline`, then fail as
    SQLite would ("database is locked"). A statement refused as busy did nothing, so trying
    it again is exact."""
    pause = 0.001
    while True:
        try:
            statement()
            return
        except sqlite3.OperationalError as failure:
            left = deadline - time.monotonic()
            if not _busy(failure) or left <= 0:
                raise
            time.sleep(min(pause, left))
            pause = min(pause * 2, BUSY_SLICE)


Params = Mapping[str, Any]
Statement = Insert | Update | Select[Any]


class Prepared:
    """A Core statement compiled once for a dialect, run on the driver's cursor. Its SQL, the
    order of its parameters and their bind processors (the JSON serializer, SQLite's text
    dates) are SQLAlchemy's own, so it writes and reads the rows `Connection.execute` would;
    what it leaves out is SQLAlchemy's work around each statement (cache key, execution
    context, events, result object), which cost a table more than SQLite's own
    (docs/performance.md, «SQLAlchemy's share of an action, 2026-12-06»).

    `keys`: the parameters given (an INSERT's or UPDATE's columns); `many`: one execution of
    several rows (`executemany`). Not for expanding IN lists nor for columns whose values
    need a result processor: those raise here, once."""

    def __init__(self, statement: Statement, dialect: Dialect, keys: Sequence[str], many: bool):
        compiled = statement.compile(dialect=dialect, column_keys=list(keys), for_executemany=many)
        assert isinstance(compiled, SQLCompiler)
        if compiled.escaped_bind_names or any(b.expanding for b in compiled.binds.values()):
            raise ValueError(f"not a statement to prepare: {compiled.string}")
        for column in statement.exported_columns:
            if column.type.dialect_impl(dialect).result_processor(dialect, None) is not None:
                raise ValueError(f"{column} needs SQLAlchemy to read it")
        self.sql = compiled.string
        self.positional = compiled.positional
        if compiled.positional:  # a name each time it is written (`?`)
            self.names = list(compiled.positiontup or ())
        else:  # each name once (`%(name)s`)
            self.names = list(dict.fromkeys(compiled.bind_names.values()))
        # Per parameter: the key it is given by (None: a value of the statement itself, made
        # once) and the type's bind processor.
        self._binds: list[tuple[str | None, Callable[[Any], Any] | None, Any]] = []
        for name in self.names:
            bind = compiled.binds[name]
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if bind.required:
                self._binds.append((bind.key, process, None))
            else:
                fixed = bind.effective_value
                self._binds.append((None, None, fixed if process is None else process(fixed)))

    def values(self, given: Params) -> tuple[Any, ...] | dict[str, Any]:
        """The driver's parameters for one row, in the dialect's paramstyle."""
        made = tuple(
            fixed if key is None else given[key] if process is None else process(given[key])
            for key, process, fixed in self._binds
        )
        return made if self.positional else dict(zip(self.names, made, strict=True))


_PREPARED: weakref.WeakKeyDictionary[Dialect, dict[tuple[Any, ...], Prepared]] = (
    weakref.WeakKeyDictionary()
)


def run(
    connection: Connection, statement: Statement, params: Params | Sequence[Params]
) -> Sequence[Any]:
    """Execute `statement` on `connection`'s driver cursor, in its transaction (`Prepared`):
    one row of `params`, or several (a sequence) at once; returns the rows it gives (a SELECT,
    a RETURNING). Under SQLite it waits out another process's lock until the deadline of
    `Database.core` (none outside it: it fails at once), as a session's statements do; a
    driver's error fails as in `Connection.execute` (its `_handle_dbapi_exception`). Engine-level
    `before_cursor_execute` listeners are told of it (a test's or benchmark's count)."""
    rows: Sequence[Params]
    if isinstance(params, Mapping):
        many, rows = False, [params]
    else:
        many, rows = True, params
    dialect = connection.dialect
    known = _PREPARED.get(dialect)
    if known is None:
        known = _PREPARED[dialect] = {}
    key = (statement, many, *rows[0])
    prepared = known.get(key)
    if prepared is None:
        prepared = known[key] = Prepared(statement, dialect, list(rows[0]), many)
    values: Any = [prepared.values(r) for r in rows] if many else prepared.values(rows[0])
    dbapi_connection = connection.connection.dbapi_connection
    assert dbapi_connection is not None  # a connection in a transaction holds one
    cursor = dbapi_connection.cursor()
    for listener in connection.engine.dispatch.before_cursor_execute:
        listener(connection, cursor, prepared.sql, values, None, many)
    call = cursor.executemany if many else cursor.execute
    try:
        if dialect.name == "sqlite":
            deadline = connection.get_execution_options().get(DEADLINE) or 0.0
            _until_free(lambda: call(prepared.sql, values), deadline)
        else:
            call(prepared.sql, values)
        return cursor.fetchall() if cursor.description is not None else []
    except dialect.loaded_dbapi.Error as failure:
        # As `Connection.execute` fails: wrapped as SQLAlchemy's error, the engine's
        # `handle_error` listeners told (the metrics' count), a lost connection invalidated.
        connection._handle_dbapi_exception(failure, prepared.sql, values, cursor, None)
    finally:
        cursor.close()


def get_db() -> Database:
    """The current app's database (inside an app or request context)."""
    return current_app.extensions[EXTENSION]


def utcnow() -> datetime:
    """Timestamps are aware and UTC (SQLModel refuses naive ones)."""
    return datetime.now(UTC)
