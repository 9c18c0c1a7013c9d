"""Every timer of every table as a deadline (architecture.md): one background task watches
the deadlines, and each table's due timers run in a task of that table's own.

A table never sleeps per player: it sets a deadline under a key ("table 3, turn") and the
scheduler calls it back when the deadline passes. Setting a key again replaces its deadline,
so a stale timer can never fire. A key `(table, …)` belongs to the lane of its table: the
lane's callbacks run one after another, in deadline order, in a task that lives while the
lane has work, so one slow table (a callback waiting for its lock or for the database)
delays no other table's timers. Deadlines are wall-clock seconds (`time.time()`): clients
get them as server time and draw their own countdowns. Durations are multiplied by `scale`
(config `TIMER_SCALE`), which is how tests run the 30 s timers of the rules in milliseconds.

Only Flask-SocketIO's own abstractions start the task and sleep, so the same code runs under
eventlet, gevent and threading (architecture.md, «The web process»).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

log = logging.getLogger(__name__)

# The loop never sleeps longer than this, so a deadline set while it sleeps is late by at
# most this much (it cannot be woken early without a primitive Flask-SocketIO lacks).
MAX_NAP = 0.05
MIN_NAP = 0.002
# Replaced and cancelled deadlines stay in the heap until they pass (lazy deletion); once
# they outnumber the armed ones by this many, the heap is rebuilt without them, so it holds
# about the armed timers whatever their length (a turn's deadline is replaced at every move).
STALE_SLACK = 1024


def lane(key: Hashable) -> Hashable:
    """The lane of a key: its table for a `(table, …)` key, else the key itself."""
    return key[0] if isinstance(key, tuple) and key else key


class Scheduler:
    """Deadlines by key, one background task handing the due ones to their lanes."""

    def __init__(
        self,
        socketio: Any,
        scale: float = 1.0,
        context: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ):
        self.socketio = socketio
        self.scale = scale
        self.context = context  # the app context the callbacks run in
        self._heap: list[tuple[float, int, Hashable]] = []
        self._timers: dict[Hashable, tuple[float, int, Callable[[], None]]] = {}
        self._seq = itertools.count()
        # Held only around heap operations, which never yield: safe for green threads too.
        self._lock = threading.Lock()
        self._running = False
        self._lanes: dict[Hashable, deque[Callable[[], None]]] = {}  # lanes with a task

    def start(self) -> None:
        """Start the firing task once per process."""
        with self._lock:
            if self._running:
                return
            self._running = True
        self.socketio.start_background_task(self._run)

    def stop(self) -> None:
        self._running = False

    def deadline_in(self, seconds: float) -> float:
        """The server time `seconds` of game time from now (scaled for tests)."""
        return time.time() + seconds * self.scale

    def set(self, key: Hashable, deadline: float, fire: Callable[[], None]) -> None:
        """(Re)arm `key` to call `fire` at `deadline` (server time; a past one fires now)."""
        with self._lock:
            seq = next(self._seq)
            self._timers[key] = (deadline, seq, fire)
            heapq.heappush(self._heap, (deadline, seq, key))
            if len(self._heap) > 2 * len(self._timers) + STALE_SLACK:
                self._drop_stale()

    def _drop_stale(self) -> None:
        """Rebuild the heap with the armed deadlines only (the lock held): linear, and due
        once per STALE_SLACK replacements at least, so a `set` stays O(log n) on average."""
        timers = self._timers
        self._heap = [e for e in self._heap if (t := timers.get(e[2])) and t[1] == e[1]]
        heapq.heapify(self._heap)

    def cancel(self, key: Hashable) -> None:
        with self._lock:
            self._timers.pop(key, None)

    def deadline(self, key: Hashable) -> float | None:
        """When `key` fires (None when it is not armed)."""
        timer = self._timers.get(key)
        return timer[0] if timer else None

    def _due(self, now: float) -> tuple[list[tuple[Hashable, Callable[[], None]]], float]:
        """Pop the timers whose deadline passed; also how long the loop may nap."""
        due: list[tuple[Hashable, Callable[[], None]]] = []
        with self._lock:
            while self._heap and self._heap[0][0] <= now:
                _, seq, key = heapq.heappop(self._heap)
                timer = self._timers.get(key)
                if timer is not None and timer[1] == seq:  # not replaced or cancelled since
                    del self._timers[key]
                    due.append((key, timer[2]))
            nap = self._heap[0][0] - now if self._heap else MAX_NAP
        return due, min(MAX_NAP, max(MIN_NAP, nap))

    def _run(self) -> None:
        with self.context():
            self._loop()

    def _loop(self) -> None:
        while self._running:
            due, nap = self._due(time.time())
            for key, fire in due:
                self._hand(lane(key), fire)
            self.socketio.sleep(nap)

    def _hand(self, name: Hashable, fire: Callable[[], None]) -> None:
        """Queue `fire` in its lane, starting the lane's task unless one runs."""
        with self._lock:
            queued = self._lanes.get(name)
            if queued is not None:  # its task takes this one after the ones before it
                queued.append(fire)
                return
            self._lanes[name] = deque([fire])
        self.socketio.start_background_task(self._drain, name)

    def _drain(self, name: Hashable) -> None:
        """A lane's task: its callbacks in order, until none is left."""
        with self.context():
            while True:
                with self._lock:
                    queued = self._lanes[name]
                    if not queued:
                        del self._lanes[name]
                        return
                    fire = queued.popleft()
                try:
                    fire()
                except Exception:  # one table's failure must not stop its other timers
                    log.exception("timer callback failed")
