// The Socket.IO connection and its visible state. The client reconnects by itself; while
// it is down the page shows «нет соединения» and the table stays as it was last seen.

import { io } from "../vendor/socket.io.esm.min.js";

/**
 * Connect and keep `statusEl` (a [data-net] banner) in step with the connection. `end(text)`
 * is for a session the server ended (C-8.2: opened on another device): no more reconnecting,
 * and the banner says why.
 */
export function connect(statusEl, t) {
  const socket = io({ reconnectionDelay: 500, reconnectionDelayMax: 4000 });
  let final = null;
  const show = (down, text) => {
    if (!statusEl) return;
    statusEl.hidden = !down && final === null;
    statusEl.textContent = final ?? text;
    document.body.classList.toggle("offline", down || final !== null);
  };
  socket.on("connect", () => show(false, ""));
  socket.on("disconnect", () => show(true, t("reconnecting")));
  socket.on("connect_error", () => show(true, t("reconnecting")));
  globalThis.addEventListener("offline", () => show(true, t("offline")));
  globalThis.addEventListener("online", () => (socket.connected ? show(false, "") : socket.connect()));
  const end = (text) => {
    final = text;
    socket.io.opts.reconnection = false;
    socket.disconnect(); // the server here cuts it too; one of another process may not
    show(true, text);
  };
  return { socket, end };
}
