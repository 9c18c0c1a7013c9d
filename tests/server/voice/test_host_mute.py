"""The host's mute at the table is the voice chat's, not only a page's flag (docs/protocol.md,
«table:host», «voice:mic»): muted, the player's microphone goes off at the SFU (his seat's
voice shows it to the table) and his own `voice:mic` on is refused until the host unmutes
him. A real `svara serve` with its SFU on loopback."""

from __future__ import annotations

from typing import Any

from ..conftest import Server, unique_name
from ..tablekit import Player
from ..tables.test_host_controls import hosted, sit
from .test_serve_voice import join_voice
from .test_voice_state import voice_server

__all__ = ["voice_server"]  # the fixture, shared with test_voice_state.py


def mic(state: dict[str, Any], name: str) -> bool | None:
    """His seat's voice `mic` in `state` (None while the state has no seat of his)."""
    seat = next((s for s in state["seats"] if s and s["name"] == name), None)
    return None if seat is None or seat["voice"] is None else seat["voice"]["mic"]


def test_a_muted_microphone_stays_off_until_the_host_unmutes(voice_server: Server) -> None:
    table, ivan = hosted(voice_server)
    maria = Player(voice_server, table, unique_name("Мария"))
    sit(ivan, voice_server)
    sit(maria, voice_server)
    try:
        assert join_voice(maria.client, table)["ok"]
        assert maria.call("voice:mic", on=True) == {"ok": True}
        ivan.until(lambda s: mic(s, maria.name))
        assert ivan.call("table:host", do="mute", player=maria.name) == {"ok": True}
        state = ivan.until(lambda s: mic(s, maria.name) is False and s)
        assert state["host"]["muted"] == [maria.name]
        refused = maria.call("voice:mic", on=True)
        assert refused["ok"] is False and "host muted" in refused["error"], refused
        maria.event("error")
        maria.until(lambda s: mic(s, maria.name) is False)  # her page hears the mute too
        assert ivan.call("table:host", do="unmute", player=maria.name) == {"ok": True}
        maria.until(lambda s: not s["host"]["muted"])
        assert mic(maria.state, maria.name) is False  # off until she switches it on
        assert maria.call("voice:mic", on=True) == {"ok": True}
        ivan.until(lambda s: mic(s, maria.name))
    finally:
        for p in (ivan, maria):
            p.close()
