// The Socket.IO connection and its visible state. The client reconnects by itself; while
// it is down the page shows «нет соединения» and the table stays as it was last seen.

import { io } from "../vendor/socket.io.esm.min.js";

/**
 * Connect and keep `statusEl` (a [data-net] banner) in step with the connection. `auth` is
 * the handshake's data: a table page sends `{table}` (C-8.2: its connection is the account's
 * one at that table; docs/protocol.md «Connecting»). `end(text, again)` is for a connection
 * the server ended (the table opened in another tab, the session over): no more
 * reconnecting, and the banner says why; with `again` (a button's label) the banner offers
 * to connect once more, which takes the table back to this page; with `away` ({label, href})
 * it links to where the player goes on (a closed table: the lobby).
 */
export function connect(statusEl, t, auth = {}) {
  const socket = io({ auth, reconnectionDelay: 500, reconnectionDelayMax: 4000 });
  let final = null; // {text, again, away} once the server ended the connection
  const show = (down, text) => {
    if (!statusEl) return;
    statusEl.hidden = !down && final === null;
    statusEl.replaceChildren(final?.text ?? text);
    if (final?.again) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "net-again";
      button.textContent = final.again;
      button.addEventListener("click", resume);
      statusEl.append(" ", button);
    }
    if (final?.away) {
      const link = document.createElement("a");
      link.className = "net-again";
      link.href = final.away.href;
      link.textContent = final.away.label;
      statusEl.append(" ", link);
    }
    document.body.classList.toggle("offline", down || final !== null);
  };
  socket.on("connect", () => show(false, ""));
  socket.on("disconnect", () => show(true, t("reconnecting")));
  socket.on("connect_error", () => show(true, t("reconnecting")));
  globalThis.addEventListener("offline", () => show(true, t("offline")));
  globalThis.addEventListener("online", () => (socket.connected || final ? show(!socket.connected, "") : socket.connect()));
  const end = (text, again = null, away = null) => {
    final = { text, again, away };
    socket.io.opts.reconnection = false;
    socket.disconnect(); // the server here cuts it too; one of another process may not
    show(true, text);
  };
  function resume() {
    final = null;
    socket.io.opts.reconnection = true;
    show(true, t("reconnecting"));
    socket.connect();
  }
  return { socket, end };
}
