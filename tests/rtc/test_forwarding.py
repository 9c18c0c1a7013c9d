"""Real SFU process, Python aiortc participants over loopback (C-8.3, docs/architecture.md
«The SFU»)."""

from __future__ import annotations

import asyncio

from voicetable import TABLE, SfuProcess, Table, assert_silent, run

from rtc import passthrough
from tests.voicekit import EncodedToneTrack, Participant, SfuConnection


def test_each_player_hears_the_others(sfu: SfuProcess) -> None:
    """A's audio reaches B and C (frames and decoded energy grow), and every other pair."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        for listener in "ABC":
            for speaker in "ABC":
                if listener != speaker:
                    await table.hears(listener, speaker)
                    assert table.energy(listener, speaker) > 0

    run(sfu, 3, scenario)


def test_mic_off_stops_that_player_only(sfu: SfuProcess) -> None:
    """Mic off on A (server side alone, A keeps sending): B hears C but not A; mic on again."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        await table.hears("B", "A")
        await table.conn.request("mic", table=TABLE, player="A", on=False)
        await assert_silent(table, "B", "A", witness=("B", "C"))
        await assert_silent(table, "C", "A", witness=("C", "B"))
        await table.conn.request("mic", table=TABLE, player="A", on=True)
        await table.hears("B", "A")

    run(sfu, 3, scenario)


def test_browser_mic_off_sends_nothing(sfu: SfuProcess) -> None:
    """The browser's half of mic off, replaceTrack(null), alone: A's packets stop at B."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        await table.hears("B", "A")
        table.people["A"].set_mic(False)
        await assert_silent(table, "B", "A", witness=("B", "C"))
        table.people["A"].set_mic(True)
        await table.hears("B", "A")

    run(sfu, 3, scenario)


def test_listen_off_stops_everything_at_that_player(sfu: SfuProcess) -> None:
    """Listen off on B: B gets nothing, A and C still hear each other; listen on again."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        await table.hears("B", "A")
        await table.conn.request("listen", table=TABLE, player="B", on=False)
        await assert_silent(table, "B", "A", witness=("C", "A"))
        await assert_silent(table, "B", "C", witness=("A", "C"))
        await table.conn.request("listen", table=TABLE, player="B", on=True)
        await table.hears("B", "A")
        await table.hears("B", "C")

    run(sfu, 3, scenario)


def test_opus_is_forwarded_byte_for_byte(sfu: SfuProcess) -> None:
    """The SFU forwards the very Opus frames A sent (no decode, no re-encode): every
    payload B receives from A is one of the frames A's mic replays."""

    async def scenario() -> None:
        conn = await SfuConnection.open(sfu.socket)
        mics = {"A": EncodedToneTrack(440), "B": EncodedToneTrack(660)}
        people = {}
        for name, mic in mics.items():
            await conn.request("join", table=TABLE, player=name)
            people[name] = Participant(slots=1, mic=mic)
            reply = await conn.request(
                "offer", table=TABLE, player=name, sdp=await people[name].offer()
            )
            await people[name].accept(reply["sdp"])
        slot = next(iter(people["B"].received.values()))
        await people["B"].wait_until(lambda: slot.frames >= 60)
        assert len(slot.payloads) >= 10  # many different frames of the replayed second
        assert slot.payloads <= set(mics["A"].payloads)
        assert not slot.payloads & set(mics["B"].payloads)
        for participant in people.values():
            await participant.close()
        await conn.close()

    with passthrough.installed():
        asyncio.run(scenario())
