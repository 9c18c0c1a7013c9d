"""Who watches one live table, and the news a reconnecting client catches up on.

A part of `LiveTable` (runtime.py). A watcher is a socket id with its person; a watcher
served in-process (a bot, app/bots/) has a listener that gets its events instead of
Socket.IO. A seated player with no watcher left is offline: this part times that (S-1.7),
and the owner decides what the timer's end does. `News` keeps the last `keep` versions'
events (docs/protocol.md, `since`); `HostLog` the host's controls, which a page that comes
back (a reload, a reconnect) writes again in its chat and history (docs/protocol.md, `log`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from app.engine.hand import Event

from .model import Person
from .outbox import Post
from .scheduler import Scheduler

Listener = Callable[[str, dict[str, Any]], None]  # (event, payload) for a watcher in-process
NEWS_KEEP = 200  # changes whose events a reconnecting client can catch up on


class Watched:
    """Which tables each socket watches, for every table of the process: a disconnect
    visits those tables, not every live one (at 500 tables, 4,000 players leaving at once
    held the process for ~16 s walking them: docs/performance.md, «A disconnect visits its
    own table»). Written by each table's `Watchers`, under that table's lock; its own lock
    because two tables may write it at once."""

    def __init__(self) -> None:
        self._tables: dict[str, set[int]] = {}
        self._lock = threading.Lock()

    def add(self, sid: str, table_id: int) -> None:
        with self._lock:
            self._tables.setdefault(sid, set()).add(table_id)

    def discard(self, sid: str, table_id: int) -> None:
        with self._lock:
            tables = self._tables.get(sid)
            if tables is not None:
                tables.discard(table_id)
                if not tables:
                    del self._tables[sid]

    def tables(self, sid: str) -> list[int]:
        """The tables `sid` watches now (a copy: leaving them changes the index)."""
        with self._lock:
            return sorted(self._tables.get(sid, ()))

    def __len__(self) -> int:
        """Sockets watching some table."""
        with self._lock:
            return len(self._tables)


class Watchers:
    """The sockets (and in-process listeners) watching one table."""

    def __init__(
        self,
        table_id: int,
        emit: Callable[..., None],
        post: Callable[[Post], None],
        scheduler: Scheduler,
        offline: Callable[[str], None],
        watched: Watched,
    ):
        self.table_id, self.emit, self.post, self.scheduler = table_id, emit, post, scheduler
        self.watched = watched  # the process's index of sockets → tables (the registry's)
        self._offline = offline  # the owner's: `name` stayed offline for his whole period
        self.people: dict[str, Person] = {}
        self.listeners: dict[str, Listener] = {}

    def add(self, sid: str, person: Person, listener: Listener | None, seated: bool) -> bool:
        """A new watcher; True when that brings a `seated` player back online (his
        offline timer stops)."""
        back = seated and not self.connected(person.name)
        if listener is not None:
            self.listeners[sid] = listener
        self.people[sid] = person
        self.watched.add(sid, self.table_id)
        if back:
            self.scheduler.cancel((self.table_id, "offline", person.name))
        return back

    def arm_offline(self, name: str, seconds: float) -> None:
        """S-1.7: offline for `seconds`, the player is stood up (the owner's callback)."""
        self.scheduler.set(
            (self.table_id, "offline", name),
            self.scheduler.deadline_in(seconds),
            lambda: self._offline(name),
        )

    def cancel_offline(self, names: list[str]) -> None:
        for name in names:
            self.scheduler.cancel((self.table_id, "offline", name))

    def remove(self, sid: str) -> Person | None:
        self.listeners.pop(sid, None)
        self.watched.discard(sid, self.table_id)
        return self.people.pop(sid, None)

    def connected(self, name: str) -> bool:
        return any(p.name == name for p in self.people.values())

    def sids(self, name: str) -> list[str]:
        return [sid for sid, p in self.people.items() if p.name == name]

    def items(self) -> list[tuple[str, Person]]:
        """A copy: sending may add or remove watchers."""
        return list(self.people.items())

    def person(self, sid: str) -> Person | None:
        return self.people.get(sid)

    def bots(self) -> dict[str, str | None]:
        """The watchers served in-process (the bots, app/bots/): name → avatar."""
        return {p.name: p.avatar for sid, p in self.people.items() if sid in self.listeners}

    def send(self, sid: str, event: str, data: dict[str, Any]) -> None:
        """One watcher's event: to its listener when it has one, else to its socket; posted,
        to go after the table's lock (outbox.py)."""
        listener = self.listeners.get(sid)
        if listener is None:
            self.post(lambda: self.emit(event, data, to=sid))
        else:
            self.post(lambda: listener(event, data))

    def send_all(self, event: str, data: dict[str, Any]) -> None:
        for sid, _ in self.items():
            self.send(sid, event, data)


class News:
    """The events of the last versions, for a client that comes back (`since`)."""

    def __init__(self, keep: int = NEWS_KEEP):
        self._kept: deque[tuple[int, list[Event]]] = deque(maxlen=keep)

    def add(self, version: int, events: list[Event]) -> None:
        self._kept.append((version, events))

    def missed(self, since: int | None, version: int, name: str) -> list[dict[str, Any]] | None:
        """What `name` may see of the changes after `since`; None when `since` is not
        known any more (the client reloads the whole state)."""
        kept = self._kept
        if since is None or not (since == version or (kept and kept[0][0] - 1 <= since <= version)):
            return None
        return [
            e.as_json() for v, events in kept if v > since for e in events if e.visible_to(name)
        ]


def is_host_line(event: Event) -> bool:
    """A change the pages write as a line of the chat and the history, with who did it
    (static/js/host.js `hostLine`): a host's control, a muted player asking to speak, a
    player stood up by the host (docs/hosting.md, «The host's table menu»)."""
    if event.kind in ("host", "ask_speak"):
        return True
    return event.kind in ("stood", "leaving") and event.data.get("why") == "host"


class HostLog:
    """The table's last `keep` host lines with the time of each, for a page that comes back:
    without them a reload or a reconnect wiped «Иван ставит игру на паузу» from the chat
    between the stored lines, and whoever joined later never learned who paused or muted."""

    def __init__(self, keep: int):
        self._kept: deque[dict[str, Any]] = deque(maxlen=keep)

    def add(self, events: Iterable[Event], clock: Callable[[], float] = time.time) -> None:
        for e in events:
            if e.to is None and is_host_line(e):  # told to everyone at the table
                self._kept.append({**e.as_json(), "time": clock()})

    def lines(self) -> list[dict[str, Any]]:
        """Oldest first, as in `news`, each with `time` (seconds, as a chat line's)."""
        return list(self._kept)
