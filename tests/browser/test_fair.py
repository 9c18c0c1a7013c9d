"""The shuffle check in Chromium (docs/fairness.md): static/js/fair.js derives the same decks
as app/engine/fairness.py; a player plays a hand, sees the quiet ✓ at the table, opens «Мои
раздачи», steps through the replay and sees ✓ there; a tampered seed shows the alarm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect
from sqlmodel import col, select

from app.history import service as history
from app.models import Database, HandRecord
from tests.server.conftest import Server

from .conftest import DESKTOP, PHONE, Crowd, Table
from .test_classic import FINISH

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "engine" / "fair_vectors.json").read_text()
)


def test_the_browser_derives_the_engines_decks(web: Server, chromium: Browser) -> None:
    page = chromium.new_page()
    try:
        page.goto(web.url + "/login")
        got: list[dict[str, Any]] = page.evaluate(
            """async (vectors) => {
                 const fair = await import("/static/js/fair.js");
                 const out = [];
                 for (const v of vectors) {
                   out.push({
                     commit: await fair.commitment(v.server_seed),
                     order: await fair.fairOrder(v.game, v.server_seed, v.seeds, v.deal),
                     drawn: await fair.drawnSeed(v.server_seed, v.drawn.name),
                   });
                 }
                 return out;
               }""",
            VECTORS,
        )
    finally:
        page.close()
    want = [
        {"commit": v["commit"], "order": v["order"], "drawn": v["drawn"]["seed"]} for v in VECTORS
    ]
    assert got == want


def test_the_browser_sees_the_deals_as_the_server_does(web: Server, chromium: Browser) -> None:
    """The page's record of what it was shown, per deal (fair.js `addSeen`), is the server's
    (app/history/service.py `seen_cards`) for every rules' hand with a Svara or a look: a
    player left out of a re-deal, a look's hands, the showdowns."""
    cases = []
    for path in sorted((Path(__file__).resolve().parents[1] / "hands").glob("*/*.json")):
        raw = json.loads(path.read_text())
        if "error" in raw.get("expect", {}) or not (
            {"svaras"} & set(raw["expect"]) or "look" in path.name
        ):
            continue
        doc = {k: v for k, v in raw.items() if k not in ("rule", "title", "expect")}
        for viewer in [p["name"] for p in doc["players"]]:
            all_steps = history.steps(doc, viewer)
            cases.append(
                {
                    "steps": [st._asdict() for st in all_steps],
                    "deals": [list(d) for d in doc["deals"]],
                    "want": history.seen_cards(all_steps, doc),
                }
            )
    assert len(cases) > 40
    page = chromium.new_page()
    try:
        page.goto(web.url + "/login")
        got = page.evaluate(
            """async (cases) => {
                 const { seenInSteps } = await import("/static/js/fair.js");
                 return cases.map((c) => seenInSteps(c.steps, c.deals).map((d) => d || {}));
               }""",
            cases,
        )
    finally:
        page.close()
    assert got == [c["want"] for c in cases]


def _stored(server: Server) -> dict[str, Any]:
    """The latest hand file the server stored."""
    db = Database(f"sqlite:///{server.instance / 'svara.db'}")
    try:
        with db.session() as s:
            record = s.exec(select(HandRecord).order_by(col(HandRecord.id).desc())).first()
            assert record is not None and record.hand_file is not None
            return record.hand_file
    finally:
        db.dispose()


def _tamper_seed(server: Server, hand_id: int, server_seed: bool = False) -> None:
    """Another seed for the first player (or the server's), in the stored hand file (as a
    cheating server would have to show it)."""
    db = Database(f"sqlite:///{server.instance / 'svara.db'}")
    try:
        with db.session() as s:
            record = s.exec(select(HandRecord).where(HandRecord.id == hand_id)).one()
            doc = json.loads(json.dumps(record.hand_file))
            if server_seed:
                for deal in doc["deals"]:
                    deal["seed"] = "f" * 64
            else:
                doc["seeds"][0]["seed"] = "e" * 64
            record.hand_file = doc
            s.add(record)
    finally:
        db.dispose()


def test_a_hand_checked_at_the_table_and_in_my_hands(
    crowd: Crowd, web: Server, artifacts: Path
) -> None:
    ivan, yozh = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Ёж")
    table = Table([ivan, yozh], ivan.new_table("Честный " + ivan.name, "classic", 2))
    table.seat_everyone()
    table.start()
    table.play_until("Готов", FINISH)
    table.over()
    for p in (ivan, yozh):
        mark = p.page.locator("#fair-mark")
        expect(mark).to_have_class("fair-mark ok")
        expect(mark).to_have_text("✓ Тасовка проверена")
    ivan.shot(artifacts, "fair-table-ok")
    # Both pages gave their own seeds with «Готов»: none had to be drawn by the server.
    assert [s.get("drawn", False) for s in _stored(web)["seeds"]] == [False, False]

    # «Мои раздачи» from the table's history panel: the hand, newest first.
    page = ivan.page
    page.click('[data-panel="history-panel"]')
    page.click("#my-hands-link")
    rows = page.locator("#my-hands .hand-row")
    expect(rows).to_have_count(1)
    hand_id = int(rows.first.get_attribute("data-hand") or 0)
    rows.first.locator("a").click()
    expect(page.locator("#fair-mark")).to_have_class("fair-mark ok")
    expect(page.locator("#step-count")).to_have_text(f"Шаг 1 из {_steps(page)}")
    mine = page.locator(f'#step-players tr[data-player="{ivan.name}"] .replay-card[data-card]')
    expect(mine).to_have_count(3)  # his own cards as dealt
    states = page.locator("#step-players td.state")  # in his words, not the engine's
    expect(states.first).to_have_text("в игре")
    assert not {"active", "folded", "out"} & set(states.all_text_contents())
    page.click("#step-forward")
    expect(page.locator("#step-count")).to_contain_text("Шаг 2 из")
    expect(page.locator("#step-action")).to_contain_text(":")
    for _ in range(_steps(page)):
        if page.locator("#step-forward").is_disabled():
            break
        page.click("#step-forward")
    expect(page.locator("#step-forward")).to_be_disabled()
    page.click("#step-back")
    expect(page.locator("#step-forward")).to_be_enabled()
    ivan.shot(artifacts, "fair-replay-ok")

    # A seed that is not the one dealt with: the loud alarm.
    _tamper_seed(web, hand_id)
    page.reload()
    alarm = page.locator("#fair-mark")
    expect(alarm).to_have_class("fair-mark alarm")
    expect(alarm).to_contain_text("ТАСОВКА НЕ СХОДИТСЯ")
    expect(alarm).to_have_attribute("role", "alert")
    ivan.shot(artifacts, "fair-replay-alarm")
    # Another server seed: it does not open the commitment shown before the deal.
    _tamper_seed(web, hand_id, server_seed=True)
    page.reload()
    expect(alarm).to_have_class("fair-mark alarm")
    expect(alarm).to_contain_text("зерно сервера не открывает обещание")
    assert ivan.errors == [] and yozh.errors == []


def _steps(page: Any) -> int:
    return len(json.loads(page.locator("#replay").get_attribute("data-replay") or "{}")["steps"])
