"""The overlaps players saw on the phone and the laptop, each drawn from the state that showed
it (tests/browser/felt.py's made-up states through render.js and table.css), each checked for
its own fault before the whole page is given to the layout check (tests/browser/layout.py):

- the top seat's bubble («Войти в свару», «РЕЙЗ») over the header's icons;
- shaha36's «Пропустить (время вышло)» cut short and covered by the next seat's «Пропустить»;
- between hands at 360×740, a bot's «бот», «+20 ₽» and «готов» piled onto the shown cards,
  and the last hand's bubbles («Прошёл», «Дал 30») lying on them;
- between shaha36 hands at 360×740 in Bulgarian, a winning bot's marks («бот», «погледна»,
  «22 · две чела», «+1 020 ₽», «готов») pushing its shown cards down onto the countdown («29»)
  of the seat under it in the phone's column;
- the queue's line in the centre at 360×740 in Bulgarian («На опашка: 1 · вие сте 1-и») running
  under the side seats' plates and shown cards, and the marks' legend on the bottom seat's;
- the shuffle mark («⏳ Тасовка: после игры») and the host's «Пауза после этой раздачи» over
  the top seats, the buy-in's title, the history drawer and the chat;
- the last three decisions in the centre cut in their amounts («Бот Зина: ВДИГАМ 50…»);
- at a laptop, the «СВАРА!» banner's top edge sticking out above the Svara entry dialog;
- on the hand's replay at 360 px, a player's three cards one under another.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from playwright.sync_api import expect as pw_expect

from .conftest import DESKTOP, PHONE, Crowd, Table
from .felt import NAMES, draw, playing_state, showdown_state
from .layout import problems, still
from .test_last_hand import _hands

PHONES = [(360, 740), (390, 844), (412, 915)]
LANGS = ["ru", "en", "bg"]
SIZES = [*PHONES, (1280, 800)]
BOT = "Бот Петрович"  # the roster's longest name (app/auth/roster.py)


def at(felt: Callable[[dict[str, int]], Page], size: tuple[int, int]) -> Page:
    page = felt({"width": size[0], "height": size[1]})
    still(page)
    return page


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    """The box and text of every element matching `selector`."""
    found: list[dict[str, Any]] = page.eval_on_selector_all(
        selector,
        """els => els.map((el) => { const r = el.getBoundingClientRect();
          return { l: r.left, t: r.top, r: r.right, b: r.bottom, text: el.textContent,
                   seat: el.closest(".seat")?.dataset.seat ?? null,
                   whole: el.scrollWidth <= el.clientWidth + 1 }; })""",
    )
    return found


def meet(a: dict[str, Any], b: dict[str, Any], slack: float = 1.0) -> bool:
    return (
        a["l"] + slack < b["r"]
        and b["l"] + slack < a["r"]
        and a["t"] + slack < b["b"]
        and b["t"] + slack < a["b"]
    )


def decided(state: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    """`state` after the others' decisions `events` (their bubbles), still the viewer's turn."""
    state["view"]["events"] = [*state["view"]["events"], *events]
    return state


# --- the top seat's bubble and the header ------------------------------------------------------
def top_seat_words(game: str, word: str) -> dict[str, Any]:
    """Four at a table, the viewer at the bottom: the one across (the top of the phone's
    columns) said `word` last; the hand waits for the last of them (no dialog over the
    header)."""
    state = playing_state(game, 4, NAMES[0])
    top = NAMES[2]
    state["view"] |= {"awaiting": [NAMES[3]], "legal": []}
    state["deadlines"] = {NAMES[3]: {"at": time.time() * 1000 + 20_000, "total": 30_000}}
    if word == "join":  # B-5.2: the Svara is offered, the top seat entered it
        state["view"]["phase"] = "svara"
        return decided(state, {"kind": "join", "player": top, "amount": 40})
    return decided(
        state,
        {"kind": "call", "player": NAMES[1], "to": 10, "amount": 0},
        {"kind": "raise", "player": top, "to": 40, "amount": 40},
    )


@pytest.mark.parametrize("size", PHONES, ids=[f"{w}" for w, _ in PHONES])
@pytest.mark.parametrize("word", ["join", "raise"])
def test_the_top_seats_bubble_leaves_the_header_alone(
    felt: Callable[[dict[str, int]], Page], artifacts: Path, word: str, size: tuple[int, int]
) -> None:
    """«Войти в свару» and «РЕЙЗ» of the seat across the table lie below the header: every
    icon of the top bar is the topmost element at its centre, and no bubble meets the bar."""
    page = at(felt, size)
    draw(page, top_seat_words("svara32", word))
    page.screenshot(path=str(artifacts / f"defect-top-bubble-{word}-{size[0]}x{size[1]}.png"))
    bar = boxes(page, ".topbar")[0]
    bubbles = boxes(page, ".seat .bubble")
    assert {b["text"] for b in bubbles} >= {"Войти в свару" if word == "join" else "РЕЙЗ"}
    over = [b["text"] for b in bubbles if meet(b, bar)]
    assert over == [], f"bubbles over the header: {over}"
    covered = page.evaluate(
        """() => [...document.querySelectorAll(".topbar .icon-btn")].filter((el) => {
          if (!el.checkVisibility()) return false;
          const r = el.getBoundingClientRect();
          const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
          return !el.contains(top);
        }).map((el) => el.getAttribute("aria-label"))"""
    )
    assert covered == [], f"header icons covered: {covered}"
    assert problems(page) == []


# --- shaha36: a turn let run out beside the next seat's word -----------------------------------
def lapsed_beside_a_check(n: int) -> dict[str, Any]:
    """shaha36 at `n` seats, the viewer's turn: the seat before him let his time run out (the
    server checked for him, S-3.4: «Пропустить (время вышло)»), the one before that checked."""
    state = playing_state("shaha36", n, NAMES[0])
    state["view"]["legal"] = [
        {"do": "fold"},
        {"do": "check"},
        {"do": "raise", "min_to": 20, "max_to": 90},
    ]
    others = NAMES[1:n]
    events: list[dict[str, Any]] = []
    for k, name in enumerate(others):
        if k == len(others) - 1:
            events += [{"kind": "timeout", "player": name}, {"kind": "check", "player": name}]
        else:
            events.append({"kind": "check", "player": name})
    return decided(state, *events)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("n", [3, 6])
def test_a_lapsed_turn_is_said_whole_beside_the_next_seats_word(
    felt: Callable[[dict[str, int]], Page], artifacts: Path, n: int, size: tuple[int, int]
) -> None:
    """«Пропустить (время вышло)» is read whole (no «время выш…»), and no other seat's
    «Пропустить» lies on it."""
    page = at(felt, size)
    draw(page, lapsed_beside_a_check(n))
    page.screenshot(path=str(artifacts / f"defect-lapsed-{n}-{size[0]}x{size[1]}.png"))
    bubbles = boxes(page, ".seat .bubble")
    lapsed = [b for b in bubbles if "время вышло" in b["text"]]
    assert len(lapsed) == 1, [b["text"] for b in bubbles]
    assert lapsed[0]["whole"], f"«{lapsed[0]['text']}» is cut at {size}"
    others = [b["text"] for b in bubbles if b is not lapsed[0] and meet(b, lapsed[0])]
    assert others == [], f"«{lapsed[0]['text']}» is covered by {others}"
    assert problems(page) == []


# --- between hands at 360: a bot's marks and its shown cards -----------------------------------
def bot_won_and_ready(n: int) -> dict[str, Any]:
    """Between two classic hands: the last one's showdown still on the felt, its winner a bot
    (C-3.6) who answered «Готов» for the next (C-1.3)."""
    state = showdown_state("classic", n, me=NAMES[n - 1])
    view = state["view"]
    view["players"][0]["name"] = BOT
    for e in view["events"]:
        if e["kind"] == "showdown":
            e["hands"][BOT] = e["hands"].pop(NAMES[0])
        if e["kind"] == "award":
            e["player"] = BOT
            e["amount"] = 20
        if e["kind"] == "deal":
            e["players"] = [BOT, *e["players"][1:]]
    state["seats"][0] |= {"name": BOT, "bot": True, "avatar": "boar", "ready": True}
    state["phase"] = "waiting"
    state["between"] = [{"do": "ready"}, {"do": "skip"}]
    state["deadlines"] = {NAMES[n - 1]: {"at": time.time() * 1000 + 20_000, "total": 30_000}}
    return state


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("n", [3, 4, 8])
def test_a_bots_marks_between_hands_keep_off_its_cards(
    felt: Callable[[dict[str, int]], Page], artifacts: Path, n: int, size: tuple[int, int]
) -> None:
    """The winning bot's «бот», «+20 ₽» and «готов» stay clear of the cards it showed and
    of the next seat's."""
    page = at(felt, size)
    draw(page, bot_won_and_ready(n))
    page.screenshot(path=str(artifacts / f"defect-bot-marks-{n}-{size[0]}x{size[1]}.png"))
    marks = [m for m in boxes(page, ".seat .mark") if m["seat"] == BOT]
    assert {"бот", "+20\u00a0₽", "готов"} <= {m["text"] for m in marks}, marks
    plate = [m for m in boxes(page, ".seat .plate span") if m["seat"] == BOT]
    cards = boxes(page, ".seat-cards .card.up")
    assert len([c for c in cards if c["seat"] == BOT]) == 3
    # Its marks clear of its own cards and the next seat's; its name and balance clear of
    # the cards' indices.
    index = [
        c | {"r": c["l"] + (c["r"] - c["l"]) * 0.34, "b": c["t"] + (c["b"] - c["t"]) * 0.3}
        for c in cards
    ]
    piled = {m["text"] for m in marks for c in cards if meet(m, c)}
    piled |= {m["text"] for m in plate for c in index if meet(m, c)}
    # The last hand's words («Прошёл», «Дал 30») are not left lying on anybody's cards.
    piled |= {b["text"] for b in boxes(page, ".seat .bubble") for c in cards if meet(b, c)}
    assert sorted(piled) == [], f"{sorted(piled)} lie on {BOT}'s cards"
    assert problems(page) == []


# --- between shaha36 hands: a winning bot's marks and the countdown under it -------------------
BOTS = ["Бот Петрович", "Бот Вася", "Бот Толик", "Бот Люба"]


def bot_won_above_a_countdown(upper: int, label: str) -> dict[str, Any]:
    """Between two shaha36 hands at six seats, one free: the viewer and four bots showed
    their cards; the bot at place `upper` (2: the phone's left column's top, 4: the right
    one's) won with two aces («два лба», 22, or `label`'s points) and answered «Готов»; the
    others have not answered, their countdowns run (C-1.3, S-1.6)."""
    me = NAMES[0]
    state = showdown_state("shaha36", 5, me=me)
    view = state["view"]
    renamed = {NAMES[k + 1]: BOTS[k] for k in range(4)}
    winner = BOTS[upper - 1]
    for p in view["players"]:
        p["name"] = renamed.get(p["name"], p["name"])
        if p["name"] == winner:
            p |= {"points": {"два лба": 22, "три лба": 33}.get(label, 31), "label": label}
    for e in view["events"]:
        if "players" in e:
            e["players"] = [renamed.get(n, n) for n in e["players"]]
        if "player" in e:
            e["player"] = renamed.get(e["player"], e["player"])
        if e["kind"] == "award":
            e["amounts"] = {winner: 1020}
    for seat in state["seats"]:
        if seat["name"] in renamed:
            seat |= {"name": renamed[seat["name"]], "bot": True, "avatar": "bear"}
            seat["ready"] = seat["name"] == winner
    state["seats"].append(None)
    state["table"]["seats"] = 6
    state["phase"] = "waiting"
    state["between"] = [{"do": "ready"}, {"do": "skip"}]
    waiting = [s["name"] for s in state["seats"] if s and not s.get("ready")]
    state["deadlines"] = {n: {"at": time.time() * 1000 + 29_500, "total": 30_000} for n in waiting}
    return state


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("upper", [2, 4], ids=["left", "right"])
def test_a_winning_bots_cards_keep_off_the_countdown_under_it(
    felt: Callable[[dict[str, int]], Page],
    artifacts: Path,
    upper: int,
    lang: str,
    size: tuple[int, int],
) -> None:
    """The winning bot's shown cards, under its marks, end above the next seat of its column:
    that seat's countdown and plate are in sight, and so are the cards' indices."""
    page = at(felt, size)
    winner = BOTS[upper - 1]
    for label in ["два лба", "три лба", "старшие трынки"]:
        draw(page, bot_won_above_a_countdown(upper, label), lang)
        shot = f"defect-bot-won-{lang}-{upper}-{size[0]}x{size[1]}.png"
        page.screenshot(path=str(artifacts / shot))
        marks = {m["text"] for m in boxes(page, ".seat .mark") if m["seat"] == winner}
        assert "+1\u00a0020\u00a0₽" in marks, marks
        cards = [c for c in boxes(page, ".seat-cards .card.up") if c["seat"] == winner]
        assert len(cards) == 3
        others = [
            b["text"]
            for b in boxes(page, ".seat .secs, .seat .plate, .seat .avatar")
            if b["seat"] != winner and any(meet(b, c) for c in cards)
        ]
        assert others == [], f"{lang} «{label}»: {winner}'s cards lie on {others}"
        assert problems(page) == [], label


# --- the queue in the centre, between the phone's columns --------------------------------------
def queued_beside_a_showdown(n: int) -> dict[str, Any]:
    """A full shaha36 table between hands, the last showdown on the felt (every seat's cards
    up), and the viewer first in its queue (C-1.2): the centre says both the queue and his
    place, the longest in Bulgarian («На опашка: 1 · вие сте 1-и»)."""
    state = showdown_state("shaha36", n)
    state |= {"me": "Вера", "queue": 1, "myQueue": 1, "phase": "waiting"}
    return state


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("n", [5, 6])
def test_the_queue_line_keeps_between_the_seats(
    felt: Callable[[dict[str, int]], Page],
    artifacts: Path,
    n: int,
    lang: str,
    size: tuple[int, int],
) -> None:
    """The queue's line wraps between the phone's two columns of seats instead of running
    under the side seats' plates and shown cards; the marks' legend («Р Раздаващ», «Т Играе
    на тъмно»), under the felt's right side, keeps off the bottom seat's shown cards (the
    viewer, who only watches, has none there of his own)."""
    page = at(felt, size)
    draw(page, queued_beside_a_showdown(n), lang)
    page.screenshot(path=str(artifacts / f"defect-queue-{lang}-{n}-{size[0]}x{size[1]}.png"))
    (line,) = boxes(page, ".centre .queue")
    assert "1" in line["text"], line
    under = [b["seat"] for b in boxes(page, ".seat") if meet(line, b)]
    assert under == [], f"{lang}: «{line['text']}» runs under the seats of {under}"
    legend = boxes(page, ".legend span")
    assert len(legend) == 2, legend  # the dealer's mark and the dark player's
    cards = boxes(page, ".seat-cards .card.up")
    covered = sorted({m["text"] for m in legend for c in cards if meet(m, c)})
    assert covered == [], f"{lang}: the legend's {covered} lie on shown cards"
    assert problems(page) == []


# --- the shuffle mark and the host's pill, over the seats, the panels and the dialogs ----------
MARKS = """async ([lang, view]) => {
  const { translator, translatePage } = await import("/static/js/i18n.js");
  const t = translator(lang);
  translatePage(document, lang);
  const mark = document.querySelector("#fair-mark");
  mark.hidden = false;
  mark.className = "fair-mark pending";
  mark.textContent = t("fair.pending");
  const status = document.querySelector("#host-status");
  status.hidden = false;
  status.innerHTML = `<b class="host-pill paused">${t("host.paused_after")}</b>`;
  const bar = document.querySelector("#actions").offsetHeight;
  document.body.style.setProperty("--bar-h", `${bar}px`);
  for (const el of document.querySelectorAll(".panel, #buy-in")) el.hidden = true;
  const open = view === "buyin" ? "#buy-in" : `#${view}-panel`;
  if (view !== "felt") document.querySelector(open).hidden = false;
}"""


def evening_of_bots(between: bool) -> dict[str, Any]:
    """svara32 at six seats with three bots: a hand in play at five (the free seat left out),
    or between hands with the free seat shown («Свободно»)."""
    names = [NAMES[0], "Бот Зина", BOT, "Ёж", "Бот Вася"]
    if between:
        state = showdown_state("svara32", 5, me=names[0], names=names)
        state |= {"phase": "waiting", "between": [{"do": "ready"}, {"do": "skip"}]}
    else:
        state = playing_state("svara32", 5, NAMES[0])
        renamed = dict(zip(NAMES[:5], names, strict=True))
        for p in state["view"]["players"]:
            p["name"] = renamed[p["name"]]
        for seat in state["seats"]:
            seat["name"] = renamed[seat["name"]]
        state["view"]["dealer"] = names[1]
        state["view"]["events"][0]["players"] = names
        state["view"]["awaiting"] = [names[3]]
        state["view"]["legal"] = []
        state["deadlines"] = {names[3]: {"at": time.time() * 1000 + 20_000, "total": 30_000}}
    for seat in state["seats"]:
        if seat["name"].startswith("Бот"):
            seat |= {"bot": True, "avatar": "bear"}
    state["seats"].insert(2, None)
    state["table"]["seats"] = 6
    return state


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("view", ["felt", "history", "chat", "buyin"])
def test_the_shuffle_mark_and_the_hosts_pill_cover_nothing(
    felt: Callable[[dict[str, int]], Page],
    artifacts: Path,
    view: str,
    lang: str,
    size: tuple[int, int],
) -> None:
    """«⏳ Тасовка: после игры» and «Пауза после этой раздачи» lie where no seat is, under the
    history and the chat, under the buy-in dialog: in play (the free seat left out) and
    between hands («Свободно» at the top right of a phone). The layout check tells a mark
    over a seat, a panel or a dialog (tests/browser/layout_check.js)."""
    page = at(felt, size)
    for between in (False, True):
        draw(page, evening_of_bots(between), lang)
        page.evaluate(MARKS, [lang, view])
        shot = f"defect-marks-{lang}-{view}-{'between' if between else 'play'}"
        page.screenshot(path=str(artifacts / f"{shot}-{size[0]}x{size[1]}.png"))
        assert problems(page) == [], f"{lang} {view} between={between}"


# --- the last three decisions in the centre: what was bet, read whole ---------------------------
def bots_raised(lang: str) -> dict[str, Any]:
    """svara32 at five, the viewer's turn after the bots' big decisions: «Бот Зина: ВДИГАМ
    500 · 450 ₽», «Бот Петрович: ПЛАЩАМ 1130 · 630 ₽» (in Bulgarian, the longest words)."""
    state = evening_of_bots(False)
    view = state["view"]
    me = NAMES[0]
    view |= {"awaiting": [me], "pot": 2300, "level": 1130}
    view["legal"] = [{"do": "fold"}, {"do": "call", "to": 1130, "price": 1120}]
    state["deadlines"] = {me: {"at": time.time() * 1000 + 20_000, "total": 30_000}}
    return decided(
        state,
        {"kind": "raise", "player": "Бот Зина", "to": 500, "amount": 450},
        {"kind": "raise", "player": "Ёж", "to": 1130, "amount": 1120},
        {"kind": "call", "player": BOT, "to": 1130, "amount": 630},
    )


# Whether the end of each line of the last three (its amount) is in sight: not past the edge
# of anything that clips it, nor under its ellipsis.
LAST3_ENDS = """() => [...document.querySelectorAll(".last3 li")].map((li) => {
  const texts = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
  let last = null;
  for (let n = texts.nextNode(); n; n = texts.nextNode()) if (n.data.trim()) last = n;
  const end = last.data.trimEnd().length;
  const range = document.createRange();
  range.setStart(last, end - 1);
  range.setEnd(last, end);
  const c = range.getBoundingClientRect();
  let whole = true;
  for (let a = last.parentElement; a && a !== document.body; a = a.parentElement) {
    if (getComputedStyle(a).overflowX === "visible") continue;
    const b = a.getBoundingClientRect();
    if (c.right > b.right + 1 || c.left < b.left - 1) whole = false;
  }
  return { text: li.textContent, whole };
})"""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("lang", LANGS)
def test_the_last_three_say_what_was_bet(
    felt: Callable[[dict[str, int]], Page], artifacts: Path, lang: str, size: tuple[int, int]
) -> None:
    """The centre's last three decisions are never cut in their amounts («ВДИГАМ 50…» for
    «ВДИГАМ 500 · 450 ₽»): the amount is read whole, a long name may give way."""
    page = at(felt, size)
    draw(page, bots_raised(lang), lang)
    page.screenshot(path=str(artifacts / f"defect-last3-{lang}-{size[0]}x{size[1]}.png"))
    lines = page.evaluate(LAST3_ENDS)
    assert len(lines) == 3, lines
    cut = [line["text"] for line in lines if not line["whole"]]
    assert cut == [], f"{lang}: amounts cut in {cut}"
    assert problems(page) == []


# --- the Svara entry: the «СВАРА!» banner and the dialog -----------------------------------------
def svara_offered() -> tuple[dict[str, Any], dict[str, Any]]:
    """svara32 at five: two bots tied, the viewer is offered to enter the Svara (B-5.2) while
    the banner «СВАРА!» says who tied."""
    state = evening_of_bots(False)
    view = state["view"]
    me = NAMES[0]
    tied = ["Бот Зина", "Ёж"]
    event = {"kind": "svara", "round": 1, "players": tied, "tied": tied}
    view |= {"phase": "svara", "awaiting": [me], "pot": 300, "level": None}
    view["legal"] = [{"do": "join", "price": 150}, {"do": "skip"}]
    view["events"] = [*view["events"], event]
    state["deadlines"] = {me: {"at": time.time() * 1000 + 20_000, "total": 30_000}}
    return state, event


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}" for w, _ in SIZES])
@pytest.mark.parametrize("lang", LANGS)
def test_the_svara_banner_is_whole_or_gone_beside_its_dialog(
    felt: Callable[[dict[str, int]], Page], artifacts: Path, lang: str, size: tuple[int, int]
) -> None:
    """While the entry dialog is open, the «СВАРА!» banner shows whole, clear of the dialog,
    or not at all: never its top edge with half-cut letters above the dialog."""
    page = at(felt, size)
    state, event = svara_offered()
    draw(page, state, lang, event)
    page.screenshot(path=str(artifacts / f"defect-svara-entry-{lang}-{size[0]}x{size[1]}.png"))
    (dialog,) = boxes(page, "#dialog .dialog")
    banner = page.locator("#felt .banner")
    assert banner.count() == 1
    shown = banner.evaluate(
        "el => el.checkVisibility({ opacityProperty: true, visibilityProperty: true })"
    )
    if shown:
        (box,) = boxes(page, "#felt .banner")
        assert not meet(box, dialog), f"{lang}: the banner {box} under the dialog {dialog}"
    assert problems(page) == []


# --- the hand's replay: a player's three cards side by side -------------------------------------
def test_the_replay_keeps_a_players_cards_on_one_line(crowd: Crowd, artifacts: Path) -> None:
    """/hands/<id> on a phone: each player's three cards lie side by side on one line (the
    lobby's two-line rows put them one under another), at every size."""
    ivan, maria = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Мария")
    table = Table([ivan, maria], ivan.new_table("Повтор " + ivan.name, "classic", 2))
    table.seat_everyone()
    table.start()
    table.do("Упал")
    table.over()
    (hand,) = _hands(crowd, table.id)
    page = ivan.page
    page.goto(f"{ivan.base}/hands/{hand}")
    cards = page.locator("#step-players .replay-card")
    pw_expect(cards).to_have_count(3)  # his own, as dealt; the other's folded unseen
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.screenshot(path=str(artifacts / f"defect-replay-{size[0]}x{size[1]}.png"))
        tops = page.eval_on_selector_all(
            "#step-players tr",
            """rows => rows.map((tr) => [...tr.querySelectorAll(".replay-card")]
              .map((c) => Math.round(c.getBoundingClientRect().top)))""",
        )
        assert [len(set(row)) for row in tops if row] == [1], f"{size}: card tops {tops}"
        assert problems(page) == [], size
