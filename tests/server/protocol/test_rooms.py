"""app/rooms.py: the client manager with each client's rooms indexed keeps exactly
python-socketio's rooms, and a disconnect no longer tests every room of the namespace."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import socketio
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rooms import IndexedManager, client_manager, sender
from app.wire import WirePacket

CLIENTS = ["Иван", "Ёж", "мАрия", "Петър", "🦔"]
ROOMS = ["lobby", "table 1", "table 2", "voice 1"]

step = st.one_of(
    st.tuples(st.just("connect"), st.sampled_from(CLIENTS)),
    st.tuples(st.just("enter"), st.sampled_from(CLIENTS), st.sampled_from(ROOMS)),
    st.tuples(st.just("leave"), st.sampled_from(CLIENTS), st.sampled_from(ROOMS)),
    st.tuples(st.just("close"), st.sampled_from(ROOMS)),
    st.tuples(st.just("disconnect"), st.sampled_from(CLIENTS)),
)


def serving(manager: socketio.Manager) -> socketio.Manager:
    """`manager` as a server holds it, with the sids 1, 2, 3… (the same in every manager)."""
    ids = itertools.count(1)
    manager.server = SimpleNamespace(eio=SimpleNamespace(generate_id=lambda: str(next(ids))))
    return manager


def play(manager: socketio.Manager, steps: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Run the steps on `manager`; what it holds and tells at the end."""
    serving(manager)
    sids: dict[str, str] = {}
    for kind, *rest in steps:
        if kind == "connect":
            if rest[0] not in sids:
                sids[rest[0]] = manager.connect("eio-" + rest[0], "/")
        elif kind == "enter" and rest[0] in sids:
            manager.enter_room(sids[rest[0]], "/", rest[1])
        elif kind == "leave" and rest[0] in sids:
            manager.leave_room(sids[rest[0]], "/", rest[1])
        elif kind == "close":
            manager.close_room(rest[0], "/")
        elif kind == "disconnect" and rest[0] in sids:
            manager.disconnect(sids.pop(rest[0]), "/")
    return {
        "rooms": {
            ns: {room: dict(members) for room, members in rooms.items()}
            for ns, rooms in manager.rooms.items()
        },
        "of": {name: sorted(manager.get_rooms(sid, "/"), key=str) for name, sid in sids.items()},
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(step, max_size=40))
def test_the_same_rooms_as_python_socketio(steps: list[tuple[Any, ...]]) -> None:
    ours, theirs = IndexedManager(), socketio.Manager()
    assert play(ours, steps) == play(theirs, steps)
    assert sum(map(len, ours.rooms_of.values())) == sum(
        len(m) for rooms in ours.rooms.values() for m in rooms.values()
    )


class CountingRooms(dict):  # type: ignore[type-arg]
    """A namespace's room table that counts how often it is walked."""

    walks = 0

    def items(self) -> Any:
        CountingRooms.walks += 1
        return super().items()

    def copy(self) -> Any:
        CountingRooms.walks += 1
        return super().copy()


def test_a_disconnect_leaves_its_own_rooms_without_walking_the_others() -> None:
    manager = serving(IndexedManager())
    sids = [manager.connect(f"eio-{i}", "/") for i in range(2_000)]
    for i, sid in enumerate(sids):
        manager.enter_room(sid, "/", f"table {i // 8}")
    manager.rooms["/"] = CountingRooms(manager.rooms["/"])
    CountingRooms.walks = 0
    manager.disconnect(sids[0], "/")
    assert CountingRooms.walks == 0
    assert sids[0] not in manager.rooms["/"][None]
    assert sids[0] not in manager.rooms["/"]["table 0"]
    assert sids[0] not in manager.rooms["/"]
    assert sorted(manager.get_rooms(sids[1], "/")) == sorted([sids[1], "table 0"])


def test_python_socketio_walks_every_room_at_a_disconnect() -> None:
    """What the index removes: the library's own disconnect walks the room table."""
    manager = serving(socketio.Manager())
    sids = [manager.connect(f"eio-{i}", "/") for i in range(16)]
    manager.rooms["/"] = CountingRooms(manager.rooms["/"])
    CountingRooms.walks = 0
    manager.disconnect(sids[0], "/")
    assert CountingRooms.walks >= 1


def test_the_manager_for_each_queue() -> None:
    assert isinstance(client_manager(None), IndexedManager)
    assert client_manager("amqp://127.0.0.1//") is None


class Wire:
    """A server as the managers write to it: the text of each packet, by Engine.IO sid."""

    packet_class = WirePacket

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def _send_packet(self, eio_sid: str, made: WirePacket) -> None:  # `send_to`'s way
        self.sent.append((eio_sid, made.encode()))

    def _send_eio_packet(self, eio_sid: str, eio_pkt: Any) -> None:  # `emit`'s way
        self.sent.append((eio_sid, eio_pkt.data))


def connected(manager: socketio.Manager, names: list[str]) -> tuple[Wire, dict[str, str]]:
    serving(manager)
    sids = {name: manager.connect("eio-" + name, "/") for name in names}
    wire = Wire()
    manager.server.packet_class, manager.server._send_packet = wire.packet_class, wire._send_packet
    manager.server._send_eio_packet = wire._send_eio_packet
    return wire, sids


STATE = {"table": 7, "seats": [{"name": "Ёж", "money": 2**40}, None], "news": ["Мария 🌸"]}


def test_send_to_writes_the_packet_emit_writes_to_that_client_only() -> None:
    ours, theirs = IndexedManager(), IndexedManager()
    ours_wire, ours_sids = connected(ours, CLIENTS)
    theirs_wire, theirs_sids = connected(theirs, CLIENTS)
    for name in ("Иван", "🦔"):
        assert ours.send_to(ours_sids[name], "table:state", STATE)
        theirs.emit("table:state", STATE, "/", to=theirs_sids[name])
    assert ours_wire.sent == theirs_wire.sent
    assert [eio for eio, _ in ours_wire.sent] == ["eio-Иван", "eio-🦔"]
    assert '"Ёж"' in ours_wire.sent[0][1]  # text as it is, not \\u escapes (app/wire.py)


def test_send_to_a_client_not_here_sends_nothing() -> None:
    manager = IndexedManager()
    wire, sids = connected(manager, ["Иван", "Мария"])
    manager.disconnect(sids["Мария"], "/")
    assert not manager.send_to(sids["Мария"], "table:state", STATE)
    assert not manager.send_to("no such sid", "table:state", STATE)
    assert not manager.send_to(sids["Иван"], "table:state", STATE, namespace="/voice")
    assert wire.sent == []


def test_the_tables_sender_goes_through_flask_socketio_for_others() -> None:
    """A client of another process (RedisManager) or no manager of ours: `socketio.emit`."""
    manager = IndexedManager()
    wire, sids = connected(manager, ["Иван"])
    emitted: list[tuple[Any, ...]] = []
    flask_socketio = SimpleNamespace(
        server=SimpleNamespace(manager=manager),
        emit=lambda event, data, to: emitted.append((event, data, to)),
    )
    emit = sender(flask_socketio)
    emit("table:state", STATE, to=sids["Иван"])
    emit("table:state", STATE, to="elsewhere")
    assert [eio for eio, _ in wire.sent] == ["eio-Иван"]
    assert emitted == [("table:state", STATE, "elsewhere")]
    flask_socketio.server.manager = socketio.Manager()
    emit("table:state", STATE, to=sids["Иван"])
    assert emitted[-1] == ("table:state", STATE, sids["Иван"])
