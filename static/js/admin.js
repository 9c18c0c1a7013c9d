// The host's page (/admin, app/admin/web.py): its forms post as they are; this script only
// keeps «Просьбы о фишках» live — a new request appears with its badge the moment a player
// sends it, and one answered elsewhere (at a table, by another administrator) goes.

import { io } from "/static/vendor/socket.io.esm.min.js";
import { translator } from "./i18n.js";
import { askLine, HostAsks } from "./asks.js";
import { loadSettings } from "./settings.js";

const t = translator(loadSettings().lang);
const list = document.getElementById("asks-list");
const none = document.getElementById("asks-none");
const count = document.getElementById("asks-count");
const template = document.getElementById("ask-template");

function line(r) {
  const li = template.content.firstElementChild.cloneNode(true);
  li.dataset.ask = String(r.id);
  li.querySelector(".ask-text").textContent = askLine(t, r);
  li.querySelector("form").action = `/admin/requests/${r.id}`;
  for (const b of li.querySelectorAll("[data-i18n]")) b.textContent = t(b.dataset.i18n);
  return li;
}

const socket = io({ transports: ["websocket"] });
new HostAsks(socket, (requests) => {
  list.replaceChildren(...requests.map(line));
  none.hidden = requests.length > 0;
  count.hidden = requests.length === 0;
  count.textContent = String(requests.length);
});
