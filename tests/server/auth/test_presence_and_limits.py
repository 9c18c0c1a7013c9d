"""The in-process bookkeeping behind C-8.2 (one connection per account)."""

from __future__ import annotations

from app.auth.presence import Player, Presence

ANNA = Player(1, "anna", False)
BORIS = Player(2, "boris", False)


def test_a_new_connection_replaces_the_old_one() -> None:
    """C-8.2: events from the old socket no longer count as the player's; its disconnect
    says it was taken over and leaves the new connection in place."""
    presence = Presence()
    assert presence.connect(ANNA, "s1") is None
    assert presence.connect(BORIS, "s2") is None
    assert presence.connect(ANNA, "s3") == "s1"
    assert presence.player("s1") is None
    assert presence.player("s3") == ANNA
    assert presence.sid(ANNA.id) == "s3"
    assert presence.disconnect("s1") == (ANNA, True)
    assert presence.sid(ANNA.id) == "s3"
    assert presence.disconnect("s3") == (ANNA, False)
    assert presence.sid(ANNA.id) is None
    assert presence.disconnect("s3") is None
    assert presence.player("s2") == BORIS
