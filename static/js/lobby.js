// The lobby page: live table list and lobby chat over Socket.IO (docs/protocol.md, «Lobby»).
// Text from the server is only ever put into the page with textContent (never as HTML).
import { io } from "/static/vendor/socket.io.esm.min.js";
import { amount, money, refusal, translator, variantTitle } from "./i18n.js";
import { copyInvites } from "./invite.js";
import { loadSettings } from "./settings.js";

const rows = document.getElementById("table-rows");
const noTables = document.getElementById("no-tables");
const chatLines = document.getElementById("chat-lines");
const chatForm = document.getElementById("chat-form");
const chatText = document.getElementById("chat-text");
const status = document.getElementById("connection-status");
const { lang } = loadSettings(); // the language the table and the pages follow
const t = translator(lang);

function cell(className, text) {
  const td = document.createElement("td");
  td.className = className;
  td.textContent = text;
  return td;
}

function stakes(s) {
  return s.buy_in
    ? t("lobby.stakes_buy_in", { ante: money(s.ante), min: amount(s.buy_in[0]), max: money(s.buy_in[1]) })
    : t("lobby.stakes", { ante: money(s.ante) });
}

function tableRow(row) {
  const tr = document.createElement("tr");
  tr.className = "table-row";
  tr.dataset.tableId = String(row.id);
  const name = cell("table-name", "");
  const link = (className, href, text) => {
    const a = document.createElement("a");
    if (className) a.className = className;
    a.href = href;
    a.textContent = text;
    return a;
  };
  // «Играть» enters the table and takes a seat (C-1.2); «Смотреть» only watches.
  const links = document.createElement("span");
  links.className = "table-links";
  links.append(link("play", `/table/${row.id}`, t("lobby.play")), " ", link("watch", `/table/${row.id}?watch=1`, t("lobby.watch")));
  name.append(link("", `/table/${row.id}`, row.name), " ", links);
  const variant = cell("table-variant", variantTitle(lang, row.game, row.variant));
  tr.append(name, variant, cell("table-stakes", stakes(row.stakes)),
    cell("table-seats", `${row.seated}/${row.seats}`), cell("table-queue", String(row.queue)));
  return tr;
}

/** The form's variants by their names in the page's language («Свара 32 по-старому»; a
 * host's own variant by its name after its game's). */
const variants = document.querySelector("#new-table select[name=variant]");
const variantGames = JSON.parse(variants?.dataset.games || "{}");
for (const option of variants?.options || []) {
  const game = variantGames[option.value];
  if (game) option.textContent = variantTitle(lang, game, option.value);
}

function showTable(t) {
  const old = rows.querySelector(`[data-table-id="${t.id}"]`);
  if (old) old.replaceWith(tableRow(t));
  else rows.append(tableRow(t));
  noTables.hidden = true;
}

function removeTable(id) {
  rows.querySelector(`[data-table-id="${id}"]`)?.remove();
  noTables.hidden = rows.children.length > 0;
}

function chatLine(line) {
  const li = document.createElement("li");
  li.className = "chat-line";
  const from = document.createElement("span");
  from.className = "chat-from";
  from.textContent = line.from;
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = line.text;
  li.append(from, ": ", text);
  chatLines.append(li);
  chatLines.scrollTop = chatLines.scrollHeight;
}

const socket = io({ transports: ["websocket"] });
socket.on("connect", () => {
  status.textContent = "";
  socket.emit("lobby:join");
});
socket.on("disconnect", () => { status.textContent = t("reconnecting"); });
socket.on("lobby:state", (state) => {
  rows.replaceChildren(...state.tables.map(tableRow));
  noTables.hidden = state.tables.length > 0;
  chatLines.replaceChildren();
  state.chat.forEach(chatLine);
});
socket.on("lobby:table", showTable);
socket.on("lobby:table_closed", (t) => removeTable(t.id));
socket.on("lobby:chat", chatLine);
// A grant or an approved «Попросить фишки» (docs/protocol.md `account:balance`): at once;
// and asked for on connecting and on coming back in front (a push missed meanwhile, a change
// no running server was told of: a stack returned at a table, a grant with no server up).
function showBalance(balance) {
  const shown = document.querySelector("#balance b");
  if (shown) shown.textContent = money(balance);
}
socket.on("account:balance", ({ balance }) => showBalance(balance));
function askBalance() {
  if (socket.connected) socket.emit("account:balance", {}, (ack) => ack?.ok && showBalance(ack.balance));
}
socket.on("connect", askBalance);
document.addEventListener("visibilitychange", () => document.hidden || askBalance());
globalThis.addEventListener("focus", askBalance);
socket.on("error", (e) => { status.textContent = refusal(lang, e); });
// The lobby's connection is never taken over (C-8.2 is about a table's page); a session
// ends for every tab at once (a logout, a ban, a new password).
socket.on("session:ended", () => {
  socket.io.opts.reconnection = false;
  socket.disconnect(); // told by another server process, this one may stay open otherwise
  status.textContent = t("lobby.session_ended");
});

copyInvites(document);

chatForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = chatText.value.trim();
  if (!text) return;
  socket.emit("lobby:chat", { text });
  chatText.value = "";
});
