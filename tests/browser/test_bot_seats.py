"""Bots are marked at the table (docs/rules.md, «Bots»): `table:state` says which seat is a bot and
its avatar (docs/protocol.md, Table), and the page draws the avatar and a «бот» mark.

The renderer is checked on a fixture `table:state` run through protocol.js, and the whole
path on a real `svara serve`: the lobby's practice button seats the player against «Гэри»."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser
from playwright.sync_api import expect as pw_expect

from app.auth.roster import ROSTER
from tests.server.conftest import Server

from .conftest import DESKTOP, PHONE, Crowd

GARY = "Гэри"

# A `table:state` between hands as the server sends it: a person and a bot seated.
STATE: dict[str, Any] = {
    "table": 7,
    "version": 3,
    "now": 1_000.0,
    "info": dict(
        name="Практика",
        variant="svara32-practice",
        game="svara32",
        seats=2,
        ante=10,
        stacks=True,
        turn_seconds=30,
        rules={},
    ),
    "phase": "waiting",
    "next_dealer": "Аня",
    "notice": None,
    "seats": [
        dict(
            seat=0,
            name="Аня",
            money=500,
            connected=True,
            answer=None,
            leaving=False,
            bot=False,
            avatar=None,
        ),
        dict(
            seat=1,
            name=GARY,
            money=500,
            connected=True,
            answer=None,
            leaving=False,
            bot=True,
            avatar=ROSTER[GARY],
        ),
    ],
    "queue": [],
    "you": {"name": "Аня", "seat": 0, "queue": None, "can": ["stand", "ready", "skip"]},
    "gathering": None,
    "hand": None,
    "turn": None,
    "last": [],
    "history": [],
    "news": [],
}

FELT = """async ({ msg, lang }) => {
  const { renderFelt } = await import("/static/js/render.js");
  const { applyProtocol } = await import("/static/js/protocol.js");
  const { translator } = await import("/static/js/i18n.js");
  const now = msg.now * 1000;
  const start = { table: {}, seats: [], queue: 0, me: null, view: null, between: [] };
  const state = applyProtocol({ ...start, deadlines: {} }, msg, now);
  const ctx = { t: translator(lang), lang, settings: {}, now };
  const doc = new DOMParser().parseFromString(renderFelt(state, ctx), "text/html");
  return [...doc.querySelectorAll(".seat[data-seat]")].map((seat) => ({
    name: seat.dataset.seat,
    bot: seat.classList.contains("bot"),
    face: seat.querySelector("img.bot-face")?.getAttribute("src") ?? null,
    initial: seat.querySelector(".initial")?.textContent ?? null,
    mark: seat.querySelector(".mark.bot")?.textContent ?? null,
  }));
}"""


def test_a_bot_seat_draws_its_avatar_and_mark_a_person_seat_does_not(
    web: Server, chromium: Browser
) -> None:
    """The fixture state's bot seat shows «Гэри»'s avatar and «бот» («bot» in English); the
    person's seat keeps his initial and no mark."""
    page = chromium.new_page()
    try:
        page.goto(web.url + "/settings")
        for lang, word in (("ru", "бот"), ("en", "bot")):
            seats = {s["name"]: s for s in page.evaluate(FELT, {"msg": STATE, "lang": lang})}
            assert seats[GARY] == {
                "name": GARY, "bot": True, "face": f"/static/img/avatars/{ROSTER[GARY]}.svg",
                "initial": None, "mark": word,
            }  # fmt: skip
            assert seats["Аня"] == {
                "name": "Аня", "bot": False, "face": None, "initial": "А", "mark": None
            }  # fmt: skip
        # A bot whose avatar is unknown (null) still gets the mark, on its initial.
        faceless = {**STATE, "seats": [STATE["seats"][0], {**STATE["seats"][1], "avatar": None}]}
        seats = {s["name"]: s for s in page.evaluate(FELT, {"msg": faceless, "lang": "ru"})}
        assert seats[GARY]["bot"] and seats[GARY]["initial"] == "Г" and seats[GARY]["mark"] == "бот"
    finally:
        page.close()


def test_practice_shows_gary_marked_as_a_bot(crowd: Crowd, artifacts: Path) -> None:
    """B-1.4 through the lobby's «Играть с Гэри» on a real server: «Гэри» sits with his
    avatar and the «бот» mark, the player's own seat has neither; the phone too."""
    for viewport, prefix in ((DESKTOP, "pia"), (PHONE, "pim")):
        player = crowd.add(viewport, prefix)
        page = player.page
        page.goto(player.base + "/")
        page.click("#practice button[type=submit]")
        page.wait_for_url(re.compile(r"/table/\d+$"))
        gary = page.locator(f'.seat[data-seat="{GARY}"]')
        pw_expect(gary).to_have_class(re.compile(r"\bbot\b"))
        # The avatar is a picture the server ships, drawn without any emoji font: loaded.
        face = gary.locator("img.bot-face")
        pw_expect(face).to_have_attribute("src", f"/static/img/avatars/{ROSTER[GARY]}.svg")
        loaded = "img => img.complete && img.naturalWidth > 0"
        page.wait_for_function(loaded, arg=face.element_handle())
        pw_expect(gary.locator(".mark.bot")).to_have_text("бот")
        mine = page.locator(f'.seat[data-seat="{player.name}"]')
        pw_expect(mine).to_be_visible()
        pw_expect(mine).not_to_have_class(re.compile(r"\bbot\b"))
        pw_expect(mine.locator(".mark.bot")).to_have_count(0)
        pw_expect(mine.locator(".initial")).to_have_text(player.name[0].upper())
        player.shot(artifacts, "practice-gary-bot")
        assert player.errors == []
