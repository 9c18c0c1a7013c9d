"""Every live table of the process: created on first use, recovered at start-up (C-8.5).

The registry is the runtime's one door for the socket layer and for connection changes:
it finds a table's `LiveTable`, follows a player's table to the new socket of its page on a
reconnect or a takeover (C-8.1, C-8.2), and after a restart resumes each unfinished hand by
replaying its log or, when that cannot be done, cancels it with every payment refunded.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask

from app.auth.presence import Player
from app.chat import Chat
from app.engine.handfile import replay_record
from app.models.db import EXTENSION as DB
from app.rooms import sender
from app.shards import Shard

from .model import Person, TableError
from .runtime import LiveTable, Services
from .scheduler import Scheduler
from .store import TableStore

log = logging.getLogger(__name__)
Closed = TypeVar("Closed")


def no_table(table_id: int) -> TableError:
    """The answer for a table that does not exist, is closed, or is private to others."""
    return TableError("not_found", f"no open table {table_id}")


class Tables:
    """The `LiveTable` of each open table of this process, by id."""

    def __init__(self, app: Flask, socketio: Any, seats_changed: Any):
        config = app.config
        self.store = TableStore(app.extensions[DB])
        self.shard = Shard.parse(config["SHARD"])  # the tables this process plays
        self.scheduler = Scheduler(socketio, config["TIMER_SCALE"], app.app_context)
        self.services = Services(
            store=self.store,
            scheduler=self.scheduler,
            emit=sender(socketio),
            chat=lambda table_id: Chat.from_config(config, app.extensions[DB], table_id),
            seats_changed=lambda table_id: self._seats_changed(table_id, seats_changed),
        )
        self._tables: dict[int, LiveTable] = {}
        self._closed: set[int] = set()  # closed by this process: `get` never loads them
        self._lock = threading.Lock()
        # What the voice chat and the bots follow of every table (runtime.py `Hooks`).
        self.hooks = self.services.hooks

    def get(self, table_id: int) -> LiveTable:
        """The live table, loaded on first use; `not_found` for an unknown or closed one."""
        live = self._tables.get(table_id)
        if live is not None:
            return live
        if not self.shard.owns(table_id):
            raise TableError("elsewhere", f"table {table_id} is played by another process")
        # Read the database outside the registry lock: the lobby asks `occupancy` from
        # inside a database session, so holding both the other way round could deadlock.
        found = self.store.table(table_id)
        with self._lock:
            # A close that began after that read wins: its row may not say closed yet.
            if found is None or table_id in self._closed:
                raise no_table(table_id)
            table, variant = found
            return self._tables.setdefault(
                table_id, LiveTable(table_id, table.name, variant, self.services)
            )

    def find(self, table_id: int) -> LiveTable | None:
        """The table if it is live in this process; never loads one."""
        with self._lock:
            return self._tables.get(table_id)

    def close(self, table_id: int, reason: str, close_in_db: Callable[[], Closed]) -> Closed:
        """Close a table for good (an admin's close): from this call on `get` refuses it,
        even while `close_in_db` (which cancels and refunds its hand in play, returns its
        stacks and marks its row closed, C-8.5, S-1.5) has not committed yet; a live table
        also stops its timers and tells its watchers (`LiveTable.close`). Returns what
        `close_in_db` returned; if that fails, the table may be loaded again as before."""
        with self._lock:
            self._closed.add(table_id)
            live = self._tables.pop(table_id, None)
        try:
            closed = close_in_db() if live is None else live.close(reason, close_in_db)
        except Exception:
            with self._lock:
                self._closed.discard(table_id)
            raise
        for hook in self.hooks.closed:
            hook(table_id)
        return closed

    def present(self, table_id: int) -> list[str] | None:
        """Who is seated or queued at a table live here (None: not live here), for the
        shuffle's reveal (fair.py `Reveal`); read under that table's lock by its hooks."""
        live = self.find(table_id)
        if live is None:
            return None
        snap = live.snapshot()
        return [s.name for s in snap.seats if s is not None] + list(snap.queue)

    def live(self) -> list[LiveTable]:
        with self._lock:
            return list(self._tables.values())

    def occupancy(self, table_id: int) -> tuple[int, int] | None:
        """Seats taken and queue length for the lobby; None for a table not live here."""
        live = self._tables.get(table_id)  # no lock: called inside database sessions
        return live.occupancy() if live is not None else None

    def _seats_changed(self, table_id: int, publish: Callable[[int], None]) -> None:
        """Keep the new occupancy for the other processes' lobbies, then tell this one's."""
        live = self._tables.get(table_id)
        if live is not None:
            try:
                self.store.set_occupancy(table_id, live.occupancy())
            except Exception as failure:  # locked or full: only the lobby's count waits
                log.warning("table %s: occupancy not stored: %s", table_id, failure)
        publish(table_id)

    # --- connections --------------------------------------------------------------------
    def connected(self, player: Player, sid: str, table: int | None) -> None:
        """A table page's new socket gets the table's state at once if he sits or waits
        there (a reconnect, or a takeover from another tab or device: C-8.1, C-8.2); the
        socket of any other page (the lobby) follows no table."""
        live = self.find(table) if table is not None else None
        if live is not None and (live.member(player.name) is not None or live.queued(player.name)):
            live.follow(sid, Person(player.id, player.name))

    def disconnected(self, player: Player, sid: str, still: bool) -> None:
        """The socket leaves the tables it watched; no other table is visited."""
        for table_id in self.services.watched.tables(sid):
            live = self.find(table_id)
            if live is not None:
                live.leave(sid)
            else:  # closed while watched: nothing left to tell
                self.services.watched.discard(sid, table_id)

    # --- start-up -----------------------------------------------------------------------
    def start(self) -> None:
        """Recover every unfinished hand, return stranded stacks, start the timers."""
        resumed: set[int] = set()
        for record in self.store.unfinished_hands():
            assert record.id is not None
            if not self.shard.owns(record.table_id):
                continue
            if record.table_id in resumed:
                self._cancel(record.id, "a later hand of the table is in play")
                continue
            try:
                self._resume(record.table_id, record.id, record.hand_file or {})
                resumed.add(record.table_id)
            except Exception as failure:  # any failure to rebuild the hand refunds it
                log.warning("hand %s cannot be resumed: %s", record.id, failure)
                self._cancel(record.id, f"could not be resumed after a restart: {failure}")
        for table, _ in self.store.open_tables():
            assert table.id is not None
            if not self.shard.owns(table.id):
                continue
            live = self._tables.get(table.id)
            seated = {m.person.id for m in live.snapshot().members()} if live else set()
            stranded = [u for u in self.store.stacked_users(table.id) if u not in seated]
            self.store.cash_out(table.id, stranded)  # S-1.5: standing up returns the stack
            # What the last run stored is gone with it: the lobbies read this run's seats.
            self.store.set_occupancy(table.id, live.occupancy() if live is not None else (0, 0))
        for table_id in filter(self.shard.owns, self.store.closed_tables_with_stacks()):
            self.store.cash_out(table_id, self.store.stacked_users(table_id))
        self.scheduler.start()

    def _resume(self, table_id: int, hand_id: int, doc: dict[str, Any]) -> None:
        live = self.get(table_id)  # TableError for a closed table: the hand is refunded
        hand, actions = replay_record(doc)
        if hand.variant.game != live.variant.game or dict(hand.variant.rules) != dict(
            live.variant.rules
        ):
            raise TableError("variant", "the table's variant changed")
        if hand.finished:
            raise TableError("finished", "the log ends a hand that was never closed")
        people = self.store.user_ids(s.name for s in hand.seats)
        live.resume(hand_id, hand, actions, people)

    def _cancel(self, hand_id: int, reason: str) -> None:
        """C-8.5: every payment into the hand goes back to its owner."""
        try:
            self.store.cancel_hand(hand_id, reason)
        except Exception:  # the books are checked by `ledger.verify`; go on with the rest
            log.exception("hand %s could not be refunded", hand_id)
            return
        log.warning("hand %s cancelled and refunded: %s", hand_id, reason)
