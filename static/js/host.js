// The host's table menu and what every player sees of it (docs/hosting.md, «The host's table
// menu»; docs/protocol.md, «table:host»). Everyone: the state's `host` drawn as «Пауза» and
// «Места закрыты», a mute of this player with «Попросить слова», and each control used — with
// the name of who used it — as a line of the chat and of the history. The creator and the
// administrators: the menu's controls (the server refuses them to anyone else).

import { money } from "./i18n.js";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** The rules a host changed, in the page's words: «анте 20 ₽, ставки 20 / 40, ход 45 с». */
export function ruleText(rules, t) {
  return Object.entries(rules || {})
    .map(([key, value]) => {
      if (key === "ante") return t("rule.ante", { value: money(value) });
      if (key === "levels") return t("rule.levels", { value: [].concat(value).join(" / ") });
      return t(key === "turn_seconds" ? "rule.turn_seconds" : "rule.timer", { value });
    })
    .join(", ");
}

/** A news event as a line of the table's log (who did what), or null. */
export function hostLine(e, t) {
  if (e.kind === "ask_speak") return t("log.ask_speak", { player: e.player });
  if ((e.kind === "stood" || e.kind === "leaving") && e.why === "host") {
    return t(e.kind === "stood" ? "log.stand" : "log.stand_after", { by: e.by, whom: e.player });
  }
  if (e.kind !== "host") return null;
  if (e.do === "rules") return t(e.after_hand ? "log.rules_next" : "log.rules", { by: e.player, rules: ruleText(e.rules, t) });
  return t(`log.${e.do}`, { by: e.player, whom: e.whom ?? "" });
}

/** The gathering timer a host may set, as this game names it (C-1.3, S-1.6). */
const GATHER = ["ready_seconds", "new_hand_seconds"];

export class HostMenu {
  /** `els`: `status` (everyone's strip), `body` and `badge` (the host's menu, absent for the
   * others), `log` (the history panel's list), `chat` (the chat list); `muteMine` stops this
   * page's microphone when the host mutes it. */
  constructor(socket, getT, { tableId, els, muteMine }) {
    this.socket = socket;
    this.t = getT;
    this.tableId = tableId;
    this.els = els;
    this.muteMine = muteMine;
    this.msg = null;
    this.rulesKey = "";
    this.lines = new WeakMap(); // each host line's element → its event, to write it again
    els.body?.addEventListener("click", (ev) => this.tap(ev));
    els.body?.addEventListener("submit", (ev) => this.submit(ev));
    els.status.addEventListener("click", (ev) => {
      if (ev.target.closest("[data-host-ask]")) this.socket.emit("table:ask_speak", { table: this.tableId });
    });
  }

  /** The host muted this player's microphone here. */
  mutedMe() {
    const me = this.msg?.you?.name;
    return Boolean(me && (this.msg.host?.muted || []).includes(me));
  }

  /** A new `table:state`: its news as log lines, the strip and the menu drawn anew. */
  update(msg) {
    this.msg = msg;
    const t = this.t();
    for (const e of msg.news || []) this.written(e);
    if (this.mutedMe()) this.muteMine();
    this.drawStatus(t);
    this.drawMenu(t);
  }

  /** The page (re)joined: the chat's stored lines (`chatLine` draws one) and the table's
   * host lines (`table:join`'s `log`) written again in the order said, the history's log
   * from the host lines alone — a reload or a reconnect keeps who paused, muted, stood up. */
  rewrite(chat, log, chatLine) {
    this.els.chat.replaceChildren();
    if (this.els.log) {
      this.els.log.replaceChildren();
      this.els.log.hidden = true;
    }
    const said = [...chat.map((line) => [line.time, () => chatLine(line)]), ...log.map((e) => [e.time, () => this.written(e)])];
    said.sort((a, b) => a[0] - b[0]); // stable: the same second keeps each list's order
    for (const [, draw] of said) draw();
  }

  /** An event written as a host line, if it is one. */
  written(e) {
    const text = hostLine(e, this.t());
    if (!text) return;
    const { log, chat } = this.els;
    for (const list of [log, chat]) {
      if (!list) continue;
      const li = document.createElement("li");
      li.className = "host-line";
      li.textContent = text;
      this.lines.set(li, e);
      list.append(li);
    }
    if (log) log.hidden = false;
  }

  /** The page's language changed: the lines written, the strip and the menu in its words
   * (a line is the page's text, not the server's: a reload would write it so). */
  relabel() {
    const t = this.t();
    for (const list of [this.els.log, this.els.chat]) {
      for (const li of list?.querySelectorAll(".host-line") || []) {
        const e = this.lines.get(li);
        if (e) li.textContent = hostLine(e, t);
      }
    }
    if (this.msg) {
      this.drawStatus(t);
      this.drawMenu(t);
    }
  }

  drawStatus(t) {
    const { host, phase, you } = this.msg;
    const parts = [];
    if (host?.paused) parts.push(`<b class="host-pill paused">${esc(t(phase === "playing" ? "host.paused_after" : "host.paused"))}</b>`);
    if (host?.locked) parts.push(`<b class="host-pill locked">${esc(t("host.locked"))}</b>`);
    if (this.mutedMe()) {
      const asked = (host.asking || []).includes(you.name);
      parts.push(
        `<p class="host-muted">${esc(t("host.you_muted"))}</p>` +
          (asked ? `<p class="host-muted">${esc(t("host.asked"))}</p>` : `<button type="button" class="host-ask" data-host-ask>${esc(t("host.ask_speak"))}</button>`),
      );
    }
    const html = parts.join("");
    if (this.els.status.innerHTML !== html) this.els.status.innerHTML = html;
    this.els.status.hidden = !html;
  }

  drawMenu(t) {
    const { body, badge } = this.els;
    if (!body) return;
    const { host, seats, info, phase, you } = this.msg;
    const asking = host?.asking || [];
    if (badge) {
      badge.hidden = !asking.length;
      badge.textContent = String(asking.length);
    }
    const button = (doIt, label, extra = "") => `<button type="button" class="host-btn" data-host-do="${doIt}"${extra}>${esc(t(label))}</button>`;
    const players = (seats || [])
      .filter(Boolean)
      .map((s) => {
        const muted = (host?.muted || []).includes(s.name);
        const who = ` data-player="${esc(s.name)}"`;
        const mic = s.bot ? "" : button(muted ? "unmute" : "mute", muted ? "host.unmute" : "host.mute", who);
        const stand = s.name === you?.name ? "" : button("stand", "host.stand", who);
        const asks = asking.includes(s.name) ? `<small class="host-asking">${esc(t("host.asking"))}</small>` : "";
        return `<li><span class="host-name">${esc(s.name)}${asks}</span><span class="host-row">${mic}${stand}</span></li>`;
      })
      .join("");
    const controls =
      `<div class="host-controls">` +
      button(host?.paused ? "resume" : "pause", host?.paused ? "host.resume" : "host.pause") +
      button(host?.locked ? "unlock" : "lock", host?.locked ? "host.unlock" : "host.lock") +
      `<button type="button" class="host-btn" data-host-bots="1">${esc(t("host.bots_fill"))}</button>` +
      `<button type="button" class="host-btn" data-host-bots="0">${esc(t("host.bots_clear"))}</button></div>`;
    const html = `${controls}<h3>${esc(t("host.players"))}</h3><ul class="host-players">${players}</ul><div class="host-rules-slot"></div>`;
    if (this.drawnMenu !== html) {
      const form = body.querySelector(".host-rules");
      body.innerHTML = html;
      if (form) body.querySelector(".host-rules-slot").replaceWith(form);
      this.drawnMenu = html;
    }
    this.drawRules(t, info, host, phase);
  }

  /** The rules form, drawn anew only when the rules (or the phase) change, so that a host
   * typing in it keeps what he typed. */
  drawRules(t, info, host, phase) {
    const rules = { ...(info?.rules || {}), ...(host?.pending || {}) };
    const key = JSON.stringify([rules, phase, t("host.apply")]);
    const slot = this.els.body.querySelector(".host-rules-slot, .host-rules");
    if (key === this.rulesKey && slot.classList.contains("host-rules")) return;
    this.rulesKey = key;
    const field = (name, label, value, type = "number") =>
      `<label><span>${esc(t(label))}</span><input name="${name}" type="${type}" inputmode="numeric" value="${esc(value)}" required></label>`;
    const gather = GATHER.find((g) => g in rules);
    const form =
      `<form class="host-rules"><h3>${esc(t("host.rules"))}</h3>` +
      (phase === "playing" ? `<p class="hint">${esc(t("host.rules_hint"))}</p>` : "") +
      field("ante", "host.ante", rules.ante) +
      ("levels" in rules ? field("levels", "host.levels", [].concat(rules.levels).join(", "), "text") : "") +
      field("turn_seconds", "host.turn", rules.turn_seconds) +
      (gather ? field(gather, "host.gather", rules[gather]) : "") +
      `<button type="submit" class="host-btn apply">${esc(t("host.apply"))}</button></form>`;
    const holder = document.createElement("div");
    holder.innerHTML = form;
    slot.replaceWith(holder.firstChild);
  }

  tap(ev) {
    const el = ev.target.closest("button");
    if (!el) return;
    if (el.dataset.hostBots) return this.socket.emit("table:bots", { table: this.tableId, fill: el.dataset.hostBots === "1" });
    if (!el.dataset.hostDo) return;
    const payload = { table: this.tableId, do: el.dataset.hostDo };
    if (el.dataset.player) payload.player = el.dataset.player;
    this.socket.emit("table:host", payload);
  }

  /** Only what the host changed is sent; the server checks it against the variant's ranges. */
  submit(ev) {
    ev.preventDefault();
    const form = ev.target;
    const now = { ...(this.msg?.info?.rules || {}), ...(this.msg?.host?.pending || {}) };
    const rules = {};
    for (const input of form.querySelectorAll("input")) {
      const value = input.name === "levels" ? input.value.split(/[\s,;/]+/).filter(Boolean).map(Number) : Number(input.value);
      if (JSON.stringify(value) !== JSON.stringify(now[input.name])) rules[input.name] = value;
    }
    if (!Object.keys(rules).length) return;
    this.rulesKey = ""; // drawn anew from the next state
    this.socket.emit("table:host", { table: this.tableId, do: "rules", rules });
  }
}
