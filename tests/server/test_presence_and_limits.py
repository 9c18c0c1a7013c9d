"""The in-process bookkeeping behind C-8.2 (one connection per account) and the login limit."""

from __future__ import annotations

from app.auth.limits import FailureLimit
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


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failures_are_forgotten_as_they_leave_the_window() -> None:
    clock = Clock()
    limit = FailureLimit(3, 60, clock)
    key = ("10.0.0.1", "anna")
    for at in (1000, 1010, 1030):
        clock.now = at
        assert limit.retry_after(key) == 0
        limit.fail(key)
    assert limit.retry_after(key) == 30  # the failure at 1000 leaves the window at 1060
    assert limit.retry_after(("10.0.0.2", "anna")) == 0
    clock.now = 1060
    assert limit.retry_after(key) == 0
    limit.fail(key)  # failures at 1010, 1030, 1060
    assert limit.retry_after(key) == 10
    limit.clear(key)
    assert limit.retry_after(key) == 0
