"""The Socket.IO client manager of this server: python-socketio's, with each client's rooms
indexed by client.

python-socketio finds a client's rooms by testing every room of the namespace — a copy of
the room table and one lookup per room at each disconnect and each `rooms()` — and every
client has a room of its own, so at N players a disconnect costs O(N) and N players leaving
(a worker's network blip, a restart of a proxy) O(N²), all of it holding the eventlet hub
(docs/performance.md, «4,000 players»). Here the manager also keeps, per client, the rooms
it is in, so both cost the client's own few rooms. What the rooms hold, and the messages
between processes (`RedisManager`), are python-socketio's own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import socketio
from socketio import packet

#: Flask-SocketIO's channel: the one its write-only emitters (another process) publish on.
CHANNEL = "flask-socketio"

Key = tuple[str, Hashable]


class RoomIndex(socketio.Manager):
    """The rooms of each (namespace, client), kept beside python-socketio's room table."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.rooms_of: dict[Key, set[Hashable]] = {}

    def basic_enter_room(
        self, sid: Hashable, namespace: str, room: Hashable, eio_sid: Any = None
    ) -> None:
        super().basic_enter_room(sid, namespace, room, eio_sid=eio_sid)
        self.rooms_of.setdefault((namespace, sid), set()).add(room)

    def basic_leave_room(self, sid: Hashable, namespace: str, room: Hashable) -> None:
        super().basic_leave_room(sid, namespace, room)
        rooms = self.rooms_of.get((namespace, sid))
        if rooms is not None:
            rooms.discard(room)
            if not rooms:
                del self.rooms_of[(namespace, sid)]

    def basic_disconnect(self, sid: Hashable, namespace: str, **kwargs: Any) -> None:
        """python-socketio's disconnect (5.x `BaseManager.basic_disconnect`), leaving only
        the client's own rooms instead of testing every room."""
        if namespace not in self.rooms:
            return
        for room in list(self.rooms_of.get((namespace, sid), ())):
            self.basic_leave_room(sid, namespace, room)
        self.callbacks.pop(sid, None)
        for pending in (self.pending_connect, self.pending_disconnect):
            waiting = pending.get(namespace)
            if waiting is not None and sid in waiting:
                waiting.remove(sid)
                if not waiting:
                    del pending[namespace]

    def get_rooms(self, sid: Hashable, namespace: str) -> list[Hashable]:
        return [r for r in self.rooms_of.get((namespace, sid), ()) if r is not None]

    def send_to(self, sid: str, event: str, data: Any, namespace: str = "/") -> bool:
        """`event` to one client of this process: the packet `emit(event, data, to=sid)`
        sends, without the layers around it (Flask-SocketIO's and python-socketio's
        arguments, a log call, a copy of the client's own room to walk it), which each
        table state paid: ~3 % of its sending (docs/performance.md, «One client, one
        packet»). False when `sid` is no client here."""
        eio_sid = self.eio_sid_from_sid(sid, namespace)
        if eio_sid is None:
            return False
        made = self.server.packet_class(packet.EVENT, data=[event, data], namespace=namespace)
        self.server._send_packet(eio_sid, made)
        return True


class IndexedManager(RoomIndex):
    """One process (no message queue)."""


class IndexedRedisManager(RoomIndex, socketio.RedisManager):
    """Several processes over Redis (docs/hosting.md).

    python-socketio publishes every emit to every process, even one to a client of this
    process: each table state was written here, then scanned for bytes, encoded again,
    published, and decoded by every process (this one included) to be dropped. A table's
    sockets are routed to its owner (app/shards.py), so its states go to clients connected
    here: those are written directly. Rooms (a user's, the lobby's) and clients of other
    processes still go through Redis (docs/performance.md, «Two processes at 50 tables»)."""

    def emit(
        self,
        event: str,
        data: Any,
        namespace: str | None = None,
        room: Hashable | None = None,
        skip_sid: Any = None,
        callback: Any = None,
        to: Hashable | None = None,
        **kwargs: Any,
    ) -> Any:
        room = to if to is not None else room
        local = isinstance(room, str) and self.is_connected(room, namespace or "/")
        if local and callback is None:
            kwargs["ignore_queue"] = True  # a client's sid is its own room, here only
        return super().emit(
            event, data, namespace=namespace, room=room, skip_sid=skip_sid, callback=callback,
            **kwargs,
        )  # fmt: skip


def sender(socketio: Any) -> Callable[..., None]:
    """`emit(event, data, to=sid)` for the tables' states (runtime.py `Services.emit`): to a
    client of this process directly (`RoomIndex.send_to`), any other through Flask-SocketIO
    (another process's client, over the queue; or none)."""

    def emit(event: str, data: Any, to: str) -> None:
        manager = socketio.server.manager
        if not (isinstance(manager, RoomIndex) and manager.send_to(to, event, data)):
            socketio.emit(event, data, to=to)

    return emit


def client_manager(message_queue: str | None) -> socketio.Manager | None:
    """The manager for `socketio.init_app(client_manager=…)`; None for a queue other than
    Redis (Flask-SocketIO then picks python-socketio's own)."""
    if not message_queue:
        return IndexedManager()
    if message_queue.startswith(("redis://", "rediss://")):
        return IndexedRedisManager(message_queue, channel=CHANNEL)
    return None
