// The table page's controller: it keeps the last state the server sent, draws it with the
// pure renderers of render.js, turns taps into Socket.IO events (docs/protocol.md, «Table»)
// and adds what is not state: chips flying, cards dealt one by one, sounds, banners.

import { bannerFor, payees, renderBuyInTimer, renderTable } from "./render.js";
import { loadScorer } from "./count.js";
import { money, refusal, stoodSentence, translator, variantTitle, withLang } from "./i18n.js";
import { connect } from "./net.js";
import { loadSettings } from "./settings.js";
import { onRefused, play, unlockSound } from "./sound.js";
import { Attention } from "./attention.js";
import { applyProtocol, EVENTS, tableAction } from "./protocol.js";
import { TableCheck } from "./fair.js";
import { VoiceTuning } from "./voice_tuning.js";
import { AskChips, tableHostAsks } from "./asks.js";
import { HostMenu } from "./host.js";
import { copyInvites } from "./invite.js";

const $ = (sel) => document.querySelector(sel);
const page = document.body.dataset;
const tableId = Number(page.table);

const settings = loadSettings();
let t = translator(settings.lang);
document.documentElement.classList.toggle("four-colour", settings.fourColour);

const regions = { felt: $("#felt"), hand: $("#hand"), actions: $("#actions"), dialog: $("#dialog"), history: $("#history-list"), buyIn: $("#buy-in .buy-in-timer") };
const drawn = {};

// speaking: the names whose seats glow (voice:levels); who is in the voice and the toggles
// are each seat's `voice` in the table state.
// note: why a seat was refused (need: what it needs); stood: why he lost his seat (the
// server's `you.stood`); balance: his balance as last heard.
const local = { fresh: new Set(), upBefore: 3, draft: {}, banner: null, score: null, speaking: new Set(), note: null, need: null, stood: null, balance: null };
/** Everything the server told us, in the shape render.js reads (protocol.js makes it). */
let state = { table: { id: tableId, name: "", game: "", seats: 0 }, seats: [], queue: 0, me: null, view: null, between: [], deadlines: {} };
let bannerTimer = 0;
let clockSkew = 0; // server time − client time, in ms

function ctx() {
  return {
    t,
    lang: settings.lang,
    settings,
    now: Date.now(),
    fresh: local.fresh,
    upBefore: local.upBefore,
    score: local.score,
    draft: local.draft,
    banner: local.banner,
    speaking: local.speaking,
    tuningMarks: (name) => tuning.seatMarks(name, t, state.me),
    note: local.note || stoodNote(),
  };
}

/** Write each region only when its HTML changed, so running animations are not restarted. */
function draw() {
  const out = renderTable(state, ctx());
  if (regions.buyIn) out.buyIn = renderBuyInTimer(state, ctx());
  for (const [name, html] of Object.entries(out)) {
    if (regions[name] && drawn[name] !== html) {
      regions[name].innerHTML = html;
      drawn[name] = html;
    }
  }
  // Deals and turned cards animate once: later draws show them in place.
  local.fresh = new Set();
  local.upBefore = 3;
  document.body.classList.toggle("has-dialog", Boolean(out.dialog));
  // The phone's chat drawer ends above the action bar, which stays usable; a laptop's panels
  // start below the top bar, whose microphone and sound stay in reach (table.css).
  const [bar, top] = [regions.actions.offsetHeight, $(".topbar").offsetHeight]; // one layout
  document.body.style.setProperty("--bar-h", `${bar}px`);
  document.body.style.setProperty("--top-h", `${top}px`);
  document.body.classList.toggle("my-turn", (state.view?.awaiting || []).includes(state.me));
  $("#table-name").textContent = state.table.name || "";
  const { game, variant } = state.table;
  // A variant of its own words («Свара 32 по-старому»), else the game's description.
  const kind = !game ? "" : variant && variant !== game ? variantTitle(settings.lang, game, variant) : t(`game.${game}`);
  $("#table-game").textContent = kind;
  if (game) $("#rules-link").href = withLang(`/rules/${game}`, settings.lang);
  if (state.version != null) document.body.dataset.version = state.version;
  if (!$("#settings-panel").hidden) tuning.players(othersSeated());
}

function showBanner(banner) {
  local.banner = banner;
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => {
    local.banner = null;
    draw();
  }, banner.ms ?? 2600);
}

// --- effects: what changed between two views ------------------------------------------------

function seatEl(name) {
  return document.querySelector(`.seat[data-seat="${CSS.escape(name)}"]`);
}

/** A chip flying from one element to another (Web Animations; nothing in the state). */
function flyChip(from, to, count = 1) {
  if (!from || !to) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  for (let i = 0; i < count; i++) {
    const chip = document.createElement("i");
    chip.className = "chip flying";
    document.body.append(chip);
    const dx = b.left + b.width / 2 - (a.left + a.width / 2);
    const dy = b.top + b.height / 2 - (a.top + a.height / 2);
    chip.style.left = `${a.left + a.width / 2 - 9}px`;
    chip.style.top = `${a.top + a.height / 2 - 9}px`;
    chip
      .animate([{ transform: "translate(0,0) scale(1)" }, { transform: `translate(${dx}px,${dy}px) scale(.8)` }], { duration: 520, delay: i * 70, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" })
      .finished.then(() => chip.remove());
  }
}

/** What a new state adds to the last one: dealt cards, chips, banners, sounds. */
function effects(before, after, news) {
  local.fresh = new Set();
  if (!after) return;
  const sameHand = before && before.id === after.id;
  const old = new Map((sameHand ? before.players : []).map((p) => [p.name, p]));
  for (const e of news) {
    if (e.kind === "deal") for (const name of e.players || []) local.fresh.add(name);
  }
  if (local.fresh.size) play("deal", settings);
  // Cards of mine that were face up before this state: the others turn over now.
  const up = (v) => (v?.players.find((p) => p.name === state.me)?.cards || []).filter(Boolean).length;
  local.upBefore = sameHand && !local.fresh.has(state.me) ? up(before) : 3;
  // A new deal's cards come onto a clean felt: the last hand's banner goes with them.
  if (news.some((e) => e.kind === "deal")) {
    local.banner = null;
    clearTimeout(bannerTimer);
  }
  for (const e of news) {
    const banner = bannerFor(e, t, after);
    if (banner) {
      showBanner(banner);
      play(banner.kind === "svara" ? "svara" : banner.kind === "win" ? "win" : "chip", settings);
    }
  }
  const wasMyTurn = (before?.awaiting || []).includes(state.me);
  if (!wasMyTurn && (after.awaiting || []).includes(state.me)) play("turn", settings);
  requestAnimationFrame(() => {
    const pot = document.querySelector("[data-pot]");
    for (const p of after.players) {
      const paid = p.paid - (old.get(p.name)?.paid ?? 0);
      if (paid > 0) flyChip(seatEl(p.name), pot, Math.min(4, 1 + Math.floor(paid / 20)));
    }
    for (const e of news) {
      if (["award", "win", "split"].includes(e.kind)) {
        for (const [name] of payees(e)) flyChip(pot, seatEl(name), e.kind === "split" ? 3 : 5);
      }
    }
  });
}

// --- the server's messages -----------------------------------------------------------------

function receive(msg) {
  if (!msg || msg.table !== tableId) return;
  if (typeof msg.now === "number") clockSkew = msg.now * 1000 - Date.now();
  if (msg.fair) lastFair = msg.fair;
  const before = state.view;
  const next = applyProtocol(state, msg, Date.now() + clockSkew);
  // Deadlines come in server time; countdowns run on the client clock.
  next.deadlines = Object.fromEntries(
    Object.entries(next.rawDeadlines || {}).map(([name, d]) => [name, { at: d.at - clockSkew, total: d.total }]),
  );
  next.gatheringAt = next.rawGatheringAt == null ? null : next.rawGatheringAt - clockSkew;
  if (next.notice && next.notice !== state.notice) toast(t("resumed"));
  state = next;
  fairCheck.observe(msg, msg.you?.name).then(showFair, () => showFair({ ok: false, reason: "fair.bad_commit" }));
  if (msg.fair && !msg.fair.seed && msg.phase === "playing") $("#fair-mark").hidden = true;
  followSeat();
  if (seated() || state.myQueue) {
    local.note = null;
    local.need = null;
    wantsSeat = false;
    asking.hide();
  }
  heardStood(msg.you?.stood ?? null);
  showLastHand(msg);
  if (state.news.some((e) => e.kind === "stood" && e.player === state.me && e.why === "money")) asking.show(null);
  if (moneyNote()) askBalance(); // a change no push told of shows with the table's next event
  host.update(msg);
  if (state.view !== before) effects(before, state.view, state.news);
  const inHand = state.phase === "playing" && (state.view?.players || []).some((p) => p.name === state.me);
  attention.state({ myTurn: (state.view?.awaiting || []).includes(state.me), inHand, tableName: state.table.name });
  ensureScorer();
  draw();
}

/** The count (C-3.9) needs the game's scoring table, fetched once it is switched on. */
function ensureScorer() {
  if (!state.table.game || local.score || !settings.autoCount) return;
  loadScorer(state.table.game).then(
    (score) => {
      local.score = score;
      draw();
    },
    () => {},
  );
}

/** Lines said while the chat panel was closed: the badge on its button counts them. */
let unread = 0;

function showUnread() {
  const badge = $("#chat-badge");
  if (!badge) return;
  badge.hidden = unread === 0;
  badge.textContent = unread > 9 ? "9+" : String(unread);
  badge.title = t("unread", { n: unread });
}

/** What a line says in this page's language: a quick phrase is the listener's own words. */
function lineText(line) {
  return line.phrase != null ? t(`phrase.${line.phrase}`) : line.text;
}

function chatLine(line) {
  const li = document.createElement("li");
  const who = document.createElement("b");
  who.textContent = `${line.from}: `;
  li.append(who, document.createTextNode(lineText(line)));
  if (line.phrase != null) li.dataset.phrase = line.phrase;
  $("#chat-list").append(li);
  li.scrollIntoView({ block: "end" });
}

/** The page's language changed: the phrases said (a phrase is a key, said in each page's
 * words) in its words; what players typed stays as typed. */
function relabelPhrases() {
  for (const li of document.querySelectorAll("#chat-list li[data-phrase]")) {
    li.lastChild.textContent = t(`phrase.${li.dataset.phrase}`);
  }
}

/** C-1.2: opening the table takes a free seat (or the queue) — unless its address asks to
 * watch only (`?watch=1`, the lobby's «Смотреть»). At a table of stacks the buy-in is asked
 * first (S-1.5). Reconnecting only watches again: a seat or a place is kept anyway. */
let entering = !new URLSearchParams(location.search).has("watch");

/** Why a seat was refused (docs/rules.md, «No money, no seat»): it stays written under the
 * table, with how much is missing, until the player sits. */
function seatRefused(msg) {
  if (msg.code !== "money") return;
  local.note = refusal(settings.lang, msg);
  local.need = msg.need ?? null;
  wantsSeat = Boolean(msg.short);
  if (msg.short) asking.show(Number(msg.short));
  draw();
}

// --- told, not guessed: why he lost his seat, and his balance as it is now ------------------

/** His last loss of a seat here as the server keeps it (docs/protocol.md `you.stood`): said
 * under the table until he sits again or dismisses it (kept for this tab: a reload does not
 * bring back what he closed). */
const DISMISSED = `svara.stood.${tableId}`;
function heardStood(stood) {
  // A balance heard before this stand-up says nothing about it: the next one will.
  if (JSON.stringify(stood) !== JSON.stringify(local.stood)) local.balance = null;
  local.stood = stood;
  if (!stood) sessionStorage.removeItem(DISMISSED);
}

function stoodNote() {
  const stood = local.stood;
  if (!stood || sessionStorage.getItem(DISMISSED) === JSON.stringify(stood)) return null;
  // Stood up for money, he has a seat's worth again: nothing stale is said.
  if (stood.why === "money" && local.balance != null && local.balance >= seatMinimum()) return null;
  return stoodSentence(settings.lang, stood, { ante: money(state.table.ante) });
}

function dismissNote() {
  if (local.note) {
    local.note = null;
    local.need = null;
  } else if (local.stood) sessionStorage.setItem(DISMISSED, JSON.stringify(local.stood));
  draw();
}

/** What a seat needs (docs/rules.md «No money, no seat»): the smallest stack, or the ante. */
function seatMinimum() {
  return page.buyInMin ? Number(page.buyInMin) : Number(state.table.ante || 0);
}

/** Whether a note about money is shown (a refused seat, a stand-up for money). */
function moneyNote() {
  return !seated() && ((local.note && local.need != null) || (local.stood?.why === "money" && stoodNote()));
}

/** His balance (a push, or the page's question `account:balance`): the buy-in shows it, a
 * note about missing money says the shortfall as it is now or goes, and a player refused a
 * seat for money tries again once it covers the seat (docs/protocol.md `account:balance`). */
function heardBalance(balance) {
  local.balance = Number(balance);
  if (buyInWaits) {
    buyInWaits = false;
    if (!seated() && !state.myQueue) offerBuyIn();
  }
  const shown = $("#buy-in .buy-in-balance");
  if (shown) {
    const args = { balance: money(local.balance) };
    shown.dataset.i18nArgs = JSON.stringify(args);
    shown.textContent = t("buy_in_balance", args);
  }
  if (seated() || state.myQueue) return draw();
  if (local.note && local.need != null) {
    const short = local.need - local.balance;
    if (short > 0) {
      local.note = refusal(settings.lang, { code: "money", need: local.need, short });
      return draw();
    }
    local.note = null;
    local.need = null;
  }
  draw();
  if (local.balance < seatMinimum()) return;
  asking.hide();
  if (!wantsSeat) return;
  wantsSeat = false;
  if (page.buyInMin) askBuyIn();
  else socket.emit("table:sit", { table: tableId });
}

/** Ask the server for his balance, one question at a time: on (re)connecting and on coming
 * back in front, a push missed meanwhile or a change no running server was told of. */
let asked = false;
function askBalance() {
  if (asked || !socket.connected) return;
  asked = true;
  socket.timeout(5000).emit("account:balance", {}, (err, ack) => {
    asked = false;
    if (!err && ack?.ok) heardBalance(ack.balance);
  });
}
/** Refused a seat for money, he still wants one: a grant (`account:balance`) seats him. */
let wantsSeat = false;

// C-8.2: this page's connection is the account's one at this table; the lobby in another
// tab has its own and takes nothing over.
const { socket, end } = connect($("[data-net]"), t, { table: tableId });
// «Попросить фишки» for a player short of money, the requests' badge for an administrator.
const asking = new AskChips(socket, () => t, { root: $("#ask-chips"), tableId, hosts: JSON.parse($("#ask-chips").dataset.hosts), toast: (text) => toast(text) });
// The host's menu (its creator's, an administrator's) and what everyone sees of it.
const host = new HostMenu(socket, () => t, {
  tableId,
  els: { status: $("#host-status"), body: $("#host-body"), badge: $("#host-badge"), log: $("#host-log"), chat: $("#chat-list") },
  muteMine: () => voice?.mic && voice.setMic(false).then(showVoice, () => {}),
});
copyInvites(document); // the host's menu of a private table: its invite link
if ($("#asks-badge")) tableHostAsks(socket, () => t, { badge: $("#asks-badge"), list: $("#asks-list") });
// His balance changed (a grant, an approved request): at once.
socket.on("account:balance", ({ balance }) => heardBalance(balance));
socket.on("connect", () => {
  askBalance();
  socket.emit(EVENTS.join, { table: tableId, ...(entering && !page.buyInMin ? { sit: true } : {}) }, (ack) => {
    if (!ack?.state) return;
    host.rewrite(ack.chat || [], ack.log || [], chatLine);
    receive(ack.state);
    if (entering) {
      entering = false;
      if (ack.sit && !ack.sit.ok) seatRefused(ack.sit);
      else if (page.buyInMin && ack.state.you?.seat == null && !ack.state.you?.queue) offerBuyIn();
    }
    // Back after a reload with voice on: the server kept the toggles (voice:join).
    if (seated() && !voice && sessionStorage.getItem(VOICE_KEY)) {
      startVoice().then(showVoice, (error) => toast(voiceProblem(error)));
    }
  });
});
socket.on("connect_error", (err) => {
  if (err?.message === "login required") location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
});
/** The session or the table ended here: no more reconnecting, and this page's voice ends
 * too (a takeover's new page starts its own; the old one must not go on hearing the table).
 * `again`: the label of the banner's button that takes the table back to this page. */
function over(text, again = null, away = null) {
  voice?.close();
  showVoice();
  end(text, again, away);
}
// C-8.2: the table was opened in another tab or on another device; «Играть здесь» connects
// this page again, which takes it back (and tells the other page the same).
socket.on("session:taken_over", () => over(t("taken_over"), t("play_here")));
socket.on("session:ended", () => over(t("session_ended")));
socket.on("table:closed", (m) => m.table === tableId && over(t("table_closed_why", { reason: m.reason }), null, { label: t("lobby"), href: "/" }));
socket.on("table:kicked", (m) => m.table === tableId && toast(t("kicked")));
socket.on(EVENTS.state, receive);
/** A refusal (docs/protocol.md `error`) in the player's words (an illegal action's reason,
 * which names the rule, C-…, comes after them). */
socket.on("error", (msg) => {
  toast(refusal(settings.lang, msg));
  if (msg?.event === "table:sit") seatRefused(msg);
});

// --- the shuffle check (docs/fairness.md) ----------------------------------------------------

const fairCheck = new TableCheck();
let lastFair = null;

/** «Готов» and «Темнить» carry this page's seed for the coming hand's shuffle. */
function withSeed([event, payload]) {
  if (event !== "table:ready" && event !== "table:dark") return [event, payload];
  return [event, { ...payload, seed: fairCheck.seedFor(lastFair) }];
}

/** After the hand: a quiet «checked when the game ends» (the seeds come then: fairness.md),
 * or a loud alarm for a hand this page cannot check. */
function showFair(result) {
  if (!result) return;
  const mark = $("#fair-mark");
  mark.hidden = false;
  mark.className = `fair-mark ${result.pending ? "pending" : "alarm"}`;
  mark.setAttribute("role", result.pending ? "status" : "alert");
  mark.textContent = result.pending ? t("fair.pending") : t("fair.alarm", { why: t(result.reason, result.params) });
}

function act(payload) {
  socket.emit(EVENTS.act, { table: tableId, version: state.version, ...payload });
}

// --- taps ------------------------------------------------------------------------------------

document.addEventListener("click", (ev) => {
  const el = ev.target.closest("button, .card.tap, [data-panel], [data-close]");
  if (!el) return;
  if (el.dataset.noteClose !== undefined) return dismissNote();
  if (el.dataset.panel) return togglePanel(el.dataset.panel);
  if (el.dataset.close !== undefined) return togglePanel(null);
  if (el.classList.contains("card")) return tapCard();
  if (el.dataset.tableDo === "sit" && page.buyInMin) return offerBuyIn();
  if (el.dataset.buyIn) return el.dataset.buyIn === "cancel" && closeBuyIn(false); // sit: the form's submit
  if (el.dataset.tableDo) return socket.emit(...withSeed(tableAction(tableId, el.dataset.tableDo)));
  if (el.classList.contains("mult")) return setAmount(el.closest(".amount"), Number(el.dataset.set));
  if (el.dataset.ranged) {
    const panel = el.closest(".amount");
    return act({ do: el.dataset.do, to: Number(panel.querySelector(".amount-input").value) });
  }
  if (el.dataset.do) {
    const payload = { do: el.dataset.do };
    if (el.dataset.to) payload.to = Number(el.dataset.to);
    if (el.dataset.deal) payload.deal = el.dataset.deal;
    return act(payload);
  }
});

document.addEventListener("keydown", (ev) => {
  if ((ev.key === "Enter" || ev.key === " ") && ev.target.classList?.contains("tap")) {
    ev.preventDefault();
    tapCard();
  }
});

/** shaha36 (S-1.3), svara32 (B-4.3): tapping a face-down card of one's own is the look. */
function tapCard() {
  act({ do: "look" });
}

/** S-1.5: the buy-in when his balance covers the smallest stack; else, as for a refused
 * seat, what is missing and «Попросить фишки», and a grant brings the buy-in (docs/rules.md
 * «No money, no seat»). A new friend with 0 ₽ is never offered a stack he cannot pay. */
let buyInWaits = false; // until his balance is heard
function offerBuyIn() {
  if (local.balance == null) {
    buyInWaits = true;
    return askBalance();
  }
  const least = seatMinimum();
  if (local.balance >= least) return askBuyIn();
  seatRefused({ code: "money", need: least, short: least - local.balance });
}

/** S-1.5: the stack to sit down with, between the table's buy-in bounds. */
function askBuyIn() {
  $("#buy-in").hidden = false;
  $("#buy-in .amount-input").focus();
}

function closeBuyIn(sit) {
  const dialog = $("#buy-in");
  dialog.hidden = true;
  if (!sit) return;
  const input = dialog.querySelector(".amount-input");
  const stack = Math.min(Number(input.max), Math.max(Number(input.min), Math.round(Number(input.value)) || 0));
  socket.emit("table:sit", { table: tableId, stack });
}

$("#buy-in")?.addEventListener("input", (ev) => {
  const other = ev.target.classList.contains("amount-slider") ? ".amount-input" : ".amount-slider";
  $("#buy-in").querySelector(other).value = ev.target.value;
});
$("#buy-in")?.addEventListener("submit", (ev) => {
  ev.preventDefault();
  closeBuyIn(true);
});

function setAmount(panel, value) {
  if (!panel) return;
  const v = Math.min(Number(panel.dataset.max), Math.max(Number(panel.dataset.min), Math.round(value) || 0));
  panel.querySelector(".amount-input").value = v;
  panel.querySelector(".amount-slider").value = v;
  local.draft[panel.dataset.key] = v;
}

document.addEventListener("input", (ev) => {
  const panel = ev.target.closest?.(".amount");
  if (!panel) return;
  if (ev.target.classList.contains("amount-slider")) setAmount(panel, Number(ev.target.value));
  else local.draft[panel.dataset.key] = Number(ev.target.value);
});
document.addEventListener("change", (ev) => {
  const panel = ev.target.closest?.(".amount");
  if (panel && ev.target.classList.contains("amount-input")) setAmount(panel, Number(ev.target.value));
});

// --- panels: history, chat -----------------------------------------------------------------

/** «Прошлая раздача» in the history panel: the last ended hand this viewer played, whose
 * replay (/hands/<id>) he may open; it stays while the next hand is played. A spectator
 * never gets one: the replay is its players' (docs/protocol.md, `GET /hands/<id>`). */
function showLastHand(msg) {
  const hand = msg.hand;
  const ended = hand?.id != null && msg.phase !== "playing";
  const shown = $("#last-hand");
  if (!shown || !ended || !(hand.players || []).some((p) => p.name === msg.you?.name)) return;
  $("#last-hand-link").href = `/hands/${hand.id}`;
  shown.hidden = false;
}

function togglePanel(name) {
  for (const panel of document.querySelectorAll(".panel")) {
    panel.hidden = panel.id !== name || !panel.hidden;
  }
  if ($("#settings-panel").hidden) tuning.close();
  else tuning.open(othersSeated());
  if (!$("#chat-panel").hidden) {
    unread = 0;
    showUnread();
  }
}

$("#chat-form")?.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = $("#chat-input");
  const text = input.value.trim();
  if (!text) return;
  socket.emit(EVENTS.say, { table: tableId, text });
  input.value = "";
});

for (const button of document.querySelectorAll("[data-phrase]")) {
  button.addEventListener("click", () => socket.emit(EVENTS.say, { table: tableId, phrase: Number(button.dataset.phrase) }));
}

const SPEECH_LANG = { ru: "ru-RU", en: "en-GB", bg: "bg-BG" };

/** A chat line; a quick phrase is also spoken aloud («Озвучить фразу»), in the listener's
 * language. */
socket.on(EVENTS.chat, (line) => {
  if (line.table !== tableId) return;
  chatLine(line);
  if ($("#chat-panel").hidden) {
    unread += 1;
    showUnread();
  }
  if (line.phrase != null && settings.sound && globalThis.speechSynthesis) {
    const u = new SpeechSynthesisUtterance(lineText(line));
    u.lang = SPEECH_LANG[settings.lang] || "ru-RU";
    speechSynthesis.speak(u);
  }
});

// --- voice (C-8.3, docs/protocol.md «Voice»): the two toggles of the top bar ---------------

let voice = null;
const VOICE_KEY = `svara.voice.${tableId}`;

function seated() {
  return state.seats.some((seat) => seat?.name === state.me);
}

/** The players the voice sheet lists: the others seated, bots left out (they do not talk). */
function othersSeated() {
  return state.seats.filter((seat) => seat && !seat.bot && seat.name !== state.me).map((seat) => seat.name);
}

/** The listener's own volumes, devices, push-to-talk and the seats' connection marks. */
/** Told when the page is not in front (static/js/attention.js); its «Включить звук» tap
 * lets the sounds and the voice's audio play. */
const attention = new Attention({
  t: () => t,
  settings: () => settings,
  unlockButton: $("#sound-unlock"),
  onUnlock: async () => {
    await unlockSound().catch(() => {});
    await voice?.resumeAudio();
  },
});
onRefused(() => attention.unlock());
// Back in front: a microphone lost meanwhile (a locked phone) is asked for again, and the
// balance too (a grant while the phone slept).
document.addEventListener("visibilitychange", () => document.hidden || (voice?.revive(), askBalance()));
globalThis.addEventListener("focus", () => askBalance());

const tuning = new VoiceTuning({
  root: $("#voice-tuning"),
  micButton: $("#mic"),
  voice: () => voice,
  t: () => t,
  onMarks: () => draw(),
  say: (text) => toast(text),
});

/** The voice marks by the seats come with each seat in the table state, for the seated
 * only (C-8.3, docs/protocol.md «table:state»). Whoever is not in the voice (any more) stops
 * glowing; stood up, kicked or timed out, this page's own voice ends. */
function followSeat() {
  for (const name of local.speaking) {
    if (!state.seats.some((seat) => seat?.name === name && seat.voice?.in)) setSpeaking(name, false);
  }
  if (!seated() && voice?.pc) {
    voice.close();
    showVoice();
  }
}

/** The speaking glow of a seat (ui.md), set at once: levels come up to five times a second. */
function setSpeaking(name, speaking) {
  if (speaking === local.speaking.has(name)) return;
  if (speaking) local.speaking.add(name);
  else local.speaking.delete(name);
  seatEl(name)?.classList.toggle("speaking", speaking);
}

function showVoice() {
  $("#mic").setAttribute("aria-pressed", String(Boolean(voice?.mic && voice.pc)));
  $("#listen").setAttribute("aria-pressed", String(Boolean(voice?.listen && voice.pc)));
}

/** A short note for 3 s; with `stay` it stays until the next note replaces it. */
function toast(text, { stay = false } = {}) {
  const note = $("#toast");
  note.textContent = text;
  note.hidden = !text;
  clearTimeout(toast.timer);
  if (stay) note.dataset.stay = "1";
  else {
    delete note.dataset.stay;
    toast.timer = setTimeout(() => (note.hidden = true), 3000);
  }
}

/** Voice starts from the first press of either toggle, with the mic as pressed for: on for
 * «Микрофон» even if the server kept it off, off for «Звук» (which never opens the mic).
 * Without `mic` (back after a reload) the toggle the server kept holds. */
async function startVoice(mic) {
  const { Voice } = await import("./voice.js");
  voice = new Voice({
    table: tableId,
    signal: (event, payload) => socket.timeout(10000).emitWithAck(event, payload),
    constraints: tuning.constraints(),
    onMicLost: () => tuning.micLost(),
    onAudio: (element) => {
      tuning.apply(voice);
      // Refused without a tap (autoplay policy, iOS Safari): «Включить звук» plays it.
      element.play?.().catch((error) => error?.name === "NotAllowedError" && attention.unlock());
    },
    onSlots: () => tuning.apply(voice),
    onState: (s) => {
      if (String(s).startsWith("failed")) toast(t("voice_failed"));
      // Dropped and connecting again by itself: said until the voice is back.
      if (s === "reconnecting") toast(t("voice_reconnecting"), { stay: true });
      else if (s === "connected" && $("#toast").dataset.stay) toast("");
      showVoice();
    },
  });
  tuning.prepare(voice);
  await voice.start({ mic });
  sessionStorage.setItem(VOICE_KEY, "on");
}

/** What the player reads when voice cannot start: the two causes he or the host can fix
 * are said in his language (docs/hosting.md «Voice»), the rest with the server's reason. */
function voiceProblem(error) {
  if (error?.code === "insecure") return t("voice_https");
  if (error?.code === "ports") return t("voice_ports");
  return `${t("voice_failed")}: ${error.message}`;
}

async function toggleVoice(which) {
  try {
    if (!voice?.pc) {
      await startVoice(which === "mic");
      // A first press of «Звук» means listening, even if it was left off before.
      if (which === "listen" && !voice.listen) await voice.setListen(true);
    } else if (which === "mic") await voice.setMic(!voice.mic);
    else await voice.setListen(!voice.listen);
  } catch (error) {
    toast(voiceProblem(error));
  }
  showVoice();
}

// With push-to-talk a running voice's «Микрофон» is held, not pressed (voice_tuning.js).
$("#mic").addEventListener("click", () => (host.mutedMe() && !voice?.mic ? toast(t("host.you_muted")) : tuning.holdsMic() || toggleVoice("mic")));
$("#listen").addEventListener("click", () => toggleVoice("listen"));
for (const event of ["voice:slots", "voice:peer", "voice:restart"]) {
  socket.on(event, (payload) => voice?.handle(event, payload));
}
// Who speaks reaches every seated page, in the voice or not: the glow of the seats.
socket.on("voice:levels", (m) => {
  if (m.table !== tableId) return;
  for (const [name, level] of Object.entries(m.levels)) setSpeaking(name, level > 0.08);
});

/** «Выйти»: stand up (a fold in a hand, S-1.7) and go back to the lobby. */
$("#leave")?.addEventListener("click", (ev) => {
  ev.preventDefault();
  const href = $("#leave").href;
  sessionStorage.removeItem(VOICE_KEY);
  voice?.close();
  if (!socket.connected) return (location.href = href);
  socket.timeout(2000).emit(EVENTS.stand, { table: tableId }, () => (location.href = href));
});

// The countdown numbers tick between renders; the rings are CSS animations.
setInterval(() => {
  const now = Date.now();
  for (const el of document.querySelectorAll(".secs[data-at]")) {
    el.textContent = Math.max(0, Math.ceil((Number(el.dataset.at) - now) / 1000));
  }
}, 250);

globalThis.addEventListener("svara-settings", (ev) => {
  Object.assign(settings, ev.detail);
  t = translator(settings.lang);
  document.documentElement.classList.toggle("four-colour", settings.fourColour);
  for (const k of Object.keys(drawn)) delete drawn[k];
  host.relabel();
  relabelPhrases();
  ensureScorer();
  draw();
});

draw();
