"""Real Chromium pages with fake microphones talking through the real SFU (C-8.3).

A tiny loopback HTTP server plays the web process: it serves static/js/voice.js (and the
connection marks' voice_quality.js) and a bare page, and relays the page's signalling to
`app.voice.hub.VoiceHub` (which supervises the SFU process). Chromium runs headless with a
fake audio device; RTCPeerConnection stats (bytes and audio energy per receive slot) show
who hears whom.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from app.voice.client import VoiceError, VoiceUnavailable
from app.voice.hub import VoiceHub, start_hub

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
TABLE = 1
SEATS = 3
FLAGS = [
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE = f"""<!doctype html><meta charset="utf-8"><title>voice test</title>
<script type="module">
import {{ Voice }} from "/static/js/voice.js";
const query = new URLSearchParams(location.search);
const player = query.get("player");
const signal = (event, payload) =>
  fetch("/signal", {{ method: "POST", body: JSON.stringify({{ player, event, payload }}) }})
    .then((r) => r.json());
window.voice = new Voice({{ table: Number(query.get("table") || {TABLE}), signal }});
window.voiceReady = true;
</script>"""


class Signalling:
    """What the Socket.IO layer does for voice:* events, for seated players only (every
    table has `seats` seats; the benchmark seats more than the tests)."""

    seats = SEATS

    def __init__(self, hub: VoiceHub) -> None:
        self.hub = hub
        self.slots: dict[str, dict[str, str]] = {}  # player -> {speaker: mid}
        self.changed = threading.Condition()

    def deliver(self, name: str, table: int, player: str | None, payload: dict[str, Any]) -> None:
        if name == "voice:slots" and player is not None:
            with self.changed:
                self.slots[player] = {
                    s["player"]: s["mid"] for s in payload["slots"] if s["player"]
                }
                self.changed.notify_all()

    def answer(self, player: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        table = payload["table"]
        try:
            if event == "voice:join":
                return {"ok": True, **self.hub.join(table, player, self.seats)}
            if event == "voice:offer":
                return {
                    "ok": True,
                    "sdp": self.hub.offer(table, player, self.seats, payload["sdp"]),
                }
            if event == "voice:mic":
                self.hub.set_mic(table, player, payload["on"])
            elif event == "voice:listen":
                self.hub.set_listen(table, player, payload["on"])
            elif event == "voice:leave":
                self.hub.leave(table, player)
            return {"ok": True}
        except (VoiceError, VoiceUnavailable) as exc:
            return {"ok": False, "error": str(exc)}

    def mid(self, listener: str, speaker: str) -> str:
        with self.changed:
            assert self.changed.wait_for(lambda: speaker in self.slots.get(listener, {}), 20)
            return self.slots[listener][speaker]


SignallingT = TypeVar("SignallingT", bound=Signalling)


#: The page's modules served here: the voice client and the connection's marks.
SCRIPTS = ("voice.js", "voice_quality.js")


def serve(signalling: Signalling) -> ThreadingHTTPServer:
    scripts = {f"/static/js/{n}": (ROOT / "static" / "js" / n).read_bytes() for n in SCRIPTS}

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path in scripts:
                self._send(scripts[self.path], "text/javascript")
            else:
                self._send(PAGE.encode(), "text/html; charset=utf-8")

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = signalling.answer(request["player"], request["event"], request["payload"])
            self._send(json.dumps(reply).encode(), "application/json")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _sfu_up(hub: VoiceHub, within: float = 30.0) -> None:
    """Wait until the hub's SFU answers (it imports aiortc first: slow on a busy machine),
    so that a page's first `voice:join` does not meet «voice is restarting»."""
    assert hub.supervisor is not None
    end = time.monotonic() + within
    while True:
        try:
            hub.supervisor.client.request("ping")
            return
        except (VoiceError, VoiceUnavailable):
            if time.monotonic() > end:
                raise
            threading.Event().wait(0.05)


@contextmanager
def hosted(
    folder: Path,
    signalling: Callable[[VoiceHub], SignallingT],
    config: dict[str, Any] | None = None,
) -> Iterator[tuple[str, SignallingT]]:
    """A VoiceHub with its SFU (`config`: the app's VOICE_* settings, loopback by default),
    and the page server relaying to it through `signalling`."""
    holder: list[Signalling] = []
    hub = start_hub(
        config or {"VOICE_ADDRESSES": ["127.0.0.1"]},
        folder,
        lambda *event: holder[0].deliver(*event),
        spawn=lambda target, *args: threading.Thread(target=target, args=args, daemon=True).start(),
        sleep=lambda seconds: threading.Event().wait(seconds),
    )
    made = signalling(hub)
    holder.append(made)
    _sfu_up(hub)
    server = serve(made)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", made
    finally:
        server.shutdown()
        server.server_close()
        assert hub.supervisor is not None
        hub.supervisor.stop()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Signalling]]:
    with hosted(tmp_path, Signalling) as running:
        yield running


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_player(
    browser: Browser | BrowserContext, base: str, player: str, table: int = TABLE
) -> Page:
    page = browser.new_page()
    page.goto(f"{base}/?player={player}&table={table}")
    page.wait_for_function("() => window.voiceReady === true")
    page.evaluate("voice.start()")
    return page


SLOT_BYTES = "async (mid) => ((await voice.stats()).find((s) => s.mid === mid) || {}).bytes || 0"
SLOT_ENERGY = "async (mid) => ((await voice.stats()).find((s) => s.mid === mid) || {}).energy || 0"


def received(page: Page, mid: str) -> int:
    return int(page.evaluate(SLOT_BYTES, mid))


GROWN = """async ([mid, n, ms]) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const slot = (await voice.stats()).find((s) => s.mid === mid);
    if (slot && slot.bytes > n) return slot.bytes;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return -1;
}"""


def grows(page: Page, mid: str, by: int = 2000) -> None:
    """Wait (bounded to 20 s, polled in the page) until slot `mid` got `by` more bytes."""
    start = received(page, mid)
    assert int(page.evaluate(GROWN, [mid, start + by, 20000])) > start + by


SENT_PACKETS = """async () => {
  let sent = 0;
  (await voice.pc.getStats()).forEach((r) => {
    if (r.type === "outbound-rtp" && r.kind === "audio") sent += r.packetsSent;
  });
  return sent;
}"""


def sent(page: Page) -> int:
    """Audio packets the page's browser has sent to the SFU so far."""
    return int(page.evaluate(SENT_PACKETS))


def sends_nothing(page: Page, witness: tuple[Page, str]) -> None:
    """The page's browser sends no audio packet while the witness slot gets a second of
    audio: with the mic off, not even the host's SFU hears the player."""
    before = sent(page)
    grows(*witness, by=4000)
    assert sent(page) == before


def stays_silent(page: Page, mid: str, witness: tuple[Page, str]) -> None:
    """Slot `mid` of `page` gets nothing while the witness slot receives a second of audio."""
    grows(*witness, by=500)  # packets in flight land first
    before = received(page, mid)
    grows(*witness, by=4000)
    assert received(page, mid) == before


def test_three_pages_hear_each_other_and_the_toggles_work(
    site: tuple[str, Signalling], browser: Browser
) -> None:
    base, signalling = site
    pages = {name: open_player(browser, base, name) for name in "ABC"}
    mid = signalling.mid
    for listener in "ABC":
        for speaker in "ABC":
            if listener != speaker:
                grows(pages[listener], mid(listener, speaker))
                assert float(pages[listener].evaluate(SLOT_ENERGY, mid(listener, speaker))) > 0

    # mic off on A stops A's audio at B (and C), B still hears C
    pages["A"].evaluate("voice.setMic(false)")
    stays_silent(pages["B"], mid("B", "A"), witness=(pages["B"], mid("B", "C")))
    sends_nothing(pages["A"], witness=(pages["B"], mid("B", "C")))
    pages["A"].evaluate("voice.setMic(true)")
    grows(pages["B"], mid("B", "A"))

    # push-to-talk released: the mic stays on for the table, and A's browser sends nothing
    pages["A"].evaluate("voice.setTalk(false)")
    stays_silent(pages["B"], mid("B", "A"), witness=(pages["B"], mid("B", "C")))
    sends_nothing(pages["A"], witness=(pages["B"], mid("B", "C")))
    pages["A"].evaluate("voice.setTalk(true)")
    grows(pages["B"], mid("B", "A"))

    # listen off on B stops all audio at B, while A and C still hear each other
    pages["B"].evaluate("voice.setListen(false)")
    stays_silent(pages["B"], mid("B", "A"), witness=(pages["C"], mid("C", "A")))
    stays_silent(pages["B"], mid("B", "C"), witness=(pages["A"], mid("A", "C")))
    grows(pages["C"], mid("C", "A"))
    pages["B"].evaluate("voice.setListen(true)")
    grows(pages["B"], mid("B", "A"))

    # a reload rejoins voice: C's new page hears A and is heard by A
    pages["C"].reload()
    pages["C"].wait_for_function("() => window.voiceReady === true")
    pages["C"].evaluate("voice.start()")
    grows(pages["C"], mid("C", "A"))
    grows(pages["A"], mid("A", "C"))

    # listen only: a page starting with the mic off never opens it, hears, is not heard
    pages["C"].reload()
    pages["C"].wait_for_function("() => window.voiceReady === true")
    pages["C"].evaluate("voice.start({ mic: false })")
    grows(pages["C"], mid("C", "A"))
    assert pages["C"].evaluate("voice.micStream === null")
    assert sent(pages["C"]) == 0
    stays_silent(pages["A"], mid("A", "C"), witness=(pages["A"], mid("A", "B")))
    pages["C"].evaluate("voice.setMic(true)")
    grows(pages["A"], mid("A", "C"))


def test_a_microphone_track_that_ended_is_asked_for_again_when_voice_reconnects(
    site: tuple[str, Signalling], browser: Browser
) -> None:
    """A browser frozen for 40 s (or a laptop asleep) ends the mic's track; the fresh
    connection of a reconnect must not send that dead track (nothing would be heard): the
    microphone is asked for again (benchmarks/bench_voice_browsers.py found it)."""
    base, signalling = site
    speaker, listener = (
        open_player(browser, base, quote("Иван")),
        open_player(browser, base, quote("Мария")),
    )
    grows(listener, signalling.mid("Мария", "Иван"))
    speaker.evaluate("voice.micStream.getAudioTracks()[0].stop()")  # as the browser ends it
    speaker.evaluate("voice.start()")  # what a reconnect does
    assert speaker.evaluate("voice.micStream.getAudioTracks()[0].readyState") == "live"
    grows(listener, signalling.mid("Мария", "Иван"))


#: «Микрофон» pressed on a fresh page, and a restart (voice:restart, or a reconnect after a
#: dropped peer) cuts that start short once its connection exists: before the server heard
#: the press (the start's last `voice:mic`).
RESTARTED_WHILE_STARTING = """async () => {
  const starting = voice.start({ mic: true });
  await new Promise((made) => {
    const look = () => (voice.pc ? made() : setTimeout(look, 5));
    look();
  });
  voice.handle("voice:restart", { table: voice.table });
  await starting;
}"""


def test_a_restart_during_a_mic_press_keeps_the_mic_on_though_the_server_kept_it_off(
    site: tuple[str, Signalling], browser: Browser
) -> None:
    """C-8.3: the press says what the player wants. A restart of the voice that lands while
    a press of «Микрофон» is still connecting (the server kept the mic off from an earlier
    page) starts again with the mic on, tells the server, and the others hear him."""
    base, signalling = site
    listener = open_player(browser, base, quote("Мария"))
    for event, fields in (("voice:join", {}), ("voice:mic", {"on": False})):
        assert signalling.answer("Ёж", event, {"table": TABLE, **fields})["ok"]
    speaker = browser.new_page()
    speaker.goto(f"{base}/?player={quote('Ёж')}&table={TABLE}")
    speaker.wait_for_function("() => window.voiceReady === true")
    speaker.evaluate(RESTARTED_WHILE_STARTING)
    speaker.wait_for_function("() => voice.pc && voice.pc.connectionState === 'connected'")
    assert speaker.evaluate("voice.mic") is True
    grows(listener, signalling.mid("Мария", "Ёж"))
    assert signalling.answer("Ёж", "voice:join", {"table": TABLE})["mic"] is True


#: The page's microphone refuses once (as a device waking up does), then works.
REFUSES_ONCE = """() => {
  const devices = navigator.mediaDevices;
  const real = devices.getUserMedia.bind(devices);
  let refused = false;
  devices.getUserMedia = (constraints) => {
    if (refused) return real(constraints);
    refused = true;
    return Promise.reject(new DOMException("Could not start audio source", "NotReadableError"));
  };
}"""
#: The mic's source ends: the track is over and says so (`stop()` alone fires no "ended").
SOURCE_ENDS = """() => {
  const track = voice.micSender.track;
  track.stop();
  track.dispatchEvent(new Event("ended"));
}"""


def test_a_microphone_track_that_ends_while_sent_is_replaced_even_if_refused_at_first(
    site: tuple[str, Signalling], browser: Browser
) -> None:
    """The mic's track may also end just after a reconnect took it (the browser's audio
    wakes up later than its network, and may refuse at first): the page asks again, with
    backoff, and sends the new track on the same connection."""
    base, signalling = site
    speaker = open_player(browser, base, quote("Ёж"))
    listener = open_player(browser, base, quote("Мария"))
    mid = signalling.mid("Мария", "Ёж")
    grows(listener, mid)
    speaker.evaluate(REFUSES_ONCE)
    speaker.evaluate(SOURCE_ENDS)
    grows(listener, mid)
    assert speaker.evaluate("voice.micSender.track.readyState") == "live"
