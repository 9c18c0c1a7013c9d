"""Password hashes (argon2) off the event loop, a bounded number at a time.

An argon2 hash takes tenths of a second of CPU. Under eventlet every green thread shares one
OS thread, so a hash computed in place stops every table of the process for that long; here
it runs in eventlet's pool of real threads (`tpool`; argon2's C code releases the GIL), so
the loop goes on. Under `threading` each request already has its own thread and the hash
runs there. Either way at most `HASH_THREADS` hashes run at once: the rest of the
machine's cores stay with the game, and a flood of logins waits its turn — at most
`HASH_QUEUE` of them wait (each holds a database connection), the next is refused with
`Busy` (a 429 on the page, docs/hosting.md).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from argon2 import PasswordHasher

T = TypeVar("T")
DEFAULT_THREADS, DEFAULT_QUEUE = 1, 8  # the app's are set by `configure`


class Busy(Exception):
    """Every hash thread is taken and `HASH_QUEUE` more wait already."""


def _green() -> bool:
    """True when eventlet has patched threads into green threads (`svara serve`); a process
    that never imported eventlet (the admin CLI, tests) is not patched."""
    patcher = sys.modules.get("eventlet.patcher")
    return patcher is not None and bool(patcher.is_monkey_patched("thread"))


class Passwords:
    """The process's hasher; `configure` applies the app's `HASH_THREADS` and
    `PASSWORD_HASH` (argon2's parameters; stored hashes made with others are redone at the
    next login, `needs_rehash`)."""

    def __init__(self) -> None:
        self._hasher = PasswordHasher()
        self._threads, self._queue = DEFAULT_THREADS, DEFAULT_QUEUE
        self._slots: threading.BoundedSemaphore | None = None
        self._count: threading.Lock | None = None
        self._waiting = 0  # hashes running or waiting for a thread

    def configure(self, threads: int, queue: int, parameters: dict[str, Any]) -> None:
        if threads < 1 or queue < 0:
            raise ValueError("HASH_THREADS must be at least 1 and HASH_QUEUE at least 0")
        self._hasher = PasswordHasher(**parameters)
        self._threads, self._queue, self._slots = threads, queue, None

    def hash(self, password: str) -> str:
        return self._run(self._hasher.hash, password)

    def verify(self, stored: str, password: str) -> bool:
        """True, or argon2's VerificationError / InvalidHashError."""
        return self._run(self._hasher.verify, stored, password)

    def needs_rehash(self, stored: str) -> bool:
        return self._hasher.check_needs_rehash(stored)

    def _run(self, work: Callable[..., T], *args: object) -> T:
        """`work(*args)`, in a real thread when the caller is a green one."""
        if self._slots is None or self._count is None:  # made after eventlet's patching
            self._slots, self._count = threading.BoundedSemaphore(self._threads), threading.Lock()
        with self._count:
            if self._waiting >= self._threads + self._queue:
                raise Busy
            self._waiting += 1
        try:
            with self._slots:
                if _green():
                    from eventlet import tpool

                    return tpool.execute(work, *args)
                return work(*args)
        finally:
            with self._count:
                self._waiting -= 1


passwords = Passwords()
