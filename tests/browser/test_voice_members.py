"""A seated player sees the table's voice without joining it (C-8.3, docs/rules/ui.md's seat
marks): who is in the voice (the mic mark), mic off, not listening and the speaking glow, from each
seat's `voice` in the table state he gets seated (on sitting down, on opening the table
seated, after each change) and the table's `voice:levels`; a spectator sees none of it. The
real SFU of test_voice's server."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, expect

from .conftest import DESKTOP, Crowd, Player
from .test_voice import voice_chromium, voice_crowd, voice_web  # noqa: F401 - its fixtures

SPEAKING = re.compile(r"\bspeaking\b")
VOICE_MARKS = ".mark.voice, .mark.muted, .mark.deaf"


def seat_of(viewer: Player, player: Player) -> Locator:
    return viewer.page.locator(f'.seat[data-seat="{player.name}"]')


def test_a_seated_page_that_never_joined_shows_who_is_in_the_voice(voice_crowd: Crowd) -> None:  # noqa: F811
    anna, boris = voice_crowd.add(DESKTOP, "anna"), voice_crowd.add(DESKTOP, "boris")
    table = anna.new_table("Голос " + anna.name, "classic", 4)
    anna.open_table(table)
    anna.sit()
    anna.page.click("#listen")  # «Звук» alone: anna is in the voice with her mic off
    expect(anna.page.locator("#listen")).to_have_attribute("aria-pressed", "true")
    expect(seat_of(anna, anna).locator(".mark.muted")).to_have_count(1)

    # Boris watches: a spectator learns nothing of the voice.
    boris.open_table(table)
    anna_seen = seat_of(boris, anna)
    expect(anna_seen).to_be_visible()
    expect(anna_seen.locator(VOICE_MARKS)).to_have_count(0)

    # He sits down: anna's in-voice, mic-off mark shows, though he never pressed a toggle.
    boris.sit()
    expect(anna_seen.locator(".mark.muted")).to_have_count(1)
    expect(anna_seen.locator(".mark.voice")).to_have_count(0)

    # Opening the table again while seated shows it at once too.
    boris.page.reload()
    anna_seen = seat_of(boris, anna)
    expect(anna_seen.locator(".mark.muted")).to_have_count(1)

    # Her toggles change: his page follows (the mic mark; her fake microphone's tone makes
    # her seat glow; then the crossed speaker).
    anna.page.click("#mic")
    expect(anna.page.locator("#mic")).to_have_attribute("aria-pressed", "true")
    expect(anna_seen.locator(".mark.voice")).to_have_count(1)
    expect(anna_seen.locator(".mark.muted")).to_have_count(0)
    expect(anna_seen).to_have_class(SPEAKING, timeout=40_000)  # her peer connects first
    anna.page.click("#listen")
    expect(anna.page.locator("#listen")).to_have_attribute("aria-pressed", "false")
    expect(anna_seen.locator(".mark.deaf")).to_have_count(1)

    # All of it without boris in the voice: no toggle pressed, nothing played.
    for toggle in ("#mic", "#listen"):
        expect(boris.page.locator(toggle)).to_have_attribute("aria-pressed", "false")
    assert boris.page.locator("audio").count() == 0
    expect(seat_of(boris, boris).locator(VOICE_MARKS)).to_have_count(0)
    for p in (anna, boris):
        assert p.errors == [], p.errors
