// The listener's own voice settings (docs/rules.md «The table in the browser»): the volume
// and mute of each other player, the microphone and the output device, a level meter of
// one's own mic, push-to-talk, and the connection marks by the seats. All of it is local
// to this device (localStorage, keyed by the other player's account name): nobody else
// sees it and the server is not told (a muted player still speaks to the others).
//
// The table page (table.js) gives the section of its settings panel and asks for the
// Voice object when it needs it; the Voice (voice.js) is touched only through its hooks
// (onAudio, setTalk, useMic).

import { storedObject } from "./settings.js";
import { OWN, QualityWatch, qualityMark, qualityTitle } from "./voice_quality.js";

const KEY = "svara.voice.tuning";
/** How often the connection marks are measured while voice is on. */
const QUALITY_MS = 2000;
/** The push-to-talk key on a desktop (said in the sheet: voice_ptt_hint). */
const PTT_KEY = " ";

/** What the browser does to the mic's sound, each asked for explicitly and on unless the
 * player switched it off here (a headset player may not want noise suppression). */
export const PROCESSING = Object.freeze(["echoCancellation", "noiseSuppression", "autoGainControl"]);
const TUNING_DEFAULTS = Object.freeze({ volume: {}, muted: {}, mic: "", out: "", ptt: false, processing: {} });

/** The stored tuning over the defaults (wrong types dropped, volumes clamped to 0..100). */
export function loadTuning(storage = globalThis.localStorage) {
  const stored = storedObject(KEY, storage);
  const out = { ...TUNING_DEFAULTS, volume: {}, muted: {}, processing: {} };
  for (const [name, v] of Object.entries(stored.volume || {})) {
    if (Number.isFinite(v)) out.volume[name] = Math.min(100, Math.max(0, Math.round(v)));
  }
  for (const [name, v] of Object.entries(stored.muted || {})) if (v === true) out.muted[name] = true;
  for (const k of ["mic", "out"]) if (typeof stored[k] === "string") out[k] = stored[k];
  out.ptt = stored.ptt === true;
  for (const k of PROCESSING) out.processing[k] = stored.processing?.[k] !== false;
  return out;
}

const editable = (el) => el?.closest?.("input, textarea, select, [contenteditable]") != null;

export class VoiceTuning {
  /**
   * @param {object} options
   * @param {HTMLElement} options.root   the sheet's section (templates/table.html)
   * @param {HTMLElement} options.micButton  «Микрофон»: held for push-to-talk
   * @param {() => object|null} options.voice   the page's Voice, or null
   * @param {() => (key: string, params?: object) => string} options.t  the translator
   * @param {() => void} options.onMarks  the seats' marks changed: draw again
   * @param {(text: string) => void} [options.say]  a short note to the player
   */
  constructor({ root, micButton, voice, t, onMarks, say = () => {}, storage = globalThis.localStorage }) {
    this.root = root;
    this.micButton = micButton;
    this.voice = voice;
    this.t = t;
    this.onMarks = onMarks;
    this.say = say;
    this.storage = storage;
    this.prefs = loadTuning(storage);
    this.quality = {};
    this.watch = new QualityWatch();
    this.names = [];
    this.meter = null;
    this.held = false;
    this.#bind();
    this.#showPtt();
    this.#showProcessing();
    setInterval(() => this.#measure(), QUALITY_MS);
    // Another language: the mic's title again (after the page's words), rows and lists anew.
    globalThis.addEventListener("svara-settings", () => {
      this.names = [];
      setTimeout(() => {
        this.#showPtt();
        if (this.meter) this.#devices();
      });
    });
  }

  save() {
    this.storage?.setItem(KEY, JSON.stringify(this.prefs));
  }

  /** The volume of `player` here, 0..1 (0 while he is muted here). */
  gain(player) {
    if (this.prefs.muted[player]) return 0;
    return (this.prefs.volume[player] ?? 100) / 100;
  }

  /** The constraints a new Voice opens the mic with: the chosen one if it is still there
   * (voice.js falls back to the default microphone when it is not), processed as chosen. */
  constraints() {
    const audio = { ...this.prefs.processing };
    if (this.prefs.mic) audio.deviceId = { ideal: this.prefs.mic };
    return { audio };
  }

  /** The voice's mic gave up the chosen device (unplugged): said once, the list read again. */
  micLost() {
    this.say(this.t()("voice_mic_fallback"));
    this.#devices();
  }

  /** Before `voice.start`: with push-to-talk the mic is let through only while held. */
  prepare(voice) {
    voice.talk = !this.prefs.ptt || this.held;
  }

  /** Each slot's <audio>: its player's volume here, and the chosen output device. */
  apply(voice = this.voice()) {
    if (!voice) return;
    for (const [mid, element] of voice.audio) {
      const player = voice.slots.get(mid) ?? null;
      element.dataset.voicePlayer = player ?? "";
      element.volume = player ? this.gain(player) : 1;
      if (element.setSinkId && element.sinkId !== this.prefs.out) {
        element.setSinkId(this.prefs.out).catch(() => {});
      }
    }
  }

  /** With push-to-talk on, «Микрофон» of a running voice with the mic on is held, not
   * toggled (with the mic off a press still turns it on, to be held from then on). */
  holdsMic() {
    const voice = this.voice();
    return this.prefs.ptt && Boolean(voice?.pc && voice.mic);
  }

  /** One seat's marks (render.js): its connection, «заглушён здесь». */
  seatMarks(name, t, me) {
    let html = qualityMark(this.quality[name === me ? OWN : name], t);
    if (this.prefs.muted[name] && name !== me) {
      html += `<span class="mark muted-here" title="${t("voice_muted_here")}">${MUTED_ICON}</span>`;
    }
    return html;
  }

  // --- the sheet -------------------------------------------------------------------------

  /** The sheet is shown: devices listed, the meter running, the players' rows drawn. */
  open(names) {
    this.players(names);
    this.#devices();
    this.#startMeter();
    this.#showPtt();
    this.#showProcessing();
  }

  close() {
    if (this.meter) cancelAnimationFrame(this.meter.frame);
    this.meter?.context.close().catch(() => {});
    this.meter = null;
  }

  /** The other seated players' rows (a row keeps its slider while the names stay). */
  players(names) {
    if (names.join("\n") === this.names.join("\n")) return;
    this.names = names;
    const t = this.t();
    const list = this.root.querySelector("[data-voice-players]");
    list.replaceChildren();
    this.root.querySelector("[data-voice-nobody]").hidden = names.length > 0;
    for (const name of names) {
      const row = document.createElement("li");
      row.dataset.voicePlayer = name;
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = name;
      const mute = document.createElement("button");
      mute.type = "button";
      mute.className = "icon-btn toggle";
      mute.dataset.voiceMute = name;
      mute.innerHTML = LISTEN_ICON;
      const range = document.createElement("input");
      range.type = "range";
      range.min = "0";
      range.max = "100";
      range.step = "5";
      range.dataset.voiceVolume = name;
      range.setAttribute("aria-label", t("voice_volume", { name }));
      row.append(who, mute, range);
      list.append(row);
    }
    this.#showPlayers();
  }

  #showPlayers() {
    const t = this.t();
    for (const row of this.root.querySelectorAll("[data-voice-players] li")) {
      const name = row.dataset.voicePlayer;
      const muted = Boolean(this.prefs.muted[name]);
      const mute = row.querySelector("[data-voice-mute]");
      mute.setAttribute("aria-pressed", String(!muted));
      const label = t(muted ? "voice_unmute_player" : "voice_mute_player", { name });
      mute.setAttribute("aria-label", label);
      mute.title = label;
      const range = row.querySelector("[data-voice-volume]");
      range.value = String(this.prefs.volume[name] ?? 100);
      range.disabled = muted;
    }
  }

  #bind() {
    this.root.addEventListener("input", (ev) => {
      const name = ev.target.dataset?.voiceVolume;
      if (name === undefined) return;
      this.prefs.volume[name] = Number(ev.target.value);
      this.#changed();
    });
    this.root.addEventListener("click", (ev) => {
      const name = ev.target.closest?.("[data-voice-mute]")?.dataset.voiceMute;
      if (name === undefined) return;
      if (this.prefs.muted[name]) delete this.prefs.muted[name];
      else this.prefs.muted[name] = true;
      this.#changed();
      this.onMarks();
    });
    this.root.addEventListener("change", (ev) => {
      const which = ev.target.dataset?.voiceDevice;
      if (which === "mic") this.#useMic(ev.target.value);
      else if (which === "out") {
        this.prefs.out = ev.target.value;
        this.#changed();
      } else if (ev.target.name === "ptt") this.#setPtt(ev.target.checked);
      else if (PROCESSING.includes(ev.target.name)) this.#setProcessing(ev.target.name, ev.target.checked);
    });
    navigator.mediaDevices?.addEventListener?.("devicechange", () => this.#deviceChange());
    this.#bindPtt();
  }

  #changed() {
    this.save();
    this.apply();
    this.#showPlayers();
  }

  async #useMic(deviceId) {
    this.prefs.mic = deviceId;
    this.save();
    // Refused or gone meanwhile: the old mic goes on, and the list is read again.
    await this.voice()?.useMic(deviceId).catch(() => this.#devices());
  }

  #setProcessing(name, on) {
    this.prefs.processing[name] = on;
    this.save();
    // The open mic is opened again with it (browsers do not switch it on a live track).
    this.voice()?.setProcessing(this.prefs.processing).catch(() => this.#devices());
  }

  #showProcessing() {
    for (const name of PROCESSING) {
      const box = this.root.querySelector(`[data-voice-processing] input[name="${name}"]`);
      if (box) box.checked = this.prefs.processing[name];
    }
  }

  /** A device came or went: the lists anew; the chosen microphone unplugged while it was
   * sent gives way to the default one (said once), and is taken again when it is back. */
  async #deviceChange() {
    const inputs = await this.#devices();
    const voice = this.voice();
    const chosen = this.prefs.mic;
    if (!voice?.micStream || !chosen || !inputs) return;
    const using = voice.micStream.getAudioTracks()[0]?.getSettings().deviceId;
    const present = inputs.some((d) => d.deviceId === chosen);
    if (!present && using === chosen) {
      await voice.useMic("").catch(() => {});
      this.micLost();
    } else if (present && using !== chosen) {
      await voice.useMic(chosen).catch(() => {});
    }
  }

  /** The microphones and outputs the browser names (names only once the mic was allowed);
   * the microphones are returned. */
  async #devices() {
    const media = navigator.mediaDevices;
    if (!media?.enumerateDevices) return null;
    const t = this.t();
    const devices = (await media.enumerateDevices()).filter((d) => d.deviceId);
    const outputs = Boolean(globalThis.HTMLMediaElement?.prototype.setSinkId);
    this.root.querySelector("[data-voice-no-output]").hidden = outputs;
    for (const [kind, which] of [["audioinput", "mic"], ["audiooutput", "out"]]) {
      const select = this.root.querySelector(`[data-voice-device="${which}"]`);
      select.closest("label").hidden = which === "out" && !outputs;
      const options = [new Option(t("voice_default_device"), "")];
      devices
        .filter((d) => d.kind === kind && d.deviceId !== "default")
        .forEach((d, i) => options.push(new Option(d.label || t("voice_device_n", { n: i + 1 }), d.deviceId)));
      select.replaceChildren(...options);
      select.value = options.some((o) => o.value === this.prefs[which]) ? this.prefs[which] : "";
    }
    return devices.filter((d) => d.kind === "audioinput");
  }

  // --- the meter: one's own mic, as the browser hears it (WebAudio AnalyserNode) ---------

  #startMeter() {
    if (this.meter || !globalThis.AudioContext) return;
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    const samples = new Float32Array(analyser.fftSize);
    const bar = this.root.querySelector("[data-voice-meter]");
    const meter = { context, analyser, stream: null, source: null, frame: 0 };
    this.meter = meter;
    const tick = () => {
      const stream = this.voice()?.micStream ?? null;
      if (stream !== meter.stream) {
        meter.source?.disconnect();
        meter.source = stream ? context.createMediaStreamSource(stream) : null;
        meter.source?.connect(analyser);
        meter.stream = stream;
      }
      let level = 0;
      const live = stream?.getAudioTracks().some((track) => track.enabled && track.readyState === "live");
      if (live) {
        analyser.getFloatTimeDomainData(samples);
        const rms = Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
        level = rms > 0 ? Math.min(1, Math.max(0, (20 * Math.log10(rms) + 60) / 60)) : 0;
      }
      bar.value = level;
      this.root.querySelector("[data-voice-meter-off]").hidden = Boolean(live);
      meter.frame = requestAnimationFrame(tick);
    };
    context.resume().catch(() => {});
    tick();
  }

  // --- push-to-talk: Space on a desktop, «Микрофон» held on a phone ----------------------

  #setPtt(on) {
    this.prefs.ptt = on;
    this.save();
    const voice = this.voice();
    if (voice) voice.setTalk(!on).catch(() => {});
    this.#showPtt();
  }

  #showPtt() {
    const box = this.root.querySelector('input[name="ptt"]');
    box.checked = this.prefs.ptt;
    this.micButton.classList.toggle("ptt", this.prefs.ptt);
    this.micButton.dataset.talk = this.held ? "on" : "off";
    const label = this.prefs.ptt ? this.t()("voice_ptt_hold") : this.t()("mic");
    this.micButton.title = label;
    this.micButton.setAttribute("aria-label", label);
  }

  /** Held (true) or let go: the mic goes out only while held. */
  hold(on) {
    if (!this.prefs.ptt || this.held === on) return;
    const voice = this.voice();
    if (on && !voice?.pc) return;
    this.held = on;
    this.#showPtt();
    voice?.setTalk(on).catch(() => {});
  }

  #bindPtt() {
    const button = this.micButton;
    button.addEventListener("pointerdown", (ev) => {
      if (!this.holdsMic()) return;
      // Held even if the finger slides off the button, until it is lifted.
      if (ev.pointerType === "touch") button.setPointerCapture?.(ev.pointerId);
      this.hold(true);
    });
    // Let go anywhere (the mouse may leave the button while held).
    for (const end of ["pointerup", "pointercancel"]) document.addEventListener(end, () => this.hold(false));
    button.addEventListener("contextmenu", (ev) => this.prefs.ptt && ev.preventDefault());
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== PTT_KEY || !this.holdsMic() || editable(ev.target) || ev.target.closest?.(".tap")) return;
      ev.preventDefault();
      this.hold(true);
    });
    document.addEventListener("keyup", (ev) => {
      if (ev.key !== PTT_KEY || !this.held) return;
      ev.preventDefault();
      this.hold(false);
    });
    globalThis.addEventListener("blur", () => this.hold(false));
  }

  // --- the connection marks ---------------------------------------------------------------

  async #measure() {
    const voice = this.voice();
    const quality = voice?.pc?.connectionState === "connected" ? await this.watch.sample(voice) : {};
    const key = (q) => JSON.stringify(Object.entries(q).map(([name, m]) => [name, m.level]).sort());
    const changed = key(quality) !== key(this.quality);
    this.quality = quality;
    if (changed) return this.onMarks();
    // Same levels: only the figures of the tooltips change, without drawing the felt again.
    const t = this.t();
    for (const mark of document.querySelectorAll(".seat .mark.quality")) {
      const seat = mark.closest(".seat");
      const measure = quality[seat.classList.contains("me") ? OWN : seat.dataset.seat];
      if (measure) mark.title = qualityTitle(measure, t);
    }
  }
}

const LISTEN_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M16 8a5 5 0 0 1 0 8"/><path class="slash" d="M4 4l16 16"/></svg>';
const MUTED_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M16 9l5 6M21 9l-5 6"/></svg>';
