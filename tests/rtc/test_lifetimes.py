"""Lifetimes of peers in the real SFU: leave, stand up, close, reconnect, takeover, leaks."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest
from voicetable import PORTS, TABLE, SfuProcess, Table, assert_silent, run

from tests.voicekit import Participant, SfuConnection, SfuError


async def stats_when(
    conn: SfuConnection, done: Callable[[dict[str, int]], bool], timeout: float = 20
) -> dict[str, int]:
    """Ask for stats until `done` says the SFU got there (for changes this connection is
    not told about, e.g. another connection's tables closing); bounded."""
    async with asyncio.timeout(timeout):
        while not done(stats := await conn.request("stats")):
            pass
    return stats


def test_leave_and_close_leave_no_tasks_threads_or_sockets(sfu: SfuProcess) -> None:
    """Stand-up (leave) frees A's slots at the others; closing the table frees the rest."""

    async def scenario(table: Table) -> None:
        baseline = await table.conn.request("stats")
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        await table.hears("B", "A")
        busy = await table.conn.request("stats")
        assert busy["peers"] == 3 and busy["fds"] > baseline["fds"]
        assert busy["forwarded"] >= 25  # at least what B heard from A
        assert busy["threads"] == baseline["threads"]  # pass-through: no decoder threads left

        await table.conn.request("leave", table=TABLE, player="A")
        event = await table.conn.next_event(lambda e: e["event"] == "slots" and e["player"] == "B")
        assert "A" not in [s["player"] for s in event["slots"]]
        assert (await table.conn.request("stats"))["peers"] == 2
        await table.hears("B", "C")

        await table.conn.request("close", table=TABLE)  # replies once all is torn down
        stats = await table.conn.request("stats")
        assert stats["rooms"] == 0 and stats["peers"] == 0
        assert stats["tasks"] == baseline["tasks"]
        assert stats["threads"] == baseline["threads"]
        assert stats["fds"] == baseline["fds"]

    run(sfu, 3, scenario)


def test_reconnect_replaces_the_peer_and_keeps_the_toggles(sfu: SfuProcess) -> None:
    """A reload (or a takeover by a second login) re-offers: one peer, toggles kept."""

    async def scenario(table: Table) -> None:
        for name in "ABC":
            await table.sit(name)
        await table.settle_slots()
        await table.conn.request("listen", table=TABLE, player="B", on=False)
        old = table.people.pop("B")
        fresh = Participant(slots=table.seats - 1)
        reply = await table.conn.request("offer", table=TABLE, player="B", sdp=await fresh.offer())
        await fresh.accept(reply["sdp"])
        table.people["B"] = fresh
        await old.close()
        await table.settle_slots()
        assert (await table.conn.request("stats"))["peers"] == 3
        await table.hears("A", "B")
        await table.hears("C", "B")
        # listen off survived the reconnect: B's new peer hears nobody
        await assert_silent(table, "B", "A", witness=("C", "A"))
        await table.conn.request("listen", table=TABLE, player="B", on=True)
        await table.hears("B", "A")

    run(sfu, 3, scenario)


def test_only_joined_players_may_offer(sfu: SfuProcess) -> None:
    """A spectator (never joined by the web process) gets no peer at all."""

    async def scenario(table: Table) -> None:
        await table.sit("A")
        spectator = Participant(slots=2)
        try:
            with pytest.raises(SfuError, match="not in the voice"):
                await table.conn.request(
                    "offer", table=TABLE, player="S", sdp=await spectator.offer()
                )
            with pytest.raises(SfuError, match="no voice room"):
                await table.conn.request(
                    "offer", table="elsewhere", player="A", sdp=await spectator.offer()
                )
        finally:
            await spectator.close()
        assert (await table.conn.request("stats"))["peers"] == 1

    run(sfu, 3, scenario)


def test_bad_requests_get_errors_not_crashes(sfu: SfuProcess) -> None:
    """Malformed requests are answered with ok: false; the SFU keeps serving."""

    async def scenario(table: Table) -> None:
        for op, fields, error in [
            ("dance", {}, "unknown op"),
            ("join", {"table": TABLE}, "'player' must be a str"),
            ("mic", {"table": TABLE, "player": "A", "on": 1}, "'on' must be a bool"),
            ("offer", {"table": TABLE, "player": "A", "sdp": "v=0"}, "no voice room"),
        ]:
            with pytest.raises(SfuError, match=error):
                await table.conn.request(op, **fields)
        await table.conn.request("join", table=TABLE, player="A")
        with pytest.raises(SfuError, match="offer"):
            await table.conn.request("offer", table=TABLE, player="A", sdp="nonsense")
        greedy = Participant(slots=16)
        with pytest.raises(SfuError, match="16 receive slots, at most 15"):
            await table.conn.request("offer", table=TABLE, player="A", sdp=await greedy.offer())
        await greedy.close()
        assert (await table.conn.request("stats"))["rooms"] == 1

    run(sfu, 3, scenario)


def test_closing_the_connection_closes_its_tables(sfu: SfuProcess) -> None:
    """If the web process's connection goes, the tables it owned are torn down."""

    async def scenario(table: Table) -> None:
        watcher = await SfuConnection.open(sfu.socket)
        await table.sit("A")
        await table.sit("B")
        await table.conn.close()
        stats = await stats_when(watcher, lambda s: s["rooms"] == 0)
        assert stats["peers"] == 0
        await watcher.close()
        table.conn = await SfuConnection.open(sfu.socket)

    run(sfu, 3, scenario)


def test_levels_report_who_speaks(sfu: SfuProcess) -> None:
    """The RTP audio-level extension gives speaking levels; mic off reads as 0."""

    async def scenario(table: Table) -> None:
        await table.sit("A")
        await table.sit("B")
        event = await table.conn.next_event(
            lambda e: e["event"] == "levels" and e["levels"].get("A", 0) > 0.05
        )
        assert event["table"] == TABLE
        await table.conn.request("mic", table=TABLE, player="A", on=False)
        await table.conn.next_event(lambda e: e["event"] == "levels" and e["levels"].get("A") == 0)

    run(sfu, 2, scenario)


def test_candidates_use_the_port_range(sfu: SfuProcess) -> None:
    """Every host candidate the SFU offers lies on loopback, inside the configured range."""

    async def scenario(table: Table) -> None:
        await table.conn.request("join", table=TABLE, player="A")
        ports = []
        for _ in range(3):
            participant = Participant(slots=2)
            reply = await table.conn.request(
                "offer", table=TABLE, player="A", sdp=await participant.offer()
            )
            candidates = re.findall(r"a=candidate:\S+ 1 udp \d+ (\S+) (\d+) typ host", reply["sdp"])
            assert candidates and {host for host, _ in candidates} == {"127.0.0.1"}
            ports += [int(port) for _, port in candidates]
            await participant.close()
        assert all(port in PORTS for port in ports)

    run(sfu, 3, scenario)


def test_a_browser_hanging_up_drops_its_peer(sfu: SfuProcess) -> None:
    """A closed tab ends DTLS: the SFU drops the peer (the member stays for a reload)."""

    async def scenario(table: Table) -> None:
        await table.sit("A")
        await table.sit("B")
        await table.settle_slots()
        await table.hears("B", "A")  # connected: closing now ends DTLS properly
        await table.people.pop("A").close()
        await table.conn.next_event(
            lambda e: e["event"] == "peer" and e["player"] == "A" and e["state"] == "closed"
        )
        stats = await table.conn.request("stats")
        assert stats["peers"] == 1 and stats["rooms"] == 1
        await table.sit("A")  # the reload
        await table.settle_slots()
        await table.hears("B", "A")

    run(sfu, 2, scenario)


def test_racing_offers_of_one_player_leave_one_peer(sfu: SfuProcess) -> None:
    """Two tabs (or a double click) offering at once: applied in order, the last one wins,
    and closing the table leaves nothing behind."""

    async def scenario(table: Table) -> None:
        baseline = await table.conn.request("stats")
        await table.conn.request("join", table=TABLE, player="A")
        first, second = Participant(slots=2), Participant(slots=2)
        offers = [await first.offer(), await second.offer()]
        replies = await asyncio.gather(
            *(table.conn.request("offer", table=TABLE, player="A", sdp=o) for o in offers)
        )
        assert all(r["sdp"].startswith("v=0") for r in replies)
        assert (await table.conn.request("stats"))["peers"] == 1
        for participant in (first, second):
            await participant.close()
        # the replaced peer was closed while its ICE was still checking: aiortc's connect
        # task outlives pc.close(), and the SFU's close waits for it before replying
        await table.conn.request("close", table=TABLE)
        stats = await table.conn.request("stats")
        assert (stats["rooms"], stats["peers"]) == (0, 0)
        assert (stats["tasks"], stats["fds"]) == (baseline["tasks"], baseline["fds"])

    run(sfu, 3, scenario)
