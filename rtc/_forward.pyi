"""Types of the compiled forwarding (rtc/_forward.c)."""

from typing import Any

MAX_GAP: int
CLOCK_PAIR_EVERY: int
MAX_PLAIN: int

class Renumbering:
    def map(self, seq: int, ts: int, source: object, now: float) -> tuple[int, int] | None: ...

class Stream(Renumbering):
    def __init__(
        self,
        *,
        sender: Any,
        dtls: Any,
        connected: object,
        first: int,
        rest: bytes,
        history: list[bytes | None],
        opus: int | None,
        red: int | None,
        origins: tuple[int, int],
        protect: int,
        srtp: int,
        session: object,
        nominated: dict[int, Any],
    ) -> None: ...
    @property
    def kind(self) -> tuple[int | None, int | None]: ...
    def target(
        self, pair: object, protocol: object, sock: object, host: str, port: int
    ) -> bool: ...

def forward(
    streams: list[Any],
    payload: bytes,
    seq: int,
    ts: int,
    marker: int,
    variants: dict[tuple[int | None, int | None], tuple[int, bytes] | None] | None,
    source: object,
    now: float,
) -> int: ...
def unprotect(function: int, context: int, packet: bytes) -> bytes: ...
