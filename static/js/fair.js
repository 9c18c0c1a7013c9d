// The shuffle check in the browser (docs/fairness.md, `svara-fair/1`), with Web Crypto only:
// the page's own seed for «Готов», and after the hand the proof that the revealed server seed
// opens the commitment published before the deal and, with every participant's seed,
// reproduces each card this page was shown. Mirrors app/engine/fairness.py; both are held to
// tests/engine/fair_vectors.json (tests/browser/test_fair.py).

import * as games from "./games/index.js";

const RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUITS = ["♠", "♣", "♥", "♦"];
const enc = new TextEncoder();

export function available() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

/** A game's deck in the engine's order (app/engine/scoring.py SCORERS): ranks from its
 * lowest up (its module's `deck`), the four suits within a rank, the joker last. */
export function deckOf(game) {
  const { lowest, joker } = games.gameOf(game).deck;
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

/** The game of a hand file's `variant` (a preset's name: the game, or the game and "-…"). */
export function gameOf(variant) {
  return String(variant).split("-")[0];
}

// --- what this browser keeps (docs/fairness.md, «What the page keeps») --------------------
// One seed per table and commitment, the same on every retry of «Готов» and across reloads;
// per hand the commitment it had been shown, its seed, the dealer and the bots it was shown
// before the hand and every card it was shown, until the seeds come and it checks them.

const KEEP = "svara.fair.";

function kept(key) {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(KEEP + key) ?? "null");
  } catch {
    return null;
  }
}

function keep(key, value) {
  try {
    globalThis.localStorage?.setItem(KEEP + key, JSON.stringify(value));
  } catch {
    // a full or refused storage: the check says it could not use the page's own record
  }
}

/** The seed this browser gives for `commit` at `table`: drawn once, then always the same. */
export function seedFor(table, commit) {
  const key = `seed.${table}.${commit}`;
  let seed = kept(key);
  if (typeof seed !== "string") {
    seed = newSeed();
    keep(key, seed);
  }
  return seed;
}

/** The seed this browser gave for `commit` at `table`, if it gave one. */
export function seedGiven(table, commit) {
  const seed = kept(`seed.${table}.${commit}`);
  return typeof seed === "string" ? seed : null;
}

/** This browser's record of hand `id` ({table, name, commit, seed, dealer, bots, seen}). */
export function handRecord(id) {
  return kept(`hand.${id}`);
}

export function keepRecord(id, record) {
  keep(`hand.${id}`, record);
}

/** The last check of hand `id` in this browser: "verified", "failed" (or null). */
export function checked(id) {
  return kept(`checked.${id}`);
}

export function keepChecked(id, status) {
  keep(`checked.${id}`, status);
}

// --- the check -----------------------------------------------------------------------------

const fail = (reason, params) => ({ ok: false, reason, params });
// Who gave each seed (the hand file's `seeds[].kind`): a person's page, a bot, a silent page.
const KINDS = ["person", "bot", "silent"];

/** The check of a player's copy of a hand (GET /hands/<id>.json, the file `svara verify`
 * reads) once its seeds are revealed, with this browser's `record` of the hand (or null:
 * it never saw it). Resolves to {ok: true, own} — `own` whether its own record was used —
 * or {ok: false, reason, params}: a reason key of i18n.js and its params. */
export async function checkCopy(copy, record = null) {
  const deals = copy.deals || [];
  const first = deals[0] || {};
  const seedsOf = copy.seeds || [];
  const S = first.seed;
  if (!S || deals.some((d) => d.seed !== S || d.commit !== first.commit)) return fail("fair.bad_commit");
  if (await commitment(S) !== first.commit) return fail("fair.bad_commit");
  if (!seedsOf.length || seedsOf.some((x) => !KINDS.includes(x.kind))) return fail("fair.no_kinds");
  if (record && record.commit && record.commit !== first.commit) return fail("fair.other_commit");
  if (record && record.seed) {
    const own = seedsOf.find((x) => x.name === record.name);
    if (!own || own.seed !== record.seed || own.kind !== "person") return fail("fair.not_my_seed");
  }
  if (record && record.dealer && record.dealer !== copy.dealer) {
    return fail("fair.other_dealer", { player: copy.dealer });
  }
  for (const name of record?.bots || []) {
    const bot = seedsOf.find((x) => x.name === name);
    if (bot && bot.kind !== "bot") return fail("fair.bot_not_bot", { player: name });
  }
  for (const x of seedsOf) {
    if (x.kind === "person" ? x.drawn : x.seed !== await drawnSeed(S, x.name)) {
      return fail("fair.bad_drawn", { player: x.name });
    }
  }
  const seeds = seedsOf.map((x) => x.seed);
  const game = gameOf(copy.variant);
  for (let d = 0; d < deals.length; d++) {
    const deal = deals[d];
    // A player's copy names the dealing order; a stored file deals in the order of its keys.
    const shown = Object.entries(deal).filter(([k]) => !["order", "commit", "seed"].includes(k));
    const dealt = dealRound(await fairOrder(game, S, seeds, d), deal.order || shown.map(([k]) => k));
    for (const [player, cards] of [...shown, ...Object.entries(record?.seen?.[d] || {})]) {
      const want = dealt[player] || [];
      if (!Array.isArray(cards) || cards.some((c, k) => c !== null && c !== want[k])) {
        return fail("fair.bad_cards", { player, deal: d + 1 });
      }
    }
  }
  return { ok: true, own: Boolean(record && record.seed) };
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

/** The table page's side: the seed sent with «Готов» (one per commitment, kept), and per
 * hand this browser's record — the commitment it had been shown, the dealer and the bots it
 * was shown before the hand, every card it was shown — for «Мои раздачи» to check once the
 * seeds are revealed (the table never sends them: they would show folded cards, C-6.2). */
export class TableCheck {
  constructor() {
    this.table = null;
    this.before = { dealer: null, bots: [] }; // what the page was shown between hands
    this.sent = null; // {seed, commit}: what this page gave for the coming hand
    this.hand = null; // the record of the hand in view, with its id
  }

  /** The seed for «Готов» / «Темнить»: this browser's one seed for the commitment shown. */
  seedFor(fair) {
    const commit = fair?.next ?? null;
    const seed = commit && this.table != null ? seedFor(this.table, commit) : newSeed();
    this.sent = { seed, commit };
    return seed;
  }

  /** Follow one `table:state` of `me`; resolves to what the mark shows: null (nothing),
   * {pending: true} once the hand is over, or an alarm ({ok: false, reason}) for a hand
   * this page cannot check. */
  async observe(msg, me) {
    const fair = msg.fair;
    const view = msg.hand;
    this.table = msg.table;
    if (msg.phase !== "playing" && (!view || view.id !== fair?.hand || view.phase === "finished")) {
      this.before = {
        dealer: msg.next_dealer ?? null,
        bots: (msg.seats || []).filter((x) => x && x.bot).map((x) => x.name),
      };
    }
    if (!fair || !fair.hand || !view || view.id !== fair.hand || !me) return null;
    if (fair.checkable === false) return fail("fair.not_checkable");
    if (!this.hand || this.hand.id !== fair.hand) {
      const old = handRecord(fair.hand);
      const given = this.sent?.commit ? this.sent : null;
      this.hand = old ? { ...old, id: fair.hand } : {
        id: fair.hand,
        table: msg.table,
        name: me,
        // The commitment it was shown when it gave its seed (a reloaded page: the seed it
        // keeps for this hand's commitment, or none).
        commit: given ? given.commit : fair.commit,
        seed: given ? given.seed : seedGiven(msg.table, fair.commit),
        dealer: this.before.dealer,
        bots: this.before.bots,
        seen: [],
      };
      this.sent = null;
    }
    const deal = Math.max(0, fair.deals.length - 1);
    addSeen(this.hand.seen, deal, view, fair.deals[deal], msg.news);
    const { id, ...record } = this.hand;
    keepRecord(id, record);
    return view.phase === "finished" ? { pending: true } : null;
  }
}
