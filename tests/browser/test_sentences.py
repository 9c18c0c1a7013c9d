"""Sentences that read right for every name and say what happened (static/js/render.js).

A Russian name is not declined by a template («Иван смотрится с Мария» reads wrong to every
player), so a look is phrased without a case ending; the Svara after «Варить» (C-5.4) is
not a tie of equal points; in svara32 the two tied heads-up play the Svara (B-5.2) and the
log says so; shaha36's turned cards (S-1.3) are written, in words a phone shows, and are
no decision of the last three (C-4.15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page
from playwright.sync_api import expect as pw_expect

from tests.server.conftest import Server

from .felt import draw, playing_state
from .test_render import replayed
from .test_words import HANDS, LANGS, RENDER, played

LAST3 = """async ([view, lang]) => {
  const { renderFelt, renderHistory } = await import("/static/js/render.js");
  const { translator } = await import("/static/js/i18n.js");
  const t = translator(lang);
  const seats = view.players.map((p) => ({ name: p.name, balance: p.balance }));
  const state = { view, me: null, seats, queue: 0, between: [], deadlines: {}, phase: "playing",
                  table: { name: "Стол", game: view.game } };
  const ctx = { t, lang, settings: {}, draft: {}, now: 0 };
  const doc = new DOMParser().parseFromString(
    renderFelt(state, ctx) + renderHistory(state, ctx), "text/html");
  const texts = (sel) => [...doc.querySelectorAll(sel)].map((el) => el.textContent);
  return { last3: texts(".last3 li"), bubbles: texts(".bubble"),
           history: texts(".history-list li") };
}"""


def _lines(page: Page, view: dict[str, Any], langs: tuple[str, ...] = LANGS) -> dict[str, Any]:
    drawn = page.evaluate(RENDER, [[{"view": view, "me": None}], list(langs)])
    return {out["lang"]: out["lines"] for out in drawn}


def test_a_look_needs_no_declension(web: Server, chromium: Browser) -> None:
    """C-4.11: «Иван и Мария смотрятся», not «Иван смотрится с Мария»: both names stand in
    the nominative, whoever they are; in every language the sentence names both and the
    loser."""
    hand = played(HANDS / "classic" / "c4_11_look.json").view(None)
    look = next(e for e in hand["events"] if e["kind"] == "look")
    for name in ("Мария", "Ёж", "Đorđe"):  # the target renamed: a name of any ending
        view = {
            **hand,
            "events": [{**e, "target": name} if e is look else e for e in hand["events"]],
        }
        page = chromium.new_page()
        page.goto(web.url + "/install")
        lines = _lines(page, view)
        page.close()
        assert not [line for line in lines["ru"] if f" с {name}" in line], lines["ru"]
        said = {
            "ru": f"{look['player']} и {name} смотрятся",
            "en": f"{look['player']} and {name} compare hands",
            "bg": f"{look['player']} и {name} се сравняват",
        }
        for lang, words in said.items():
            assert any(line.startswith(words) for line in lines[lang]), lines[lang]


def test_a_cooked_pot_is_not_called_a_tie(web: Server, chromium: Browser) -> None:
    """C-5.4: after «Варить» nobody had equal points; the Svara banner says the pot was
    cooked and who plays it, never «равные очки»."""
    view = played(HANDS / "classic" / "c5_4_cook.json").view(None)
    assert any(e["kind"] == "cook" for e in view["events"])
    page = chromium.new_page()
    page.goto(web.url + "/install")
    lines = _lines(page, view)
    page.close()
    assert not [line for line in lines["ru"] if "равные очки" in line], lines["ru"]
    assert any(line.startswith("банк варится, в сваре: ") for line in lines["ru"]), lines["ru"]
    assert not [line for line in lines["en"] if "equal points" in line], lines["en"]
    assert not [line for line in lines["bg"] if "равни точки" in line], lines["bg"]


def test_a_heads_up_svara_says_both_play_it(web: Server, chromium: Browser) -> None:
    """B-5.1/B-5.2: two tied heads-up replay for the pot; nobody else could join, and the
    log says who plays the Svara rather than «в свару никто не вошёл»."""
    view = played(HANDS / "svara32" / "b2_6_equal_points_tie.json").view(None)
    entry = next(e for e in view["events"] if e["kind"] == "svara_entry")
    assert entry["joined"] == []
    page = chromium.new_page()
    page.goto(web.url + "/install")
    lines = _lines(page, view)
    page.close()
    assert "в сваре играют: anna, boris" in lines["ru"], lines["ru"]
    assert not [line for line in lines["ru"] if "никто не вошёл" in line], lines["ru"]
    assert "in the Svara: anna, boris" in lines["en"], lines["en"]
    assert "в сварата играят: anna, boris" in lines["bg"], lines["bg"]
    # One who paid to join is named beside the tied (B-5.2).
    view = played(HANDS / "svara32" / "b5_2_entry_fee_ceil.json").view(None)
    page = chromium.new_page()
    page.goto(web.url + "/install")
    lines = _lines(page, view, ("ru",))
    page.close()
    assert "в сваре играют: boris, vera, anna; вошли со взносом: anna" in lines["ru"]


def test_turned_cards_are_written_but_are_no_decision(web: Server, chromium: Browser) -> None:
    """S-1.3, C-4.15: each turned card is a line of the history («… открывает карту»), not
    a line «Открыть карты» of the last three nor a bubble: the bets stay in view."""
    # The hand just after a card was turned: the turn is the newest event.
    view = next(
        v
        for file, _, hand in replayed()
        if file == "shaha36/dark-circle-seed-example.json"
        for v in [hand.view(None)]
        if v["events"] and v["events"][-1]["kind"] == "look"
    )
    turned = [e for e in view["events"] if e["kind"] == "look"]
    page = chromium.new_page()
    page.goto(web.url + "/install")
    got = page.evaluate(LAST3, [view, "ru"])
    page.close()
    assert not [line for line in got["last3"] + got["bubbles"] if "Открыть карты" in line], got
    assert sum("открывает карту" in line for line in got["history"]) == len(turned), got


def test_a_card_to_turn_says_so_in_words(felt: Any, artifacts: Path) -> None:
    """S-1.3 on a phone: a `title` is never shown, so a visible hint says that tapping a
    face-down card turns it — in each language, gone once nothing is left to turn."""
    page: Page = felt({"width": 390, "height": 844})
    me = "Иван"
    state = playing_state("shaha36", 3, me)
    mine = next(p for p in state["view"]["players"] if p["name"] == me)
    mine |= {"cards": ["A♥", None, None], "looked": True, "turned": 1}
    mine.pop("points", None)
    state["view"]["legal"] = [*state["view"]["legal"], {"do": "look"}]
    words = {
        "ru": "Нажмите на карту, чтобы открыть её",
        "en": "Tap a card to turn it",
        "bg": "Докоснете карта, за да я обърнете",
    }
    for lang, hint in words.items():
        draw(page, state, lang)
        pw_expect(page.locator("#hand .tap-hint")).to_have_text(hint)
        pw_expect(page.locator("#hand .tap-hint")).to_be_visible()
        if lang == "ru":
            page.screenshot(path=str(artifacts / "shaha36-tap-hint-390x844.png"))
    mine["cards"] = ["A♥", "K♥", "Q♥"]
    draw(page, state, "ru")
    pw_expect(page.locator("#hand .tap-hint")).to_have_count(0)
