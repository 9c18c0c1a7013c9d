"""Room bookkeeping (rtc.room): who is heard by whom, in which slot (C-8.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtc.room import Room, RoomError

SEATS = 4


def seated(*players: str, slots: int = SEATS - 1) -> Room:
    room = Room("t")
    for player in players:
        room.join(player)
        room.attach(player, slots=slots, publishing=True)
    return room


def test_each_listener_gets_every_other_publisher_in_a_slot() -> None:
    room = seated("A", "B", "C")
    assert room.slot_map("A") == ["B", "C", None]
    assert room.slot_map("B") == ["A", "C", None]
    assert sorted(room.routes("A")) == [("B", 0), ("C", 0)]


def test_attach_reports_the_listeners_whose_labels_changed() -> None:
    room = seated("A", "B")
    room.join("C")
    assert room.attach("C", slots=3, publishing=True) == {"A", "B", "C"}
    room.join("D")
    assert room.attach("D", slots=3, publishing=False) == {"D"}  # a listener only


def test_a_slot_keeps_its_publisher_when_others_come_and_go() -> None:
    """Labels in the browser stay valid: B stays in A's slot 1 while the slot 0 frees."""
    room = seated("A", "B", "C")
    assert room.leave("B") == {"A", "C"}
    assert room.slot_map("A") == [None, "C", None]
    room.join("D")
    room.attach("D", slots=3, publishing=True)
    assert room.slot_map("A") == ["D", "C", None]


def test_mic_off_removes_every_route_from_the_player() -> None:
    room = seated("A", "B", "C")
    room.set_mic("A", False)
    assert room.routes("A") == []
    assert room.routes("B") == [("A", 0), ("C", 1)]
    room.set_mic("A", True)
    assert len(room.routes("A")) == 2


def test_listen_off_removes_every_route_to_the_player() -> None:
    room = seated("A", "B", "C")
    room.set_listen("B", False)
    assert room.routes("A") == [("C", 0)]
    assert room.routes("C") == [("A", 1)]
    assert room.slot_map("B") == ["A", "C", None]  # labels are kept for listen on


def test_detach_keeps_the_member_and_its_toggles_for_a_reconnect() -> None:
    room = seated("A", "B")
    room.set_listen("B", False)
    assert room.detach("B") == {"A"}
    assert room.slot_map("A") == [None, None, None]
    room.attach("B", slots=3, publishing=True)
    assert room.members["B"].listen is False
    assert room.routes("A") == []
    assert room.routes("B") == [("A", 0)]


def test_unknown_players_are_refused() -> None:
    """Only joined (seated) players get a peer: spectators never publish nor receive."""
    room = seated("A")
    with pytest.raises(RoomError, match="not in the voice"):
        room.attach("S", slots=3, publishing=True)
    with pytest.raises(RoomError):
        room.set_mic("S", False)
    with pytest.raises(RoomError):
        room.attach("A", slots=-1, publishing=True)
    assert room.leave("S") == set()


def test_a_listener_with_too_few_slots_hears_the_first_publishers() -> None:
    room = seated("A", "B", "C")
    room.join("D")
    room.attach("D", slots=1, publishing=True)
    assert room.slot_map("D") == ["A"]


def test_routes_are_recomputed_after_changes() -> None:
    room = seated("A", "B")
    assert room.routes("A") == [("B", 0)]
    room.leave("B")
    assert room.routes("A") == []
    assert room.empty is False
    room.leave("A")
    assert room.empty is True


actions = st.lists(
    st.tuples(
        st.sampled_from(["join", "attach", "listener", "detach", "leave", "mic", "listen"]),
        st.sampled_from("ABCDE"),
        st.booleans(),
    ),
    max_size=40,
)


@settings(max_examples=250)
@given(actions)
def test_slot_maps_stay_consistent(steps: list[tuple[str, str, bool]]) -> None:
    """After any sequence: each connected listener carries each other publisher exactly
    once (5 players, 4 slots each), never itself, never a non-publisher; routes follow the
    toggles; a publisher who stays keeps its slot across unrelated changes."""
    room = Room("t")
    for op, player, flag in steps:
        before = {p: room.slot_map(p) for p in room.members}
        if op == "join":
            room.join(player, mic=flag, listen=not flag)
        elif player not in room.members:
            continue
        elif op in ("attach", "listener"):
            room.attach(player, slots=4, publishing=op == "attach")
        elif op == "detach":
            room.detach(player)
        elif op == "leave":
            room.leave(player)
        elif op == "mic":
            room.set_mic(player, flag)
        else:
            room.set_listen(player, flag)
        publishers = {p for p, m in room.members.items() if m.publishing}
        for listener, member in room.members.items():
            if member.slots is None:
                continue
            carried = [p for p in member.slots if p is not None]
            assert sorted(carried) == sorted(publishers - {listener})
            reattached = op in ("attach", "listener") and player == listener
            for slot, was in enumerate(before.get(listener, [])):
                if was in publishers and not reattached:
                    assert member.slots[slot] == was
        for publisher in publishers:
            for listener, slot in room.routes(publisher):
                assert room.members[publisher].mic and room.members[listener].listen
                assert room.slot_map(listener)[slot] == publisher
