"""What the server puts on the wire (docs/performance.md, «Sending the states»): `table:state` built
once per version for what every viewer is told alike (app/tables/view.py `Told`), and text-only
Socket.IO packets encoded by orjson (app/wire.py). Neither may change what a client receives or
learns, and a client that sends bytes anyway gets a clear refusal and changes nothing."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from socketio import packet

from app.wire import WirePacket

from ..conftest import Server, unique_name
from ..tablekit import Player, choose, new_table, seat, whose_turn

PROTOCOL = Path(__file__).parents[3] / "docs" / "protocol.md"
OWN = ("you", "hand", "fair", "news")  # the parts of a viewer's state that are his own
NO_VOICE = {"in": False, "mic": True, "listen": True}  # a seat's voice with nobody in it
SEEDS = ("seed", "seeds")  # `fair`'s own part: a finished hand's seeds, for its players only


def shared(state: dict[str, Any]) -> dict[str, Any]:
    """What every viewer is told alike: all but his own parts, and each seat but its voice
    (the seated players' only, C-8.3)."""
    seats = [s and {k: v for k, v in s.items() if k != "voice"} for s in state["seats"]]
    return {**{k: v for k, v in state.items() if k not in OWN}, "seats": seats}


def documented_fields() -> list[str]:
    """The fields of «table:state», in the order of docs/protocol.md's table."""
    section = PROTOCOL.read_text().split("### `table:state`", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)


def sent(data: Any) -> Any:
    """`data` as a client reads it from the server's encoded EVENT packet."""
    encoded = WirePacket(packet.EVENT, namespace="/", data=["x", data]).encode()
    assert isinstance(encoded, str) and encoded.startswith("2[")
    return json.loads(encoded[1:])[1]


def at_version(players: list[Player], version: int) -> list[dict[str, Any]]:
    """Each player's state of exactly `version` (slow timers: nothing else changes it)."""
    for p in players:
        p.until(lambda s: s["version"] >= version)
        assert p.state["version"] == version, (p.name, p.state["version"], version)
    return [p.state for p in players]


def test_packets_are_the_json_the_standard_library_would_read() -> None:
    """Non-ASCII names come through as text (UTF-8, not escapes: the same JSON value), and
    what orjson refuses — a lone surrogate, an integer beyond 64 bits, a non-string key —
    is encoded by the standard library exactly as before."""
    state = {"name": "Вася ♠ 10♥", "money": 2**63 - 1, "now": 1764450000.123456}
    assert sent(state) == state
    assert "Вася" in WirePacket(packet.EVENT, data=["x", state]).encode()
    for odd in ({"text": "\ud800"}, {"big": 2**70}, {1: "one"}):
        encoded = WirePacket(packet.EVENT, data=["x", odd]).encode()
        assert encoded == packet.Packet(packet.EVENT, data=["x", odd]).encode()


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=())),  # lone surrogates too
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_payload_reads_back_as_python_socketio_would_send_it(data: Any) -> None:
    """Whatever JSON data the server sends (any text, surrogates included, integers of any
    size, floats), the client reads the same value as from python-socketio's own packet."""
    ours = WirePacket(packet.EVENT, data=["x", data]).encode()
    theirs = packet.Packet(packet.EVENT, data=["x", data]).encode()
    assert json.loads(ours[1:]) == json.loads(theirs[1:]) == ["x", data]


def test_a_viewer_differs_from_another_only_in_his_own_parts(fast: Server) -> None:
    """Three players in a hand and two spectators, after each decision: every field but
    `you`, `hand`, `news`, `fair`'s seeds (its players' only once it is over:
    docs/fairness.md) and the seats' voice (the same for the players, null for the
    spectators) is the same for all (built once), the fields are those of
    docs/protocol.md in its order, each player's hand shows his own cards only, and the
    spectators' hand is the public view with no card at all (C-4.11)."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 3, 1000)
    spectators = [Player(fast, table, unique_name("Зритель")) for _ in range(2)]
    for s in spectators:
        s.join()
    everyone = [*players, *spectators]
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    players[0].until(lambda s: s["phase"] == "playing")
    rng = random.Random(10)
    for _ in range(4):
        actor = whose_turn(players)
        version = actor.state["version"]
        # No «Смотреться» (C-4.11): after a look the two see each other's cards.
        legal = [o for o in actor.hand["legal"] if o["do"] != "look"]  # type: ignore[index]
        assert actor.act(**choose(legal, rng)) == {"ok": True}
        states = at_version(everyone, version + 1)
        assert all(list(s) == documented_fields() for s in states)
        for s in states[1:]:
            assert shared(s) == shared(states[0])
            assert {k: v for k, v in s["fair"].items() if k not in SEEDS} == {
                k: v for k, v in states[0]["fair"].items() if k not in SEEDS
            }
        assert [s["you"]["name"] for s in states] == [p.name for p in everyone]
        voices = [[seat["voice"] for seat in s["seats"] if seat] for s in states]
        assert voices[: len(players)] == [[NO_VOICE] * len(players)] * len(players)
        assert voices[len(players) :] == [[None] * len(players)] * len(spectators)
        public = states[len(players)]["hand"]
        assert states[-1]["hand"] == public
        if public["phase"] != "betting":
            break  # the hand ended: the cards may be shown now (C-6.1)
        assert all(q["cards"] is None for q in public["players"])
        assert public["legal"] == []
        for p, s in zip(players, states, strict=False):
            cards = {q["name"]: q["cards"] for q in s["hand"]["players"]}
            assert cards[p.name] is not None
            assert all(c is None for name, c in cards.items() if name != p.name)


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"do": b"fold"}, id="bytes-for-a-string"),
        pytest.param({"version": b"\x00\x01"}, id="bytes-for-an-integer"),
        pytest.param({"extra": {"a": [b"1", b"2"], "b": b"3"}}, id="three-in-an-unknown-field"),
        pytest.param(None, id="bytes-for-the-payload"),
    ],
)
def test_a_binary_event_is_refused_and_changes_nothing(fast: Server, payload: Any) -> None:
    """A python-socketio client sends attachments (a BINARY_EVENT packet): the server drops
    them, its handler sees the placeholder objects and refuses the payload's shape with the
    usual error; the hand is where it was, the player's next decision is the next version,
    and the server printed no traceback."""
    table = new_table(fast, "classic")
    players = seat(fast, table, 2, 1000)
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    actor = whose_turn(players)
    version = actor.state["version"]
    legal = {"table": table, "version": version, "do": "fold"}
    data = b"\x00table:act" if payload is None else {**legal, **payload}
    reply = actor.client.call("table:act", data)
    assert reply["ok"] is False
    assert reply["error"] == (
        "unknown field '_placeholder'"  # the placeholder object standing for the bytes
        if payload is None
        else "unknown field 'extra'"
        if "extra" in payload
        else f"field {next(iter(payload))!r} must be "
        + ("string" if "do" in payload else "integer")
    )
    assert actor.event("error")["event"] == "table:act"
    assert actor.act(**choose(actor.hand["legal"], random.Random(1))) == {"ok": True}  # type: ignore[index]
    after = at_version(players, version + 1)
    assert all(len(s["history"]) == 1 for s in after)
    assert "Traceback" not in "".join(fast.output)
