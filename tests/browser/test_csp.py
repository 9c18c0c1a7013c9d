"""The Content-Security-Policy in Chromium (docs/hosting.md «Headers»): a page the policy
breaks breaks silently — a refused script or style only says so on the console — so every
page is walked through, a table is played at, and any console message about the policy
fails the test. That the policy really is in force is checked the same way: an inline
script put into the page is refused and says so."""

from __future__ import annotations

import re

from playwright.sync_api import ConsoleMessage, expect

from .conftest import DESKTOP, PHONE, Crowd

VIOLATION = re.compile(r"Content Security Policy", re.IGNORECASE)


def test_no_page_breaks_the_policy_and_inline_script_is_refused(crowd: Crowd) -> None:
    anna, boris = crowd.add(PHONE, "Анна"), crowd.add(DESKTOP, "Борис")
    said: list[str] = []

    def listen(msg: ConsoleMessage) -> None:
        if VIOLATION.search(msg.text):
            said.append(msg.text)

    for player in (anna, boris):
        player.page.on("console", listen)
    table = anna.new_table("Без чужих скриптов", "classic", 3)
    for player in (anna, boris):
        player.open_table(table)
        player.sit()
    expect(anna.page.locator(".seat:not(.empty)")).to_have_count(2)
    page = boris.page
    for path in ("/", "/rules", "/settings", "/install", "/offline"):
        page.goto(boris.base + path)
        page.wait_for_load_state("load")
    page.goto(boris.base + "/settings")
    page.wait_for_load_state("load")
    assert said == [], said
    assert anna.errors == [] and boris.errors == [], (anna.errors, boris.errors)

    with page.expect_console_message(lambda m: bool(VIOLATION.search(m.text))) as refusal:
        ran = page.evaluate(
            """() => { const s = document.createElement("script");
                       s.textContent = "window.injected = 1"; document.body.append(s);
                       return window.injected ?? null; }"""
        )
    assert ran is None
    assert "inline script" in refusal.value.text
