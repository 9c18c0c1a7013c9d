"""app/rooms.py: the client manager with each client's rooms indexed keeps exactly
python-socketio's rooms, and a disconnect no longer tests every room of the namespace."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import socketio
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rooms import IndexedManager, client_manager

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
