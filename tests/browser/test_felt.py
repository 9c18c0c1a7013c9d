"""The felt as drawn by render.js and table.css in Chromium, from made-up states at every
seat count (tests/browser/felt.py): the showdown tells who won with what, and nothing a
player must read is covered — at 360×740, 390×844 and 1280×800, for 2 to 8 seats."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from .conftest import DESKTOP, PHONE
from .felt import NAMES, between_state, draw, playing_state, showdown_state, vote_state
from .layout import problems

SIZES = (PHONE, {"width": 390, "height": 844}, DESKTOP)


def test_the_showdown_shows_the_winner_and_his_hand(felt: Any, artifacts: Path) -> None:
    """The winner's banner holds his cards and his points, his seat is highlighted with what
    he took until the next deal; a split names the shares, a Svara who tied."""
    page = felt(PHONE)
    state = showdown_state("classic", 3, me=NAMES[1])
    award = state["view"]["events"][-1]
    draw(page, state, banner=award)
    banner = page.locator(".banner.win")
    assert banner.locator(".banner-text").inner_text() == f"{NAMES[0]} забирает 90\u00a0₽"
    assert banner.locator(".banner-cards .card.up").count() == 3
    assert banner.locator(".banner-detail").inner_text() == "31"
    assert page.locator(".seat.winner").count() == 1
    winner = page.locator(f'.seat.winner[data-seat="{NAMES[0]}"]')
    assert winner.locator(".mark.won").inner_text() == "+90\u00a0₽"
    page.screenshot(path=str(artifacts / "felt-showdown-classic-360x740.png"))
    # The banner stays long enough to read: its animation runs five seconds.
    assert (
        page.evaluate("getComputedStyle(document.querySelector('.banner')).animationDuration")
        == "5s"
    )
    draw(page, state)  # the banner gone, the highlight stays until the next deal
    assert page.locator(".seat.winner").count() == 1

    split = {"kind": "split", "amounts": {NAMES[0]: 45, NAMES[1]: 45}}
    draw(page, showdown_state("shaha36", 3, me=NAMES[2]), banner=split)
    assert page.locator(".banner.split .banner-text").inner_text() == "Игроки поделили банк"
    assert (
        page.locator(".banner.split .banner-detail").inner_text()
        == f"{NAMES[0]} 45\u00a0₽, {NAMES[1]} 45\u00a0₽"
    )
    svara = {
        "kind": "svara",
        "round": 1,
        "tied": NAMES[:2],
        "free": NAMES[:3],
        "fee": 45,
        "buyers": [],
    }
    draw(page, showdown_state("classic", 3, me=NAMES[2]), banner=svara)
    assert page.locator(".banner.svara .banner-text").inner_text() == "СВАРА!"
    assert page.locator(".banner.svara .banner-detail").inner_text() == (
        f"равные очки: {NAMES[0]}, {NAMES[1]} · Взнос 45\u00a0₽"
    )


def test_a_long_name_in_the_banner_is_never_broken(felt: Any, artifacts: Path) -> None:
    """The winner's banner keeps his name whole in every language: the words around it may
    wrap, his name is never broken between its letters (on a phone a name too long for the
    banner is cut with «…»), and nothing on the felt is text on text; nor with his name
    among the shares of a split or the tied of a Svara."""
    long = "Александра108_507"
    names = [long, *NAMES[1:]]
    for size in SIZES:
        page = felt(size)
        for lang in ("ru", "en", "bg"):
            state = showdown_state("classic", 8, me=names[1], names=names)
            draw(page, state, lang=lang, banner=state["view"]["events"][-1])
            found = problems(page)
            if found or lang == "ru":
                shot = f"felt-long-name-{lang}-{size['width']}x{size['height']}.png"
                page.screenshot(path=str(artifacts / shot))
            assert found == [], f"{lang} at {size}: {found}"
            assert page.locator(".banner.win .banner-name").text_content() == long
            for banner in (
                {"kind": "split", "amounts": {long: 120, names[1]: 120}},
                {"kind": "svara", "round": 1, "tied": names[:2], "free": names[:3], "fee": 240},
            ):
                draw(page, state, lang=lang, banner=banner)
                found = problems(page)
                assert found == [], f"{lang} {banner['kind']} at {size}: {found}"


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_dialogs_count_down_and_leave_ones_seat_in_sight(felt: Any, artifacts: Path) -> None:
    """The vote (C-5.2) shows its own countdown and leaves the viewer's seat and cards in
    sight; «Темнить · 15 ₽» is one line; the dealer and dark marks have a legend."""
    for size in SIZES:
        page = felt(size)
        me = NAMES[0]
        draw(page, vote_state(me))
        timer = page.locator("#dialog .dialog-timer")
        assert re.fullmatch(r"Осталось (1[12]) с", timer.inner_text()), timer.inner_text()
        dialog = box(page, "#dialog .dialog")
        assert apart(dialog, box(page, ".seat.me")), size
        assert apart(dialog, box(page, "#hand .my-cards")), size
        page.screenshot(path=str(artifacts / f"felt-vote-{size['width']}x{size['height']}.png"))

        draw(page, between_state(me))
        dark = page.locator('#actions [data-table-do="dark"]')
        label, price = (
            box(page, '#actions [data-table-do="dark"] .label'),
            box(page, '#actions [data-table-do="dark"] .price'),
        )
        assert dark.text_content() == "Темнить · 15\u00a0₽"
        assert abs(label["y"] - price["y"]) < 6 and price["x"] > label["x"], (label, price)

        state = playing_state("classic", 4, me)
        state["view"]["players"][2]["dark"] = True
        draw(page, state)
        legend = page.locator(".legend")
        assert legend.inner_text().split() == ["С", "Сдающий", "☾", "Темнит"]


def test_between_hands_a_seat_shows_its_money_now(felt: Any) -> None:
    """The last hand stays on the felt between hands, but a seat's money is what it holds
    now: «Ёж» stood up after the hand and sat again with a new stack (S-1.5), 500 ₽, not the
    435 ₽ the hand left him; while a hand is played, what he has left in it."""
    page = felt(PHONE)
    names = ["Иван", "Ёж", "Мария"]
    state = showdown_state("shaha36", 3, me="Иван", names=names)
    state["phase"] = "gathering"
    state["seats"][1]["balance"] = 500
    draw(page, state)
    assert page.locator('.seat[data-seat="Ёж"] .balance').inner_text() == "500\u00a0₽"
    state["phase"] = "playing"
    draw(page, state)
    assert page.locator('.seat[data-seat="Ёж"] .balance').inner_text() == "990\u00a0₽"
