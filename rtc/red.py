"""RFC 2198 audio redundancy ("audio/red", Opus inside RED): read, unwrap, re-label.

A browser that negotiated RED sends each Opus frame together with copies of the previous
one or two, so a listener recovers a lost packet from the next one without waiting
(docs/voice-protocol.md «Redundancy»). The SFU never builds RED itself: it forwards what the
publisher sent to listeners that negotiated RED too, and gives the others the primary (the
newest) frame alone as plain Opus. Pure functions on bytes, unit-tested.

A RED payload is a list of headers then the blocks in the same order:

    redundant header: F=1 | block PT (7 bits) | timestamp offset (14) | block length (10)
    last header:      F=0 | block PT (7 bits)             (the primary: the rest of it)
"""

from __future__ import annotations

#: Longest redundant header list read (Chrome sends at most 2 redundant blocks).
MAX_BLOCKS = 8


class RedError(ValueError):
    """Bytes that are not a well-formed RED payload."""


def _headers(payload: bytes) -> tuple[list[tuple[int, int]], int, int]:
    """([(pt, length) of each redundant block], the primary's PT, offset of the data)."""
    blocks: list[tuple[int, int]] = []
    at = 0
    while True:
        if at >= len(payload):
            raise RedError("RED headers run past the payload")
        first = payload[at]
        if not first & 0x80:
            primary_pt, at = first & 0x7F, at + 1
            break
        if at + 4 > len(payload) or len(blocks) == MAX_BLOCKS:
            raise RedError("RED header cut short, or too many blocks")
        length = ((payload[at + 2] & 0x03) << 8) | payload[at + 3]
        blocks.append((first & 0x7F, length))
        at += 4
    if at + sum(length for _, length in blocks) > len(payload):
        raise RedError("RED blocks longer than the payload")
    return blocks, primary_pt, at


def primary(payload: bytes) -> bytes:
    """The newest frame of a RED payload: what a listener without RED is sent."""
    blocks, _, at = _headers(payload)
    return payload[at + sum(length for _, length in blocks) :]


def relabel(payload: bytes, opus_pt: int) -> bytes:
    """The payload with every block's PT set to `opus_pt`: the listener's own number for
    Opus, which may differ from the publisher's (each side numbers its codecs)."""
    blocks, primary_pt, _ = _headers(payload)
    if primary_pt == opus_pt and all(pt == opus_pt for pt, _ in blocks):
        return payload
    out = bytearray(payload)
    for i in range(len(blocks)):
        out[4 * i] = 0x80 | opus_pt
    out[4 * len(blocks)] = opus_pt
    return bytes(out)
