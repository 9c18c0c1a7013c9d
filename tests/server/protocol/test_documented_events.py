"""docs/protocol.md and the server agree: every event a client may send (C→S) is registered
on the server and every registered event is documented; every event name the server's code
spells is documented, in one direction or the other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app import create_app, extensions
from app.voice.sockets import register_events

ROOT = Path(__file__).resolve().parents[3]
# Socket.IO's own connection events and the catch-all (app/protocol.py: refuses the rest).
BUILT_IN = {"connect", "disconnect", "*"}
FAMILIES = ("session", "account", "lobby", "table", "voice")


def documented() -> dict[str, str]:
    """Each event of docs/protocol.md (a `### \\`name\\`` heading, several names in one) and
    its direction, from the first line of its section: "C→S" or "S→C"."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    events: dict[str, str] = {}
    for heading, first in re.findall(r"^### (`[^\n]+)\n([^\n]*)", text, re.M):
        direction = re.match(r"(C→S|S→C)", first)
        assert direction, f"{heading}: its section starts with neither C→S nor S→C"
        for name in re.findall(r"`([^`]+)`", heading):
            events[name] = direction.group(1)
    return events


@pytest.fixture(scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The events of an app as `svara serve` runs it: `create_app` registers every feature's,
    and the serving process's `start` the voice chat's, through the same `register_events`
    (its hub is only used once an event arrives)."""
    create_app({"INSTANCE": tmp_path_factory.mktemp("events"), "ASYNC_MODE": "threading"})
    register_events(None, lambda table, name: None, lambda table, name: False)  # type: ignore[arg-type]
    return set(extensions.socketio.server.handlers["/"]) - BUILT_IN


def test_the_documentation_is_read() -> None:
    events = documented()
    assert events["table:act"] == "C→S" and events["table:state"] == "S→C"
    assert events["table:skip"] == events["table:dark"] == "C→S"  # three in one heading


def test_every_client_event_of_the_documentation_is_registered(registered: set[str]) -> None:
    sent = {name for name, direction in documented().items() if direction == "C→S"}
    assert sent - registered == set(), "documented but not registered"


def test_every_registered_event_is_documented_as_a_client_event(registered: set[str]) -> None:
    sent = {name for name, direction in documented().items() if direction == "C→S"}
    assert registered - sent == set(), "registered but not documented (as C→S)"
    assert {"table:act", "voice:offer", "lobby:chat"} <= registered


def test_every_event_name_in_the_code_is_documented() -> None:
    """The names the server emits are spelled in its code: each one is in the document."""
    pattern = re.compile(rf"[\"']((?:{'|'.join(FAMILIES)}):[a-z_]+)[\"']")
    spelled = {
        name: path.relative_to(ROOT)
        for path in sorted((ROOT / "app").rglob("*.py"))
        for name in pattern.findall(path.read_text())
    }
    missing = {name: str(where) for name, where in spelled.items() if name not in documented()}
    assert not missing, missing
    assert {"table:state", "voice:slots", "session:ended"} <= set(spelled)
