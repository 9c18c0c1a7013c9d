// Voice at the table (C-8.3, docs/protocol.md «Voice»): one RTCPeerConnection to the SFU,
// framework-free.
//
// The browser offers its mic plus (seats − 1) receive-only "slots"; the SFU only answers
// (it never re-offers: Chrome rejects aiortc's re-offers). Which slot carries which player
// comes from the server (`voice:slots`). Signalling goes through a function the table page
// gives, normally its Socket.IO connection with acks (docs/voice-protocol.md):
//
//   const voice = new Voice({ table, signal: (event, payload) => emitWithAck(event, payload),
//                             onSlots, onState });
//   socket.on("voice:slots", (p) => voice.handle("voice:slots", p));   // and the others
//   await voice.start();          // from a click: it asks for the mic and starts playback
//   await voice.start({ mic: false });  // listen only: the mic is opened at setMic(true)
//   voice.setMic(false); voice.setListen(false); voice.stop();
//
// The listener's own tuning (volumes, output device, push-to-talk, the microphone chosen:
// static/js/voice_tuning.js) goes through three narrow hooks: `onAudio` for each slot's
// <audio>, `setTalk` (push-to-talk lets the mic through only while held), `useMic` and
// `setProcessing` (echo cancellation, noise suppression, automatic gain); `onMicLost` tells
// it when the chosen microphone is gone and the default one took its place.
//
// Who is in the voice (each seat's `voice` in table:state) and who speaks (voice:levels) are
// the table page's marks, shown to every seated page whether it joined or not: not here.

const GATHER_TIMEOUT_MS = 3000;
/** Waits between reconnection attempts after a drop: doubling, at most the last. */
const RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000];

/** RED (RFC 2198: each packet carries the previous frame again) first where the browser
 * has it, so that a listener rebuilds a lost packet from the next one; Opus after it for the
 * SFU to fall back on (docs/voice-protocol.md «Redundancy and retransmission»). */
function preferRed(transceivers) {
  const codecs = globalThis.RTCRtpReceiver?.getCapabilities?.("audio")?.codecs;
  if (!codecs || !transceivers[0]?.setCodecPreferences) return;
  const red = codecs.filter((c) => c.mimeType.toLowerCase() === "audio/red");
  if (red.length === 0) return;
  const rest = codecs.filter((c) => c.mimeType.toLowerCase() !== "audio/red");
  for (const transceiver of transceivers) transceiver.setCodecPreferences([...red, ...rest]);
}

/** The offer asking for NACK on Opus and RED (browsers offer it for video only): the SFU
 * then asks our mic again for what it lost, and answers ours from its cache. */
export function withNack(sdp) {
  const types = new Set();
  for (const found of sdp.matchAll(/^a=rtpmap:(\d+) (opus|red)\/48000/gim)) types.add(found[1]);
  let out = sdp;
  for (const type of types) {
    if (new RegExp(`^a=rtcp-fb:${type} nack\\r?$`, "m").test(out)) continue;
    out = out.replace(new RegExp(`^(a=rtpmap:${type} .*)$`, "gm"), `$1\r\na=rtcp-fb:${type} nack`);
  }
  return out;
}

/** Wait until ICE gathering completes (the SFU takes no trickled candidates), bounded. */
function gathered(pc) {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (pc.iceGatheringState !== "complete") return;
      pc.removeEventListener("icegatheringstatechange", done);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      pc.removeEventListener("icegatheringstatechange", done);
      resolve(); // send the candidates found so far
    }, GATHER_TIMEOUT_MS);
    pc.addEventListener("icegatheringstatechange", done);
  });
}

/** An Error the table page explains in the player's language (`code`: "insecure" — the
 * page is not a secure context, so there is no microphone API; "ports" — the server has no
 * free UDP port for voice, docs/hosting.md «VOICE_PORTS»). */
export class VoiceFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The start of the SFU's refusal when no UDP port is free (docs/voice-protocol.md). */
const NO_PORT = "no free UDP port for voice";

/** A reply of the signalling function, or an Error with the server's reason. */
async function ask(signal, event, payload) {
  const reply = await signal(event, payload);
  if (reply && reply.ok === false) {
    const reason = reply.error || `${event} refused`;
    throw reason.includes(NO_PORT) ? new VoiceFailure("ports", reason) : new Error(reason);
  }
  return reply || {};
}

export class Voice {
  /**
   * @param {object} options
   * @param {number} options.table            the table id
   * @param {(event: string, payload: object) => Promise<object>} options.signal
   * @param {(slots: Map<string, string|null>) => void} [options.onSlots]  mid → player
   * @param {(state: string) => void} [options.onState]  connecting/connected/failed/closed
   * @param {(element: HTMLAudioElement) => void} [options.onAudio]  each slot's new <audio>
   * @param {HTMLElement} [options.audioParent]  where the slots' <audio> elements go
   * @param {MediaStreamConstraints} [options.constraints]
   * @param {() => void} [options.onMicLost]  the chosen mic is gone: the default one is used
   */
  constructor({ table, signal, onSlots, onState, onAudio, audioParent, constraints, onMicLost }) {
    this.table = table;
    this.signal = signal;
    this.onSlots = onSlots || (() => {});
    this.onState = onState || (() => {});
    this.onAudio = onAudio || (() => {});
    this.onMicLost = onMicLost || (() => {});
    this.audioParent = audioParent || document.body;
    this.constraints = constraints || {
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    };
    this.mic = true;
    this.pressed = null; // the mic as last asked for on this page: a restart keeps it
    this.listen = true;
    this.talk = true; // the mic is let through (push-to-talk: only while held)
    this.pc = null;
    this.micStream = null;
    this.micSender = null;
    this.audio = new Map(); // mid → <audio>
    this.slots = new Map(); // mid → player
    this.wanted = false; // voice is on for this page (started, not closed by the page)
    this.reconnects = 0; // connections made again after a drop
    this.retrying = null; // the pending reconnection attempt's timer
    this.renewing = null; // the next TURN login's timer
    this.closing = () => {}; // ends the pending steps of a start whose connection closes
  }

  /**
   * Join the table's voice and connect; safe to call again (a reload or SFU restart).
   * `mic` overrides the toggle the server kept: with `{ mic: false }` the microphone is not
   * even opened (no permission prompt) until `setMic(true)`. Without it (a reconnect, an SFU
   * restart) the mic stays as this page last asked for, even if that start was cut short
   * before the server heard it; a page that never asked takes the server's.
   */
  async start({ mic } = {}) {
    this.close();
    this.wanted = true;
    if (mic !== undefined) this.pressed = mic;
    // The microphone first: without it (no secure context, permission refused) nothing is
    // asked of the server, so the table never shows a member whose voice cannot work.
    const wanted = this.pressed ?? this.mic;
    const early = wanted ? await this.#micTrack() : null;
    const config = await ask(this.signal, "voice:join", { table: this.table });
    const kept = config.mic ?? this.mic;
    this.mic = this.pressed ?? kept;
    this.listen = config.listen ?? this.listen;
    const track = this.mic ? early || (await this.#micTrack()) : null;
    if (early && !this.mic) early.enabled = false; // kept off by the server: not sent

    const pc = new RTCPeerConnection({ iceServers: config.iceServers || [] });
    this.pc = pc;
    this.#renew(pc, config.renew);
    pc.addEventListener("connectionstatechange", () => {
      if (this.pc !== pc) return;
      if (pc.connectionState === "failed") this.#reconnect();
      else this.onState(pc.connectionState);
    });
    // Without a track (mic off) the sender sends nothing until setMic(true) gives it one.
    const sent = this.talk ? track : null;
    this.micSender = pc.addTransceiver(sent || "audio", { direction: "sendonly" }).sender;
    const slots = [];
    for (let i = 0; i < config.slots; i += 1) {
      slots.push(pc.addTransceiver("audio", { direction: "recvonly" }));
    }

    preferRed(pc.getTransceivers());
    // A connection closed meanwhile (a restart, stop()) leaves its pending operations
    // unsettled for ever: this start then ends with it instead of hanging.
    const closed = new Promise((ended) => (this.closing = ended));
    const step = (operation) => Promise.race([operation, closed]);
    const offer = await step(pc.createOffer());
    if (this.pc !== pc) return;
    await step(pc.setLocalDescription({ type: "offer", sdp: withNack(offer.sdp) }));
    if (this.pc !== pc) return;
    await gathered(pc);
    let answer;
    try {
      answer = await ask(this.signal, "voice:offer", { table: this.table, sdp: pc.localDescription.sdp });
    } catch (error) {
      // Refused (no free port…): leave again, so that the others do not see us in the voice.
      if (this.pc === pc) this.close();
      await ask(this.signal, "voice:leave", { table: this.table }).catch(() => {});
      throw error;
    }
    if (this.pc !== pc) return; // stopped or restarted meanwhile
    await step(pc.setRemoteDescription({ type: "answer", sdp: answer.sdp }));
    if (this.pc !== pc) return;
    for (const transceiver of slots) this.#play(transceiver);
    if (this.mic !== kept) await ask(this.signal, "voice:mic", { table: this.table, on: this.mic });
  }

  /** The microphone's track, asked for once (the permission prompt) and then kept — unless
   * it ended (a browser frozen for 40 s, a laptop asleep, the device gone): asked again. */
  async #micTrack() {
    if (!this.micStream || this.micStream.getAudioTracks()[0].readyState === "ended") {
      // Browsers give the microphone API to secure contexts only (https, localhost).
      if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
        throw new VoiceFailure("insecure", "the microphone needs HTTPS");
      }
      this.micStream = await this.#openMic();
    }
    const track = this.micStream.getAudioTracks()[0];
    track.enabled = true;
    return track;
  }

  /** A new microphone stream, its track watched for ending by itself. A chosen device that
   * is not there any more (a headset unplugged) gives way to the default microphone. */
  async #openMic() {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia(this.constraints);
    } catch (error) {
      const gone = ["OverconstrainedError", "NotFoundError", "NotReadableError"].includes(error.name);
      if (!gone || !this.constraints.audio?.deviceId) throw error;
      const { deviceId: _gone, ...audio } = this.constraints.audio;
      this.constraints = { audio };
      stream = await navigator.mediaDevices.getUserMedia(this.constraints);
      this.onMicLost();
    }
    const track = stream.getAudioTracks()[0];
    track.addEventListener("ended", () => this.#micEnded(track));
    return stream;
  }

  /** The mic's track ended by itself while sent (it may end just after a reconnect took
   * it): a new one goes on the same sender, asked for again with backoff (right after a
   * freeze the device may refuse at first). Not after `stop()`, which fires no "ended". */
  #micEnded(track, attempt = 0) {
    if (!this.wanted || !this.mic || !this.micSender || this.micSender.track !== track) return;
    this.#micTrack()
      .then((fresh) => this.micSender && this.micSender.replaceTrack(fresh))
      .catch((error) => {
        if (attempt + 1 >= RETRY_MS.length) this.onState(`failed: ${error.message}`);
        else setTimeout(() => this.#micEnded(track, attempt + 1), RETRY_MS[attempt]);
      });
  }

  /** Each receive slot plays through its own <audio> element (muted while not listening). */
  #play(transceiver) {
    const element = document.createElement("audio");
    element.autoplay = true;
    element.muted = !this.listen;
    element.dataset.voiceSlot = transceiver.mid;
    element.srcObject = new MediaStream([transceiver.receiver.track]);
    this.audioParent.appendChild(element);
    this.audio.set(transceiver.mid, element);
    this.onAudio(element);
  }

  /** Mic off: no packets at all (replaceTrack(null)); the server stops forwarding too. */
  async setMic(on) {
    this.mic = on;
    this.pressed = on;
    if (on) {
      const track = await this.#micTrack();
      if (this.micSender) await this.micSender.replaceTrack(this.talk ? track : null);
    } else {
      if (this.micStream) for (const track of this.micStream.getAudioTracks()) track.enabled = false;
      if (this.micSender) await this.micSender.replaceTrack(null);
    }
    await ask(this.signal, "voice:mic", { table: this.table, on });
  }

  /** Push-to-talk: while not held the sender carries nothing (no packets, as with the mic
   * off), but the mic stays open and on for the table — no voice:mic, no prompt. */
  async setTalk(on) {
    this.talk = on;
    if (!this.mic || !this.micSender) return;
    await this.micSender.replaceTrack(on ? await this.#micTrack() : null);
  }

  /** Another microphone (`deviceId` of enumerateDevices, "" for the default): the sender's
   * track is replaced in place, no renegotiation; kept for later connections. */
  async useMic(deviceId) {
    const { deviceId: _old, ...audio } = this.constraints.audio;
    await this.#reopen(deviceId ? { ...audio, deviceId: { exact: deviceId } } : audio);
  }

  /** The mic's processing (`echoCancellation`, `noiseSuppression`, `autoGainControl`:
   * booleans), asked for explicitly; an open mic is opened again with it, in place. */
  async setProcessing(processing) {
    // The same device is not opened twice with other processing (Chromium hands back the
    // open capture as it is): the old track goes first.
    await this.#reopen({ ...this.constraints.audio, ...processing }, { release: true });
  }

  /** New constraints for the mic; an open one is replaced on the same sender. The old one
   * is kept until the new one is there (it may be refused), unless it must be `release`d
   * first: then a refusal opens it again as it was. */
  async #reopen(audio, { release = false } = {}) {
    const before = this.constraints;
    this.constraints = { audio };
    if (!this.micStream) return;
    const old = this.micStream;
    if (release) for (const gone of old.getTracks()) gone.stop();
    try {
      this.micStream = await this.#openMic();
    } catch (error) {
      if (!release) throw error;
      this.constraints = before;
      this.micStream = await this.#openMic();
    }
    const track = this.micStream.getAudioTracks()[0];
    track.enabled = this.mic;
    if (this.micSender && this.mic && this.talk) await this.micSender.replaceTrack(track);
    for (const gone of old.getTracks()) gone.stop();
  }

  /** The page is in front again: a microphone lost while it was in the background (the
   * phone locked, the device taken by another app) is asked for again. */
  revive() {
    const track = this.micSender?.track ?? this.micStream?.getAudioTracks()[0];
    if (this.wanted && this.mic && track && track.readyState === "ended") this.#micEnded(track);
  }

  /** Every slot's <audio> played again (from a tap: a browser that refused sound before). */
  async resumeAudio() {
    await Promise.all([...this.audio.values()].map((element) => element.play().catch(() => {})));
  }

  /** Listen off: the server forwards nothing to us, and our slots are muted here too. */
  async setListen(on) {
    this.listen = on;
    for (const element of this.audio.values()) element.muted = !on;
    await ask(this.signal, "voice:listen", { table: this.table, on });
  }

  /** Feed a server event (voice:slots, voice:peer, voice:restart). */
  handle(event, payload) {
    if (payload.table !== this.table) return;
    if (event === "voice:slots") {
      this.slots = new Map(payload.slots.map((s) => [s.mid, s.player]));
      this.onSlots(this.slots);
    } else if (event === "voice:peer") {
      // The SFU dropped us (no ICE consent: network lost, page frozen…): connect again. A
      // "closed" is the end of a connection we replaced ourselves, or of our voice.
      if (payload.state === "failed" && this.pc) this.#reconnect();
      else if (payload.state !== "closed") this.onState(payload.state);
    } else if (event === "voice:restart" && this.pc) {
      this.start().catch((error) => this.onState(`failed: ${error.message}`));
    }
  }

  /** While seated, a fresh (short-lived) TURN login before the old one runs out
   * (docs/protocol.md «voice:ice»); refused once he stands up. A relay given only now
   * (someone sat down to hear him) connects again through it if nothing else did. */
  #renew(pc, seconds) {
    if (!seconds) return;
    clearTimeout(this.renewing);
    this.renewing = setTimeout(async () => {
      const fresh = await ask(this.signal, "voice:ice", { table: this.table }).catch(() => null);
      if (!fresh || this.pc !== pc) return;
      const relay = (servers) => JSON.stringify(servers || []).includes('"turn');
      const given = relay(fresh.iceServers) && !relay(pc.getConfiguration().iceServers);
      if (given && pc.connectionState !== "connected") {
        this.start().catch(() => this.#reconnect());
        return;
      }
      pc.setConfiguration({ ...pc.getConfiguration(), iceServers: fresh.iceServers || [] });
      this.#renew(pc, fresh.renew);
    }, seconds * 1000);
  }

  /** A fresh connection (aiortc has no ICE restart), retried with backoff while voice is
   * on: the page shows "reconnecting" until it is connected again. */
  #reconnect(attempt = 0) {
    if (!this.wanted || (this.retrying !== null && attempt === 0)) return;
    this.onState("reconnecting");
    const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
    this.retrying = setTimeout(() => {
      this.retrying = null;
      if (!this.wanted) return;
      this.start().then(
        () => (this.reconnects += 1),
        () => this.#reconnect(attempt + 1),
      );
    }, attempt === 0 ? 0 : wait);
  }

  /** Per slot: who it carries, bytes and audio energy received so far (for tests, UI). */
  async stats() {
    if (!this.pc) return [];
    const report = await this.pc.getStats();
    const slots = [];
    report.forEach((entry) => {
      if (entry.type !== "inbound-rtp" || entry.kind !== "audio") return;
      slots.push({
        mid: entry.mid,
        player: this.slots.get(entry.mid) ?? null,
        bytes: entry.bytesReceived || 0,
        energy: entry.totalAudioEnergy || 0,
      });
    });
    return slots;
  }

  /** Close the connection (the server is told by `stop`, or by standing up). */
  close() {
    this.wanted = false;
    clearTimeout(this.retrying);
    clearTimeout(this.renewing);
    this.retrying = null;
    if (this.pc) this.pc.close();
    this.pc = null;
    this.closing();
    this.micSender = null;
    for (const element of this.audio.values()) element.remove();
    this.audio.clear();
    this.slots.clear();
  }

  /** Leave the voice: close, release the mic, tell the server. */
  async stop() {
    this.close();
    if (this.micStream) for (const track of this.micStream.getTracks()) track.stop();
    this.micStream = null;
    await ask(this.signal, "voice:leave", { table: this.table });
  }
}
