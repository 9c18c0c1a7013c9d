"""The in-process bookkeeping behind C-8.2 (a table page's connection is its account's one
at that table)."""

from __future__ import annotations

from app.auth.presence import Player, Presence

ANNA = Player(1, "anna", False)
BORIS = Player(2, "boris", False)


def test_a_second_page_of_the_table_replaces_the_old_one() -> None:
    """C-8.2: events from the old socket of the table no longer count as the player's; its
    disconnect leaves the new connection in place, and says he is still connected."""
    presence = Presence()
    assert presence.connect(ANNA, "s1", 7) == []
    assert presence.connect(BORIS, "s2", 7) == []
    assert presence.connect(ANNA, "s3", 7) == ["s1"]
    assert presence.player("s1") is None
    assert presence.player("s3") == ANNA
    assert presence.sids(ANNA.id) == ["s3"]
    assert presence.disconnect("s1") == (ANNA, True)
    assert presence.sids(ANNA.id) == ["s3"]
    assert presence.disconnect("s3") == (ANNA, False)
    assert presence.sids(ANNA.id) == []
    assert presence.disconnect("s3") is None
    assert presence.player("s2") == BORIS
    assert presence.connected_count() == 1


def test_other_pages_take_nothing_over() -> None:
    """C-8.2: the lobby in another tab, or the page of another table, is a connection of
    its own beside the table's; a disconnect says whether another one is left."""
    presence = Presence()
    assert presence.connect(ANNA, "table", 7) == []
    assert presence.connect(ANNA, "lobby") == []
    assert presence.connect(ANNA, "lobby2") == []
    assert presence.connect(ANNA, "other table", 8) == []
    assert all(presence.player(s) == ANNA for s in ("table", "lobby", "lobby2", "other table"))
    assert presence.sids(ANNA.id) == ["table", "lobby", "lobby2", "other table"]
    assert presence.connected_count() == 1
    assert presence.disconnect("lobby") == (ANNA, True)
    assert presence.player("table") == ANNA
    for sid in ("table", "lobby2"):
        presence.disconnect(sid)
    assert presence.disconnect("other table") == (ANNA, False)
    assert presence.connected_count() == 0
