"""An overloaded SFU says so: a publisher's received packets piling up before its
forwarding task reads them (the event loop is behind) is logged, with who and where."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

import pytest
from aiortc import RTCPeerConnection
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from rtc.ice import IceConfig
from rtc.passthrough import OpusPacket
from rtc.room import Room
from rtc.sfu import BACKLOG, Peer, Sfu


class Backlogged(MediaStreamTrack):
    """A mic track whose queue already holds `waiting` packets, then ends."""

    kind = "audio"

    def __init__(self, waiting: int) -> None:
        super().__init__()
        self._queue: asyncio.Queue[OpusPacket | None] = asyncio.Queue()
        for seq in range(waiting):
            self._queue.put_nowait(OpusPacket(b"\xfc", seq * 960, seq))
        self._queue.put_nowait(None)

    async def recv(self) -> OpusPacket:  # type: ignore[override]
        packet = await self._queue.get()
        if packet is None:
            raise MediaStreamError
        return packet


def forward(waiting: int) -> None:
    async def scenario() -> None:
        sfu = Sfu(IceConfig(), lambda event: None)
        sfu.rooms["7"] = Room("7")
        sfu.join("7", "Ёж")
        peer = Peer("7", "Ёж", pc=cast(RTCPeerConnection, None))  # forwarding needs no pc
        await sfu._forward(peer, Backlogged(waiting))

    asyncio.run(scenario())


def test_a_receive_backlog_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        forward(BACKLOG * 3)
    lines = [r.getMessage() for r in caplog.records if "overloaded" in r.getMessage()]
    assert len(lines) == 1  # once per interval, not once per packet
    assert "'Ёж' at table 7" in lines[0]


def test_keeping_up_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rtc"):
        forward(BACKLOG)
    assert not [r for r in caplog.records if "overloaded" in r.getMessage()]
