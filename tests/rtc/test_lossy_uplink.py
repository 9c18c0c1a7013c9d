"""A speaker's lossy uplink, with real Chromium pages: the SFU passes the loss on as it is.

«Иван»'s page reaches the SFU through a lossy UDP relay on loopback (tests/rtc/lossyrelay.py)
that drops 5 % of his RTP packets; «Мария» listens directly. Relaying each packet as it
arrives (docs/voice-protocol.md) leaves concealment to her browser, with Opus in-band FEC:
the share of his audio concealed at her page stays within 1.5 × the loss applied (aiortc's
jitter buffer, which the SFU no longer uses, multiplied it by 3–4), and the loss is visible
in her stats (packetsLost) only as far as the SFU's NACKs to his page did not recover it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lossyrelay import LossyRelay
from playwright.sync_api import Browser, Page
from test_browser_voice import Signalling, browser, grows, hosted, open_player

__all__ = ["browser"]  # the Chromium fixture, shared with the other page tests

SPEAKER, LISTENER = "Иван", "Мария"
OWN = ""  # the key of the page's own uplink (voice_quality.js)
LOSS = 0.05
#: Audio measured at the listener: 10 s (48 kHz), about 500 packets of the speaker.
WINDOW_SAMPLES = 480_000

INBOUND = """async (mid) => {
  let found = null;
  (await voice.pc.getStats()).forEach((entry) => {
    if (entry.type === "inbound-rtp" && entry.kind === "audio" && entry.mid === mid) found = entry;
  });
  return found && { concealed: found.concealedSamples, total: found.totalSamplesReceived,
                    lost: found.packetsLost };
}"""

GROWN_SAMPLES = """async ([mid, n, ms]) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    let total = 0;
    (await voice.pc.getStats()).forEach((entry) => {
      if (entry.type === "inbound-rtp" && entry.mid === mid) total = entry.totalSamplesReceived;
    });
    if (total >= n) return total;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return -1;
}"""


class RelayedSignalling(Signalling):
    """Signalling that routes some players' connections each through its own lossy relay
    (benchmarks/bench_voice_browsers.py relays several at different losses)."""

    def __init__(self, *args: Any, relays: dict[str, LossyRelay]) -> None:
        super().__init__(*args)
        self.relays = relays

    def answer(self, player: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        relay = self.relays.get(player)
        if event != "voice:offer" or relay is None:
            return super().answer(player, event, payload)
        offer = {**payload, "sdp": relay.offer(payload["sdp"])}
        reply = super().answer(player, event, offer)
        if reply.get("ok"):
            reply = {**reply, "sdp": relay.answer(reply["sdp"])}
        return reply


@pytest.fixture
def relayed_site(tmp_path: Path) -> Iterator[tuple[str, RelayedSignalling, LossyRelay]]:
    relay = LossyRelay(LOSS)
    try:
        with hosted(
            tmp_path, lambda hub: RelayedSignalling(hub, relays={SPEAKER: relay})
        ) as running:
            yield (*running, relay)
    finally:
        relay.close()


def inbound(page: Page, mid: str) -> dict[str, int]:
    stats = page.evaluate(INBOUND, mid)
    assert stats is not None, f"no inbound stream on slot {mid}"
    return stats


def test_uplink_loss_is_not_multiplied(
    relayed_site: tuple[str, RelayedSignalling, LossyRelay], browser: Browser
) -> None:
    base, signalling, relay = relayed_site
    speaker = open_player(browser, base, quote(SPEAKER))
    listener = open_player(browser, base, quote(LISTENER))
    mid = signalling.mid(LISTENER, SPEAKER)
    grows(listener, mid)  # his audio arrives (through the relay)
    for page in (speaker, listener):  # Opus in-band FEC asked for by the SFU's answer
        assert "useinbandfec=1" in page.evaluate("voice.pc.remoteDescription.sdp")
    # The relay is in his path: its drops are counted over the window below (applied loss),
    # not here, where his first few packets may all have passed.
    before, dropped_before = inbound(listener, mid), relay.rtp_dropped
    relayed_before = relay.rtp_relayed
    goal = before["total"] + WINDOW_SAMPLES
    assert int(listener.evaluate(GROWN_SAMPLES, [mid, goal, 40_000])) >= goal
    after = inbound(listener, mid)
    dropped = relay.rtp_dropped - dropped_before
    applied = dropped / (dropped + relay.rtp_relayed - relayed_before)
    concealed = (after["concealed"] - before["concealed"]) / (after["total"] - before["total"])
    print(f"applied loss {applied:.3f}, concealed {concealed:.3f}, lost {after['lost']}")
    assert 0.03 < applied < 0.07
    assert concealed <= 1.5 * applied
    # The SFU adds no loss of its own: what her browser misses is at most what the relay
    # dropped (the SFU asks his page again for it, tests/rtc/test_redundancy.py).
    assert after["lost"] - before["lost"] <= dropped
    speaker.close()


# Sample the connection marks (static/js/voice_quality.js) every 500 ms until the mark of
# `who` ("": the page's own uplink, OWN) is `level`; the last sample, whatever it says.
MARK_BECOMES = """async ([mid, speaker, who, level, ms]) => {
  const { QualityWatch } = await import("/static/js/voice_quality.js");
  voice.slots = new Map([[mid, speaker]]);  // what voice:slots says on the table page
  const watch = new QualityWatch();
  const end = Date.now() + ms;
  let marks = {};
  while (Date.now() < end) {
    await new Promise((wake) => setTimeout(wake, 500));
    marks = await watch.sample(voice);
    if (marks[who]?.level === level) break;
  }
  return marks;
}"""


def mark_becomes(page: Page, mid: str, who: str, level: str) -> dict[str, Any]:
    marks: dict[str, Any] = page.evaluate(MARK_BECOMES, [mid, SPEAKER, who, level, 20_000])
    assert marks.get(who, {}).get("level") == level, marks
    return marks


def test_the_connection_marks_degrade_with_the_loss(
    relayed_site: tuple[str, RelayedSignalling, LossyRelay], browser: Browser
) -> None:
    """A clean link marks «Иван» good at «Мария»'s page and on his own; a quarter of his
    packets lost, both marks turn poor (the listener's from her inbound stream's loss, his
    from what the SFU's receiver reports of his uplink)."""
    base, signalling, relay = relayed_site
    relay.loss = 0.0
    speaker = open_player(browser, base, quote(SPEAKER))
    listener = open_player(browser, base, quote(LISTENER))
    mid = signalling.mid(LISTENER, SPEAKER)
    grows(listener, mid)
    mark_becomes(listener, mid, SPEAKER, "good")
    mark_becomes(speaker, "", OWN, "good")
    relay.loss = 0.25
    heard = mark_becomes(listener, mid, SPEAKER, "poor")
    # «poor» from 8 % (voice_quality.js POOR); with the SFU's NACKs she misses only what
    # was lost again, and his own mark counts what the SFU asked for again.
    assert heard[SPEAKER]["loss"] >= 0.08
    own = mark_becomes(speaker, "", OWN, "poor")
    assert own[OWN]["loss"] >= 0.08
    speaker.close()
