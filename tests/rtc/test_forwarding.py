"""Real SFU process, Python aiortc participants over loopback (issue 7 tests)."""

from __future__ import annotations

from voicetable import TABLE, SfuProcess, Table, assert_silent, run


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
