"""One table's turn: its lock, and what the turn sends, sent in order after the lock is let
go (docs/architecture.md, «The outbox»).

Socket.IO's `emit` may wait on the network (a Redis message queue), an in-process watcher
(a bot) on its own work: none of it runs while the table's lock is held. What an operation
sends is posted under the lock, in the order it was decided; once the outermost turn lets
the lock go, one flusher at a time sends the table's posts first in, first out. A turn
that ends while another is sending leaves its posts to that flusher, so two turns never
swap their messages and no watcher sees an older version after a newer one.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType

log = logging.getLogger(__name__)

Post = Callable[[], None]


class Turn:
    """`with turn:` holds the table's lock (re-entrant); `post` queues a send for after it."""

    def __init__(self, table_id: int) -> None:
        self.table_id = table_id
        self.lock = threading.RLock()
        self._depth = 0  # turns nested in this one (an operation calling another)
        self._posts: deque[Post] = deque()
        self._guard = threading.Lock()  # held only to take a post or the flusher's place
        self._flushing = False

    def __enter__(self) -> Turn:
        self.lock.acquire()
        self._depth += 1
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._depth -= 1
        outer = self._depth == 0
        self.lock.release()
        if outer:
            self.flush()

    def post(self, send: Post) -> None:
        """A send decided under the lock, sent after it in the order posted."""
        self._posts.append(send)

    def flush(self) -> None:
        """Send what is posted, unless another flusher is at it (it sends ours too, after
        its own: the order stays the order of the turns)."""
        with self._guard:
            if self._flushing:
                return
            self._flushing = True
        while True:
            with self._guard:  # all that is posted so far, in one take of the guard
                if not self._posts:
                    self._flushing = False
                    return
                sends = list(self._posts)
                self._posts.clear()
            for send in sends:
                try:
                    send()
                except Exception:  # one watcher's failed send stops nobody else's
                    log.exception("table %s: a send failed", self.table_id)
