// The shuffle check in the browser (docs/fairness.md, `svara-fair/1`), with Web Crypto only:
// the page's own seed for «Готов», and after the hand the proof that the revealed server seed
// opens the commitment published before the deal and, with every participant's seed,
// reproduces each card this page was shown. Mirrors app/engine/fairness.py; both are held to
// tests/engine/fair_vectors.json (tests/browser/test_fair.py).

const RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUITS = ["♠", "♣", "♥", "♦"];
// Each game's deck in the engine's order (app/engine/scoring.py SCORERS): ranks from the
// lowest up, the four suits within a rank, the joker last.
const DECKS = { classic: ["6", true], shaha36: ["6", false], svara32: ["7", false] };
const enc = new TextEncoder();

export function available() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

export function deckOf(game) {
  const [lowest, joker] = DECKS[game];
  const deck = RANKS.slice(RANKS.indexOf(lowest)).flatMap((r) => SUITS.map((s) => r + s));
  return joker ? [...deck, "Jk"] : deck;
}

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh seed of 32 random bytes, lowercase hex: what the page sends with «Готов». */
export function newSeed() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

/** SHA-256("svara-shuffle/1:" + seed) in hex: the commitment published before the deal. */
export async function commitment(seed) {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode("svara-shuffle/1:" + seed)));
}

async function hmac(keyBytes, message) {
  const key = await crypto.subtle.importKey(
    "raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

/** The seed of a participant whose page sent none: HMAC(S, "svara-fair/1:drawn:" + name). */
export async function drawnSeed(serverSeed, name) {
  return hex(await hmac(enc.encode(serverSeed), enc.encode(`svara-fair/1:drawn:${name}`)));
}

/** The deck of deal `deal` (0 the first, 1.. the Svara re-deals), top card first. */
export async function fairOrder(game, serverSeed, seeds, deal) {
  const key = await hmac(enc.encode(serverSeed), enc.encode(["svara-fair/1", deal, ...seeds].join(":")));
  const words = [];
  let counter = 0;
  async function word() {
    if (!words.length) {
      const msg = new Uint8Array(8);
      new DataView(msg.buffer).setBigUint64(0, BigInt(counter++));
      const block = await hmac(key, msg);
      const view = new DataView(block.buffer);
      for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i));
    }
    return words.shift();
  }
  const cards = deckOf(game);
  for (let i = cards.length - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % bound);
    let w = await word();
    while (w >= limit) w = await word();
    const j = w % bound;
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** Cards one at a time round `players` (dealing order), three each. */
export function dealRound(order, players, count = 3) {
  const n = players.length;
  return Object.fromEntries(players.map((p, i) => [p, [...Array(count).keys()].map((k) => order[i + k * n])]));
}

/** The hand's check. `fair` is the revealed `fair` object of `table:state`; `seen` is, per
 * deal, the cards this page was shown ({player: [card | null]}); `mine` is {name, seed,
 * commit} when this page sent a seed (the commitment it had seen when it did). Resolves to
 * {ok: true} or {ok: false, reason}: a reason key of i18n.js and its {params}. */
export async function checkHand(fair, seen, mine = null) {
  if (await commitment(fair.seed) !== fair.commit) return { ok: false, reason: "fair.bad_commit" };
  if (mine && mine.commit && mine.commit !== fair.commit) return { ok: false, reason: "fair.other_commit" };
  const own = mine && fair.seeds.find((s) => s.name === mine.name);
  if (mine && (!own || own.seed !== mine.seed)) return { ok: false, reason: "fair.not_my_seed" };
  for (const s of fair.seeds) {
    if (s.drawn && s.seed !== await drawnSeed(fair.seed, s.name)) {
      return { ok: false, reason: "fair.bad_drawn", params: { player: s.name } };
    }
  }
  const seeds = fair.seeds.map((s) => s.seed);
  for (let d = 0; d < fair.deals.length; d++) {
    const dealt = dealRound(await fairOrder(fair.game, fair.seed, seeds, d), fair.deals[d]);
    for (const [player, cards] of Object.entries(seen[d] || {})) {
      const want = dealt[player] || [];
      if (cards.some((c, k) => c !== null && c !== want[k])) {
        return { ok: false, reason: "fair.bad_cards", params: { player, deal: d + 1 } };
      }
    }
  }
  return { ok: true };
}

/** What a view of the hand shows: {player: [card | null]} for each player with cards. */
export function shownIn(hand) {
  const out = {};
  for (const p of hand.players || []) {
    if (p.cards && p.cards.some((c) => c)) out[p.name] = p.cards.map((c) => c || null);
  }
  return out;
}

/** Per deal, the cards a series of views of one hand showed: {player: [card | null]} each,
 * from the players' cards and a look's two hands (`look_cards`, C-4.19) among the events
 * `fresh` in this view. Only the deal's own players (`dealt`) count: one left out of a
 * Svara re-deal may still show the cards of the deal before. */
export function addSeen(perDeal, deal, view, dealt, fresh) {
  const shown = (perDeal[deal] ||= {});
  const inDeal = (name) => !dealt || dealt.includes(name);
  for (const [name, cards] of Object.entries(shownIn(view))) {
    if (!inDeal(name)) continue;
    const kept = (shown[name] ||= [null, null, null]);
    cards.forEach((c, k) => { if (c) kept[k] = c; });
  }
  for (const e of fresh || []) {
    if (e.cards && typeof e.cards === "object" && !Array.isArray(e.cards)) {
      for (const [name, cards] of Object.entries(e.cards)) if (inDeal(name)) shown[name] = [...cards];
    }
  }
  return perDeal;
}

/** Per deal, what a replay's steps ({deal, view}, app/history/service.py) showed; `deals`
 * are the deals' players (the `fair` object's `deals`). */
export function seenInSteps(steps, deals) {
  const seen = [];
  let known = 0; // the events of the steps before: a step's own are the rest
  for (const step of steps) {
    const events = step.view.events || [];
    addSeen(seen, step.deal, step.view, deals[step.deal], events.slice(known));
    known = events.length;
  }
  return seen;
}

/** The table page's side: the seed sent with «Готов» (with the commitment shown then), the
 * cards seen during the hand, and the check once the hand's seeds are revealed. */
export class TableCheck {
  constructor() {
    this.sent = null; // {seed, commit}: what this page gave for the coming hand
    this.hand = null; // {id, mine, seen, done}
  }

  /** A seed for «Готов» / «Темнить», remembered with the commitment this page was shown. */
  seedFor(fair) {
    const seed = newSeed();
    this.sent = { seed, commit: fair?.next ?? null };
    return seed;
  }

  /** Follow one `table:state` of `me`; resolves to the check's result once, when the hand's
   * seeds arrive, else to null. */
  async observe(msg, me) {
    const fair = msg.fair;
    const view = msg.hand;
    if (!fair || !fair.hand || !view || view.id !== fair.hand) return null;
    if (!this.hand || this.hand.id !== fair.hand) {
      const mine = this.sent && me ? { name: me, ...this.sent } : null;
      this.hand = { id: fair.hand, mine, seen: [], done: false };
      this.sent = null;
    }
    const deal = Math.max(0, fair.deals.length - 1);
    addSeen(this.hand.seen, deal, view, fair.deals[deal], msg.news);
    if (!fair.seed || this.hand.done || !available()) return null;
    this.hand.done = true;
    return checkHand(fair, this.hand.seen, this.hand.mine);
  }
}
