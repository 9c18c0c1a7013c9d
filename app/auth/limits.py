"""The login rate limit: failed attempts per client address and name within a window.

Keyed by address *and* name, so guessing one player's password is slowed down without
locking him out from his own address. Kept in the process (a restart forgets it).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Hashable


class FailureLimit:
    """At most `attempts` failures per key within `window` seconds; then refuse until the
    oldest failure leaves the window."""

    def __init__(self, attempts: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.attempts, self.window, self.clock = attempts, window, clock
        self._failures: dict[Hashable, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, key: Hashable) -> deque[float]:
        failures = self._failures[key]
        cutoff = self.clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        return failures

    def retry_after(self, key: Hashable) -> float:
        """Seconds until `key` may try again (0: it may now)."""
        with self._lock:
            failures = self._recent(key)
            if len(failures) < self.attempts:
                return 0.0
            return failures[0] + self.window - self.clock()

    def fail(self, key: Hashable) -> None:
        with self._lock:
            self._recent(key).append(self.clock())

    def clear(self, key: Hashable) -> None:
        with self._lock:
            self._failures.pop(key, None)
