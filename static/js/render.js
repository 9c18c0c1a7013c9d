// The table as a pure function of (state, context) → HTML strings for each region of the
// page. No DOM, no clock, no sockets here: table.js feeds it, tests feed it fixture views.
//
// state: {table: {id, name, game, seats, ante}, seats: [{name, balance, connected, ready,
//         skipping, bot, avatar, voice ({in, mic, listen}; null for a spectator)} | null], queue, me, view (the engine's view of `me`, or
//         null between hands), between: [{do, price}] (table-level choices), deadlines:
//         {name: {at, total}} (client ms)}
// ctx:   {t, lang, settings, now, fresh (Set of names just dealt), upBefore (how many of
//         the viewer's cards were face up before: the rest turn over), score (cards →
//         {points, absolute, label} | null), draft ({key: amount} typed raise amounts), banner,
//         speaking (Set of names), tuningMarks (name → this page's own voice marks of that seat,
//         HTML)}

import { cardHtml, cardName } from "./cards.js";
import { gameOf } from "./games/index.js";
import { money, signedMoney, variantTitle } from "./i18n.js";

const esc = (s) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

export { money };

// A seat's voice icons (ui.md), as in the top bar: in the voice (mic on), mic off, not
// listening.
const ICON_MIC =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5 11a7 7 0 0 0 14 0M12 18v3"/></svg>';
const ICON_MIC_OFF =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5 11a7 7 0 0 0 14 0M12 18v3M4 4l16 16"/></svg>';
const ICON_LISTEN_OFF =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M4 4l16 16"/></svg>';

/** Seat places (percent of the felt box) for `n` seats, the viewer's at the bottom centre,
 * each with the side its shown cards hang to, towards the table: `down` and `up` under or
 * over the avatar, `left`/`right` for a seat on the left or right side (cards beside it).
 * `wide`: the desktop's oval, players spread all around it; else the phone's portrait felt,
 * the others in two columns and one at the top, their cards under them. */
export function seatPositions(n, wide = true) {
  return wide ? ovalPlaces(n) : columnPlaces(n);
}

/** Evenly along the oval's rim (by length, not angle: a wide oval's angles would bunch the
 * players at its ends), from the bottom centre clockwise. The felt is about twice as wide as
 * it is high on a desktop. */
function ovalPlaces(n) {
  const rx = 2;
  const ry = 1;
  const steps = 720;
  const rim = [];
  let length = 0;
  for (let i = 0; i <= steps; i++) {
    const a = Math.PI / 2 + (2 * Math.PI * i) / steps;
    const pt = { c: Math.cos(a), s: Math.sin(a) };
    if (i) length += Math.hypot(rx * (pt.c - rim[i - 1].c), ry * (pt.s - rim[i - 1].s));
    rim.push({ ...pt, at: length });
  }
  const out = [];
  let j = 0;
  for (let k = 0; k < n; k++) {
    while (rim[j].at < (length * k) / n) j++;
    const { c, s } = rim[j];
    const x = 50 + 42 * c;
    const y = Math.min(84, Math.max(10, 50 + 40 * s));
    const side = Math.abs(c) > 0.5 ? (c < 0 ? "left" : "right") : null;
    out.push({ x, y, hang: k === 0 ? "none" : side || (s < 0 ? "down" : "up") });
  }
  return out;
}

/** The phone: the others up the left column, across the top, down the right one. */
function columnPlaces(n) {
  const others = n - 1;
  const top = others % 2 === 1 ? 1 : 0;
  const k = (others - top) / 2; // seats per column
  // Two a column: the lower one as far down as clears the viewer's seat, so the upper one's
  // marks and shown cards (a winning bot's «бот», points, «+1 020 ₽», «готов») end above
  // the lower one's countdown at 360×740.
  const ys = { 0: [], 1: [34], 2: [10, 47], 3: [3, 30, 57] }[k];
  const out = [{ x: 50, y: 80, hang: "none" }];
  for (let i = k - 1; i >= 0; i--) out.push({ x: 15, y: ys[i], hang: "down" });
  if (top) out.push({ x: 50, y: 3, hang: "down" });
  for (let i = 0; i < k; i++) out.push({ x: 85, y: ys[i], hang: "down" });
  return out;
}

/** Seats rotated so that the viewer's (or seat 0 for a spectator) comes first. */
export function rotateSeats(seats, me) {
  const mine = seats.findIndex((s) => s && s.name === me);
  const start = mine < 0 ? 0 : mine;
  return seats.map((_, i) => seats[(start + i) % seats.length]);
}

/** The text of one legal action (or event) in the variant's words, without its price. */
export function actionLabel(game, a, t) {
  const own = gameOf(game).label(a, t);
  if (own != null) return own;
  if (a.do === "timeout") return t("timeout");
  if (a.do === "vote") return t(`${game}.${a.deal}`); // shaha36's tie vote (S-7.1)
  return t(`${game}.${a.do}`, { to: a.to });
}

/** «Смотреться · 15 ₽»: the price joins the label unless the label already says it. */
export function priceSuffix(a, label) {
  if (!a.price) return "";
  if (label.endsWith(` ${a.price}`)) return "";
  return ` · ${money(a.price)}`;
}

function playersByName(view) {
  const map = new Map();
  for (const p of view?.players || []) map.set(p.name, p);
  return map;
}

function awaiting(view) {
  return new Set(view?.awaiting || []);
}

/** The engine's public events that are players' decisions, oldest first. */
export function decisions(view) {
  return (view?.events || []).filter((e) => e.player && isDecision(view.game, e));
}

/** A player's choice, not something the table did for him: a hand opening by itself at the
 * showdown (S-6.2), a showdown without «Показать» (B-3.2), the table cooking a tie (C-5.4,
 * no player) or a card turned over in shaha36 (S-1.3, free and nobody's business: C-4.15's
 * last three are the bets) is not one. */
function isDecision(game, e) {
  const own = gameOf(game);
  return Boolean(e.player) && own.decisions.has(e.kind) && !e.by_itself;
}

/** A decision the server took for a player whose timer ran out (C-1.7, S-3.4, B-1.5). */
function timedOut(e) {
  return e.timeout === true || e.reason === "timeout";
}

/** The last decision of each player as his bubble says it: the word, «(время вышло)» when
 * his timer made it, and «Упал после просмотра» for the loser of a look (C-4.11). */
export function lastWords(view, t) {
  const out = new Map();
  let lapsed = null; // svara32 and shaha36 announce a timeout before the decision it makes
  for (const e of view?.events || []) {
    if (e.kind === "look" && e.loser) {
      out.set(e.player, actionLabel(view.game, { do: "look" }, t));
      out.set(e.loser, t("look_lost"));
      continue;
    }
    if (!isDecision(view.game, e)) continue;
    if (e.kind === "timeout") {
      lapsed = e.player;
      out.set(e.player, t("timeout"));
      continue;
    }
    const label = actionLabel(view.game, { do: e.kind, to: e.to, deal: e.deal }, t);
    out.set(e.player, timedOut(e) || lapsed === e.player ? t("by_timeout", { label }) : label);
    lapsed = null;
  }
  return out;
}

/** What a hand shown at showdown is worth: the view's own (shaha36) or the showdown event's
 * (classic); labels such as «старшие трынки» as the engine names them (S-2.7), in the
 * page's language (the Russian name is the key in i18n.js). */
function showdownScore(view, p, t) {
  // shaha36 gives a shown hand's points in the view; classic gives the viewer his own
  // points all the time (C-3.9), which are no showdown's business.
  let points = p.state === "shown" ? p.points : undefined;
  const label = p.state === "shown" ? p.label : null;
  if (points === undefined) {
    if (!p.cards) return "";
    const ev = [...(view?.events || [])]
      .reverse()
      .find((e) => (e.kind === "showdown" && e.hands?.[p.name]) || (e.kind === "show" && e.player === p.name && "points" in e));
    if (!ev) return "";
    points = ev.kind === "show" ? ev.points : ev.hands[p.name].points;
  }
  if (points === undefined) return "";
  const shown = points === null ? t("absolute") : String(points).replace(".", ",");
  return label ? `${shown} · ${t(label)}` : shown;
}

/** Who took money in an award, split or win event, and how much: classic and svara32 name
 * one player, shaha36 gives `amounts` by name. */
export function payees(e) {
  if (e.amounts) return Object.entries(e.amounts);
  if (e.players && e.kind === "split") return e.players.map((name) => [name, null]);
  return e.player ? [[e.player, e.amount ?? null]] : [];
}

/** A decision as the log shows it: the variant's word, the level it went to where the word
 * does not say it (never a level of 0: svara32's call of nothing), and what it cost. */
function decisionText(game, e, t) {
  if (e.kind === "look" && e.loser) {
    const text = t(e.tie ? "ev.look_tie" : "ev.look", { player: e.player, target: e.target, loser: e.loser });
    return text + priceSuffix({ price: e.amount }, text);
  }
  let label = actionLabel(game, { do: e.kind, to: e.to, deal: e.deal }, t);
  if (e.to && !gameOf(game).wordSaysLevel && !label.endsWith(` ${e.to}`)) label += ` ${e.to}`;
  label += priceSuffix({ price: e.amount ?? e.fee }, label);
  return `${e.player}: ${timedOut(e) ? t("by_timeout", { label }) : label}`;
}

const names = (list) => (list || []).join(", ");

/** An amount a sentence says («1 000 ₽»), or nothing where the event carries none. */
const sum = (amount) => (amount == null || amount === "" ? "" : money(amount));

/** What a shown hand is worth, as the showdown says it: points (or «абсолютный расклад») and
 * the hand's name where the engine gives one (S-2.7). */
function pointsText(e, t) {
  const shown = e.points === null ? t("absolute") : String(e.points).replace(".", ",");
  return e.label ? `${shown} · ${t(e.label)}` : shown;
}

/** The table's own events (not decisions): each kind in words, by what it carries. */
const EVENT_WORDS = {
  ante: (e, t) => (e.player ? t("ev.ante_player", { player: e.player, amount: money(e.amount) }) : t("ev.ante", { amount: money(e.amount) })),
  award: (e, t) => payees(e).map(([name, amount]) => t("ev.award", { player: name, amount: sum(amount) })).join(", "),
  cards: (e, t) => t("ev.cards", { cards: (e.cards || []).map((c) => cardName(c, t)).join(", ") }),
  look_cards: (e, t) => t("ev.look_cards", { cards: Object.entries(e.cards || {}).map(([n, c]) => `${n} ${c.map((x) => cardName(x, t)).join(" ")}`).join("; ") }),
  // shaha36's turned card (S-1.3): in the history, not a decision.
  look: (e, t) => t("ev.turned", { player: e.player }),
  show: (e, t) => ("points" in e ? t("ev.show_points", { player: e.player, points: pointsText(e, t) }) : t("ev.show", { player: e.player })),
  split: (e, t) => {
    const who = payees(e).map(([name, amount]) => (amount == null ? name : `${name} ${money(amount)}`));
    return who.length ? t("ev.split_among", { amounts: who.join(", ") }) : t("ev.split");
  },
  svara: (e, t) => {
    const text = e.fee ? t("ev.svara_fee", { fee: money(e.fee) }) : t("ev.svara");
    // S-7.5, C-7.6: a tie in a Svara deals the next one at once.
    return e.round > 1 ? `${t("ev.svara_again", { round: e.round })}: ${text}` : text;
  },
  // B-5.2: the tied play the Svara anyway; the entry says who plays it and who paid to join
  // (not «nobody entered» when two tied heads-up play it).
  svara_entry: (e, t, events) => {
    const svara = events.slice(0, Math.max(0, events.indexOf(e))).findLast((x) => x.kind === "svara");
    const tied = svara?.players || svara?.tied || [];
    const joined = e.joined || [];
    const playing = names([...tied, ...joined.filter((n) => !tied.includes(n))]);
    if (joined.length) return t("ev.svara_entry", { players: playing, joined: names(joined) });
    return tied.length ? t("ev.svara_entry_none", { players: playing }) : t("ev.svara");
  },
  vote_cancelled: (e, t) => t(e.why === "timeout" ? "ev.vote_timeout" : "ev.vote_cancelled"),
  no_betting: (e, t) => t("ev.no_betting", { players: names(e.players) }),
  tie: (e, t) => t("ev.tie", { players: names(e.players) }),
  svara_limit: (e, t) => t("ev.svara_limit", { svaras: e.svaras }),
};
EVENT_WORDS.win = EVENT_WORDS.award;

/** One event of the hand in the page's words; "" for a kind this page has no words for
 * (tests/browser/test_words.py renders every kind the engines emit). `events`: the hand's
 * events it is one of, for the words that depend on what came before. */
export function eventText(game, e, t, events = []) {
  if (isDecision(game, e)) return decisionText(game, e, t);
  const own = EVENT_WORDS[e.kind];
  if (own) return own(e, t, events);
  const key = `ev.${e.kind}`;
  const text = t(key, { player: e.player ?? "", amount: sum(e.amount ?? e.pot) });
  return text === key ? "" : text;
}

function ring(deadline, now) {
  if (!deadline) return "";
  const left = Math.max(0, deadline.at - now);
  const done = deadline.total > 0 ? 1 - left / deadline.total : 1;
  // The CSS animation runs the rest of the way; a negative delay starts it part-way.
  const style = `animation-duration:${deadline.total}ms;animation-delay:${-Math.round(done * deadline.total)}ms`;
  return (
    `<svg class="ring" viewBox="0 0 48 48" aria-hidden="true"><circle cx="24" cy="24" r="22" pathLength="100" style="${style}"/></svg>` +
    `<span class="secs" data-at="${Math.round(deadline.at)}">${Math.ceil(left / 1000)}</span>`
  );
}

/** A seat's place: the oval's (desktop) and the columns' (phone) as custom properties that
 * table.css picks between by the felt's shape. */
function placeStyle(wide, narrow) {
  return `--x:${wide.x}%;--y:${wide.y}%;--px:${narrow.x}%;--py:${narrow.y}%`;
}

function seatHtml(seat, pos, k, state, ctx, players, last) {
  const { t, now } = ctx;
  const { view, me, deadlines } = state;
  if (!seat) {
    return `<div class="seat empty" style="${placeStyle(pos.wide, pos.narrow)}"><div class="plate">${t("free_seat")}</div></div>`;
  }
  const p = players.get(seat.name);
  const mine = seat.name === me;
  // Between hands (the last hand may still lie on the table) the gathering timer runs on
  // whoever has not answered yet (C-1.3, S-1.6).
  const between = !view || state.phase !== "playing";
  const turn = awaiting(view).has(seat.name) || Boolean(between && deadlines?.[seat.name]);
  // Where its cards hang (towards the table) and which side its bubble leans to, on the
  // desktop's oval and on the phone's columns.
  const classes = ["seat", `pos-${k}`, `hang-${pos.wide.hang}`];
  if (pos.wide.x > 55) classes.push("w-r");
  if (pos.narrow.x > 55) classes.push("n-r");
  if (mine) classes.push("me");
  if (turn) classes.push("turn");
  if (p) classes.push(`state-${p.state}`);
  if (seat.connected === false) classes.push("away");
  if (seat.bot) classes.push("bot");
  if (ctx.speaking?.has(seat.name)) classes.push("speaking");
  const won = state.won?.get(seat.name);
  if (won !== undefined) classes.push("winner");
  const marks = [];
  // The dealer and dark marks sit on the avatar's lower corners, the countdown on its upper
  // right: none hides another.
  const badges = [];
  if (view && view.dealer === seat.name) badges.push(`<span class="mark dealer" title="${t("dealer_title")}">${t("dealer_mark")}</span>`);
  if (p?.dark) badges.push(`<span class="mark dark" title="${t("dark_title")}">${t("dark_mark")}</span>`);
  // Whether he has seen his cards is news while the hand is played (S-1.3); a finished hand
  // shows them, and the mark would only push the shown cards down onto the next seat.
  if (p?.looked && gameOf(view?.game).looksMark && view.phase !== "finished") marks.push(`<span class="mark looked">${t("looked")}</span>`);
  if (p?.all_in) marks.push(`<span class="mark allin">${t("all_in")}</span>`);
  const shownScore = p && showdownScore(view, p, t);
  if (shownScore) marks.push(`<span class="mark points">${esc(shownScore)}</span>`);
  // In the voice: the mic icon, crossed out while the mic is off; and the crossed speaker.
  const voice = seat.voice?.in ? seat.voice : null;
  if (voice?.mic) marks.push(`<span class="mark voice" title="${t("in_voice")}">${ICON_MIC}</span>`);
  if (voice && !voice.mic) marks.push(`<span class="mark muted" title="${t("mic_off")}">${ICON_MIC_OFF}</span>`);
  if (voice && !voice.listen) marks.push(`<span class="mark deaf" title="${t("listen_off")}">${ICON_LISTEN_OFF}</span>`);
  // This page's own: the connection's quality, «заглушён у вас» (static/js/voice_tuning.js).
  const tuned = ctx.tuningMarks?.(seat.name);
  if (tuned) marks.push(tuned);
  if (won) marks.push(`<span class="mark won">${signedMoney(won)}</span>`);
  // «бот» beside «готов» (or «пропускает»), two short words that share a line: a winning
  // bot's marks take one line fewer above its shown cards.
  if (seat.bot) marks.push(`<span class="mark bot" title="${t("bot_title")}">${t("bot_mark")}</span>`);
  if (between && seat.ready) marks.push(`<span class="mark ready">${t("ready")}</span>`);
  if (between && seat.skipping) marks.push(`<span class="mark skip">${t("skipping")}</span>`);
  // In play, what he has left in this hand; between hands his seat's money now: one who
  // stood up and sat again since the last hand brought a new stack (S-1.5) or balance.
  const money_ = p && !between ? p.balance : seat.balance;
  let cards = "";
  if (p && !mine && p.state !== "folded" && p.state !== "out" && p.state !== "mucked") {
    const shown = threeCards(p);
    const fresh = ctx.fresh?.has(seat.name);
    cards = `<div class="seat-cards">${shown
      .map((c, i) => cardHtml(c, { extra: fresh ? "dealt" : "", delay: fresh ? 120 * i + 40 * k : 0, index: i, lang: ctx.lang }))
      .join("")}</div>`;
  }
  // What he put in this hand: halfway to the pot on the oval (its offset from his avatar, in
  // the felt's own units, table.css); among his marks on the phone, whose columns leave the
  // space between seat and pot to the log.
  const toPot = `--dx:${(50 - pos.wide.x) / 2};--dy:${(50 - pos.wide.y) / 2}`;
  if (p && p.paid && view.phase !== "finished") marks.push(`<span class="stake" style="${toPot}" data-stake="${esc(seat.name)}"><i class="chip"></i>${money(p.paid)}</span>`);
  // The last word is the hand's news while it is played; a finished hand has its showdown
  // (points, the winner) and the log instead, and stale words would lie on the shown cards.
  const bubble = last && view.phase !== "finished" ? `<div class="bubble">${esc(last)}</div>` : "";
  // A bot shows its own avatar, a picture the server ships (app/bots/ROSTER,
  // static/img/avatars/); a person the first letter of his name.
  const face = seat.bot && /^[a-z]+$/.test(seat.avatar ?? "")
    ? `<img class="bot-face" src="/static/img/avatars/${seat.avatar}.svg" alt="${t("bot_title")}" width="32" height="32">`
    : `<span class="initial">${esc([...seat.name][0].toUpperCase())}</span>`;
  return (
    `<div class="${classes.join(" ")}" style="${placeStyle(pos.wide, pos.narrow)}" data-seat="${esc(seat.name)}">` +
    `<div class="avatar">${turn ? ring(deadlines?.[seat.name], now) : ""}${face}${badges.join("")}</div>` +
    `<div class="plate"><span class="name">${esc(seat.name)}</span><span class="balance">${money(money_ ?? 0)}</span></div>` +
    `<div class="marks">${marks.join("")}</div>${cards}${bubble}</div>`
  );
}

/** A line of the centre's log: who («Бот Петрович:») and what he did («ПЛАЩАМ 1130 · 630 ₽»),
 * each kept whole on a line of its own where both do not fit; a name too long for the line
 * gives way with «…», what was bet never does (table.css «.last3»). */
function logLine(text, player) {
  const head = player ? `${player}: ` : "";
  if (!head || !text.startsWith(head)) return `<span class="what">${esc(text)}</span>`;
  return `<span class="who">${esc(player)}:</span> <span class="what">${esc(text.slice(head.length))}</span>`;
}

/** The oval: seats, the centre (pot, level, banner, last three decisions). */
export function renderFelt(state, ctx) {
  const { t } = ctx;
  const { view, table } = state;
  // In a hand the free seats are left out (the felt is for those who play); between hands
  // they show, to be taken.
  const inHand = view && view.phase !== "finished";
  const seats = rotateSeats(state.seats, state.me).filter((s) => s || !inHand);
  const wide = seatPositions(seats.length, true);
  const narrow = seatPositions(seats.length, false);
  const pos = wide.map((w, k) => ({ wide: w, narrow: narrow[k] }));
  const players = playersByName(view);
  const lastBy = lastWords(view, t);
  state = { ...state, won: outcome(view) };
  const last3 = decisions(view).slice(-3).map((e) => `<li>${logLine(eventText(view.game, e, t), e.player)}</li>`).join("");
  const seatHtmls = seats.map((s, k) => seatHtml(s, pos[k], k, state, ctx, players, s && lastBy.get(s.name))).join("");
  // The queue (C-1.2) is said in the centre, under the pot: a corner of the felt is a seat's.
  // On a phone its two parts may go on two lines, between the columns of seats (table.css).
  const queue = state.queue
    ? `<div class="queue"><span>${t("queue", { n: state.queue })}</span>${state.myQueue ? ` · <span>${t("my_place", { n: state.myQueue })}</span>` : ""}</div>`
    : "";
  const centre =
    `<div class="centre">` +
    `<div class="pot" data-pot><i class="chip"></i><span>${t("pot")}</span> <b>${money(view?.pot ?? 0)}</b></div>` +
    (view?.level ? `<div class="level">${t("level")} ${money(view.level)}</div>` : "") +
    (view?.round ? `<div class="round">${t("round", { n: view.round })}</div>` : "") +
    (view ? "" : `<div class="idle">${state.me && state.seats.some((s) => s?.name === state.me) ? t("waiting") : t("spectator")}</div>`) +
    queue +
    `<ol class="last3">${last3}</ol>` +
    `</div>`;
  const b = ctx.banner;
  const banner = b
    ? `<div class="banner ${b.kind}" role="status"><b class="banner-text">${bannerText(b)}</b>` +
      (b.cards?.length ? `<span class="banner-cards">${b.cards.map((c) => cardHtml(c, { lang: ctx.lang })).join("")}</span>` : "") +
      (b.detail ? `<span class="banner-detail">${esc(b.detail)}</span>` : "") +
      `</div>`
    : "";
  // What the round marks mean («Т» is also the ace's index, «С» may be read as anything).
  const legend = [
    seatHtmls.includes('class="mark dealer"') ? `<span><i class="mark dealer">${t("dealer_mark")}</i> ${t("dealer_title")}</span>` : "",
    seatHtmls.includes('class="mark dark"') ? `<span><i class="mark dark">${t("dark_mark")}</i> ${t("dark_title")}</span>` : "",
  ].join("");
  const legendHtml = legend ? `<p class="legend">${legend}</p>` : "";
  // A variant of its own words («Свара 32 по-старому»), else the game's description.
  const own = table.variant && table.variant !== table.game;
  const kind = !table.game ? "" : own ? variantTitle(ctx.lang, table.game, table.variant) : t(`game.${table.game}`);
  const caption = `<p class="caption" aria-hidden="true"><b>${esc(table.name)}</b><br>${esc(kind)}</p>`;
  return `<div class="oval game-${esc(table.game)} seats-${seats.length}"><div class="felt-inner" data-mark="${esc(t("felt.mark"))}">${centre}</div></div>${seatHtmls}${banner}${caption}${legendHtml}`;
}

/** Three places for a player's cards: the ones the view gives (shaha36 gives the turned
 * ones only, S-1.3), face down for the rest. */
export function threeCards(p) {
  return [0, 1, 2].map((i) => p?.cards?.[i] ?? null);
}

/** The viewer's own three cards, large, with the automatic count (C-3.9) when enabled.
 * Where the game says so a face-down card is tapped to look (S-1.3, B-4.3). */
export function renderHand(state, ctx) {
  const { view, me } = state;
  const p = playersByName(view).get(me);
  if (!p || p.state === "out") return "";
  const game = view.game;
  const lookLegal = (view.legal || []).some((a) => a.do === "look");
  const tapToLook = gameOf(game).tapToLook && lookLegal && p.state !== "folded";
  const fresh = ctx.fresh?.has(me);
  const cards = threeCards(p).map((c, i) => {
    const tappable = tapToLook && !c;
    const flip = c && i >= (ctx.upBefore ?? 3);
    const extra = [fresh ? "dealt" : "", tappable ? "tap" : "", flip ? "flip" : ""].join(" ");
    const html = cardHtml(c, { extra, delay: fresh ? 150 * i : 0, index: i, lang: ctx.lang });
    return tappable ? html.replace('class="card', `role="button" tabindex="0" title="${ctx.t(`${game}.look`)}" class="card`) : html;
  });
  let count = "";
  const known = threeCards(p);
  // The engine's own count when the view has it (classic), else the scoring table's.
  const fromView = p.points !== undefined || p.absolute ? { points: p.points, absolute: Boolean(p.absolute), label: p.label } : null;
  if (ctx.settings.autoCount && known.every(Boolean) && (fromView || ctx.score)) {
    const s = fromView || ctx.score(known);
    if (s) {
      const pts = s.absolute ? ctx.t("absolute") : String(s.points).replace(".", ",");
      count = `<div class="count" data-count>${esc(pts)}${s.label && !s.absolute ? ` · ${esc(ctx.t(s.label))}` : ""}</div>`;
    }
  }
  const folded = p.state === "folded" ? " folded" : "";
  // A phone shows no `title`: the hint that a card turns over is written (S-1.3, B-4.3).
  const hint = tapToLook && threeCards(p).some((c) => !c) ? `<p class="tap-hint">${esc(ctx.t(`${game}.tap_hint`))}</p>` : "";
  return `<div class="my-cards${folded}">${cards.join("")}</div>${hint}${count}`;
}

function button(a, game, t, extra = "") {
  const label = actionLabel(game, a, t);
  const attrs = [`data-do="${a.do}"`];
  if (a.to != null) attrs.push(`data-to="${a.to}"`);
  if (a.deal) attrs.push(`data-deal="${a.deal}"`);
  const price = priceSuffix(a, label);
  const kind = a.do === "fold" || a.do === "muck" ? "danger" : a.do === "propose" ? "deal" : "";
  return `<button type="button" class="act ${kind} ${extra}" ${attrs.join(" ")}><span class="label">${esc(label)}</span>${price ? `<span class="price">${esc(price)}</span>` : ""}</button>`;
}

/** The amount panel of a ranged bet or raise: entry, slider, ×2 ×5 ×10 МАКС (B-3.3). */
function amountPanel(a, game, t, ctx) {
  const key = `${a.do}:${a.min_to}:${a.max_to}`;
  const value = Math.min(a.max_to, Math.max(a.min_to, ctx.draft?.[key] ?? a.min_to));
  const mult = [2, 5, 10]
    .map((k) => Math.min(a.max_to, k * a.min_to))
    .map((v, i) => `<button type="button" class="mult" data-set="${v}">×${[2, 5, 10][i]}</button>`)
    .join("");
  const label = actionLabel(game, a, t);
  return (
    `<div class="amount" data-key="${key}" data-min="${a.min_to}" data-max="${a.max_to}">` +
    `<div class="amount-row"><input type="number" inputmode="numeric" class="amount-input" aria-label="${t("amount")}" min="${a.min_to}" max="${a.max_to}" step="1" value="${value}">` +
    `<input type="range" class="amount-slider" aria-label="${t("amount")}" min="${a.min_to}" max="${a.max_to}" step="1" value="${value}"></div>` +
    `<div class="amount-row">${mult}<button type="button" class="mult" data-set="${a.max_to}">${t("max")}</button>` +
    `<button type="button" class="act raise" data-do="${a.do}" data-ranged="1"><span class="label">${esc(label)}</span></button></div></div>`
  );
}

/** Between hands: «Готов», «Пропустить», «Темнить · 15 ₽», «Сесть за стол», «Новая раздача». */
const BETWEEN_LABEL = {
  ready: "ready_btn",
  skip: "skip_btn",
  dark: "dark_btn",
  sit: "sit_btn",
  new_hand: "new_hand_btn",
  dark32: "dark32_btn",
  leave_queue: "leave_queue_btn",
};

/** The action bar: only what the server says is legal now, each with its price. */
export function renderActions(state, ctx) {
  const { t } = ctx;
  const { view } = state;
  if (!view || !(view.legal || []).length) {
    // Why the viewer has no seat (docs/rules.md, «No money, no seat»; docs/protocol.md
    // `you.stood`), beside «Сесть за стол»; he may close it.
    const close = `<button type="button" class="note-close" data-note-close aria-label="${esc(t("close"))}"></button>`;
    const note = ctx.note ? `<p class="note" role="status">${esc(ctx.note)}${close}</p>` : "";
    return note + (state.between || [])
      .map((a) => {
        const label = t(BETWEEN_LABEL[a.do] || a.do);
        const price = a.price ? ` · ${money(a.price)}` : "";
        return `<button type="button" class="act between ${a.do === "dark" ? "dark" : ""}" data-table-do="${a.send || a.do}"><span class="label">${esc(label)}</span>${price ? `<span class="price">${esc(price)}</span>` : ""}</button>`;
      })
      .join("");
  }
  const game = view.game;
  const { dialogDo, lookButton } = gameOf(game);
  // A game that turns cards by tapping them (S-1.3) has no look button.
  const legal = view.legal.filter((a) => !dialogDo.has(a.do) && (lookButton || a.do !== "look"));
  const { barOrder } = gameOf(game);
  legal.sort((a, b) => barOrder.indexOf(a.do) - barOrder.indexOf(b.do) || (a.to ?? 0) - (b.to ?? 0));
  // Legal (hand.py) is a range (`min_to`/`max_to`) or a button (its `to`, if any); a range
  // whose bounds meet is the button of that amount.
  const isRange = (a) => a.min_to != null && a.min_to !== a.max_to;
  const ranged = legal.filter(isRange);
  const buttons = legal
    .filter((a) => !isRange(a))
    .map((a) => button(a.min_to != null ? { ...a, to: a.min_to } : a, game, t))
    .join("");
  return `<div class="bar-buttons">${buttons}</div>${ranged.map((a) => amountPanel(a, game, t, ctx)).join("")}`;
}

/** A dialog's countdown to `at` (client ms), «Осталось 12 с»; the page ticks its `.secs`. */
function dialogTimer(at, ctx, label) {
  const { t } = ctx;
  const left = Math.max(0, Math.ceil((at - (ctx.now ?? 0)) / 1000));
  return `<p class="dialog-timer">${t(label)} <span class="secs" data-at="${Math.round(at)}">${left}</span> ${t("seconds")}</p>`;
}

/** The buy-in dialog's countdown (S-1.5, S-1.6, C-1.3): while the gathering's timer runs,
 * how long until the next hand is dealt, which one who sits down now may still answer;
 * nothing is timed while a hand is played or no gathering is open. */
export function renderBuyInTimer(state, ctx) {
  const at = state.gatheringAt;
  return at != null && at > (ctx.now ?? 0) ? dialogTimer(at, ctx, "deal_in") : "";
}

/** Dialogs: the cook/split vote (C-5), the Svara entry with its fee (C-7.3, S-7.3, B-5.2),
 * the tie choice (S-7.1) and the dark continuation in a Svara (C-7.5). */
export function renderDialog(state, ctx) {
  const { t } = ctx;
  const { view } = state;
  if (!view) return "";
  const game = view.game;
  const legal = view.legal || [];
  const has = (d) => legal.find((a) => a.do === d);
  // The dialog's own countdown: the viewer's deadline for this decision (C-5.3, C-7.3).
  const deadline = state.deadlines?.[state.me];
  const timer = deadline ? dialogTimer(deadline.at, ctx, "time_left") : "";
  const dialog = (kind, title, body, actions) =>
    `<div class="dialog ${kind}" role="dialog" aria-modal="true" aria-label="${esc(title)}"><h2>${esc(title)}</h2>${body}${timer}<div class="dialog-actions">${actions
      .map((a) => button(a, game, t))
      .join("")}</div></div>`;
  const own = gameOf(game).dialog(view, has, t);
  if (own) return dialog(own.kind, own.title, "", own.actions.filter(Boolean));
  if (has("join")) {
    const j = has("join");
    return dialog("svara-entry", t("svara_title"), `<p class="fee">${t("svara_fee", { fee: money(j.price) })}</p>`, [j, has("skip")].filter(Boolean));
  }
  if (view.phase === "vote" && view.vote) {
    return `<div class="dialog waiting" role="status"><p>${t("vote_waiting")}</p></div>`;
  }
  return "";
}

/** «История действий»: the full ordered list of the current hand's public events (C-4.15). */
export function renderHistory(state, ctx) {
  const { view } = state;
  const events = view?.events || [];
  if (!events.length) return `<p class="empty">${ctx.t("no_history")}</p>`;
  const lines = events.map((e) => [e, eventText(view.game, e, ctx.t, events)]).filter(([, text]) => text);
  return `<ol class="history-list">${lines.map(([e, text]) => `<li class="ev-${esc(e.kind)}">${esc(text)}</li>`).join("")}</ol>`;
}

/** Who took money in this deal, and how much (award, win and split events since the last
 * deal): their seats are highlighted until the next hand. */
export function outcome(view) {
  const events = view?.events || [];
  const since = events.map((e) => e.kind).lastIndexOf("deal");
  const out = new Map();
  for (const e of events.slice(since + 1)) {
    if (!["award", "win", "split"].includes(e.kind)) continue;
    for (const [name, amount] of payees(e)) out.set(name, (out.get(name) ?? 0) + (amount ?? 0));
  }
  return out;
}

/** The hand a player won with, as the showdown showed it: its cards and its points (with
 * the hand's name where the engine gives one, S-2.7); null when nobody saw it (a win by
 * the others folding). */
export function winningHand(view, name, t) {
  const events = [...(view?.events || [])].reverse();
  const shown = events.find((e) => e.kind === "show" && e.player === name && e.cards);
  if (shown) return { cards: shown.cards, points: pointsText(shown, t) };
  const showdown = events.find((e) => e.kind === "showdown" && e.hands?.[name]);
  if (showdown) return { cards: showdown.hands[name].cards, points: pointsText(showdown.hands[name], t) };
  const p = playersByName(view).get(name);
  const score = p && showdownScore(view, p, t);
  return score && p.cards?.every(Boolean) ? { cards: p.cards, points: score } : null;
}

/** A banner's words, the player's name in them kept whole: a long name is cut with «…» on a
 * phone, never broken between its letters as the words around it may be (docs/i18n.md). */
function bannerText(b) {
  if (b.nameAt == null) return esc(b.text);
  const end = b.nameAt + b.name.length;
  return `${esc(b.text.slice(0, b.nameAt))}<span class="banner-name">${esc(b.name)}</span>${esc(b.text.slice(end))}`;
}

/** Stands for the winner's name while the banner's sentence is filled, to find where it goes. */
const NAME_MARK = "\u0000";

/** Banners that a new event raises: «СВАРА!», «Игроки поделили банк», «Смотрят карты», the
 * winner with his hand. `ms`: how long it stays, long enough to read what it says. */
export function bannerFor(event, t, view) {
  const game = view?.game;
  if (event.kind === "svara") {
    const tied = event.tied || event.players || [];
    // C-5.4: after «Варить» the players had no equal points; the pot was cooked.
    const events = view?.events || [];
    const at = events.findLastIndex((x) => x.kind === "svara" && x.round === event.round);
    const cooked = events[at - 1]?.kind === "cook";
    const detail = [
      event.round > 1 ? t("ev.svara_again", { round: event.round }) : "",
      tied.length ? t(cooked ? "ev.cook_players" : "ev.tie", { players: names(tied) }) : "",
      event.fee ? t("svara_fee", { fee: money(event.fee) }) : "",
    ];
    return { kind: "svara", text: t("banner_svara"), detail: detail.filter(Boolean).join(" · "), ms: 4000 };
  }
  if (event.kind === "split" || (event.kind === "agree" && event.deal === "split")) {
    const shares = event.kind === "split" ? payees(event).map(([name, amount]) => (amount == null ? name : `${name} ${money(amount)}`)) : [];
    return { kind: "split", text: t("banner_split"), detail: shares.join(", "), ms: 4500 };
  }
  // Only a look that compares two hands in front of everyone is a banner (C-4.11).
  if (gameOf(game).lookBanner && (event.kind === "look" || event.kind === "look_result")) {
    return { kind: "look", text: t("banner_look"), detail: event.loser ? t("look_lost_of", { name: event.loser }) : "", ms: 3000 };
  }
  if (event.kind === "win" || event.kind === "award") {
    const [[name, amount] = ["", ""]] = payees(event);
    const hand = winningHand(view, name, t);
    const sentence = t("banner_win", { name: NAME_MARK, amount: sum(amount) });
    const at = sentence.indexOf(NAME_MARK);
    const text = sentence.replace(NAME_MARK, () => name);
    return { kind: "win", text, name, nameAt: at < 0 ? null : at, cards: hand?.cards, detail: hand?.points ?? "", ms: 5000 };
  }
  return null;
}

/** Everything at once: what table.js writes into the page. */
export function renderTable(state, ctx) {
  return {
    felt: renderFelt(state, ctx),
    hand: renderHand(state, ctx),
    actions: renderActions(state, ctx),
    dialog: renderDialog(state, ctx),
    history: renderHistory(state, ctx),
  };
}
