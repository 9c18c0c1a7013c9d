// Table sounds generated with WebAudio (no files): the deal, one's turn, a win, a Svara.
// Browsers start audio only after a gesture, so the context is made on the first tap; a
// sound asked for before one finds it refused, and `onRefused` is told (the page then shows
// «Включить звук», static/js/attention.js).

let ctx = null;
let refused = () => {};

/** Who is told that the browser would not play a sound without a tap. */
export function onRefused(callback) {
  refused = callback;
}

/** From a tap: the sounds may play from now on. */
export async function unlockSound() {
  await audio()?.resume();
}

function audio() {
  if (!ctx) {
    const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume();
  return ctx;
}

globalThis.addEventListener?.("pointerdown", () => audio(), { once: true });

function tone(a, { freq, start = 0, length = 0.15, type = "sine", gain = 0.18, slide = 0 }) {
  const t0 = a.currentTime + start;
  const osc = a.createOscillator();
  const g = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t0 + length);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(g).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

/** A card sliding onto the felt: a short filtered noise burst. */
function swish(a, start) {
  const length = 0.08;
  const buffer = a.createBuffer(1, Math.floor(a.sampleRate * length), a.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const src = a.createBufferSource();
  const filter = a.createBiquadFilter();
  const g = a.createGain();
  src.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = 2400;
  g.gain.value = 0.25;
  src.connect(filter).connect(g).connect(a.destination);
  src.start(a.currentTime + start);
}

const SOUNDS = {
  deal: (a) => [0, 0.12, 0.24].forEach((s) => swish(a, s)),
  turn: (a) => {
    tone(a, { freq: 880, length: 0.12 });
    tone(a, { freq: 1320, start: 0.12, length: 0.18 });
  },
  chip: (a) => tone(a, { freq: 2200, length: 0.05, type: "triangle", gain: 0.08 }),
  win: (a) => [523, 659, 784, 1047].forEach((f, i) => tone(a, { freq: f, start: i * 0.1, length: 0.25, type: "triangle" })),
  svara: (a) => {
    tone(a, { freq: 196, length: 0.35, type: "sawtooth", gain: 0.1, slide: 1.5 });
    tone(a, { freq: 392, start: 0.3, length: 0.45, type: "square", gain: 0.06 });
  },
};

/** Play a named sound if the player has sounds on (settings.sound). */
export function play(name, settings) {
  if (!settings?.sound || !SOUNDS[name]) return;
  const a = audio();
  if (!a) return;
  if (a.state !== "running") refused();
  SOUNDS[name](a);
}
