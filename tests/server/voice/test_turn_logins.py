"""Who gets a TURN login, and for how long (docs/hosting.md «TURN: the relay is not a way
into the house», docs/protocol.md «voice:ice»), on a real `svara serve` with voice and a
TURN secret, over real sockets: only a player seated where another person hears him — not a
watcher, not an account that merely exists, not the practice table against «Гэри» (B-1.4) —
and only for VOICE_TURN_TTL (10 minutes), renewed by `voice:ice` while he sits and refused
once he stands up.

No coturn runs here (tests/hosting/test_turn_relay.py runs one): the logins are read from
the acks, and the SFU is the real one the server supervises.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from app.voice.hub import ASK_AGAIN
from app.voice.settings import turn_credentials

from ..conftest import Server, start_server, stopped
from ..tablekit import Player, fund_house, grant, new_table
from .test_serve_voice import join_voice

SECRET = "north-wind-7"
STUN = {"urls": "stun:127.0.0.1:3478"}
TURN = {"urls": "turn:127.0.0.1:3478?transport=udp"}
TTL = 600  # the default VOICE_TURN_TTL: not set here
TABLE_URL = re.compile(r"/table/(\d+)$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        Path(tmp_path_factory.mktemp("turn-logins")) / "instance",
        "eventlet",
        SVARA_VOICE_ADDRESSES='["127.0.0.1"]',
        SVARA_VOICE_ICE_SERVERS=json.dumps([STUN, TURN]),
        SVARA_VOICE_TURN_SECRET=SECRET,
        SVARA_BOT_THINK="0",
    )
    with stopped(running):
        fund_house(running, 1_000_000)
        yield running


def logins(ack: dict[str, Any]) -> list[dict[str, Any]]:
    """The TURN entries of an ack's ICE servers (STUN needs no login)."""
    assert ack["ok"], ack
    assert STUN in ack["iceServers"]  # direct voice still works without a relay
    return [s for s in ack["iceServers"] if str(s["urls"]).startswith("turn:")]


def valid_login(entry: dict[str, Any], player: str, asked: float) -> None:
    """His own login, made from the secret, expiring within VOICE_TURN_TTL of `asked`."""
    expiry, user = entry["username"].split(":")
    assert user == quote(player, safe="")
    assert asked + TTL - 1 <= int(expiry) <= time.time() + TTL  # 10 minutes, not 12 hours
    expected = turn_credentials(SECRET, player, int(expiry) - int(asked), int(asked))
    assert (entry["username"], entry["credential"]) == expected


def test_a_practice_table_against_a_bot_gives_no_relay(server: Server) -> None:
    """A brand-new account with no money: «Практика» seats him against «Гэри»; nobody
    would hear him, so his voice has no TURN login, at the join nor when renewed."""
    ivan = Player(server, 0, "Иван")
    reply = ivan.browser.post_form("/practice", {}, token_from="/")
    found = TABLE_URL.search(reply.headers.get("Location", ""))
    assert reply.status_code == 302 and found, reply.text
    ivan.table = int(found.group(1))
    ivan.client.close()
    ivan.client = ivan.browser.socket(ivan.table)
    state = ivan.join()["state"]
    assert [s["name"] for s in state["seats"] if s] and ivan.name in str(state["seats"])
    joined = join_voice(ivan.client, ivan.table)
    assert logins(joined) == []
    assert logins(ivan.call("voice:ice")) == []
    ivan.close()


def test_only_a_player_another_person_hears_gets_a_short_login(server: Server) -> None:
    table = new_table(server, "classic", seats=4)
    ivan, maria, ezh = (Player(server, table, n) for n in ("Ваня", "мАрия", "Ёж"))
    stranger = Player(server, table, "Стоян")  # an account that exists, never at the table
    try:
        for player in (ivan, maria):
            grant(server, player.name, 100)  # a seat needs the ante (docs/rules.md)
        for player in (ivan, maria, ezh):
            player.join()
        ivan.sit()

        # Alone at the table: he may start voice, but gets no relay; his page asks again
        # soon (ASK_AGAIN), to get one shortly after someone sits down.
        alone = join_voice(ivan.client, table)
        assert logins(alone) == [] and alone["renew"] == ASK_AGAIN

        # Мария sits and has the table open: each now gets his own 10-minute login.
        maria.sit()
        asked = time.time()
        (login,) = logins(join_voice(ivan.client, table))
        valid_login(login, ivan.name, asked)
        assert logins(join_voice(maria.client, table))[0]["username"].endswith(
            quote(maria.name, safe="")
        )
        renewed = ivan.call("voice:ice")
        assert renewed["renew"] == TTL // 2  # the page asks again at half the lifetime
        valid_login(logins(renewed)[0], ivan.name, asked)

        # A watcher and an account that is not at the table get nothing.
        for outsider in (ezh, stranger):
            for event in ("voice:join", "voice:ice"):
                refused = outsider.call(event)
                assert refused == {
                    "ok": False,
                    "error": "voice is for the players seated at the table",
                }
                assert "iceServers" not in json.dumps(refused)

        # Мария stands up: nobody hears Иван, so his renewal has no relay; she sits
        # again, he gets one again.
        assert maria.call("table:stand") == {"ok": True}
        assert logins(ivan.call("voice:ice")) == []
        maria.sit()
        assert len(logins(ivan.call("voice:ice"))) == 1

        # Standing up ends it: no more logins for him.
        assert ivan.call("table:stand") == {"ok": True}
        refused = ivan.call("voice:ice")
        assert refused["ok"] is False and "iceServers" not in refused
    finally:
        for player in (ivan, maria, ezh, stranger):
            player.close()
