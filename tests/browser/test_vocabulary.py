"""One vocabulary: every page a player meets, in Русский, English and Български, shows only
the words of its language (static/js/i18n.js, docs/i18n.md).

An evening is played first over real sockets on the real server — a hand at a table of each
game (classic, shaha36 with its rake to the house, svara32 and svara32 «по-старому») by
«Иван…» and «Мария…» —, then Chromium (its time zone Europe/Moscow) walks every page as
Иван: the lobby, each table, /hands, a replay step by step, /stats, the settle-up, the rules,
the settings, login and register. No visible text (nor a label, a title, an option) may hold
a game's id («svara32», «classic»), a key («hand.state.active»), `undefined`, `null` or
`NaN`; a Russian or Bulgarian page no Latin word but the players' names, and no card in the
engine's Latin letters («A♥», «Jk», «JOKER»); an English page no Cyrillic but the names.
Every amount has its unit, every time is the viewer's."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import expect as pw_expect

from app.bots.seats import ROSTER
from app.lobby.service import create_table
from app.models import HandRecord
from tests.server.conftest import Browser as HttpBrowser
from tests.server.conftest import Server, unique_name
from tests.server.tablekit import SLOW_TIMERS, Player, database, grant, play_hand

from .conftest import TIMEOUT_MS, sign_up
from .felt import NAMES, draw, playing_state
from .test_languages import choose_language

PHONE_390 = {"width": 390, "height": 844}
PASSWORD = "correct horse"  # tablekit's players register with it
LABELS = {"ru": "Русский", "en": "English", "bg": "Български"}
# The tables of the evening: (name, variant, rules); shaha36's rake gives the house a row.
TABLES = (
    ("Пятница", "classic", {}),
    ("Шаха у Ивана", "shaha36", {"rake_percent": 10}),
    ("Свара у Марии", "svara32", {}),
    ("Свара по-старому", "svara32-traditional", {}),
)
GAME = {"classic": "classic", "shaha36": "shaha36"}
MOSCOW = "Europe/Moscow"
# Yesterday's 19:02 UTC, 22:02 in Moscow: within /hands' and /stats' 30 days on any day the
# suite runs (a fixed date fell out of them); the settle-up asks for its night (`?since=`).
STARTED = (datetime.now(UTC) - timedelta(days=1)).replace(
    hour=19, minute=2, second=0, microsecond=0
)

# Every text a player reads on the page: visible text nodes, labels, titles, placeholders,
# the options of every select and the table's history (read even while its panel is shut);
# not the language switch, where each language is named in its own words.
TEXTS = """() => {
  // What players wrote: names, tables' names, chat lines (not the page's words).
  const OWN = "#user-name, .table-name, #table-name, .seat .name, .chat-line, .private-row a";
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const skip = el.closest(`script, style, .lang-switch, fieldset.lang label, ${OWN}`);
    if (!node.textContent.trim() || skip) continue;
    const read = el.closest("#history-list, option") || el.checkVisibility();
    if (read) out.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], img[alt]")) {
    if (el.closest(".lang-switch, fieldset.lang")) continue;
    for (const a of ["aria-label", "title", "placeholder", "alt"]) {
      if (el.hasAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  return out.filter((t) => t && t.trim());
}"""

RAW = re.compile(
    r"\bundefined\b|\bnull\b|\bNaN\b|\b[a-z][a-z0-9]*[._][a-z0-9_.]*[a-z]\b"
    r"|\b(?:classic|shaha36|svara32)\b|(?<!The )\bhouse\b"
)
LATIN_CARD = re.compile(r"[JQKA][♠♥♦♣]|\bJk\b|JOKER")
LATIN = re.compile(r"[A-Za-z]")
HEX = re.compile(r"\b[0-9a-f]{16,}\b")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
# Latin a Russian page may show: a file format's name beside its link.
LATIN_ALLOWED = ("JSON", "HTTPS")
RANKS = {
    "ru": {"6", "7", "8", "9", "10", "В", "Д", "К", "Т"},
    "bg": {"6", "7", "8", "9", "10", "В", "Д", "П", "А"},
    "en": {"6", "7", "8", "9", "10", "J", "Q", "K", "A"},
}
JOKER = {"ru": "Джокер", "en": "Joker", "bg": "Жокер"}


@dataclass
class Evening:
    """What was played: Иван's and Мария's names, the tables by variant, the hands."""

    ivan: str
    maria: str
    tables: dict[str, int]
    hands: list[int]
    moscow_hand: int


class Keen(random.Random):
    """A chooser that bets and calls rather than checks or folds: shaha36's pot then holds
    more than the antes, so the house takes its rake (S-8.1) and the settle-up names it."""

    ORDER = ("call", "bet", "show", "check")

    def choice(self, seq: Any) -> Any:
        return min(seq, key=lambda a: self.ORDER.index(a["do"]) if a["do"] in self.ORDER else 9)


def _at(http: HttpBrowser, name: str, server: Server, table: int) -> Player:
    """One logged-in user's socket at `table` (a tablekit player of an account registered
    already, so that the same Иван plays at every table)."""
    p = Player.__new__(Player)
    p.name, p.table, p.browser = name, table, http
    p.client = http.socket(table)
    p.state, p.received = {}, []
    return p


@pytest.fixture(scope="module")
def evening(web: Server) -> Iterator[Evening]:
    ivan, maria = unique_name("Иван"), unique_name("Мария")
    people = {name: HttpBrowser(web.url) for name in (ivan, maria)}
    for name, http in people.items():
        http.register(name, PASSWORD)
        grant(web, name, 5000)
    db = database(web)
    tables: dict[str, int] = {}
    with db.session() as s:
        for name, variant, rules in TABLES:
            game = GAME.get(variant, "svara32")
            table = create_table(s, name, variant, rules={**SLOW_TIMERS[game], **rules})
            assert table.id is not None
            tables[variant] = table.id
    hands: list[int] = []
    for table_id in tables.values():
        players = [_at(http, name, web, table_id) for name, http in people.items()]
        try:
            for p in players:
                assert p.call("table:join")["ok"]
                p.sit()
            for p in players:
                p.until(lambda s: len([x for x in s["seats"] if x]) == 2)
            for p in players:
                assert p.call("table:ready") == {"ok": True}
            rng = Keen() if table_id == tables["shaha36"] else random.Random(len(hands) + 7)
            final = play_hand(players, rng)
            hands.append(final["id"])
            for p in players:  # his money is free for the next table (classic's balance)
                assert p.call("table:stand")["ok"]
        finally:
            for p in players:
                p.close()
    # The first hand at 19:02 UTC: 22:02 for a viewer in Moscow.
    with db.session() as s:
        record = s.get(HandRecord, hands[0])
        assert record is not None
        record.started = STARTED
        s.add(record)
    db.dispose()
    yield Evening(ivan, maria, tables, hands, hands[0])


def _context(chromium: Browser, size: dict[str, int] = PHONE_390) -> BrowserContext:
    context = chromium.new_context(
        viewport=size, locale="ru-RU", timezone_id=MOSCOW, device_scale_factor=1
    )
    context.set_default_timeout(TIMEOUT_MS)
    return context


def _log_in(page: Page, base: str, name: str) -> None:
    page.goto(base + "/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


def _problems(texts: list[str], lang: str, own: tuple[str, ...]) -> list[str]:
    """What a page in `lang` must not show, but for the players' own words (`own`)."""
    bad = []
    for text in texts:
        bare = text
        for word in sorted(own, key=len, reverse=True):
            bare = bare.replace(word, "")
        if RAW.search(bare):
            bad.append(f"raw: {text!r}")
        if lang != "en":
            if LATIN_CARD.search(bare):
                bad.append(f"latin card: {text!r}")
            for allowed in LATIN_ALLOWED:
                bare = bare.replace(allowed, "")
            if LATIN.search(bare):
                bad.append(f"latin: {text!r}")
        elif CYRILLIC.search(bare):
            bad.append(f"cyrillic: {text!r}")
    return bad


def _cards_in_deck(page: Page, lang: str) -> list[str]:
    """The card faces on the page are indexed in the deck of `lang`, the joker by its word."""
    ranks = page.locator(".card.up .rank").all_text_contents()
    words = page.locator(".card.up .joker-word").all_text_contents()
    bad = [f"rank {r!r}" for r in ranks if r not in RANKS[lang]]
    return bad + [f"joker {w!r}" for w in words if w != JOKER[lang]]


def _walk(page: Page, base: str, evening: Evening, lang: str, shots: Path | None) -> list[str]:
    """Every page of a logged-in player, its problems by address."""
    own = (evening.ivan, evening.maria, *(name for name, _, _ in TABLES))
    problems: list[str] = []

    def check(where: str) -> None:
        texts = page.evaluate(TEXTS)
        assert len(texts) > 3, where
        problems.extend(f"{lang} {where}: {p}" for p in _problems(texts, lang, own))
        problems.extend(f"{lang} {where}: {p}" for p in _cards_in_deck(page, lang))
        if shots is not None:
            name = re.sub(r"[^a-z0-9]+", "-", where.strip("/")) or "lobby"
            page.screenshot(path=str(shots / f"vocabulary-{lang}-{name}-390x844.png"))

    page.goto(base + "/")
    pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    pw_expect(page.locator("#table-rows tr").first).to_be_visible()
    check("/")
    for variant, table_id in evening.tables.items():
        page.goto(f"{base}/table/{table_id}?watch=1")
        pw_expect(page.locator(".seat").first).to_be_visible()
        pw_expect(page.locator("#table-game")).not_to_be_empty()
        check(f"/table/{variant}")
        page.locator('[data-panel="history-panel"]').click()
        pw_expect(page.locator("#history-panel")).to_be_visible()
        check(f"/table/{variant}/history")
        page.locator("#history-panel [data-close]").click()
    page.goto(base + "/hands")
    pw_expect(page.locator(".hand-row")).to_have_count(len(evening.hands))
    check("/hands")
    for hand_id in evening.hands:
        page.goto(f"{base}/hands/{hand_id}")
        pw_expect(page.locator("#step-count")).not_to_be_empty()
        forward = page.locator("#step-forward")
        step = 0
        while True:
            check(f"/hands/{hand_id} step {step}")
            if forward.is_disabled():
                break
            forward.click()
            step += 1
            pw_expect(page.locator("#step-count")).to_contain_text(str(step + 1))
        href = page.locator("#download-txt").get_attribute("href") or ""
        if not href.endswith(f".txt?lang={lang}&tz=Europe%2FMoscow"):  # the page's own
            problems.append(f"{lang} /hands/{hand_id}: the text file's link {href!r}")
        text = page.request.get(base + href)
        assert text.ok
        lines = [HEX.sub("", line) for line in text.text().splitlines()]  # the seeds
        problems.extend(f"{lang} /hands/{hand_id}.txt: {p}" for p in _problems(lines, lang, own))
    page.goto(base + "/stats")
    check("/stats")
    first = next(iter(evening.tables.values()))  # its hand was moved to STARTED
    for variant, table_id in evening.tables.items():
        night = f"?since={STARTED - timedelta(hours=1):%Y-%m-%dT%H:%M}" if table_id == first else ""
        page.goto(f"{base}/table/{table_id}/settle{night}")
        check(f"/table/{variant}/settle")
    for game in ("classic", "shaha36", "svara32"):
        page.goto(f"{base}/rules/{game}?lang={lang}")
        check(f"/rules/{game}")
    page.goto(base + "/settings")
    check("/settings")
    return problems


@pytest.mark.parametrize("lang", ["ru", "en", "bg"])
def test_every_page_speaks_the_language_of_the_page(
    web: Server, chromium: Browser, evening: Evening, artifacts: Path, lang: str
) -> None:
    context = _context(chromium)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _log_in(page, web.url, evening.ivan)
        choose_language(page, web.url, LABELS[lang])
        problems = _walk(page, web.url, evening, lang, artifacts if lang == "ru" else None)
        # Login and register, logged out (the language stays the device's).
        page.goto(web.url + "/")
        page.locator(".logout-form button").click()
        for path in ("/login", "/register"):
            page.goto(web.url + path)
            pw_expect(page.locator("html")).to_have_attribute("lang", lang)
            problems.extend(
                f"{lang} {path}: {p}" for p in _problems(page.evaluate(TEXTS), lang, ())
            )
        assert not problems, "\n".join(sorted(set(problems)))
        assert errors == []
    finally:
        context.close()


def test_amounts_carry_their_unit_and_times_are_the_viewers(
    web: Server, chromium: Browser, evening: Evening, artifacts: Path
) -> None:
    """/hands «−10 ₽» and 22:02 in Moscow for a hand of 19:02 UTC; /stats, the settle-up
    (the house as «Касса») and the replay («Банк: 40 ₽») with ₽ and a result's sign."""
    context = _context(chromium)
    page = context.new_page()
    # Spaces: no-break ones where the server writes the amount, the locale's in the browser.
    amount = re.compile(r"^[+−]?\d{1,3}(?:\s\d{3})*\s₽$")
    result = re.compile(r"^(?:[+−]\d{1,3}(?:\s\d{3})*|0)\s₽$")
    try:
        _log_in(page, web.url, evening.ivan)
        page.goto(web.url + "/hands")
        row = page.locator(f'.hand-row[data-hand="{evening.moscow_hand}"]')
        pw_expect(row.locator("time")).to_contain_text("22:02")
        pw_expect(row.locator("time")).to_contain_text(str(STARTED.year))
        # The result alone (the cell also says «отменена» and how the shuffle checked).
        for net in page.locator(".hand-row .net .amount").all_inner_texts():
            assert result.match(net), net
        assert "Свара 32 по-старому" in page.locator(".hand-row .game").all_inner_texts()
        page.screenshot(path=str(artifacts / "vocabulary-hands-units-390x844.png"))
        page.goto(f"{web.url}/hands/{evening.moscow_hand}")
        pw_expect(page.locator(".hand-meta time")).to_contain_text("22:02")
        pw_expect(page.locator(".hand-meta")).to_contain_text("Пятница · Классика · ")
        pw_expect(page.locator("#step-pot")).to_have_text(re.compile(r"^Банк: \d[\d\s]*\s₽$"))
        for balance in page.locator("#step-players .balance").all_inner_texts():
            assert amount.match(balance), balance
        # A variant of its own words at its table: the header and the felt's caption.
        page.goto(f"{web.url}/table/{evening.tables['svara32-traditional']}?watch=1")
        pw_expect(page.locator("#table-game")).to_have_text("Свара 32 по-старому")
        pw_expect(page.locator("#felt .caption")).to_contain_text("Свара 32 по-старому")
        page.goto(web.url + "/stats")
        assert result.match(page.locator("#stat-net").inner_text())
        assert amount.match(page.locator("#stat-biggest").inner_text())
        page.goto(f"{web.url}/table/{evening.tables['shaha36']}/settle")
        pw_expect(page.locator("#settle-results")).to_contain_text("Касса")
        for net in page.locator("#settle-results .net").all_inner_texts():
            assert result.match(net), net
        for paid in page.locator("#settle-payments .amount").all_inner_texts():
            assert amount.match(paid), paid
        page.screenshot(path=str(artifacts / "vocabulary-settle-390x844.png"))
        # The hand's text file: in the language asked for, one charset.
        for lang, word in (("ru", "Игроки"), ("en", "Players"), ("bg", "Играчи")):
            got = page.request.get(f"{web.url}/hands/{evening.moscow_hand}.txt?lang={lang}")
            assert got.headers["content-type"] == "text/plain; charset=utf-8"
            assert word in got.text(), got.text()
    finally:
        context.close()


def test_the_buy_in_says_its_range_and_the_balance(
    web: Server, chromium: Browser, evening: Evening, artifacts: Path
) -> None:
    """S-1.5: the dialog of a table of stacks shows what may be taken (200–1000 ₽ at an ante
    of 10) and what the account holds, not a bare «200»."""
    context = _context(chromium)
    page = context.new_page()
    try:
        name = unique_name("Ёж")
        page.goto(web.url + "/register")
        sign_up(page, name)
        page.wait_for_url(re.compile(r"/$"))
        grant(web, name, 1500)
        page.goto(f"{web.url}/table/{evening.tables['svara32']}")
        dialog = page.locator("#buy-in")
        pw_expect(dialog).to_be_visible()
        pw_expect(dialog.locator(".buy-in-range")).to_have_text(
            "Можно взять от 200\u00a0₽ до 1\u00a0000\u00a0₽"
        )
        pw_expect(dialog.locator(".buy-in-balance")).to_have_text("На счёте: 1\u00a0500\u00a0₽")
        page.screenshot(path=str(artifacts / "vocabulary-buy-in-390x844.png"))
    finally:
        context.close()


def test_the_joker_is_the_decks_word_on_its_face_and_in_text(
    web: Server, chromium: Browser
) -> None:
    """A Russian reads «J» as a jack: the joker's face says «Джокер» (the seed's word), its
    corner no letter; and a card in text is written with the face's own letters."""
    page = chromium.new_page()
    try:
        page.goto(web.url + "/install")
        got: dict[str, Any] = page.evaluate(
            """async () => {
              const { cardFace, cardName } = await import("/static/js/cards.js");
              const { translator } = await import("/static/js/i18n.js");
              const out = {};
              for (const lang of ["ru", "en", "bg"]) {
                const doc = new DOMParser().parseFromString(cardFace("Jk", lang), "image/svg+xml");
                const t = translator(lang);
                const cards = ["Jk", "A♥", "Q♣", "10♠", "K♦", "J♠", "7♦"];
                out[lang] = { texts: [...doc.querySelectorAll("text")].map((e) => e.textContent),
                              names: cards.map((c) => cardName(c, t)) };
              }
              return out;
            }"""
        )
    finally:
        page.close()
    assert got["ru"] == {
        "texts": ["Джокер"],
        "names": ["Джокер", "Т♥", "Д♣", "10♠", "К♦", "В♠", "7♦"],
    }
    assert got["bg"] == {
        "texts": ["Жокер"],
        "names": ["Жокер", "А♥", "Д♣", "10♠", "П♦", "В♠", "7♦"],
    }
    assert got["en"] == {
        "texts": ["Joker"],
        "names": ["Joker", "A♥", "Q♣", "10♠", "K♦", "J♠", "7♦"],
    }


def test_the_joker_and_the_bots_draw_without_an_emoji_font(felt: Any, artifacts: Path) -> None:
    """On the felt at 390×844: the joker in the viewer's hand says «Джокер»; every bot of the
    roster has its own picture (an SVG the server ships, not an emoji that a machine without
    a colour emoji font draws as an empty box), loaded."""
    page: Page = felt(PHONE_390)
    state = playing_state("classic", 8, NAMES[0])
    state["view"]["players"][0]["cards"] = ["Jk", "A♥", "Q♣"]
    for seat, avatar in zip(state["seats"][1:], ROSTER.values(), strict=True):
        seat |= {"bot": True, "avatar": avatar}
    draw(page, state, "ru")
    faces = page.locator(".seat img.bot-face")
    pw_expect(faces).to_have_count(len(ROSTER))
    page.wait_for_function(
        "() => [...document.querySelectorAll('.seat img.bot-face')]"
        ".every((img) => img.complete && img.naturalWidth > 0)"
    )
    srcs = faces.evaluate_all("els => els.map((e) => e.getAttribute('src'))")
    assert srcs == [f"/static/img/avatars/{a}.svg" for a in ROSTER.values()]
    pw_expect(page.locator("#hand .joker-word")).to_have_text("Джокер")
    page.screenshot(path=str(artifacts / "vocabulary-joker-and-bots-390x844.png"))
