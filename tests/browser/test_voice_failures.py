"""Voice that cannot start says why, and the table never shows a member it does not have
(docs/hosting.md «Voice»): real Chromium pages against a real `svara serve`.

- A plain-http page on a LAN name (`svara.test`, mapped to loopback by Chromium's host
  resolver: 127.0.0.0/8 itself counts as a secure context) has no microphone API: the
  player reads that HTTPS is needed, and no `voice:join` reached the server.
- With every UDP port of `VOICE_PORTS` taken, the next player reads that voice is full,
  the server log names the setting to widen, and he is not left in the voice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Playwright
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server, start_server, stopped

from .conftest import CHROMIUM, Crowd, Player
from .test_voice import FLAGS, connected, join, voice_on

LAN_NAME = "svara.test"
#: Two ports: room for two players' voice (one port per peer on the one loopback address).
PORTS = "47150-47151"

MEMBERS = """async (table) => (await window.voice.signal("voice:members", { table })).members"""


@pytest.fixture(scope="module")
def small_voice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(
        tmp_path_factory.mktemp("voice-failures"),
        "eventlet",
        SVARA_VOICE_ADDRESSES='["127.0.0.1"]',
        SVARA_VOICE_PORTS=PORTS,
    )
    with stopped(server):
        yield server


@pytest.fixture(scope="module")
def lan_chromium(driver: Playwright) -> Iterator[Browser]:
    args = [*FLAGS, f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"]
    browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
    yield browser
    browser.close()


@pytest.fixture
def people(small_voice: Server, lan_chromium: Browser) -> Iterator[Crowd]:
    made = Crowd(small_voice, lan_chromium)
    yield made
    made.close()


def members(page_of: Player, table: int) -> dict[str, Any]:
    """Who the server has in the table's voice, asked from a page that is in it."""
    return dict(page_of.page.evaluate(MEMBERS, table))


def test_a_plain_http_page_says_https_is_needed_and_joins_nothing(
    people: Crowd, small_voice: Server
) -> None:
    maria = join(people, "Мария")
    table = maria.new_table("Голос по http " + maria.name, "classic", 3)
    maria.open_table(table)
    maria.sit()
    voice_on(maria)

    lan = Crowd(
        dataclasses.replace(small_voice, url=re.sub(r"127\.0\.0\.1", LAN_NAME, small_voice.url)),
        people.chromium,
    )
    try:
        ivan = join(lan, "Иван")
        ivan.open_table(table)
        assert ivan.page.evaluate("window.isSecureContext") is False
        ivan.sit()
        ivan.page.click("#mic")
        pw_expect(ivan.page.locator("#toast")).to_contain_text("HTTPS")
        pw_expect(ivan.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
        # Asked after his page gave up: a voice:join it sent would have been answered first.
        assert ivan.name not in members(maria, table)
        seat = maria.page.locator(f'.seat[data-seat="{ivan.name}"]')
        pw_expect(seat).to_be_visible()
        pw_expect(seat.locator(".mark.voice, .mark.muted")).to_have_count(0)
        assert ivan.errors == []
    finally:
        lan.close()
        maria.page.evaluate("window.voice.stop()")  # her port is free for the next test


def test_a_full_port_range_is_explained_to_the_player_and_in_the_log(
    people: Crowd, small_voice: Server
) -> None:
    maria, yozh, ivan = (join(people, p) for p in ("Мария", "Ёж", "Иван"))
    table = maria.new_table("Голос без портов " + maria.name, "classic", 3)
    for each in (maria, yozh, ivan):
        each.open_table(table)
        each.sit()
    voice_on(maria)
    voice_on(yozh)  # the two ports of the range are taken now

    ivan.page.click("#mic")
    pw_expect(ivan.page.locator("#toast")).to_contain_text("VOICE_PORTS")
    small_voice.wait_for(re.compile(r"widen VOICE_PORTS"))
    ivan.page.wait_for_function("() => window.voice && window.voice.pc === null")
    pw_expect(ivan.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    # He is not left in the voice (his page left it again once the offer was refused).
    maria.page.wait_for_function(
        """async ([table, who]) => !(who in
            (await window.voice.signal("voice:members", { table })).members)""",
        arg=[table, ivan.name],
    )
    connected(maria.page)  # the others' voice goes on
