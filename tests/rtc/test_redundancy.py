"""Voice for lossy phones, with real Chromium pages: RED and NACK through the SFU.

- RED (RFC 2198): a page that has it prefers it (static/js/voice.js), so its mic sends Opus
  inside RED; the SFU forwards RED as it came to a listener that negotiated it and the
  primary frame, plain Opus, to one that did not (a browser without RED is played by a page
  whose offer has RED taken out).
- NACK: where the speaker's uplink lost packets, the SFU asks his page for them again; where
  a listener's downlink lost them, the SFU answers her page's NACK from the outgoing
  stream's history (docs/voice-protocol.md «Redundancy and retransmission»).

The losses come from tests/rtc/lossyrelay.py (10 %, seeded); the listeners of the NACK
tests have no RED, so what they are spared is retransmission's doing alone. The targets of
docs/performance.md are measured by benchmarks/bench_voice_browsers.py; these tests hold
the mechanism to a loose bound (half the applied loss) that plain forwarding cannot meet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from lossyrelay import LossyRelay
from playwright.sync_api import Browser, Page
from test_browser_voice import FLAGS, Signalling, browser, grows, hosted, open_player
from test_lossy_uplink import GROWN_SAMPLES, RelayedSignalling

__all__ = ["browser"]  # the Chromium fixture, shared with the other page tests

SPEAKER, LISTENER, OTHER = "Иван", "Мария", "Ёж"
LOSS = 0.10
#: Audio measured at the listener: 6 s (48 kHz), about 300 packets of the speaker.
WINDOW_SAMPLES = 288_000

# A browser without RED: its offers leave RED out (as Chrome's did before it had RED).
NO_RED = """(() => {
  const strip = (sdp) => {
    const red = [...sdp.matchAll(/^a=rtpmap:(\\d+) red\\/48000\\/2\\r?$/gm)].map((m) => m[1]);
    let out = sdp;
    for (const type of red) {
      out = out.replace(new RegExp(`^a=(rtpmap|fmtp|rtcp-fb):${type} .*\\r?\\n`, "gm"), "");
      out = out.replace(/^(m=audio \\S+ \\S+)((?: \\d+)+)\\r?$/gm, (line, head, types) =>
        head + types.split(" ").filter((t) => t && t !== type).map((t) => " " + t).join(""));
    }
    return out;
  };
  const set = RTCPeerConnection.prototype.setLocalDescription;
  RTCPeerConnection.prototype.setLocalDescription = function (description) {
    if (description?.type === "offer") description = { type: "offer", sdp: strip(description.sdp) };
    return set.call(this, description);
  };
})();"""

# The page's audio streams as its stats tell: NACKs, losses, concealment (and the codec,
# which Chromium names by what is inside RED).
STREAMS = """async (mid) => {
  const report = await voice.pc.getStats();
  const codecs = {};
  report.forEach((e) => { if (e.type === "codec") codecs[e.id] = e.mimeType.toLowerCase(); });
  let inbound = null, outbound = null;
  report.forEach((e) => {
    if (e.type === "inbound-rtp" && e.kind === "audio" && e.mid === mid) inbound = e;
    if (e.type === "outbound-rtp" && e.kind === "audio") outbound = e;
  });
  return {
    in: inbound && { codec: codecs[inbound.codecId], nacks: inbound.nackCount,
                     lost: inbound.packetsLost, concealed: inbound.concealedSamples,
                     total: inbound.totalSamplesReceived },
    out: outbound && { codec: codecs[outbound.codecId], nacks: outbound.nackCount,
                       resent: outbound.retransmittedPacketsSent },
  };
}"""


def streams(page: Page, mid: str | None = None) -> dict[str, Any]:
    return dict(page.evaluate(STREAMS, mid))


def without_red(browser: Browser, base: str, player: str) -> Page:
    """A page of a browser that has no RED."""
    context = browser.new_context()
    context.add_init_script(NO_RED)
    return open_player(context, base, quote(player))


def sfu_stats(signalling: Signalling) -> dict[str, int]:
    return dict(signalling.hub.supervisor.client.request("stats"))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Signalling]]:
    with hosted(tmp_path, Signalling) as running:
        yield running


def test_red_goes_as_it_came_to_red_listeners_and_as_opus_to_the_others(
    site: tuple[str, Signalling], browser: Browser
) -> None:
    base, signalling = site
    assert "--use-fake-device-for-media-stream" in FLAGS
    speaker = open_player(browser, base, quote(SPEAKER))
    listener = open_player(browser, base, quote(LISTENER))
    other = without_red(browser, base, OTHER)
    for page, name in ((listener, LISTENER), (other, OTHER)):
        grows(page, signalling.mid(name, SPEAKER))
    # The speaker's page preferred RED, and the SFU answered with it (its fmtp: Opus inside).
    answer = speaker.evaluate("voice.pc.remoteDescription.sdp")
    assert "red/48000/2" in answer and "useinbandfec=1" in answer
    # Chromium's stats name the codec inside RED («audio/opus»): the SFU counts what came.
    before = sfu_stats(signalling)
    assert before["red_received"] > 0  # his mic sends RED
    # Мария has RED: his packets reach her as they came. Ёж has none: the primary, as Opus.
    assert "red/48000" in listener.evaluate("voice.pc.remoteDescription.sdp")
    assert "red/48000" not in other.evaluate("voice.pc.remoteDescription.sdp")
    for page, name in ((listener, LISTENER), (other, OTHER)):
        grows(page, signalling.mid(name, SPEAKER))
    after = sfu_stats(signalling)
    assert after["red_sent"] > before["red_sent"]
    assert after["red_unwrapped"] > before["red_unwrapped"]
    # And Ёж, a publisher without RED, is heard by both.
    for page, name in ((speaker, SPEAKER), (listener, LISTENER)):
        grows(page, signalling.mid(name, OTHER))


def concealed_share(page: Page, mid: str) -> float:
    """The share of the next WINDOW_SAMPLES of `mid`'s audio that `page` concealed."""
    before = streams(page, mid)["in"]
    goal = before["total"] + WINDOW_SAMPLES
    assert int(page.evaluate(GROWN_SAMPLES, [mid, goal, 40_000])) >= goal
    after = streams(page, mid)["in"]
    return (after["concealed"] - before["concealed"]) / (after["total"] - before["total"])


def measured(relay: LossyRelay, page: Page, mid: str) -> tuple[float, float]:
    """(applied loss, concealed share) over one window."""
    dropped, relayed = relay.rtp_dropped, relay.rtp_relayed
    concealed = concealed_share(page, mid)
    applied = (relay.rtp_dropped - dropped) / (
        relay.rtp_dropped - dropped + relay.rtp_relayed - relayed
    )
    return applied, concealed


def test_the_sfu_asks_the_speaker_again_for_what_his_uplink_lost(
    tmp_path: Path, browser: Browser
) -> None:
    relay = LossyRelay(LOSS)
    try:
        with hosted(tmp_path, lambda hub: RelayedSignalling(hub, relays={SPEAKER: relay})) as (
            base,
            signalling,
        ):
            speaker = open_player(browser, base, quote(SPEAKER))
            listener = without_red(browser, base, LISTENER)
            mid = signalling.mid(LISTENER, SPEAKER)
            grows(listener, mid)
            applied, concealed = measured(relay, listener, mid)
            out = streams(speaker)["out"]
            print(f"uplink: applied {applied:.3f}, concealed {concealed:.3f}, {out}")
            assert 0.06 < applied < 0.14
            assert sfu_stats(signalling)["nacks_sent"] > 0
            assert out["nacks"] > 0 and out["resent"] > 0  # his page sent them again
            assert concealed <= 0.5 * applied
    finally:
        relay.close()


def test_the_sfu_answers_a_listeners_nack_from_its_history(
    tmp_path: Path, browser: Browser
) -> None:
    relay = LossyRelay(LOSS, downlink=True)
    try:
        with hosted(tmp_path, lambda hub: RelayedSignalling(hub, relays={LISTENER: relay})) as (
            base,
            signalling,
        ):
            open_player(browser, base, quote(SPEAKER))
            listener = without_red(browser, base, LISTENER)
            mid = signalling.mid(LISTENER, SPEAKER)
            grows(listener, mid)
            resent_before = sfu_stats(signalling)["retransmitted"]
            applied, concealed = measured(relay, listener, mid)
            inbound = streams(listener, mid)["in"]
            print(f"downlink: applied {applied:.3f}, concealed {concealed:.3f}, {inbound}")
            assert 0.06 < applied < 0.14
            assert inbound["nacks"] > 0
            assert sfu_stats(signalling)["retransmitted"] > resent_before
            assert concealed <= 0.5 * applied
    finally:
        relay.close()
