"""The SFU's loop in ticks: while audio flows, its sockets are read in one pass per tick.

Each speaker's packet arriving on its own woke the process on its own: the kernel's wake-up,
a pass of the event loop and the whole receive path (the decryption, the header, the
statistics, the forwarding to every listener) ran for that one packet, with the caches
cold from the browsers and the server in between (docs/performance.md «Reading in ticks»).
While packets come, `Ticks` holds the loop for `tick` seconds between its passes: what
arrives meanwhile waits in the sockets' kernel buffers and is read in the next pass with
every other socket's, one wake-up for the packets of every speaker of the tick. A packet
waits at most one tick (TICK: half an Opus frame, within the delay the SFU may add,
docs/voice-protocol.md «Reading in ticks»). With nothing received for EMPTY_TICKS ticks the
loop waits for its sockets as before, looking again every IDLE seconds: a silent SFU sleeps.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: The default tick, seconds (`python -m rtc --tick-ms`).
TICK = 0.010
#: The longest tick the SFU takes: a whole Opus frame (20 ms) would hold a packet as long as
#: the next one takes to come.
MAX_TICK = 0.020
#: How often a loop that received nothing looks again whether audio flows.
IDLE = 0.05
#: Ticks in a row with nothing received before the loop waits for its sockets again (one
#: speaker's packets come every other tick).
EMPTY_TICKS = 3


class Ticks:
    """Holds `loop` for `tick` seconds between passes while `received()` (a count of the
    packets received) grows; `sleep` is the thread's (a test gives its own)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        tick: float,
        received: Callable[[], int],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 0 < tick <= MAX_TICK:
            raise ValueError(f"a tick is more than 0 and at most {MAX_TICK} s")
        self._loop, self.tick, self._received, self._sleep = loop, tick, received, sleep
        self._seen = received()
        self._empty = 0  # ticks in a row with nothing received
        self._next: asyncio.Handle | None = None

    def start(self) -> None:
        self._next = self._loop.call_later(IDLE, self._look)

    def stop(self) -> None:
        if self._next is not None:
            self._next.cancel()
            self._next = None

    def _look(self) -> None:
        """In silence, every IDLE seconds: has audio started? The holding begins at the
        loop's next pass, never in a timer's: uvloop runs what a timer calls soon in the
        same pass, before it reads the sockets."""
        if self._received() == self._seen:
            self._next = self._loop.call_later(IDLE, self._look)
            return
        self._next = self._loop.call_soon(self._pass)  # which sees what came, and holds

    def _pass(self) -> None:
        """Between two passes of the loop: hold it for a tick while packets come; called
        again right after the next pass, which reads every socket."""
        received = self._received()
        self._empty = self._empty + 1 if received == self._seen else 0
        self._seen = received
        if self._empty >= EMPTY_TICKS:  # silence: the loop waits for its sockets
            self._next = self._loop.call_later(IDLE, self._look)
            return
        self._sleep(self.tick)
        self._next = self._loop.call_soon(self._pass)
