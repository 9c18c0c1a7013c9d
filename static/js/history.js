// The replay page (/hands/<id>): forward and back through the hand as this player saw it,
// step by step (the server's per-step `view`, app/history/service.py), and the shuffle
// checked in the browser (fair.js) once its seeds are revealed, with what this browser kept
// of the hand: pending until then, then a quiet ✓ or a loud alarm.

import { available, checkCopy, handRecord, keepChecked } from "./fair.js";
import { cardName } from "./cards.js";
import { money, translator } from "./i18n.js";
import { actionLabel } from "./render.js";
import { loadSettings } from "./settings.js";

const data = JSON.parse(document.getElementById("replay").dataset.replay);
const steps = data.steps;
let at = 0;

function t(key, params) {
  return translator(loadSettings().lang)(key, params);
}

/** The hand's text file in the viewer's language and time zone (app/history/ reads
 * `?lang=` and `?tz=`). */
function textLink() {
  const link = document.getElementById("download-txt");
  const url = new URL(link.href, location.href);
  url.searchParams.set("lang", loadSettings().lang);
  url.searchParams.set("tz", Intl.DateTimeFormat().resolvedOptions().timeZone);
  link.href = url.pathname + url.search;
}

function cell(text, cls = "") {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function draw() {
  const step = steps[at];
  if (!step) {
    document.getElementById("step-count").textContent = t("hand.unreadable");
    return;
  }
  const view = step.view;
  const game = view.game;
  document.getElementById("step-count").textContent = t("hand.step", { n: at + 1, total: steps.length });
  const a = step.action;
  document.getElementById("step-action").textContent = a
    ? `${a.player}: ${actionLabel(game, a, t)}`
    : t("hand.dealt", { n: step.deal + 1 });
  document.getElementById("step-pot").textContent = t("hand.pot", { pot: money(view.pot) });
  const body = document.querySelector("#step-players tbody");
  body.replaceChildren(
    ...view.players.map((p) => {
      const tr = document.createElement("tr");
      tr.dataset.player = p.name;
      tr.append(cell(p.name), cell(money(p.balance), "balance"), cell(t(`hand.state.${p.state}`), "state"));
      const cards = cell("", "cards");
      for (const c of p.cards || []) {
        const span = document.createElement("span");
        span.className = "replay-card";
        span.textContent = cardName(c, t);
        if (c) span.dataset.card = c;
        cards.append(span);
      }
      tr.append(cards);
      return tr;
    }),
  );
  document.getElementById("step-back").disabled = at === 0;
  document.getElementById("step-forward").disabled = at === steps.length - 1;
}

async function check() {
  const mark = document.getElementById("fair-mark");
  mark.hidden = false;
  if (!data.fair) {
    mark.className = "fair-mark unchecked";
    mark.dataset.i18n = "fair.legacy";
  } else if (data.fair.pending) {
    mark.className = "fair-mark pending";
    mark.dataset.i18n = "fair.pending";
  } else if (!available()) {
    mark.className = "fair-mark unchecked";
    mark.dataset.i18n = "fair.unchecked";
  } else {
    const copy = await (await fetch(`/hands/${data.hand}.json`, { credentials: "same-origin" })).json();
    const result = await checkCopy(copy, handRecord(data.hand));
    keepChecked(data.hand, result.ok ? "verified" : "failed");
    mark.className = `fair-mark ${result.ok ? "ok" : "alarm"}`;
    mark.dataset.i18n = result.ok ? (result.own ? "fair.ok" : "fair.ok_no_record") : "fair.alarm";
    mark.dataset.i18nArgs = JSON.stringify({ why: result.ok ? "" : t(result.reason, result.params) });
    if (!result.ok) mark.setAttribute("role", "alert");
  }
  mark.textContent = t(mark.dataset.i18n, JSON.parse(mark.dataset.i18nArgs || "{}"));
}

/** «Файл раздачи (JSON)» with what this browser kept (`mine`: its seed and the commitment
 * it was shown), so that `svara verify` proves offline what this page proves. */
document.getElementById("download-json").addEventListener("click", async (e) => {
  const record = handRecord(data.hand);
  if (!record?.seed || !record.commit) return; // nothing kept here: the server's copy as it is
  e.preventDefault();
  const copy = await (await fetch(e.currentTarget.href, { credentials: "same-origin" })).json();
  copy.mine = { name: record.name, seed: record.seed, commit: record.commit };
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([JSON.stringify(copy)], { type: "application/json" }));
  link.download = `hand-${data.hand}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000); // the download has read it by then
});

document.getElementById("step-back").addEventListener("click", () => { if (at > 0) { at -= 1; draw(); } });
document.getElementById("step-forward").addEventListener("click", () => { if (at < steps.length - 1) { at += 1; draw(); } });
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowLeft") document.getElementById("step-back").click();
  if (e.key === "ArrowRight") document.getElementById("step-forward").click();
});
globalThis.addEventListener("svara-settings", () => {
  draw();
  textLink();
});
draw();
textLink();
check();
