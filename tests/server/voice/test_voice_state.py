"""Each seat's voice in the versioned `table:state` (docs/protocol.md «table:state», «Voice»,
C-8.3): a toggle is one new version that every seated viewer sees; spectators and queued
players see no voice at all; a reconnect keeps the toggles; a freed seat and a closed table
end the voice; and a player is in the voice only once his peer is connected, so a voice
that never connected (no free port) is never seen by the table.

A real `svara serve` with its SFU on loopback; the browsers' peers are aiortc participants
(tests/voicekit.py) on a loop of their own, the signalling real Socket.IO clients.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.voice.client import SfuClient
from app.voice.settings import socket_path
from rtc.ice import offer_addresses
from tests.voicekit import Participant, PeerLoop, free_udp_ports

from ..conftest import ASYNC_MODES, WAIT, Server, start_server, stopped, unique_name
from ..tablekit import Player, grant, new_table
from ..voice.test_serve_voice import VOICE_ENV, admin, join_voice, rooms

REFUSED = {"ok": False, "error": "voice is for the players seated at the table"}
#: A seat's voice for a player who is not in the voice and kept no toggle.
NO_VOICE = {"in": False, "mic": True, "listen": True}


@pytest.fixture(scope="module", params=ASYNC_MODES)
def voice_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("voice-state"), request.param, **VOICE_ENV)
    with stopped(server):
        yield server


@pytest.fixture
def peers() -> Iterator[PeerLoop]:
    """The test's aiortc peers, gathering on loopback only (the SFU offers 127.0.0.1)."""
    offer_addresses(["127.0.0.1"])
    loop = PeerLoop(WAIT)
    try:
        yield loop
    finally:
        loop.close()
        offer_addresses(None)


def seated(server: Server, table: int, *names: str) -> list[Player]:
    """Players with these names' prefixes, joined and seated in order."""
    players = [Player(server, table, unique_name(name)) for name in names]
    for p in players:
        grant(server, p.name, 10)  # a seat needs the ante (docs/rules.md)
        p.join()
        p.sit()
    for p in players:
        p.until(lambda s: sum(1 for x in s["seats"] if x) == len(players))
    return players


def voice_of(state: dict[str, Any], name: str) -> dict[str, bool] | None:
    """The voice of `name`'s seat in `state` (KeyError: he has no seat)."""
    seat = next(s for s in state["seats"] if s and s["name"] == name)
    return seat["voice"]


def connect(peers: PeerLoop, player: Player) -> Participant:
    """The browser's path: voice:join, an offer with a receive slot per other seat, the
    SFU's answer applied."""
    joined = join_voice(player.client, player.table)
    assert joined["ok"], joined
    participant = peers.participant(joined["slots"])
    answer = player.call("voice:offer", sdp=peers.run(participant.offer()))
    assert answer["ok"], answer
    peers.run(participant.accept(answer["sdp"]))
    return participant


def next_state(player: Player) -> dict[str, Any]:
    """The first state newer than the one the player has now."""
    seen = player.state["version"]
    return player.until(lambda s: s if s["version"] > seen else None)


def states(received: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Every table state a client received (its `table:join` ack's too)."""
    found = [data for name, data in received if name == "table:state"]
    return found + [data["state"] for name, data in received if name == "ack:table:join"]


def voice_events(received: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [(name, data) for name, data in received if name.startswith("voice:")]


def ever_in(received: list[tuple[str, Any]]) -> set[str]:
    """Whoever any state a client received showed in the voice."""
    return {
        seat["name"]
        for state in states(received)
        for seat in state["seats"]
        if seat and seat["voice"] and seat["voice"]["in"]
    }


def test_a_toggle_is_one_change_of_the_table_and_only_the_seated_see_the_voice(
    voice_server: Server, peers: PeerLoop
) -> None:
    table = new_table(voice_server, "classic", seats=2)
    maria, yozh = seated(voice_server, table, "Мария", "Ёж")
    sam = Player(voice_server, table, unique_name("Sam"))  # a spectator
    sam.join()
    ivan = Player(voice_server, table, unique_name("Иван"))  # the table is full: he waits
    grant(voice_server, ivan.name, 10)
    ivan.join()
    ivan.sit()
    ivan.until(lambda s: s["you"]["queue"] == 1)
    try:
        yozh.until(lambda s: s["version"] >= ivan.state["version"])  # he read every change
        assert voice_of(yozh.state, maria.name) == NO_VOICE

        # Joined but not connected: nothing shows but the toggle she flips, one version on.
        assert join_voice(maria.client, table)["ok"]
        before = yozh.state["version"]
        assert maria.call("voice:mic", on=False) == {"ok": True}
        after = next_state(yozh)
        assert after["version"] == before + 1
        assert voice_of(after, maria.name) == {"in": False, "mic": False, "listen": True}

        # Her peer connects: now the table sees her in the voice, she too.
        connect(peers, maria)
        for viewer in (maria, yozh):
            viewer.until(lambda s: voice_of(s, maria.name)["in"])  # type: ignore[index]
        assert voice_of(yozh.state, maria.name) == {"in": True, "mic": False, "listen": True}

        # Each toggle is one new version that every seated viewer gets.
        for toggle, on in (("voice:mic", True), ("voice:listen", False)):
            before = yozh.state["version"]
            assert maria.call(toggle, on=on) == {"ok": True}
            for viewer in (maria, yozh):
                state = viewer.until(lambda s, v=before: s if s["version"] > v else None)
                assert state["version"] == before + 1
        mark = {"in": True, "mic": True, "listen": False}
        assert voice_of(maria.state, maria.name) == voice_of(yozh.state, maria.name) == mark
        assert voice_of(maria.state, yozh.name) == NO_VOICE

        # The spectator and the queued player got those versions, with no voice in them, and
        # may not use the voice (asked after the last change: any leak came before this).
        for outsider in (sam, ivan):
            outsider.until(lambda s, v=yozh.state["version"]: s["version"] >= v)
            assert outsider.call("voice:join") == REFUSED
            assert outsider.event("error")["event"] == "voice:join"
            outsider.drain()
            seen = [
                seat["voice"] for st in states(outsider.received) for seat in st["seats"] if seat
            ]
            assert seen and all(voice is None for voice in seen)
            assert voice_events(outsider.received) == []
    finally:
        for p in (maria, yozh, sam, ivan):
            p.close()


def test_a_reconnect_keeps_the_toggles(voice_server: Server, peers: PeerLoop) -> None:
    table = new_table(voice_server, "classic", seats=3)
    maria, yozh = seated(voice_server, table, "Мария", "Ёж")
    try:
        connect(peers, maria)
        assert maria.call("voice:listen", on=False) == {"ok": True}
        mark = {"in": True, "mic": True, "listen": False}
        yozh.until(lambda s: voice_of(s, maria.name) == mark)

        # A new socket (a reload, a lost line): the state it is sent has her voice as it was,
        # and her page's voice:join is told the toggles the server kept.
        assert voice_of(maria.reconnect(), maria.name) == mark
        again = join_voice(maria.client, table)
        assert (again["mic"], again["listen"]) == (True, False)
        assert voice_of(yozh.state, maria.name) == mark
    finally:
        maria.close()
        yozh.close()


def test_a_freed_seat_and_a_closed_table_end_the_voice(
    voice_server: Server, peers: PeerLoop
) -> None:
    table = new_table(voice_server, "classic", seats=3)
    maria, yozh = seated(voice_server, table, "Мария", "Ёж")
    sfu = SfuClient.connect(socket_path(voice_server.instance), lambda event: None)
    try:
        for player in (maria, yozh):
            connect(peers, player)
        assert yozh.call("voice:mic", on=False) == {"ok": True}
        maria.until(lambda s: voice_of(s, yozh.name) == {"in": True, "mic": False, "listen": True})

        # He stands up: his seat and his voice go in the same change; seated again, he
        # starts with no voice and none of his old toggles.
        assert yozh.call("table:stand") == {"ok": True}
        maria.until(lambda s: all(seat is None or seat["name"] != yozh.name for seat in s["seats"]))
        yozh.sit()
        maria.until(lambda s: any(seat and seat["name"] == yozh.name for seat in s["seats"]))
        assert voice_of(maria.state, yozh.name) == NO_VOICE
        assert voice_of(maria.state, maria.name)["in"] is True  # type: ignore[index]
        assert maria.call("voice:mic", on=False) == {"ok": True}  # she is still in it
        assert yozh.call("voice:mic", on=False)["ok"] is False  # he has to join again

        # The table closes: its voice room is gone from the SFU (the server's other tables
        # keep theirs).
        before = rooms(sfu)
        admin(voice_server, "table", "close", str(table))
        assert maria.event("table:closed")["table"] == table
        assert rooms(sfu) == before - 1
    finally:
        sfu.close()
        maria.close()
        yozh.close()


@pytest.fixture
def one_port(tmp_path: Path) -> Iterator[Server]:
    """A server whose SFU has one UDP port: room for one peer on its one address."""
    server = start_server(
        tmp_path / "instance", "eventlet", SVARA_VOICE_PORTS=free_udp_ports(1), **VOICE_ENV
    )
    with stopped(server):
        yield server


def test_a_voice_that_never_connected_is_never_seen_by_the_table(
    one_port: Server, peers: PeerLoop
) -> None:
    """With the port range full the next player's offer is refused: the others never see
    him join (nor leave) the voice, though his voice:join was accepted."""
    table = new_table(one_port, "classic", seats=3)
    maria, yozh = seated(one_port, table, "Мария", "Ёж")
    try:
        connect(peers, maria)  # the one port is hers
        yozh.until(lambda s: voice_of(s, maria.name)["in"])  # type: ignore[index]
        assert join_voice(yozh.client, table)["ok"]
        participant = peers.participant(1)
        refused = yozh.call("voice:offer", sdp=peers.run(participant.offer()))
        assert refused["ok"] is False and "widen VOICE_PORTS" in refused["error"], refused
        assert yozh.call("voice:leave") == {"ok": True}  # what his page does then

        # A change after all that: everything sent before it has arrived.
        assert maria.call("voice:mic", on=False) == {"ok": True}
        for viewer in (maria, yozh):
            viewer.until(lambda s: voice_of(s, maria.name)["mic"] is False)  # type: ignore[index]
            viewer.drain()
            assert ever_in(viewer.received) == {maria.name}
            told = json.dumps(voice_events(viewer.received), ensure_ascii=False)
            assert yozh.name not in told, told
            assert voice_of(viewer.state, yozh.name) == NO_VOICE
    finally:
        maria.close()
        yozh.close()
