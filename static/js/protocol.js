// The table's Socket.IO events (docs/protocol.md, «Table») and how a `table:state` message
// becomes the state render.js draws. Pure: no sockets here, so tests can feed it messages.

import { gameOf } from "./games/index.js";

export const EVENTS = {
  join: "table:join",
  act: "table:act",
  stand: "table:stand",
  say: "table:chat",
  chat: "table:chat",
  state: "table:state",
};

/** The Socket.IO event and payload of a table-level button: «Готов» (table:ready),
 * «Пропустить» (table:skip), «Темнить»/«Тёмный» (table:dark), «Сесть за стол» (table:sit). */
export function tableAction(tableId, what) {
  return [`table:${what}`, { table: tableId }];
}

/**
 * Deadlines as {name: {at, total}} in server ms. `total` is what was left when the deadline
 * was first seen (a countdown never knows more), so a ring starts full and runs out on time.
 */
function deadlines(prev, names, deadline, nowMs) {
  const out = {};
  if (deadline == null) return out;
  const at = deadline * 1000;
  for (const name of names) {
    const old = prev?.[name];
    out[name] = old && old.at === at ? old : { at, total: Math.max(1, at - nowMs) };
  }
  return out;
}

/** The next state from a `table:state` message (`nowMs`: the server's clock, in ms). */
export function applyProtocol(state, msg, nowMs) {
  if (!msg) return state;
  const info = msg.info || {};
  const seats = (msg.seats || []).map((s) =>
    s
      ? {
          name: s.name,
          balance: s.money,
          connected: s.connected,
          ready: s.answer === "ready" || s.answer === "dark",
          skipping: s.answer === "skip",
          leaving: s.leaving,
          bot: Boolean(s.bot),
          avatar: s.avatar ?? null,
          voice: s.voice ?? null,
        }
      : null,
  );
  const view = msg.hand || null;
  const me = msg.you?.name ?? state.me;
  const can = msg.you?.can || [];
  const between = [];
  const game = gameOf(info.game);
  if (can.includes("ready")) between.push({ do: game.readyDo, send: "ready" });
  if (can.includes("dark")) between.push(game.darkButton(info));
  if (can.includes("skip")) between.push({ do: "skip", send: "skip" });
  // In the queue (C-1.2) one waits: sitting again is not offered, leaving the queue is.
  if (can.includes("sit") && !msg.you?.queue) between.push({ do: "sit", send: "sit" });
  if (can.includes("stand") && msg.you?.queue) between.push({ do: "leave_queue", send: "stand" });
  let timers = {};
  if (msg.turn) timers = deadlines(state.rawDeadlines, msg.turn.awaiting, msg.turn.deadline, nowMs);
  else if (msg.gathering) {
    const silent = seats.filter((s) => s && !s.ready && !s.skipping).map((s) => s.name);
    timers = deadlines(state.rawDeadlines, silent, msg.gathering.deadline, nowMs);
  }
  const playing = msg.phase === "playing";
  return {
    ...state,
    table: { id: msg.table, name: info.name, game: info.game, variant: info.variant, seats: info.seats, ante: info.ante, stacks: info.stacks },
    version: msg.version,
    phase: msg.phase,
    seats,
    queue: (msg.queue || []).length,
    myQueue: msg.you?.queue ?? null,
    me,
    // A finished hand stays on the table (its showdown) until the next one starts.
    view: view ? { ...view, legal: playing ? view.legal || [] : [], awaiting: playing ? view.awaiting || [] : [] } : null,
    between,
    rawDeadlines: timers,
    deadlines: timers,
    // The gathering's deadline in server ms (the buy-in dialog counts down to it).
    rawGatheringAt: msg.gathering?.deadline != null ? msg.gathering.deadline * 1000 : null,
    news: msg.news || [],
    notice: msg.notice ?? null,
  };
}
