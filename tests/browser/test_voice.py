"""The top bar's voice toggles (C-8.3, ui.md) on the real SFU, in Chromium with its fake
microphone (a steady tone): the toggles' states, the muted icons and the speaking glow."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .conftest import Player, Table

re_speaking = re.compile(r"\bspeaking\b")


def test_mic_and_listen_toggles_show_on_the_seats(people: list[Player], artifacts: Path) -> None:
    anna, boris, _ = people
    table = Table([anna, boris], anna.new_table("Голос " + anna.name, "classic", 4))
    table.seat_everyone()
    mic, listen = anna.page.locator("#mic"), anna.page.locator("#listen")
    expect(mic).to_have_attribute("aria-pressed", "false")
    anna.page.click("#mic")
    expect(mic).to_have_attribute("aria-pressed", "true")
    expect(listen).to_have_attribute("aria-pressed", "true")
    # «Звук» alone never opens boris's microphone.
    boris.page.click("#listen")
    expect(boris.page.locator("#listen")).to_have_attribute("aria-pressed", "true")
    expect(boris.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    anna_seat = boris.page.locator(f'.seat[data-seat="{anna.name}"]')
    boris_seat = anna.page.locator(f'.seat[data-seat="{boris.name}"]')
    expect(boris_seat.locator(".mark.muted")).to_have_count(1)
    expect(anna_seat.locator(".mark.muted")).to_have_count(0)
    # Anna's fake microphone plays a tone: boris sees her speaking.
    expect(anna_seat).to_have_class(re_speaking, timeout=20_000)
    anna.page.click("#mic")
    expect(mic).to_have_attribute("aria-pressed", "false")
    expect(anna_seat.locator(".mark.muted")).to_have_count(1)
    anna.page.click("#listen")
    expect(listen).to_have_attribute("aria-pressed", "false")
    expect(anna_seat.locator(".mark.deaf")).to_have_count(1)
    boris.shot(artifacts, "voice")
    for p in (anna, boris):
        assert p.errors == [], p.errors
