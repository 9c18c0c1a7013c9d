"""The voice room of one table: who sits, who is connected, which slot carries whom.

Pure bookkeeping (no aiortc, no asyncio) so that every rule of the voice chat (C-8.3,
docs/voice-protocol.md) is unit-tested: only seated players are members (the web process joins
nobody else), a member publishes once its peer is attached with a mic, each listener has a fixed
number of receive slots (the browser offered seats − 1 of them) and a slot keeps its publisher for
as long as that publisher stays connected, so that the browser's slot → player labels stay valid.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class RoomError(ValueError):
    """A request that does not fit the room (unknown member, negative slot count…)."""


@dataclass
class Member:
    """A seated player and the state of their voice connection.

    `mic` and `listen` are the player's toggles; they belong to the member, not to the
    peer, so that a reconnect keeps them. `slots` is None while no peer is attached.
    """

    player: str
    mic: bool = True
    listen: bool = True
    publishing: bool = False
    slots: list[str | None] | None = None


@dataclass
class Room:
    """One table's voice room; members are kept in joining order (stable slot order)."""

    table: str
    members: dict[str, Member] = field(default_factory=dict)
    _routes: dict[str, list[tuple[str, int]]] = field(default_factory=dict, repr=False)

    def join(self, player: str, *, mic: bool = True, listen: bool = True) -> None:
        """Seat `player` in the voice room (idempotent: a re-join just sets the toggles)."""
        member = self.members.get(player)
        if member is None:
            self.members[player] = Member(player, mic=mic, listen=listen)
        else:
            member.mic, member.listen = mic, listen
        self._routes.clear()

    def member(self, player: str) -> Member:
        """The member `player`, or RoomError for someone who has not joined."""
        try:
            return self.members[player]
        except KeyError:
            raise RoomError(f"{player!r} is not in the voice of table {self.table!r}") from None

    def attach(self, player: str, *, slots: int, publishing: bool) -> set[str]:
        """A peer for `player` is connected with `slots` receive slots.

        Returns the members whose slot map changed (they are told the new labels).
        """
        if slots < 0:
            raise RoomError(f"negative slot count {slots}")
        member = self.member(player)
        member.slots = [None] * slots
        member.publishing = publishing
        return self._assign() | {player}

    def detach(self, player: str) -> set[str]:
        """`player`'s peer is gone (it stays a member, e.g. until it reconnects)."""
        member = self.member(player)
        member.slots = None
        member.publishing = False
        return self._assign()

    def leave(self, player: str) -> set[str]:
        """`player` stands up or leaves the table: drop them and free their slots."""
        if self.members.pop(player, None) is None:
            return set()
        return self._assign()

    def set_mic(self, player: str, on: bool) -> None:
        """Mic off: nothing of `player` is forwarded to anyone."""
        self.member(player).mic = on
        self._routes.clear()

    def set_listen(self, player: str, on: bool) -> None:
        """Listen off: nothing is forwarded to `player`."""
        self.member(player).listen = on
        self._routes.clear()

    def slot_map(self, player: str) -> list[str | None]:
        """Which publisher each receive slot of `player` carries (None = silent slot)."""
        return list(self.member(player).slots or [])

    def routes(self, publisher: str) -> list[tuple[str, int]]:
        """(listener, slot) pairs that get `publisher`'s audio right now.

        Empty when the publisher's mic is off; listeners with listen off are left out.
        Cached until the next change, since it is asked for every forwarded packet.
        """
        cached = self._routes.get(publisher)
        if cached is None:
            cached = self._compute_routes(publisher)
            self._routes[publisher] = cached
        return cached

    def _compute_routes(self, publisher: str) -> list[tuple[str, int]]:
        source = self.members.get(publisher)
        if source is None or not source.mic or not source.publishing:
            return []
        return [
            (listener.player, slot)
            for listener in self.members.values()
            if listener.listen and listener.slots is not None
            for slot, carried in enumerate(listener.slots)
            if carried == publisher
        ]

    def _assign(self) -> set[str]:
        """Give every connected listener a slot per other publisher, keeping old slots.

        A publisher keeps the slot it had (no relabelling while they talk); new publishers
        take the lowest free slot. With more publishers than slots (a browser that offered
        too few) the late ones are not heard by that listener.
        """
        self._routes.clear()
        publishers = [m.player for m in self.members.values() if m.publishing]
        changed: set[str] = set()
        for listener in self.members.values():
            if listener.slots is None:
                continue
            wanted = [p for p in publishers if p != listener.player]
            before = list(listener.slots)
            slots = [p if p in wanted else None for p in listener.slots]
            for publisher in wanted:
                if publisher in slots:
                    continue
                if None not in slots:
                    break
                slots[slots.index(None)] = publisher
            listener.slots = slots
            if slots != before:
                changed.add(listener.player)
        return changed

    @property
    def empty(self) -> bool:
        """No members left: the room can be dropped."""
        return not self.members
