"""`voice:members` (docs/protocol.md «Voice», C-8.3): a seated player who never joined the
table's voice learns who is in it, with their mic and listen toggles, and follows them by the
table's `voice:member` events; a spectator and a queued player are refused and hear nothing
of the voice. A real `svara serve` with its SFU on loopback, in both async modes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ASYNC_MODES, Server, start_server, stopped
from ..tablekit import Player, grant, new_table, seat
from ..voice.test_serve_voice import VOICE_ENV, join_voice, member, unread

REFUSED = {"ok": False, "error": "voice is for the players seated at the table"}


@pytest.fixture(params=ASYNC_MODES)
def voice_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path / "instance", request.param, **VOICE_ENV)
    with stopped(server):
        yield server


def members(player: Player) -> dict[str, Any]:
    """The `voice:members` ack's members, which must be granted."""
    reply = player.call("voice:members")
    assert reply["ok"] is True, reply
    return reply["members"]


def voice_events(player: Player) -> list[tuple[str, Any]]:
    """Every `voice:*` event the player got, read by the test or not."""
    return [(e, d) for e, d in [*player.received, *unread(player.client)] if e.startswith("voice:")]


def test_a_seated_player_sees_the_voice_without_joining_it_and_no_one_else_does(
    voice_server: Server,
) -> None:
    table = new_table(voice_server, "classic", seats=2)
    ann, bob = seat(voice_server, table, 2, 10)  # a seat needs the ante (docs/rules.md)
    sam = Player(voice_server, table)  # a spectator
    sam.join()
    queued = Player(voice_server, table)  # the table is full: he waits for a seat (C-1.2)
    grant(voice_server, queued.name, 10)
    queued.join()
    queued.sit()
    queued.until(lambda s: s["you"]["queue"] == 1 and s["you"]["seat"] is None)
    everyone = (ann, bob, sam, queued)
    try:
        assert members(bob) == {}

        # Ann joins and turns her mic off; bob, who never joined, is told both ways: the
        # members with their toggles when he asks, and each change as it happens.
        assert join_voice(ann.client, table)["ok"]
        assert ann.call("voice:mic", on=False) == {"ok": True}
        assert members(bob) == {ann.name: {"mic": False, "listen": True}}
        member(bob.client, player=ann.name, mic=False, listen=True)
        assert ann.call("voice:listen", on=False) == {"ok": True}
        member(bob.client, player=ann.name, mic=False, listen=False)
        assert members(bob) == {ann.name: {"mic": False, "listen": False}}
        assert members(ann) == members(bob)  # one record for everyone seated

        # Her voice ends: he sees her go, and the members are empty again.
        assert ann.call("voice:leave") == {"ok": True}
        assert member(bob.client, player=ann.name)["gone"] is True
        assert members(bob) == {}

        # Neither the spectator nor the queued player may ask, and neither heard anything of
        # the voice (asked after the last voice event was sent: any leak came before this).
        for outsider in (sam, queued):
            assert outsider.call("voice:members") == REFUSED
            assert outsider.event("error")["event"] == "voice:members"
            assert voice_events(outsider) == []
    finally:
        for p in everyone:
            p.close()
