// «Мои раздачи» (/hands): each hand's shuffle as this browser found it (docs/fairness.md):
// pending until its seeds are revealed (the game at its table ended), then checked here with
// what this browser kept of it (fair.js), verified or failed.

import { available, checkCopy, checked, handRecord, keepChecked } from "./fair.js";
import { translator } from "./i18n.js";
import { loadSettings } from "./settings.js";

function show(cell, status) {
  cell.dataset.status = status;
  cell.className = `fair-status ${status}`;
  cell.dataset.i18n = `fair.status.${status}`;
  cell.textContent = translator(loadSettings().lang)(cell.dataset.i18n);
}

async function status(cell) {
  const id = Number(cell.closest(".hand-row").dataset.hand);
  if (cell.dataset.checkable !== "true" || !available()) return "unchecked";
  if (cell.dataset.revealed !== "true") return "pending";
  const known = checked(id);
  if (known === "failed") return known;
  const copy = await (await fetch(`/hands/${id}.json`, { credentials: "same-origin" })).json();
  const result = await checkCopy(copy, handRecord(id));
  keepChecked(id, result.ok ? "verified" : "failed");
  // Checked against the server's file alone (this browser kept no record of the hand).
  if (result.ok && !result.own) return "unrecorded";
  return result.ok ? "verified" : "failed";
}

for (const cell of document.querySelectorAll("#my-hands .fair-status")) {
  status(cell).then((s) => show(cell, s), () => show(cell, "failed"));
}
