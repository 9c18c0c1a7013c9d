"""RFC 2198 payloads as the SFU reads them (rtc/red.py) and which bytes each listener gets
(rtc/passthrough.py `OpusPacket.outgoing`): RED as it came where negotiated, its primary
otherwise."""

from __future__ import annotations

import collections

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtc import red
from rtc.passthrough import Counters, OpusPacket, red_variants

frames = st.binary(min_size=1, max_size=120)
types = st.integers(min_value=96, max_value=127)


def build(redundant: list[tuple[int, int, bytes]], primary_pt: int, primary: bytes) -> bytes:
    """A RED payload: (pt, timestamp offset, frame) of each redundant block, then the primary."""
    head = b""
    for pt, offset, frame in redundant:
        head += bytes(
            [0x80 | pt, offset >> 6, ((offset & 0x3F) << 2) | len(frame) >> 8, len(frame) & 0xFF]
        )
    return head + bytes([primary_pt]) + b"".join(f for _, _, f in redundant) + primary


blocks = st.lists(st.tuples(types, st.integers(0, 2**14 - 1), frames), max_size=2)


@given(blocks, types, frames)
def test_the_primary_is_the_newest_frame(redundant, primary_pt, primary) -> None:
    assert red.primary(build(redundant, primary_pt, primary)) == primary


@given(blocks, types, frames, types)
def test_relabelling_changes_the_block_types_only(redundant, primary_pt, primary, opus) -> None:
    payload = build(redundant, primary_pt, primary)
    out = red.relabel(payload, opus)
    assert out == build([(opus, o, f) for _, o, f in redundant], opus, primary)
    assert red.primary(out) == primary


@pytest.mark.parametrize(
    "payload",
    [b"", b"\x80\x00", bytes([0x80 | 111, 0, 0, 50, 111]) + b"short", bytes([0x80 | 111]) * 40],
)
def test_a_malformed_payload_is_refused(payload: bytes) -> None:
    with pytest.raises(red.RedError):
        red.primary(payload)


def test_each_listener_gets_what_he_negotiated() -> None:
    payload = build([(111, 960, b"old")], 111, b"new")
    came = OpusPacket(payload, 0, 1, red=True)
    assert came.outgoing(111, 63) == (63, payload)
    assert came.outgoing(109, 63) == (63, build([(109, 960, b"old")], 109, b"new"))
    assert came.outgoing(111, None) == (111, b"new")
    assert OpusPacket(b"plain", 0, 2).outgoing(111, 63) == (111, b"plain")
    assert OpusPacket(b"\x80", 0, 3, red=True).outgoing(111, None) is None


def test_each_kind_of_listener_is_worked_out_once_per_packet() -> None:
    """Seven listeners of one packet, of two kinds: the payload is read once per kind, each
    listener counted; a malformed one is nothing for all; one without Opus gets nothing."""
    payload = build([(111, 960, b"old")], 111, b"new")
    came = OpusPacket(payload, 0, 1, red=True)
    kinds = collections.Counter({(111, None): 3, (109, 63): 4, (None, None): 1})
    sent, unwrapped = Counters.red_sent, Counters.red_unwrapped
    assert red_variants(came, kinds) == {
        (111, None): (111, b"new"),
        (109, 63): (63, build([(109, 960, b"old")], 109, b"new")),
    }
    assert (Counters.red_sent - sent, Counters.red_unwrapped - unwrapped) == (4, 3)
    broken = OpusPacket(b"\x80", 0, 3, red=True)
    assert red_variants(broken, kinds) == {(111, None): None, (109, 63): None}
