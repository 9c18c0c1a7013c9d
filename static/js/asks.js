// «Попросить фишки» (docs/protocol.md, «Money»): the player's request for money, and the
// administrators' list of requests with its badge, on the table page and the host's page.
// Names come from the server and are only ever put in the page with textContent.

import { money } from "./i18n.js";

/** What waits for an answer, kept in step with `money:asked` / `money:answered`; `draw`
 * is called with the list after each change. An administrator's page only. */
export class HostAsks {
  constructor(socket, draw) {
    this.socket = socket;
    this.draw = draw;
    this.waiting = new Map();
    socket.on("connect", () =>
      socket.emit("money:waiting", {}, (ack) => {
        if (!ack?.ok) return;
        this.waiting = new Map(ack.requests.map((r) => [r.id, r]));
        this.draw([...this.waiting.values()]);
      }),
    );
    socket.on("money:asked", (r) => {
      this.waiting.set(r.id, r);
      this.draw([...this.waiting.values()]);
    });
    socket.on("money:answered", (r) => {
      this.waiting.delete(r.id);
      this.draw([...this.waiting.values()]);
    });
  }

  /** «Дать» / «Отказать» in one tap. */
  answer(id, approve, done) {
    this.socket.emit("money:answer", { id, approve }, (ack) => done?.(ack));
  }
}

/** One request as a line: «Ёж просит 500 ₽ (стол «Пятница»)». */
export function askLine(t, r) {
  return t(r.table_name ? "asks.line_table" : "asks.line", { name: r.name, amount: money(r.amount), table: r.table_name });
}

/** The table page's part for an administrator: a badge in the top bar and a panel of the
 * requests, each answered in one tap. */
export function tableHostAsks(socket, t, { badge, list }) {
  const asks = new HostAsks(socket, (requests) => {
    badge.hidden = requests.length === 0;
    badge.querySelector(".badge").textContent = String(requests.length);
    list.replaceChildren(
      ...requests.map((r) => {
        const li = document.createElement("li");
        li.className = "ask";
        const text = document.createElement("span");
        text.className = "ask-text";
        text.textContent = askLine(t(), r);
        const button = (label, approve) => {
          const b = document.createElement("button");
          b.type = "button";
          b.className = approve ? "yes" : "no";
          b.textContent = t()(label);
          b.addEventListener("click", () => asks.answer(r.id, approve));
          return b;
        };
        li.append(text, " ", button("asks.approve", true), " ", button("asks.decline", false));
        return li;
      }),
    );
  });
  return asks;
}

/** The player's side: under the «Не хватает денег» note, who can add money and the
 * «Попросить фишки» form; the answer is said in place. `hosts`: [{name, online}]. */
export class AskChips {
  constructor(socket, t, { root, tableId, hosts, toast }) {
    this.toast = toast;
    this.socket = socket;
    this.t = t;
    this.root = root;
    this.tableId = tableId;
    this.hosts = hosts;
    this.pending = null;
    root.querySelector("form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.ask(Number(root.querySelector("input[name=amount]").value));
    });
    socket.on("money:answered", (r) => {
      if (this.pending !== r.id) return;
      this.pending = null;
      const text = this.t()(r.status === "approved" ? "asks.approved" : "asks.declined", { by: r.by, amount: money(r.amount) });
      this.say(text);
      this.toast?.(text);
      root.querySelector("form").hidden = r.status === "approved";
    });
  }

  /** Shown while the player is short of the table's minimum (`short`: what he lacks). */
  show(short) {
    const t = this.t();
    const names = this.hosts.map((h) => (h.online ? t("asks.online", { name: h.name }) : h.name));
    this.root.querySelector(".ask-hosts").textContent = names.length ? t("asks.hosts", { names: names.join(", ") }) : t("asks.no_hosts");
    const input = this.root.querySelector("input[name=amount]");
    if (short && !this.pending) input.value = String(Math.max(Number(input.value) || 0, short));
    this.root.querySelector("form").hidden = this.hosts.length === 0 || this.pending !== null;
    this.root.hidden = false;
  }

  hide() {
    this.root.hidden = true;
  }

  say(text) {
    const said = this.root.querySelector(".ask-said");
    said.textContent = text;
    said.hidden = !text;
  }

  ask(amount) {
    this.socket.emit("money:ask", { amount, table: this.tableId }, (ack) => {
      const t = this.t();
      if (ack?.ok) {
        this.pending = ack.request.id;
        this.root.querySelector("form").hidden = true;
        this.say(t("asks.sent", { amount: money(ack.request.amount) }));
      } else this.say(t(`err.${ack?.code}`, ack || {}));
    });
  }
}
