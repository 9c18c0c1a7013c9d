"""A table page without a table: templates/table.html with its stylesheet, drawn by
static/js/render.js from a state the test makes (tests/browser/test_felt.py).

The page is the template itself (its Jinja parts filled with what a table of stacks gives
them), opened on the real server's origin so the modules and the stylesheet load as on a
real table; table.js is left out, so nothing but the test writes the regions."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

TEMPLATE = Path(__file__).resolve().parents[2] / "templates" / "table.html"

DRAW = """async ([state, lang, banner]) => {
  const { renderTable, bannerFor } = await import("/static/js/render.js");
  const { translator } = await import("/static/js/i18n.js");
  const t = translator(lang);
  const ctx = { t, lang, settings: { autoCount: true }, draft: {}, now: Date.now(),
                banner: banner && state.view ? bannerFor(banner, t, state.view) : null };
  const out = renderTable(state, ctx);
  const regions = { felt: "#felt", hand: "#hand", actions: "#actions", dialog: "#dialog",
                    history: "#history-list" };
  for (const [name, sel] of Object.entries(regions)) {
    document.querySelector(sel).innerHTML = out[name];
  }
  document.body.classList.toggle("has-dialog", Boolean(out.dialog));
  await document.fonts.ready;
}"""


def page_html() -> str:
    """templates/table.html (with the head it includes) as a page without its scripts."""
    html = TEMPLATE.read_text(encoding="utf-8")
    head = (TEMPLATE.parent / "_pwa_head.html").read_text(encoding="utf-8")
    html = html.replace('{% include "_pwa_head.html" %}', head)
    html = re.sub(r"\{\{ url_for\('static', filename='([^']+)'\) \}\}", r"/static/\1", html)
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    html = re.sub(r"\{%-?.*?-?%\}", "", html, flags=re.S)
    html = re.sub(r"\{\{.*?\}\}", "", html, flags=re.S)
    html = re.sub(r"\{#.*?#\}", "", html, flags=re.S)
    return html.replace('<body class="table-page"', '<body class="table-page" data-table="1"')


def open_felt(page: Page, base: str) -> None:
    """The template on the server's origin (same-origin module imports)."""
    page.goto(base + "/install")
    page.evaluate(
        "html => { document.open(); document.write(html); document.close(); }", page_html()
    )
    page.wait_for_function("document.styleSheets.length > 0 && document.querySelector('#felt')")
    page.wait_for_load_state("load")


def draw(page: Page, state: dict[str, Any], lang: str = "ru", banner: Any = None) -> None:
    page.evaluate(DRAW, [state, lang, banner])


NAMES = ["Иван", "Ёж", "Мария", "Đorđe", "Светла", "😀 Ким", "Александра", "ОЛЕГ"]
HANDS = [
    ["A♠", "K♠", "Q♠"],
    ["7♦", "8♦", "9♣"],
    ["10♥", "J♥", "Q♦"],
    ["A♥", "A♦", "7♣"],
    ["K♣", "Q♣", "J♣"],
    ["9♠", "9♥", "9♦"],
    ["8♠", "7♠", "10♣"],
    ["J♦", "J♠", "K♥"],
]


def showdown_state(
    game: str, n: int, me: str | None = None, names: list[str] | None = None
) -> dict[str, Any]:
    """A finished hand of `n` players (`names`, or the first of NAMES) who all showed three
    cards, the first one winning: the most crowded felt a hand leaves (every seat's cards
    face up, marks, bubbles)."""
    names = (names or NAMES)[:n]
    players = []
    for i, name in enumerate(names):
        p: dict[str, Any] = {"name": name, "balance": 1000 - 10 * i, "paid": 30, "cards": HANDS[i]}
        if game == "shaha36":
            p |= {
                "state": "shown",
                "points": 31 - i,
                "label": None,
                "looked": True,
                "turned": 3,
                "dark": i == 1,
                "all_in": False,
            }
        else:
            p |= {"state": "active", "dark": i == 1}
        players.append(p)
    events: list[dict[str, Any]] = [
        {"kind": "deal", "round": 0, "players": names},
        *({"kind": "bet", "player": name, "to": 30, "amount": 30} for name in names[1:]),
    ]
    if game == "classic":
        events.append(
            {
                "kind": "showdown",
                "hands": {
                    p["name"]: {"cards": p["cards"], "points": 31 - i}
                    for i, p in enumerate(players)
                },
            }
        )
        events.append({"kind": "award", "player": names[0], "amount": 30 * n})
    else:
        events.append({"kind": "award", "amounts": {names[0]: 30 * n}})
    view = {
        "game": game,
        "phase": "finished",
        "dealer": names[-1],
        "pot": 0,
        "level": None,
        "round": 0,
        "players": players,
        "awaiting": [],
        "legal": [],
        "events": events,
    }
    return table_state(game, n, view, me)


def playing_state(game: str, n: int, me: str) -> dict[str, Any]:
    """A hand in play at `n` seats: the viewer's turn with its countdown, the dealer next
    to him, everyone else's cards face down."""
    names = NAMES[:n]
    players = []
    for i, name in enumerate(names):
        p: dict[str, Any] = {
            "name": name,
            "balance": 990,
            "paid": 10,
            "state": "active",
            "dark": False,
            "cards": HANDS[i] if name == me else None,
        }
        if game == "shaha36":
            p |= {"looked": name == me, "turned": 3 if name == me else 0, "all_in": False}
            if name == me:
                p |= {"points": 31, "label": None}
        players.append(p)
    legal = (
        [
            {"do": "fold"},
            {"do": "pass"},
            {"do": "bet", "to": 10, "price": 10},
            {"do": "bet", "to": 20, "price": 20},
        ]
        if game == "classic"
        else [
            {"do": "fold"},
            {"do": "call", "to": 10, "price": 0},
            {"do": "raise", "min_to": 20, "max_to": 90},
        ]
    )
    view = {
        "game": game,
        "phase": "betting",
        "dealer": names[1 % n],
        "pot": 10 * n,
        "level": 10,
        "round": 0,
        "players": players,
        "awaiting": [me],
        "legal": legal,
        "events": [{"kind": "deal", "round": 0, "players": names}],
    }
    state = table_state(game, n, view, me)
    state["deadlines"] = {me: {"at": time.time() * 1000 + 30_000, "total": 30_000}}
    return state


def table_state(game: str, n: int, view: dict[str, Any] | None, me: str | None) -> dict[str, Any]:
    """The table around a view: `n` seats, every one taken."""
    seats = (
        [{"name": p["name"], "balance": p["balance"], "connected": True} for p in view["players"]]
        if view
        else []
    )
    return {
        "table": {"id": 1, "name": "Пятница", "game": game, "seats": n},
        "seats": seats,
        "queue": 0,
        "me": me,
        "view": view,
        "between": [],
        "deadlines": {},
        "phase": "playing",
    }


def vote_state(me: str) -> dict[str, Any]:
    """Three at a classic table, `me` asked to agree to «Варить» (C-5.2) with 12 s left."""
    state = playing_state("classic", 3, me)
    view = state["view"]
    proposer = next(p["name"] for p in view["players"] if p["name"] != me)
    view |= {"phase": "vote", "vote": {"proposer": proposer, "deal": "cook"},
             "legal": [{"do": "agree"}, {"do": "refuse"}]}  # fmt: skip
    state["deadlines"] = {me: {"at": time.time() * 1000 + 12_000, "total": 30_000}}
    return state


def between_state(me: str) -> dict[str, Any]:
    """A classic table between hands: «Готов», «Пропустить», «Темнить · 15 ₽» (C-1.5)."""
    state = table_state("classic", 3, None, me)
    state["seats"] = [{"name": n, "balance": 1000, "connected": True} for n in NAMES[:3]]
    state["between"] = [{"do": "ready"}, {"do": "skip"}, {"do": "dark", "price": 15}]
    return state
