"""Voice at a real table (C-8.3): headless Chromium pages with fake microphones,
the real `svara serve` and its supervised SFU, the table page's own «Микрофон» and «Звук»
toggles (static/js/table.js).

Who hears whom is read from each page's RTCPeerConnection stats: per receive slot, the bytes
and the audio energy received, and which player the slot carries (the `voice:slots` the
server sent). An init script only exposes the page's `Voice` object as `window.voice`; the
page itself is unchanged. Everything waits on those stats with timeouts, never on sleeps.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Playwright
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server
from tests.server.voice.test_serve_voice import admin

from .conftest import DESKTOP, PASSWORD, Crowd, Player, gathered, launched, serving

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 20_000
#: `SVARA_VOICE_ADDRESSES` of a server whose SFU offers loopback to ICE.
LOOPBACK = '["127.0.0.1"]'

# The page's Voice object as window.voice, set by Voice.start (the module is shared with the
# page's own lazy import of ./voice.js).
EXPOSE_VOICE = """
if (location.pathname.startsWith("/table/")) {
  import("/static/js/voice.js").then(({ Voice }) => {
    const start = Voice.prototype.start;
    Voice.prototype.start = function (...args) {
      window.voice = this;
      return start.apply(this, args);
    };
  });
}
"""

# Bytes received so far, per receive slot (by mid).
SNAPSHOT = """async () => Object.fromEntries(
  (window.voice ? await window.voice.stats() : []).map((s) => [s.mid, s.bytes]))"""

BYTES_OF = """async (who) => ((window.voice ? await window.voice.stats() : [])
  .find((s) => s.player === who) || {}).bytes || 0"""

# Wait until the slot that carries `who` got `by` more bytes than in `before` and more audio
# energy than when this started; its byte count, or -1 after `ms`.
GROWS = """async ([who, before, by, ms]) => {
  const end = Date.now() + ms;
  const slotOf = async () => (window.voice ? await window.voice.stats() : [])
    .find((s) => s.player === who);
  const first = await slotOf();
  const energy = first ? first.energy : 0;
  while (Date.now() < end) {
    const slot = await slotOf();
    const grown = slot && slot.bytes > (before[slot.mid] || 0) + by;
    if (grown && slot.energy > energy) return slot.bytes;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return -1;
}"""


@pytest.fixture(scope="module")
def voice_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real server whose SFU offers loopback to ICE (the pages are on this machine)."""
    with serving(tmp_path_factory, "voice-instance", SVARA_VOICE_ADDRESSES=LOOPBACK) as server:
        yield server


@pytest.fixture(scope="module")
def voice_chromium(driver: Playwright) -> Iterator[Browser]:
    with launched(driver, FLAGS) as browser:
        yield browser


@pytest.fixture
def voice_crowd(voice_web: Server, voice_chromium: Browser) -> Iterator[Crowd]:
    with gathered(voice_web, voice_chromium) as made:
        yield made


def join(crowd: Crowd, prefix: str) -> Player:
    player = crowd.add(DESKTOP, prefix)
    player.context.add_init_script(EXPOSE_VOICE)
    return player


def second_device(crowd: Crowd, player: Player, table: int) -> Player:
    """The same account logged in from another browser, straight onto the table."""
    context = crowd.chromium.new_context(viewport=DESKTOP, locale="ru-RU")
    context.add_init_script(EXPOSE_VOICE)
    again = Player(player.name, context, context.new_page(), player.base)
    crowd.made.append(again)
    again.watch()
    again.page.goto(f"{player.base}/login?next=/table/{table}")
    again.page.fill("input[name=name]", player.name)
    again.page.fill("input[name=password]", PASSWORD)
    again.page.click("form button[type=submit]")
    pw_expect(again.page.locator(".seat").first).to_be_visible()
    return again


def voice_on(player: Player) -> None:
    """«Микрофон» pressed: voice starts (mic on) and the connection to the SFU is up."""
    player.page.click("#mic")
    connected(player.page)
    pw_expect(player.page.locator("#mic")).to_have_attribute("aria-pressed", "true")


def connected(page: Page) -> None:
    page.wait_for_function(
        "() => window.voice && window.voice.pc && window.voice.pc.connectionState === 'connected'",
        timeout=WAIT_MS,
    )


def grows(listener: Player, speaker: Player, by: int = 2000) -> None:
    """`listener` receives `by` more bytes, and more audio energy, from `speaker`."""
    page = listener.page
    before = page.evaluate(SNAPSHOT)
    got = page.evaluate(GROWS, [speaker.name, before, by, WAIT_MS])
    assert got > 0, f"{listener.name} does not hear {speaker.name}"


def received(listener: Player, speaker: Player) -> int:
    """Bytes `listener` got so far in the slot that carries `speaker`."""
    return int(listener.page.evaluate(BYTES_OF, speaker.name))


def stays_silent(listener: Player, speaker: Player, witness: tuple[Player, Player]) -> None:
    """Nothing of `speaker` reaches `listener` while the witness pair hears a second of audio
    (packets already in flight land first)."""
    grows(*witness, by=500)
    before = received(listener, speaker)
    grows(*witness, by=4000)
    assert received(listener, speaker) == before


def test_seated_players_hear_each_other_with_the_toggles_and_a_reload(
    voice_crowd: Crowd,
) -> None:
    anna, boris, vera, sam = (join(voice_crowd, p) for p in ("anna", "boris", "vera", "sam"))
    table = anna.new_table("Голос " + anna.name, "classic", 3)
    for player in (anna, boris, vera, sam):
        player.open_table(table)

    # Two seated players hear each other.
    for player in (anna, boris):
        player.sit()
        voice_on(player)
    grows(anna, boris)
    grows(boris, anna)

    # A third: everyone hears both others.
    vera.sit()
    voice_on(vera)
    for listener, speaker in [(a, b) for a in (anna, boris, vera) for b in (anna, boris, vera)]:
        if listener is not speaker:
            grows(listener, speaker)

    # Mic off on anna: boris gets nothing of her, while he still hears vera.
    anna.page.click("#mic")
    pw_expect(anna.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    stays_silent(boris, anna, witness=(boris, vera))
    anna.page.click("#mic")
    grows(boris, anna)

    # Listen off on boris: nothing reaches him, while anna and vera hear each other.
    boris.page.click("#listen")
    pw_expect(boris.page.locator("#listen")).to_have_attribute("aria-pressed", "false")
    stays_silent(boris, anna, witness=(vera, anna))
    stays_silent(boris, vera, witness=(anna, vera))
    boris.page.click("#listen")
    grows(boris, anna)
    grows(boris, vera)

    # A reload rejoins the voice by itself (the page remembers voice was on).
    vera.page.reload()
    connected(vera.page)
    grows(vera, anna)
    grows(anna, vera)

    # A second login of vera takes over (C-8.2): her old page's voice ends, and the new
    # device's voice is heard once she presses «Микрофон» there.
    old = vera.page
    vera = second_device(voice_crowd, vera, table)
    pw_expect(old.locator("[data-net]")).to_be_visible()
    assert old.evaluate("window.voice.pc === null")
    voice_on(vera)
    grows(anna, vera)
    grows(vera, boris)

    # A spectator gets nothing: his «Микрофон» is refused and no connection is made.
    sam.page.click("#mic")
    pw_expect(sam.page.locator("#toast")).to_contain_text("voice is for the players seated")
    assert sam.page.evaluate("window.voice.pc === null")
    assert sam.page.locator("audio").count() == 0

    # Standing up ends the voice: the others' slot for him is freed.
    boris.page.click("#leave")
    anna.page.wait_for_function(
        "who => ![...window.voice.slots.values()].includes(who)",
        arg=boris.name,
        timeout=WAIT_MS,
    )

    # Kicked by the admin: the server ends his voice, and so does his page (no stale peer).
    admin(voice_crowd.server, "table", "kick", str(table), vera.name)
    vera.page.wait_for_function("() => window.voice.pc === null", timeout=WAIT_MS)
    pw_expect(vera.page.locator("#mic")).to_have_attribute("aria-pressed", "false")
    anna.page.wait_for_function(
        "who => ![...window.voice.slots.values()].includes(who)",
        arg=vera.name,
        timeout=WAIT_MS,
    )
    for player in (anna, vera):
        assert player.errors == []


def test_toggles_kept_off_show_to_later_players_and_a_first_mic_press_turns_it_on(
    voice_crowd: Crowd,
) -> None:
    """The `members` of the voice:join reply mark those who joined earlier (docs/protocol.md
    «voice:join»), and a first press of «Микрофон» turns the mic on even where the server
    kept it off (C-8.3: the toggles survive reconnects, the press says what the player wants)."""
    anna, boris = join(voice_crowd, "anna"), join(voice_crowd, "boris")
    table = anna.new_table("Голос " + anna.name, "classic", 3)
    anna.open_table(table)
    anna.sit()
    anna.page.click("#listen")  # «Звук» alone: anna is in the voice with her mic off
    connected(anna.page)
    pw_expect(anna.page.locator("#mic")).to_have_attribute("aria-pressed", "false")

    # Boris comes later: the table state he is sent on sitting down shows her mark.
    boris.open_table(table)
    boris.sit()
    voice_on(boris)
    anna_seen = boris.page.locator(f'.seat[data-seat="{anna.name}"]')
    pw_expect(anna_seen.locator(".mark.muted")).to_have_count(1)

    # Anna on another device (no voice there yet; the server kept her mic off): her first
    # «Микрофон» starts voice with the mic on, boris hears her and her muted mark goes.
    anna = second_device(voice_crowd, anna, table)
    voice_on(anna)
    pw_expect(anna_seen.locator(".mark.muted")).to_have_count(0)
    grows(boris, anna)
    for player in (anna, boris):
        assert player.errors == []
