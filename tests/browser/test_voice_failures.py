"""Voice that cannot start says why, and the table never shows a member it does not have
(docs/hosting.md «Voice»): real Chromium pages against a real `svara serve`.

- A plain-http page on a LAN name (`svara.test`, mapped to loopback by Chromium's host
  resolver: 127.0.0.0/8 itself counts as a secure context) has no microphone API: the
  player reads that HTTPS is needed, and no `voice:join` reached the server.
- With every UDP port of `VOICE_PORTS` taken, the next player reads that voice is full,
  the server log names the setting to widen, and the others never see him in the voice,
  not even for a moment (he is in only once his peer is connected).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server
from tests.voicekit import free_udp_ports

from .conftest import Crowd, Player, gathered, launched, serving
from .test_voice import FLAGS, LOOPBACK, connected, join, voice_on

LAN_NAME = "svara.test"

VOICE_MARKS = ".mark.voice, .mark.muted, .mark.deaf"
# From now on, every moment `who`'s seat shows a voice mark on this page is kept (the page
# writes its regions anew on each state: any mark drawn, however briefly, is seen here).
WATCH_MARKS = """([who, marks]) => {
  window.marksOf = [];
  const look = () => {
    const seat = document.querySelector(`.seat[data-seat="${CSS.escape(who)}"]`);
    if (seat?.querySelector(marks)) window.marksOf.push(Date.now());
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true });
  look();
}"""


@pytest.fixture(scope="module")
def small_voice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(
        tmp_path_factory,
        "voice-failures",
        SVARA_VOICE_ADDRESSES=LOOPBACK,
        # Two ports: room for two players' voice (one port per peer on the one address).
        SVARA_VOICE_PORTS=free_udp_ports(2),
    ) as server:
        yield server


@pytest.fixture(scope="module")
def lan_chromium(driver: Playwright) -> Iterator[Browser]:
    with launched(driver, [*FLAGS, f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"]) as browser:
        yield browser


@pytest.fixture
def people(small_voice: Server, lan_chromium: Browser) -> Iterator[Crowd]:
    with gathered(small_voice, lan_chromium) as made:
        yield made


def caught_up(maria: Player) -> None:
    """A change of the table after everything before: maria turns her sound off and her page
    shows it, so every state sent before has been drawn."""
    maria.page.click("#listen")
    own = maria.page.locator(f'.seat[data-seat="{maria.name}"] .mark.deaf')
    pw_expect(own).to_have_count(1)


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
        # Drawn after his page gave up: a voice:join it sent would have been answered first.
        caught_up(maria)
        seat = maria.page.locator(f'.seat[data-seat="{ivan.name}"]')
        pw_expect(seat).to_be_visible()
        pw_expect(seat.locator(VOICE_MARKS)).to_have_count(0)
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
    for page_of in (maria, yozh):
        page_of.page.evaluate(WATCH_MARKS, [ivan.name, VOICE_MARKS])

    ivan.page.click("#mic")
    pw_expect(ivan.page.locator("#toast")).to_contain_text("VOICE_PORTS")
    small_voice.wait_for(re.compile(r"widen VOICE_PORTS"))
    ivan.page.wait_for_function("() => window.voice && window.voice.pc === null")
    pw_expect(ivan.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    # The others never saw him in the voice, not even for a moment: he is in only once his
    # peer is connected (docs/protocol.md «table:state»).
    caught_up(maria)
    for page_of in (maria, yozh):
        pw_expect(page_of.page.locator(f'.seat[data-seat="{ivan.name}"]')).to_be_visible()
        assert page_of.page.evaluate("window.marksOf") == []
    connected(maria.page)  # the others' voice goes on
