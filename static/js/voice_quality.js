// How well each voice in the table reaches this page, from the RTCPeerConnection's own
// statistics (docs/protocol.md «Voice», «The connection's mark»): per speaker the inbound
// stream's loss and jitter, for one's own seat what the SFU reports of our outbound stream
// (remote-inbound-rtp) or the share of it the SFU asked for again (NACK), and for both the round trip of the one ICE path to the SFU.
//
//   const watch = new QualityWatch();
//   const marks = await watch.sample(voice);   // {name or OWN: {level, loss, jitter, rtt}}
//   qualityMark(marks[name], t)                // the seat's mark, "" without a measure

/** The key of one's own uplink among the players' names (a name is never empty). */
export const OWN = "";

/** The three levels, best first: the mark shows 3, 2 or 1 bars (not only a colour). */
export const LEVELS = ["good", "fair", "poor"];

/** The bounds of "fair" and "poor": lost share, jitter (s), round trip (s). Opus with FEC
 * hides a couple of per cent of loss; above ~8 % or with 60 ms of jitter speech breaks up. */
const FAIR = { loss: 0.02, jitter: 0.03, rtt: 0.25 };
const POOR = { loss: 0.08, jitter: 0.06, rtt: 0.5 };

/** The level of one measure (0 good, 1 fair, 2 poor): the worst of its three figures. */
export function grade({ loss = 0, jitter = 0, rtt = 0 }) {
  const over = (bound) => loss >= bound.loss || jitter >= bound.jitter || rtt >= bound.rtt;
  return over(POOR) ? 2 : over(FAIR) ? 1 : 0;
}

/** Opus packets a second (20 ms frames, what browsers send). */
const PACKETS_PER_S = 50;
/** How long a stream flows before its jitter counts (see `#since`). */
const STEADY_MS = 4000;

/** Keeps the counters of the last sample, so that loss is the share lost since then. */
export class QualityWatch {
  constructor() {
    this.last = new Map(); // stream id → {lost, packets, at, flowingSince}
  }

  /** One reading of `voice.pc`'s stats: OWN for our own uplink, each slot's player for
   * the inbound streams. */
  async sample(voice) {
    if (!voice?.pc) return {};
    const report = await voice.pc.getStats();
    let rtt = 0;
    const sent = new Map(); // outbound-rtp id → that entry (packets sent, when)
    report.forEach((entry) => {
      if (entry.type === "candidate-pair" && entry.nominated && entry.state === "succeeded") {
        rtt = entry.currentRoundTripTime ?? rtt;
      } else if (entry.type === "outbound-rtp") sent.set(entry.id, entry);
    });
    const out = {};
    report.forEach((entry) => {
      if (entry.kind !== "audio") return;
      if (entry.type === "inbound-rtp") {
        const player = voice.slots.get(entry.mid);
        if (!player || !entry.packetsReceived) return;
        const lost = entry.packetsLost || 0;
        const { loss, steady } = this.#since(entry.id, entry.timestamp, lost, entry.packetsReceived);
        out[player] = this.#measure({ loss, jitter: steady ? entry.jitter || 0 : 0, rtt });
      } else if (entry.type === "remote-inbound-rtp") {
        // What the SFU's receiver reports of our mic's packets (RTCP receiver reports).
        const mine = sent.get(entry.localId);
        const { steady } = mine ? this.#since(mine.id, mine.timestamp, 0, mine.packetsSent || 0) : {};
        // The SFU asks again for what it lost (NACK) and the reports then count it received:
        // the share of our packets sent again is our uplink's loss as well — once the stream
        // flows steadily (a stream starting again, each push-to-talk press, may be asked
        // for a packet or two that says nothing of the network).
        const resent = mine ? this.#resent(mine) : 0;
        const loss = Math.max(entry.fractionLost || 0, steady ? resent : 0);
        const own = { loss, jitter: steady ? entry.jitter || 0 : 0 };
        out[OWN] = this.#measure({ ...own, rtt: entry.roundTripTime ?? rtt });
      }
    });
    if (!(OWN in out) && rtt && voice.mic) out[OWN] = this.#measure({ loss: 0, jitter: 0, rtt });
    return out;
  }

  /** Since the last sample of stream `id` (at `at` ms): the share of its packets lost, and
   * whether it has flowed for STEADY_MS without a pause. When a stream starts again
   * (push-to-talk, the mic back on) its RTP timestamps do not match the silence's length:
   * its jitter (and the receiver reports' of it) jumps to ~0.1 s for a second or two, which
   * says nothing of the network. */
  #since(id, at, lost, packets) {
    const before = this.last.get(id);
    const now = { lost, packets, at, flowingSince: null };
    this.last.set(id, now);
    if (!before) return { loss: 0, steady: false };
    const expected = lost - before.lost + (packets - before.packets);
    const loss = expected > 0 ? Math.max(0, lost - before.lost) / expected : 0;
    if (packets - before.packets >= 0.8 * PACKETS_PER_S * ((at - before.at) / 1000)) {
      now.flowingSince = before.flowingSince ?? before.at;
    }
    return { loss, steady: now.flowingSince !== null && at - now.flowingSince >= STEADY_MS };
  }

  /** The share of the packets sent since the last sample that were retransmissions. */
  #resent(outbound) {
    const key = `${outbound.id}:resent`;
    const before = this.last.get(key);
    const now = { resent: outbound.retransmittedPacketsSent || 0, packets: outbound.packetsSent || 0 };
    this.last.set(key, now);
    const sent = before ? now.packets - before.packets : 0;
    return sent > 0 ? Math.max(0, now.resent - before.resent) / sent : 0;
  }

  #measure(figures) {
    return { ...figures, level: LEVELS[grade(figures)] };
  }
}

const BARS = [4, 8, 12]; // heights of the mark's three bars (of 14)

/** A seat's quality mark: bars lit by level, its words and figures in the tooltip. */
export function qualityMark(measure, t) {
  if (!measure) return "";
  const lit = 3 - LEVELS.indexOf(measure.level);
  const bars = BARS.map(
    (h, i) => `<rect x="${1 + i * 5}" y="${14 - h}" width="3" height="${h}" class="${i < lit ? "lit" : ""}"/>`,
  ).join("");
  return (
    `<span class="mark quality q-${measure.level}" data-quality="${measure.level}" title="${qualityTitle(measure, t)}">` +
    `<svg viewBox="0 0 16 14" aria-hidden="true">${bars}</svg></span>`
  );
}

/** The words of a level and its figures: «Связь хорошая (потери 0 %, задержка 3 мс…)». */
export function qualityTitle(measure, t) {
  const figures = t("voice_q_detail", {
    loss: Math.round(measure.loss * 100),
    rtt: Math.round(measure.rtt * 1000),
    jitter: Math.round(measure.jitter * 1000),
  });
  return `${t(`voice_q_${measure.level}`)} (${figures})`;
}
