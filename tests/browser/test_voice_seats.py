"""The seats' voice marks (docs/rules/ui.md): the muted-mic and not-listening icons and the speaking
glow, as the other players see them, on the real SFU of test_voice's server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import DESKTOP, Crowd, Table
from .test_voice import voice_chromium, voice_crowd, voice_web  # noqa: F401 - its fixtures

SPEAKING = re.compile(r"\bspeaking\b")


def test_muted_and_not_listening_icons_and_the_speaking_glow(voice_crowd: Crowd) -> None:  # noqa: F811
    anna, boris = voice_crowd.add(DESKTOP, "anna"), voice_crowd.add(DESKTOP, "boris")
    table = Table([anna, boris], anna.new_table("Голос " + anna.name, "classic", 4))
    table.seat_everyone()
    anna.page.click("#mic")
    expect(anna.page.locator("#mic")).to_have_attribute("aria-pressed", "true")
    boris.page.click("#listen")  # «Звук» alone: boris listens with his microphone off
    expect(boris.page.locator("#listen")).to_have_attribute("aria-pressed", "true")
    expect(boris.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    anna_seen = boris.page.locator(f'.seat[data-seat="{anna.name}"]')
    boris_seen = anna.page.locator(f'.seat[data-seat="{boris.name}"]')
    expect(boris_seen.locator(".mark.muted")).to_have_count(1)
    expect(anna_seen.locator(".mark.muted")).to_have_count(0)
    # Anna's fake microphone plays a tone: boris sees her speaking.
    expect(anna_seen).to_have_class(SPEAKING, timeout=20_000)
    anna.page.click("#mic")
    expect(anna_seen.locator(".mark.muted")).to_have_count(1)
    expect(anna_seen).not_to_have_class(SPEAKING, timeout=20_000)
    anna.page.click("#listen")
    expect(anna.page.locator("#listen")).to_have_attribute("aria-pressed", "false")
    expect(anna_seen.locator(".mark.deaf")).to_have_count(1)
    for p in (anna, boris):
        assert p.errors == [], p.errors
