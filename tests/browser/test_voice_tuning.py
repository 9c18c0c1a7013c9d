"""What a player tunes of the voice on his own device (static/js/voice_tuning.js): each
other player's volume and mute, push-to-talk, the mic's level meter, the microphone and the
output device, and the connection marks by the seats (docs/rules.md «The table in the
browser»). Real Chromium pages with fake microphones, the real server and SFU.

What reaches whom is read from the pages' RTCPeerConnection stats and <audio> elements,
never from sleeps: a sender's outbound packets stand still while a witness pair hears a
second of audio.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect as pw_expect

from .conftest import DESKTOP, PHONE, Crowd, Player
from .test_voice import (  # noqa: F401 - its fixtures
    EXPOSE_VOICE,
    WAIT_MS,
    connected,
    grows,
    join,
    voice_chromium,
    voice_crowd,
    voice_on,
    voice_web,
)

# Packets the page's mic sender has sent so far.
SENT = """async () => {
  let sent = 0;
  (await window.voice.pc.getStats()).forEach((e) => {
    if (e.type === "outbound-rtp" && e.kind === "audio") sent = e.packetsSent;
  });
  return sent;
}"""

# Wait until the mic sender sent `by` packets more than `before`; the count, or -1.
SENT_GROWS = """async ([before, by, ms]) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    let sent = 0;
    (await window.voice.pc.getStats()).forEach((e) => {
      if (e.type === "outbound-rtp" && e.kind === "audio") sent = e.packetsSent;
    });
    if (sent >= before + by) return sent;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return -1;
}"""


def audio_of(listener: Player, speaker: Player) -> str:
    return f'audio[data-voice-player="{speaker.name}"]'


def volume(listener: Player, speaker: Player) -> float:
    """The volume of the <audio> that plays `speaker` on `listener`'s page, once it exists."""
    selector = audio_of(listener, speaker)
    listener.page.wait_for_selector(selector, state="attached", timeout=WAIT_MS)
    return float(listener.page.eval_on_selector(selector, "el => el.volume"))


def has_volume(listener: Player, speaker: Player, value: float) -> None:
    listener.page.wait_for_function(
        "([sel, v]) => { const el = document.querySelector(sel);"
        " return el !== null && Math.abs(el.volume - v) < 1e-6; }",
        arg=[audio_of(listener, speaker), value],
        timeout=WAIT_MS,
    )


def open_sheet(player: Player) -> None:
    """«Настройки» in the top bar: the voice section is its first part."""
    player.page.click('[data-panel="settings-panel"]')
    pw_expect(player.page.locator("#voice-tuning")).to_be_visible()


def close_sheet(player: Player) -> None:
    player.page.click("#settings-panel [data-close]")
    pw_expect(player.page.locator("#settings-panel")).to_be_hidden()


def slide(player: Player, name: str, value: int) -> None:
    """Move the volume slider of `name` to `value` (the keyboard, as a player can: Home,
    then one step of 5 per press)."""
    slider = player.page.locator(f'[data-voice-volume="{name}"]')
    slider.focus()
    slider.press("Home")
    for _ in range(value // 5):
        slider.press("ArrowRight")
    pw_expect(slider).to_have_value(str(value))


def sent(player: Player) -> int:
    return int(player.page.evaluate(SENT))


def sends(player: Player, by: int = 25) -> None:
    """`player`'s mic sender sends `by` more packets (half a second of audio)."""
    got = player.page.evaluate(SENT_GROWS, [sent(player), by, WAIT_MS])
    assert got > 0, f"{player.name} sends nothing"


def sends_nothing(player: Player, witness: tuple[Player, Player]) -> None:
    """Not one packet leaves `player`'s mic sender while the witness pair hears a second of
    audio (after the packets in flight)."""
    grows(*witness, by=500)
    before = sent(player)
    grows(*witness, by=4000)
    assert sent(player) == before


def voice_table(crowd: Crowd, *names: str, seats: int = 3, phone: bool = False) -> list[Player]:
    """Players seated at a new table of the first one, each with voice on (the first on a
    phone when `phone`, the others on desktops)."""
    first = crowd.add(PHONE, names[0]) if phone else join(crowd, names[0])
    if phone:
        first.context.add_init_script(EXPOSE_VOICE)
    players = [first, *(join(crowd, name) for name in names[1:])]
    table = first.new_table("Голос " + first.name, "classic", seats)
    for player in players:
        player.open_table(table)
        player.sit()
        voice_on(player)
    return players


def test_volume_and_mute_of_each_player_are_the_listeners_own_and_kept(
    voice_crowd: Crowd,  # noqa: F811
    artifacts: Path,
) -> None:
    anna, boris, vera = voice_table(voice_crowd, "Аня", "Борис", "Вера")
    grows(anna, boris)
    assert volume(anna, boris) == 1.0

    # Boris at 40 % on anna's page only; vera stays at full volume.
    open_sheet(anna)
    rows = anna.page.locator("[data-voice-players] li")
    pw_expect(rows).to_have_count(2)
    slide(anna, boris.name, 40)
    has_volume(anna, boris, 0.4)
    assert volume(anna, vera) == 1.0

    # Vera muted on anna's page: her <audio> is silent here, marked by her seat here only,
    # and the server is not told (the slot still receives her audio, boris still hears her).
    anna.page.click(f'[data-voice-mute="{vera.name}"]')
    has_volume(anna, vera, 0.0)
    mark = f'.seat[data-seat="{vera.name}"] .mark.muted-here'
    pw_expect(anna.page.locator(mark)).to_have_count(1)
    pw_expect(anna.page.locator(f'[data-voice-volume="{vera.name}"]')).to_be_disabled()
    grows(anna, vera)
    grows(boris, vera)
    assert boris.page.locator(mark).count() == 0
    anna.page.set_viewport_size(PHONE)  # the sheet as a phone shows it
    anna.shot(artifacts, "voice-muted-sheet")
    close_sheet(anna)
    anna.shot(artifacts, "voice-muted")
    assert volume(boris, vera) == 1.0

    # A reload keeps both: the new <audio> elements get them again.
    anna.page.reload()
    connected(anna.page)
    has_volume(anna, boris, 0.4)
    has_volume(anna, vera, 0.0)
    pw_expect(anna.page.locator(mark)).to_have_count(1)

    # Unmuted: vera is back at full volume, the slider at its place.
    open_sheet(anna)
    pw_expect(anna.page.locator(f'[data-voice-volume="{boris.name}"]')).to_have_value("40")
    anna.page.click(f'[data-voice-mute="{vera.name}"]')
    has_volume(anna, vera, 1.0)
    pw_expect(anna.page.locator(mark)).to_have_count(0)
    for player in (anna, boris, vera):
        assert player.errors == []


def test_push_to_talk_sends_the_mic_only_while_held(voice_crowd: Crowd) -> None:  # noqa: F811
    anna, boris = voice_table(voice_crowd, "Ёж", "Мария")
    grows(boris, anna)

    # Push-to-talk on: anna's page sends nothing, yet her mic is on for the table.
    open_sheet(anna)
    anna.page.check('#voice-tuning input[name="ptt"]')
    close_sheet(anna)
    sends_nothing(anna, witness=(anna, boris))
    pw_expect(boris.page.locator(f'.seat[data-seat="{anna.name}"] .mark.muted')).to_have_count(0)

    # Space held (focus on the page, not in a text field): she is heard; let go: silence.
    anna.page.locator("#felt").click()
    anna.page.keyboard.down(" ")
    pw_expect(anna.page.locator("#mic")).to_have_attribute("data-talk", "on")
    sends(anna)
    grows(boris, anna)
    anna.page.keyboard.up(" ")
    pw_expect(anna.page.locator("#mic")).to_have_attribute("data-talk", "off")
    sends_nothing(anna, witness=(anna, boris))

    # Space on a focused button of the bar talks, and does not press the button.
    ready = anna.bar("Готов")
    ready.focus()
    anna.page.keyboard.down(" ")
    sends(anna)
    anna.page.keyboard.up(" ")
    sends_nothing(anna, witness=(anna, boris))
    pw_expect(anna.page.locator(f'.seat[data-seat="{anna.name}"] .mark.ready')).to_have_count(0)
    pw_expect(ready).to_have_count(1)

    # Space typed in the chat is a space, not a press of the mic.
    anna.page.click('[data-panel="chat-panel"]')
    anna.page.fill("#chat-input", "")
    anna.page.type("#chat-input", "да нет")
    pw_expect(anna.page.locator("#chat-input")).to_have_value("да нет")
    pw_expect(anna.page.locator("#mic")).to_have_attribute("data-talk", "off")
    anna.page.click("#chat-panel [data-close]")

    # «Микрофон» held with the mouse: heard while held; a click does not turn the mic off.
    anna.page.locator("#mic").hover()
    anna.page.mouse.down()
    sends(anna)
    anna.page.mouse.up()
    sends_nothing(anna, witness=(anna, boris))
    pw_expect(anna.page.locator("#mic")).to_have_attribute("aria-pressed", "true")

    # After a reload push-to-talk still holds: the rejoined voice sends nothing.
    anna.page.reload()
    connected(anna.page)
    grows(anna, boris)
    sends_nothing(anna, witness=(anna, boris))
    for player in (anna, boris):
        assert player.errors == []


def test_on_a_phone_the_mic_button_is_held(
    voice_crowd: Crowd,  # noqa: F811
    artifacts: Path,
) -> None:
    ivan, maria = voice_table(voice_crowd, "Иван", "Мария", phone=True)
    open_sheet(ivan)
    ivan.page.check('#voice-tuning input[name="ptt"]')
    close_sheet(ivan)
    sends_nothing(ivan, witness=(ivan, maria))
    # A finger on «Микрофон» (a touch as the phone's screen sends it, through DevTools).
    box = ivan.page.locator("#mic").bounding_box()
    assert box is not None
    finger = [{"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}]
    screen = ivan.context.new_cdp_session(ivan.page)
    screen.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": finger})
    pw_expect(ivan.page.locator("#mic")).to_have_attribute("data-talk", "on")
    sends(ivan)
    grows(maria, ivan)
    ivan.shot(artifacts, "voice-ptt-held")
    screen.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    pw_expect(ivan.page.locator("#mic")).to_have_attribute("data-talk", "off")
    pw_expect(ivan.page.locator("#mic")).to_have_attribute("aria-pressed", "true")
    sends_nothing(ivan, witness=(ivan, maria))
    assert ivan.errors == []


def test_meter_devices_and_quality_marks_with_screenshots(
    voice_crowd: Crowd,  # noqa: F811
    artifacts: Path,
) -> None:
    anna, boris = voice_table(voice_crowd, "Аня", "Борис", seats=4)
    grows(anna, boris)

    # The connection marks: by boris's seat (his stream here) and by anna's own (her uplink).
    for name in (boris.name, anna.name):
        mark = anna.page.locator(f'.seat[data-seat="{name}"] .mark.quality')
        pw_expect(mark).to_have_attribute("data-quality", "good", timeout=WAIT_MS)
        pw_expect(mark).to_have_attribute(
            "title", re.compile(r"^Связь хорошая \(потери 0 %, задержка \d+ мс")
        )

    open_sheet(anna)
    # The fake microphones are listed by name; the level meter moves with the fake audio.
    mics = anna.page.locator('[data-voice-device="mic"] option')
    pw_expect(mics.nth(1)).to_have_text("Fake Audio Input 1")
    levels = anna.page.evaluate(
        """async () => {
          const seen = new Set(); const end = Date.now() + 10000;
          const meter = document.querySelector("[data-voice-meter]");
          while (Date.now() < end && seen.size < 5) {
            seen.add(meter.value.toFixed(2));
            await new Promise((wake) => requestAnimationFrame(wake));
          }
          return [...seen].map(Number);
        }"""
    )
    assert len(levels) >= 5 and max(levels) > 0.2, levels
    outputs = anna.page.locator('[data-voice-device="out"] option')
    assert outputs.count() >= 2, outputs.all_inner_texts()

    # Another microphone: the sender's track is replaced on the same connection.
    anna.page.evaluate("() => { window.firstPc = window.voice.pc; }")
    anna.page.select_option('[data-voice-device="mic"]', label="Fake Audio Input 2")
    anna.page.wait_for_function(
        "() => window.voice.micSender.track?.label === 'Fake Audio Input 2'", timeout=WAIT_MS
    )
    assert anna.page.evaluate("() => window.voice.pc === window.firstPc")
    grows(boris, anna)

    # The sheet, at the phone sizes and on a desktop.
    for size in (PHONE, {"width": 390, "height": 844}, DESKTOP):
        anna.page.set_viewport_size(size)
        anna.shot(artifacts, "voice-sheet")
    # In English (and Bulgarian, tests/test_i18n_keys.py): the sheet and the marks' words.
    anna.page.set_viewport_size(PHONE)
    anna.page.locator("#settings-panel").get_by_label("English").check()
    pw_expect(anna.page.locator("#voice-tuning h3")).to_have_text("Voice")
    pw_expect(anna.page.locator('[data-voice-device="mic"] option').first).to_have_text("Default")
    pw_expect(anna.page.locator(f'[data-voice-mute="{boris.name}"]')).to_have_attribute(
        "aria-label", f"Mute: {boris.name}"
    )
    anna.shot(artifacts, "voice-sheet-en")
    close_sheet(anna)
    pw_expect(
        anna.page.locator(f'.seat[data-seat="{boris.name}"] .mark.quality')
    ).to_have_attribute("title", re.compile(r"^Good connection \(loss 0 %"))
    anna.shot(artifacts, "voice-marks")
    anna.page.set_viewport_size(DESKTOP)
    anna.shot(artifacts, "voice-marks")
    for player in (anna, boris):
        assert player.errors == []


# Sample the connection marks every 250 ms for `ms`: the levels of `who` ("" for the page's
# own uplink) and the largest jitter seen.
MARKS_FOR = """async ([who, ms]) => {
  const { QualityWatch } = await import("/static/js/voice_quality.js");
  const watch = new QualityWatch();
  const levels = [];
  let jitter = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const mark = (await watch.sample(window.voice))[who];
    if (mark) {
      levels.push(mark.level);
      jitter = Math.max(jitter, mark.jitter);
    }
    await new Promise((wake) => setTimeout(wake, 250));
  }
  return { levels, jitter };
}"""
SPACE = "([kind]) => document.dispatchEvent(new KeyboardEvent(kind, { key: ' ', bubbles: true }))"


def test_a_push_to_talk_press_is_not_taken_for_a_bad_connection(
    voice_crowd: Crowd,  # noqa: F811
) -> None:
    """A stream that starts again shows a burst of jitter in the stats (its timestamps do not
    match the silence); the marks leave it out, so each press does not flash «плохая»."""
    ivan, maria = voice_table(voice_crowd, "Иван", "Мария")
    open_sheet(ivan)
    ivan.page.check('#voice-tuning input[name="ptt"]')
    close_sheet(ivan)
    for who, page in (("", ivan.page), (ivan.name, maria.page)):
        sends_nothing(ivan, witness=(ivan, maria))
        ivan.page.evaluate(SPACE, ["keydown"])
        pw_expect(ivan.page.locator("#mic")).to_have_attribute("data-talk", "on")
        seen = page.evaluate(MARKS_FOR, [who, 6000])
        ivan.page.evaluate(SPACE, ["keyup"])
        assert seen["levels"] and set(seen["levels"]) == {"good"}, (who, seen)
    assert ivan.errors == [] and maria.errors == []


# The processing the page's sent mic track runs with, as the browser reports it.
PROCESSING_NOW = """() => {
  const s = window.voice.micSender.track?.getSettings() ?? {};
  return [s.echoCancellation, s.noiseSuppression, s.autoGainControl];
}"""


def test_the_mic_processing_is_asked_for_and_switched_in_the_sheet(
    voice_crowd: Crowd,  # noqa: F811
    artifacts: Path,
) -> None:
    """Echo cancellation, noise suppression and automatic gain are asked for explicitly and
    each can be switched off in the sheet (a headset player may not want noise suppression):
    the mic is opened again in place, on the same connection, and the choice is kept."""
    ivan, maria = voice_table(voice_crowd, "Иван", "Мария")
    grows(maria, ivan)
    assert ivan.page.evaluate(PROCESSING_NOW) == [True, True, True]
    open_sheet(ivan)
    boxes = ivan.page.locator("[data-voice-processing] input")
    pw_expect(boxes).to_have_count(3)
    for i in range(3):
        pw_expect(boxes.nth(i)).to_be_checked()
    ivan.page.evaluate("() => { window.firstPc = window.voice.pc; }")
    ivan.page.get_by_label("Шумоподавление", exact=False).uncheck()
    ivan.page.wait_for_function(
        "() => window.voice.micSender.track?.getSettings().noiseSuppression === false",
        timeout=WAIT_MS,
    )
    assert ivan.page.evaluate(PROCESSING_NOW) == [True, False, True]
    assert ivan.page.evaluate("() => window.voice.pc === window.firstPc")
    grows(maria, ivan)  # Maria still hears him, through the new track
    ivan.page.set_viewport_size({"width": 390, "height": 844})
    ivan.shot(artifacts, "voice-processing")
    # Kept on this device: after a reload the mic opens without noise suppression.
    ivan.page.reload()
    connected(ivan.page)
    ivan.page.wait_for_function("() => window.voice?.micSender?.track", timeout=WAIT_MS)
    assert ivan.page.evaluate(PROCESSING_NOW) == [True, False, True]
    open_sheet(ivan)
    pw_expect(ivan.page.get_by_label("Шумоподавление", exact=False)).not_to_be_checked()
    assert ivan.errors == [] and maria.errors == []


# A headset unplugged, as the browser tells it: the chosen device is no longer listed, a
# request for it exactly fails (an ideal one gets another device), its live track ends by
# itself, and "devicechange" fires. The fake devices of Chromium cannot be unplugged.
UNPLUG = """() => {
  const media = navigator.mediaDevices;
  const track = window.voice.micSender.track;
  const gone = track.getSettings().deviceId;
  const list = media.enumerateDevices.bind(media);
  media.enumerateDevices = async () => (await list()).filter((d) => d.deviceId !== gone);
  const open = media.getUserMedia.bind(media);
  media.getUserMedia = async (asked) => {
    const id = asked?.audio?.deviceId;
    if (id && (id.exact ?? id.ideal ?? id) === gone) {
      if (id.exact) throw new DOMException("the device is gone", "OverconstrainedError");
      const { deviceId, ...audio } = asked.audio;
      return open({ ...asked, audio });
    }
    return open(asked);
  };
  track.stop();
  track.dispatchEvent(new Event("ended"));
  media.dispatchEvent(new Event("devicechange"));
  return gone;
}"""


def test_an_unplugged_microphone_gives_way_to_the_default_one(
    voice_crowd: Crowd,  # noqa: F811
) -> None:
    """The chosen headset is unplugged while Ёж talks: his page takes the default microphone
    on the same connection, says so, and Мария hears him again."""
    ezh, maria = voice_table(voice_crowd, "Ёж", "Мария")
    open_sheet(ezh)
    ezh.page.select_option('[data-voice-device="mic"]', label="Fake Audio Input 2")
    ezh.page.wait_for_function(
        "() => window.voice.micSender.track?.label === 'Fake Audio Input 2'", timeout=WAIT_MS
    )
    grows(maria, ezh)
    gone = ezh.page.evaluate(UNPLUG)
    ezh.page.wait_for_function(
        "(gone) => { const t = window.voice.micSender.track;"
        " return t && t.readyState === 'live' && t.getSettings().deviceId !== gone; }",
        arg=gone,
        timeout=WAIT_MS,
    )
    pw_expect(ezh.page.locator("#toast")).to_contain_text("Микрофон отключён")
    sends(ezh)
    grows(maria, ezh)
    assert ezh.errors == [] and maria.errors == []
