// The Socket.IO connection and its visible state. The client reconnects by itself; while
// it is down the page shows «нет соединения» and the table stays as it was last seen.

import { io } from "../vendor/socket.io.esm.min.js";

/** Connect and keep `statusEl` (a [data-net] banner) in step with the connection. */
export function connect(statusEl, t) {
  const socket = io({ reconnectionDelay: 500, reconnectionDelayMax: 4000 });
  const show = (down, text) => {
    if (!statusEl) return;
    statusEl.hidden = !down;
    statusEl.textContent = text;
    document.body.classList.toggle("offline", down);
  };
  socket.on("connect", () => show(false, ""));
  socket.on("disconnect", () => show(true, t("reconnecting")));
  socket.on("connect_error", () => show(true, t("reconnecting")));
  globalThis.addEventListener("offline", () => show(true, t("offline")));
  globalThis.addEventListener("online", () => (socket.connected ? show(false, "") : socket.connect()));
  return socket;
}
