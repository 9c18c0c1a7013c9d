"""The path from the admin CLI to a running server: notices in the shared database.

Why the database: the CLI already writes there, a notice commits in the same transaction as
the change it announces (the server never sees one without the other), nothing listens on
a port, and no secret has to be shared. The cost is a poll: one indexed query every
`POLL_SECONDS` in one background task of the serving process.

- Each serving process keeps a `ServerBeat` row fresh (every `BEAT_SECONDS`); the CLI
  treats a beat younger than `ALIVE_SECONDS` as a running server.
- With a server running, the CLI writes a `Notice` (kind + data) next to its change and
  waits up to `ANSWER_SECONDS` for the server's `result`. Without one it posts nothing: the
  next start reads everything fresh from the database (and recovers closed tables itself).
- The server takes a notice by setting `done` with a conditional update (`WHERE done IS
  NULL`), applies it to its live state (app/admin/live.py) and writes the `result`. With
  several processes (docs/hosting.md, «Beyond one machine») a notice about a table is left
  to the process that plays it (`Shard.owns`); one about a user goes to whichever comes first. A CLI
  that got no answer and sees the server gone may take the notice the same way and do the
  work itself (closing a table): whoever takes a notice first does it, exactly once.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

from flask import Flask
from sqlalchemy import update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from app.extensions import socketio
from app.models import Database, Notice, ServerBeat, utcnow
from app.models.db import EXTENSION as DB
from app.shards import Shard

log = logging.getLogger(__name__)

POLL_SECONDS = 0.1
BEAT_SECONDS = 1.0
ALIVE_SECONDS = 5.0
ANSWER_SECONDS = 15.0
EXTENSION = "svara.notices"
ALL = Shard()  # one process plays every table
# What the serving process asks ten times a second: built once, not at every poll.
PENDING = (
    select(Notice.id, Notice.kind, Notice.data)
    .where(col(Notice.done).is_(None))
    .order_by(col(Notice.id))
)

Handler = Callable[[dict[str, Any]], dict[str, Any]]


# --- the CLI's side ---------------------------------------------------------------------
def server_running(s: Session) -> bool:
    """A serving process has beaten within ALIVE_SECONDS."""
    fresh = utcnow() - timedelta(seconds=ALIVE_SECONDS)
    return s.exec(select(ServerBeat.id).where(ServerBeat.seen >= fresh)).first() is not None


def post(s: Session, kind: str, **data: Any) -> int | None:
    """Announce a change to a running server, in the caller's transaction; the notice's id,
    or None when no server runs (there is nobody to tell)."""
    if not server_running(s):
        return None
    notice = Notice(kind=kind, data=data)
    s.add(notice)
    s.flush()
    return notice.id


def take(s: Session, notice_id: int) -> bool:
    """Claim a notice for handling; False when someone (server or CLI) already has."""
    result = s.execute(
        update(Notice)
        .where(col(Notice.id) == notice_id, col(Notice.done).is_(None))
        .values(done=utcnow())
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1  # type: ignore[attr-defined]  # an UPDATE gives a CursorResult


def answer(db: Database, notice_id: int, timeout: float = ANSWER_SECONDS) -> dict[str, Any] | None:
    """The server's result for a notice, waiting for it; None if it did not come in time
    and the notice is now the caller's (the server is gone and never took it)."""
    deadline = time.monotonic() + timeout
    while True:
        with db.session() as s:
            notice = s.get(Notice, notice_id)
            assert notice is not None
            if notice.result is not None:
                return notice.result
            if time.monotonic() > deadline:
                if not server_running(s) and take(s, notice_id):
                    return None
                return {"ok": False, "pending": True, "error": "the server has not answered (yet)"}
        time.sleep(POLL_SECONDS)


# --- the server's side ------------------------------------------------------------------
class Poller:
    """The serving process's one task that beats and applies the notices as they come."""

    def __init__(self, app: Flask, handlers: dict[str, Handler], shard: Shard = ALL):
        self.app = app
        self.db: Database = app.extensions[DB]
        self.handlers = handlers
        self.shard = shard
        self.beat_id: int | None = None
        self._next_beat = 0.0
        self._locked = False  # the last poll met a database another process held

    def start(self) -> None:
        """Beat at once, drop what a previous server left unanswered, then poll."""
        self.open()
        socketio.start_background_task(self._run)

    def open(self) -> None:
        """The first beat (old beats are deleted) and the leftover notices answered."""
        with self.db.session() as s:
            stale = utcnow() - timedelta(seconds=ALIVE_SECONDS)
            for old in s.exec(select(ServerBeat).where(ServerBeat.seen < stale)).all():
                s.delete(old)
            beat = ServerBeat(pid=os.getpid(), host=socket.gethostname())
            s.add(beat)
            s.flush()
            self.beat_id = beat.id
            for notice in s.exec(select(Notice).where(col(Notice.done).is_(None))).all():
                if not self.ours(notice.data):
                    continue
                notice.done = utcnow()
                notice.result = {"ok": False, "error": "posted before the server restarted"}
                s.add(notice)
        self._next_beat = time.monotonic() + BEAT_SECONDS

    def _run(self) -> None:
        with self.app.app_context():
            while True:
                self.step()
                socketio.sleep(POLL_SECONDS)

    def step(self) -> None:
        """One poll; what fails must not stop the task. A database another process holds
        past the busy timeout (a long admin command, a backup, a bulk import) is no fault
        of ours: one line when it starts, silence while it lasts, and the next poll tries
        again (what was not done stays in the database until then)."""
        try:
            self.poll()
        except OperationalError as failure:
            locked = "database is locked" in str(failure.orig)
            if not locked:
                log.exception("admin notices: poll failed")
            elif not self._locked:
                log.warning("admin notices: the database is locked; trying again at each poll")
            self._locked = locked
            return
        except Exception:  # a broken notice
            log.exception("admin notices: poll failed")
        self._locked = False

    def poll(self) -> None:
        """Beat when due, then apply every new notice in order."""
        if time.monotonic() >= self._next_beat:
            with self.db.session() as s:
                s.execute(
                    update(ServerBeat)
                    .where(col(ServerBeat.id) == self.beat_id)
                    .values(seen=utcnow())
                )
            self._next_beat = time.monotonic() + BEAT_SECONDS
        with self.db.core() as c:  # ten times a second: no ORM session (db.py)
            pending = c.execute(PENDING).all()
        # The rows as stored: an id, a kind and the JSON object (models/notices.py).
        for notice_id, kind, data in cast("list[tuple[int, str, dict[str, Any]]]", pending):
            if not self.ours(data):
                continue
            with self.db.session() as s:
                if not take(s, notice_id):
                    continue
            result = self.apply(kind, data)
            with self.db.session() as s:
                s.execute(update(Notice).where(col(Notice.id) == notice_id).values(result=result))

    def ours(self, data: dict[str, Any]) -> bool:
        """Whether this process applies the notice: one about a table only where it is played
        (another process closing it would leave the owner playing a closed table)."""
        return "table" not in data or self.shard.owns(int(data["table"]))

    def apply(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        handler = self.handlers.get(kind)
        if handler is None:
            return {"ok": False, "error": f"unknown notice {kind!r}"}
        try:
            return {"ok": True, **handler(data)}
        except Exception as failure:
            log.exception("admin notice %s %s failed", kind, data)
            return {"ok": False, "error": str(failure)}
