"""The notices path in one process (app/admin/notices.py): the heartbeat tells the CLI
whether a server runs, a notice is taken exactly once, the poller applies notices in order
and answers them, leftovers of a stopped server are dropped, and a CLI whose server died
takes its own notice back."""

from __future__ import annotations

import logging
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import update
from sqlmodel import select

from app import migrations
from app.admin import notices
from app.models import Database, Notice, ServerBeat, utcnow
from app.models.db import EXTENSION as DB
from app.shards import Shard


def poller(
    db: Database, seen: list[tuple[str, dict[str, Any]]], shard: Shard = notices.ALL
) -> notices.Poller:
    app = Flask("test")
    app.extensions[DB] = db

    def record(data: dict[str, Any]) -> dict[str, Any]:
        seen.append(("ok", data))
        return {"echo": data["n"]}

    def broken(data: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("not at the table")

    return notices.Poller(app, {"ok": record, "broken": broken}, shard)


def age_beats(db: Database, seconds: float) -> None:
    with db.session() as s:
        s.execute(update(ServerBeat).values(seen=utcnow() - timedelta(seconds=seconds)))


def test_without_a_beat_nothing_is_posted(db: Database) -> None:
    with db.session() as s:
        assert not notices.server_running(s)
        assert notices.post(s, "ok", n=1) is None
        assert s.exec(select(Notice)).all() == []


def test_the_poller_beats_applies_in_order_and_answers(db: Database) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    running = poller(db, seen)
    running.open()
    with db.session() as s:
        assert notices.server_running(s)
        first = notices.post(s, "ok", n=1)
        second = notices.post(s, "broken", n=2)
        third = notices.post(s, "ok", n=3)
        unknown = notices.post(s, "nope")
    running.poll()
    assert seen == [("ok", {"n": 1}), ("ok", {"n": 3})]
    assert notices.answer(db, first, timeout=0) == {"ok": True, "echo": 1}  # type: ignore[arg-type]
    assert notices.answer(db, second, timeout=0) == {"ok": False, "error": "not at the table"}  # type: ignore[arg-type]
    assert notices.answer(db, third, timeout=0) == {"ok": True, "echo": 3}  # type: ignore[arg-type]
    assert notices.answer(db, unknown, timeout=0)["error"] == "unknown notice 'nope'"  # type: ignore[arg-type,index]
    running.poll()
    assert len(seen) == 2  # each notice is applied once
    age_beats(db, notices.ALIVE_SECONDS + 1)
    with db.session() as s:
        assert not notices.server_running(s)


def test_a_notice_is_taken_once(db: Database) -> None:
    poller(db, []).open()
    with db.session() as s:
        notice = notices.post(s, "ok", n=1)
    assert notice is not None
    with db.session() as s:
        assert notices.take(s, notice)
    with db.session() as s:
        assert not notices.take(s, notice)


def test_a_new_server_drops_what_the_old_one_left(db: Database) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    poller(db, []).open()
    with db.session() as s:
        left = notices.post(s, "ok", n=1)
    age_beats(db, notices.ALIVE_SECONDS + 1)
    poller(db, seen).open()  # the restart
    with db.session() as s:
        assert len(s.exec(select(ServerBeat)).all()) == 1  # the stale beat is gone
    assert notices.answer(db, left, timeout=0)["ok"] is False  # type: ignore[arg-type,index]
    assert seen == []


def test_the_cli_takes_back_a_notice_its_dead_server_never_took(db: Database) -> None:
    poller(db, []).open()
    with db.session() as s:
        notice = notices.post(s, "ok", n=1)
    assert notice is not None
    still = notices.answer(db, notice, timeout=0)  # the server lives but has not answered
    assert still == {"ok": False, "pending": True, "error": "the server has not answered (yet)"}
    age_beats(db, notices.ALIVE_SECONDS + 1)
    assert notices.answer(db, notice, timeout=0) is None  # now the CLI's to do
    with db.session() as s:
        assert not notices.take(s, notice)  # and a server coming back cannot take it too


def test_a_table_notice_is_applied_by_the_process_that_plays_the_table(db: Database) -> None:
    """Several processes (docs/hosting.md): a notice about table t is taken only by the
    process whose shard owns t, even when another polls first; a notice about a user by
    whichever process polls first; a process starting drops only its own tables' leftovers."""
    even: list[tuple[str, dict[str, Any]]] = []
    odd: list[tuple[str, dict[str, Any]]] = []
    first, second = poller(db, even, Shard(0, 2)), poller(db, odd, Shard(1, 2))
    first.open()
    with db.session() as s:
        left_3 = notices.post(s, "ok", n=0, table=3)  # before the odd process started
        table_2 = notices.post(s, "ok", n=2, table=2)
    second.open()
    with db.session() as s:
        table_3 = notices.post(s, "ok", n=1, table=3)
        user = notices.post(s, "ok", n=3, user=7)
    first.poll()
    assert even == [("ok", {"n": 2, "table": 2}), ("ok", {"n": 3, "user": 7})]
    second.poll()
    assert odd == [("ok", {"n": 1, "table": 3})]
    for notice, echo in ((table_3, 1), (table_2, 2), (user, 3)):
        assert notices.answer(db, notice, timeout=0) == {"ok": True, "echo": echo}  # type: ignore[arg-type]
    assert notices.answer(db, left_3, timeout=0) == {  # type: ignore[arg-type]
        "ok": False,
        "error": "posted before the server restarted",
    }


class Stop(Exception):
    """Ends the poller's task loop in the test."""


def test_a_locked_database_is_one_line_and_the_next_polls_try_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holds the write lock past the busy timeout (a backup, a long admin
    command): the poll's task says so in one line without a traceback, stays quiet while
    it lasts, and applies the notice once the lock is gone."""
    path = tmp_path / "svara.db"
    db = Database(f"sqlite:///{path}", busy_timeout=0.05)
    migrations.upgrade(db.engine)
    seen: list[tuple[str, dict[str, Any]]] = []
    running = poller(db, seen)
    running.open()
    with db.session() as s:
        notice = notices.post(s, "ok", n=1, who="Иван")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    naps = 0

    def nap(seconds: float) -> None:
        nonlocal naps
        naps += 1
        if naps == 4:  # three polls met the lock
            other.execute("ROLLBACK")
        if naps == 5:
            raise Stop

    monkeypatch.setattr(notices.socketio, "sleep", nap)
    caplog.set_level(logging.DEBUG, logger=notices.__name__)
    try:
        with pytest.raises(Stop):
            running._run()
        said = [r for r in caplog.records if r.name == notices.__name__]
        assert [(r.levelno, r.exc_info) for r in said] == [(logging.WARNING, None)], caplog.text
        assert "database is locked" in said[0].getMessage()
        assert seen == [("ok", {"n": 1, "who": "Иван"})]
        assert notices.answer(db, notice, timeout=0) == {"ok": True, "echo": 1}  # type: ignore[arg-type]
    finally:
        other.close()
        db.dispose()
