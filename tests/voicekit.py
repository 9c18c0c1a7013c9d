"""Python stand-ins for the web process and the browser, for the tests and the benchmark
(benchmarks/bench_voice.py imports them from here: rtc/ ships the SFU, not a test client).

`SfuConnection` speaks the SFU's JSON protocol over its unix socket (asyncio).
`Participant` behaves like static/js/voice.js: one peer connection offering a mic (a
generated tone) plus receive-only slots, answered by the SFU; it counts, per slot,
the frames and the audio energy that arrive.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fractions
import itertools
import json
import math
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.codecs.opus import OpusEncoder
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from av import AudioFrame

from rtc.passthrough import OpusPacket

SAMPLE_RATE = 48000
FRAME_SAMPLES = 960  # 20 ms
#: Distinct payloads a slot remembers (enough to compare with a 50-frame replayed tone).
MAX_PAYLOADS = 100
T = TypeVar("T")


def free_udp_ports(count: int) -> str:
    """A `VOICE_PORTS` range of `count` consecutive UDP ports free on loopback just now (no
    fixed ports: other runs on this machine bind theirs), as "low-high"."""
    while True:
        with contextlib.ExitStack() as held:
            first = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
            first.bind(("127.0.0.1", 0))
            low = first.getsockname()[1]
            if low + count - 1 > 65535:
                continue
            try:
                for port in range(low + 1, low + count):
                    held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM)).bind(
                        ("127.0.0.1", port)
                    )
            except OSError:
                continue  # one of them is taken: try another range
        return f"{low}-{low + count - 1}"


class SfuError(RuntimeError):
    """The SFU answered a request with ok: false."""


class SfuConnection:
    """An asyncio client of the SFU protocol (requests → replies, plus an event queue)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, path: Path) -> SfuConnection:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 20)
        return cls(reader, writer)

    async def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply; SfuError if it failed."""
        request_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._writer.write(json.dumps({"id": request_id, "op": op, **fields}).encode() + b"\n")
        reply = await asyncio.wait_for(future, timeout=30)
        if not reply["ok"]:
            raise SfuError(reply["error"])
        return reply

    async def next_event(
        self, match: Callable[[dict[str, Any]], bool], timeout: float = 10
    ) -> dict[str, Any]:
        """The next event satisfying `match` (earlier non-matching events are dropped)."""
        async with asyncio.timeout(timeout):
            while True:
                event = await self.events.get()
                if match(event):
                    return event

    async def _read(self) -> None:
        while line := await self._reader.readline():
            message = json.loads(line)
            if "event" in message:
                self.events.put_nowait(message)
            elif (future := self._pending.pop(message["id"], None)) is not None:
                future.set_result(message)

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class _Paced(MediaStreamTrack):
    """A 20 ms-paced audio source (like a microphone)."""

    kind = "audio"

    def __init__(self) -> None:
        super().__init__()
        self._start: float | None = None
        self._pts = 0

    async def _next_pts(self) -> int:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        else:
            self._pts += FRAME_SAMPLES
            await asyncio.sleep(self._start + self._pts / SAMPLE_RATE - time.monotonic())
        return self._pts


def _tone(hz: float, amplitude: float, samples: int) -> bytes:
    peak = int(32767 * amplitude)
    return array.array(
        "h", (int(peak * math.sin(2 * math.pi * hz * i / SAMPLE_RATE)) for i in range(samples))
    ).tobytes()


class ToneTrack(_Paced):
    """A sine tone as raw frames: aiortc encodes it (and sets the RTP audio level)."""

    def __init__(self, hz: float = 440.0, amplitude: float = 0.3) -> None:
        super().__init__()
        period = SAMPLE_RATE  # one second of tone, cut into frames
        self._pcm = _tone(hz, amplitude, period)
        self._frames = period // FRAME_SAMPLES

    async def recv(self) -> AudioFrame:
        pts = await self._next_pts()
        offset = (pts // FRAME_SAMPLES % self._frames) * FRAME_SAMPLES * 2
        frame = AudioFrame(format="s16", layout="mono", samples=FRAME_SAMPLES)
        frame.planes[0].update(self._pcm[offset : offset + FRAME_SAMPLES * 2])
        frame.pts = pts
        frame.sample_rate = SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


class EncodedToneTrack(_Paced):
    """One second of tone encoded once and replayed: a mic that costs the client no CPU."""

    def __init__(self, hz: float = 440.0) -> None:
        super().__init__()
        tone = ToneTrack(hz)
        encoder = OpusEncoder()
        self.payloads: list[bytes] = []
        for i in range(SAMPLE_RATE // FRAME_SAMPLES):
            frame = AudioFrame(format="s16", layout="mono", samples=FRAME_SAMPLES)
            frame.planes[0].update(tone._pcm[i * FRAME_SAMPLES * 2 : (i + 1) * FRAME_SAMPLES * 2])
            frame.pts, frame.sample_rate = i * FRAME_SAMPLES, SAMPLE_RATE
            frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
            payloads, _ = encoder.encode(frame)
            self.payloads += payloads
        tone.stop()

    # Not typed (next line): aiortc types recv as Frame | Packet; this track gives packets.
    async def recv(self) -> OpusPacket:  # type: ignore[override]
        pts = await self._next_pts()
        return OpusPacket(self.payloads[pts // FRAME_SAMPLES % len(self.payloads)], pts)


@dataclass
class SlotCounter:
    """What one receive slot got: frames (packets, with pass-through) and decoded energy;
    with pass-through also the distinct Opus payloads seen (bounded)."""

    frames: int = 0
    energy: float = 0.0
    payloads: set[bytes] = field(default_factory=set)


class Participant:
    """A browser-like voice participant: mic + `slots` receive-only transceivers."""

    def __init__(self, slots: int, mic: MediaStreamTrack | None = None) -> None:
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        self.mic_track = mic if mic is not None else ToneTrack()
        self.mic_sender: RTCRtpSender = self.pc.addTransceiver(
            self.mic_track, direction="sendonly"
        ).sender
        for _ in range(slots):
            self.pc.addTransceiver("audio", direction="recvonly")
        self.received: dict[str, SlotCounter] = {}
        self._readers: list[asyncio.Task[None]] = []
        self._arrival = asyncio.Condition()

    async def offer(self) -> str:
        """The offer to send through signalling (candidates included, no trickle)."""
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return self.pc.localDescription.sdp

    async def accept(self, sdp: str) -> None:
        """Apply the SFU's answer and start counting what each slot receives."""
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp, "answer"))
        for transceiver in self.pc.getTransceivers():
            if transceiver.direction == "recvonly":
                assert transceiver.mid is not None  # negotiated by the answer just applied
                counter = self.received.setdefault(transceiver.mid, SlotCounter())
                task = asyncio.create_task(self._count(transceiver.receiver.track, counter))
                self._readers.append(task)

    async def wait_until(self, predicate: Callable[[], bool], timeout: float = 15) -> None:
        """Wait (bounded) until `predicate` holds, re-checked at each arriving frame."""
        async with asyncio.timeout(timeout), self._arrival:
            await self._arrival.wait_for(predicate)

    def set_mic(self, on: bool) -> None:
        """Like the browser: replaceTrack(null) sends no packets at all."""
        self.mic_sender.replaceTrack(self.mic_track if on else None)

    async def _count(self, track: MediaStreamTrack, counter: SlotCounter) -> None:
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            counter.frames += 1
            if isinstance(frame, OpusPacket):
                if len(counter.payloads) < MAX_PAYLOADS:
                    counter.payloads.add(frame.data)
            else:
                audio = cast(AudioFrame, frame)  # a decoded track gives audio frames
                samples = array.array("h", bytes(audio.planes[0]))[::8]
                counter.energy += sum(s * s for s in samples) / max(len(samples), 1) / 32768**2
            async with self._arrival:
                self._arrival.notify_all()

    async def close(self) -> None:
        """Close the peer connection and stop counting."""
        await self.pc.close()
        self.mic_track.stop()
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)


class PeerLoop:
    """Participants living on one asyncio loop of their own thread, for tests whose own
    calls block (Socket.IO clients): their connections run on while the test waits."""

    def __init__(self, timeout: float = 20) -> None:
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.made: list[Participant] = []

    def run(self, work: Awaitable[T]) -> T:
        """Run `work` on the loop and wait (bounded) for its result."""

        async def wrapped() -> T:
            return await work

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(self.timeout)

    def participant(self, slots: int) -> Participant:
        """A new participant, made on the loop (aiortc binds its objects to it)."""

        async def make() -> Participant:
            return Participant(slots)

        made = self.run(make())
        self.made.append(made)
        return made

    def close(self) -> None:
        """Close every participant, then end the loop and its thread."""
        try:
            for participant in self.made:
                with contextlib.suppress(Exception):  # already closed, or its SFU is gone
                    self.run(participant.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(self.timeout)
            self.loop.close()
