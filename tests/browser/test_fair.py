"""The shuffle check in Chromium (docs/fairness.md): static/js/fair.js derives the same decks
as app/engine/fairness.py; a player plays a hand, sees the quiet ✓ at the table, opens «Мои
раздачи», steps through the replay and sees ✓ there; a tampered seed shows the alarm."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect
from sqlmodel import col, select

from app.engine import handfile
from app.engine.fairness import Mine, check_document
from app.history import service as history
from app.models import Database, HandRecord
from tests.engine.fairplay import play_fair
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
                 const { addSeen } = await import("/static/js/fair.js");
                 // As the table page sees a hand: one view after another, each with the
                 // events new in it (what a replay's steps are too).
                 return cases.map((c) => {
                   const seen = [];
                   let known = 0;
                   for (const step of c.steps) {
                     const events = step.view.events || [];
                     addSeen(seen, step.deal, step.view, c.deals[step.deal], events.slice(known));
                     known = events.length;
                   }
                   return seen.map((d) => d || {});
                 });
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


def _shots(phone: Any, desktop: Any, artifacts: Path, name: str) -> None:
    """The page at 360×740 and 390×844 (the phone turned to a larger one) and 1280×800."""
    phone.shot(artifacts, name)
    phone.page.set_viewport_size({"width": 390, "height": 844})
    phone.shot(artifacts, name)
    phone.page.set_viewport_size(PHONE)
    desktop.shot(artifacts, name)


def _leave(p: Any) -> None:
    """«Выйти»: he stands up and goes back to the lobby."""
    p.page.click("#leave")
    p.page.wait_for_url(re.compile(r"/$"))


def _status(p: Any, hand_id: int) -> Any:
    p.page.goto(p.base + "/hands")
    return p.page.locator(f'#my-hands .hand-row[data-hand="{hand_id}"] .fair-status')


def test_a_hand_is_pending_while_the_table_plays_and_checked_once_everyone_left(
    crowd: Crowd, web: Server, artifacts: Path
) -> None:
    """No seed comes while the players sit together (they would show the folded cards,
    C-6.2): the table says the check comes after the game and never shows a ✓ it has not
    earned; once both left, «Мои раздачи» checks the hand with what the browser kept."""
    ivan, yozh = crowd.add(PHONE, "Иван"), crowd.add(DESKTOP, "Ёж")
    heard: dict[str, list[Any]] = {ivan.name: [], yozh.name: []}
    for p in (ivan, yozh):
        p.page.on(
            "websocket",
            lambda ws, got=heard[p.name]: ws.on("framereceived", lambda f: got.append(f)),
        )
    table = Table([ivan, yozh], ivan.new_table("Честный " + ivan.name, "classic", 2))
    table.seat_everyone()
    table.start()
    table.play_until("Готов", FINISH)
    table.over()
    stored = _stored(web)
    for p, other in ((ivan, yozh), (yozh, ivan)):
        # Nothing his page received lets him compute the other's cards: no server seed, no
        # seed of the other page (the frames his socket got while they sat together).
        frames = "".join(f if isinstance(f, str) else f.decode("latin-1") for f in heard[p.name])
        assert len(frames) > 1000
        other_seed = next(s["seed"] for s in stored["seeds"] if s["name"] == other.name)
        assert stored["deals"][0]["seed"] not in frames and other_seed not in frames
    for p in (ivan, yozh):
        mark = p.page.locator("#fair-mark")
        expect(mark).to_have_class("fair-mark pending")
        expect(mark).to_have_text("⏳ Тасовка: после игры")
        assert "✓" not in (mark.text_content() or "")
    _shots(ivan, yozh, artifacts, "fair-table-pending")
    # Both pages gave their own seeds with «Готов»: none had to be drawn by the server.
    assert [s["kind"] for s in stored["seeds"]] == ["person", "person"]
    kept = ivan.page.evaluate(
        "([t, c]) => JSON.parse(localStorage.getItem(`svara.fair.seed.${t}.${c}`))",
        [table.id, stored["deals"][0]["commit"]],
    )
    assert kept == next(s["seed"] for s in stored["seeds"] if s["name"] == ivan.name)

    # «Мои раздачи» from the table's history panel (a tab of its own): the hand, pending.
    ivan.page.click('[data-panel="history-panel"]')
    with ivan.context.expect_page() as opened:
        ivan.page.click("#my-hands-link")
    page = opened.value
    rows = page.locator("#my-hands .hand-row")
    expect(rows).to_have_count(1)
    hand_id = int(rows.first.get_attribute("data-hand") or 0)
    expect(rows.first.locator(".fair-status")).to_have_text("⏳ ждёт конца игры")
    rows.first.locator("a").click()
    expect(page.locator("#fair-mark")).to_have_class("fair-mark pending")
    expect(page.locator("#step-count")).to_have_text(f"Шаг 1 из {_steps(page)}")
    mine = page.locator(f'#step-players tr[data-player="{ivan.name}"] .replay-card[data-card]')
    expect(mine).to_have_count(3)  # his own cards as dealt, at once
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
    page.close()
    page = ivan.page

    # Both leave the table: its session is over for this hand, and the seeds come.
    for p in (ivan, yozh):
        p.open_table(table.id, watch=False)
        _leave(p)
    for p in (ivan, yozh):
        status = _status(p, hand_id)
        expect(status).to_have_text("✓ проверена")
        expect(status).to_have_attribute("data-status", "verified")
    _shots(ivan, yozh, artifacts, "fair-hands-verified")
    # Another browser (nothing kept): it checks the server's file and says so, not ✓ alone.
    yozh.page.evaluate("() => localStorage.clear()")
    expect(_status(yozh, hand_id)).to_have_text("✓ по файлу (без записи браузера)")
    page.goto(f"{web.url}/hands/{hand_id}")
    expect(page.locator("#fair-mark")).to_have_class("fair-mark ok")
    expect(page.locator("#fair-mark")).to_have_text("✓ Тасовка проверена")
    ivan.shot(artifacts, "fair-replay-ok")
    # His copy carries what his browser kept: `svara verify` proves offline what the page did.
    with page.expect_download() as download:
        page.click("#download-json")
    mine = json.loads(Path(download.value.path()).read_text())
    assert mine["mine"] == {
        "name": ivan.name,
        "seed": kept,
        "commit": stored["deals"][0]["commit"],
    }
    assert check_document(mine) == (
        [],
        [],
        {ivan.name: "person", yozh.name: "person"},
    )

    # A seed that is not the one his page sent (a server that re-rolled his «Готов»): alarm.
    _tamper_seed(web, hand_id)
    page.reload()
    alarm = page.locator("#fair-mark")
    expect(alarm).to_have_class("fair-mark alarm")
    expect(alarm).to_contain_text("ваше зерно не учтено")
    expect(alarm).to_have_attribute("role", "alert")
    ivan.shot(artifacts, "fair-replay-alarm")
    expect(_status(ivan, hand_id)).to_have_text("⚠ не сходится")
    # Another server seed: it does not open the commitment shown before the deal.
    _tamper_seed(web, hand_id, server_seed=True)
    page.goto(f"{web.url}/hands/{hand_id}")
    expect(alarm).to_have_class("fair-mark alarm")
    expect(alarm).to_contain_text("зерно сервера не открывает обещание")
    assert ivan.errors == [] and yozh.errors == []


def _steps(page: Any) -> int:
    return len(json.loads(page.locator("#replay").get_attribute("data-replay") or "{}")["steps"])


def _cases() -> list[dict[str, Any]]:
    """A genuine hand file and its forgeries, each with the page's record of the hand and
    what `svara verify` says given the same record (app/engine/fairness.py)."""
    hand, actions = play_fair("classic", 5)
    doc = json.loads(json.dumps(handfile.record(hand, actions)))
    me, bot = doc["seeds"][0], doc["seeds"][-1]
    assert bot["kind"] == "bot"
    record = {
        "name": me["name"],
        "seed": me["seed"],
        "commit": doc["deals"][0]["commit"],
        "dealer": doc["dealer"],
        "bots": [bot["name"]],
        "seen": [],
    }
    cases = []

    def case(name: str, reason: str | None, file: Any = None, **rec: Any) -> None:
        forged = copy.deepcopy(doc)
        if file:
            file(forged)
        cases.append({"name": name, "doc": forged, "record": {**record, **rec}, "want": reason})

    def forge_bot(d: dict[str, Any], kind: str = "bot") -> None:
        d["seeds"][-1].update(seed="0b" * 32, kind=kind)
        d["seeds"][-1].pop("drawn")

    def no_kinds(d: dict[str, Any]) -> None:
        for s in d["seeds"]:
            s.pop("kind")

    case("genuine", None)
    case("a bot's seed chosen, unmarked", "fair.bad_drawn", forge_bot)
    case(
        "a bot's seed passed off as a person's",
        "fair.bot_not_bot",
        lambda d: forge_bot(d, "person"),
    )
    case("no kinds", "fair.no_kinds", no_kinds)
    case(
        "a person's seed marked drawn", "fair.bad_drawn", lambda d: d["seeds"][1].update(drawn=True)
    )
    case("another dealer than shown", "fair.other_dealer", dealer=doc["seeds"][2]["name"])
    case("another commitment than shown", "fair.other_commit", commit="e" * 64)
    case("a re-rolled «Готов»", "fair.not_my_seed", seed="5a" * 32)
    return cases


def test_the_page_fails_every_seed_that_is_not_bound(web: Server, chromium: Browser) -> None:
    """fair.js `checkCopy` against forged files: a bot's seed chosen by the server, a bot
    passed off as a person, seeds without kinds, another dealer, another commitment, a
    re-rolled seed; `svara verify` fails the same files (but the dealer, which only the
    page was shown)."""
    cases = _cases()
    page = chromium.new_page()
    try:
        page.goto(web.url + "/login")
        got = page.evaluate(
            """async (cases) => {
                 const { checkCopy } = await import("/static/js/fair.js");
                 const out = [];
                 for (const c of cases) {
                   const r = await checkCopy(c.doc, c.record);
                   out.push(r.ok ? null : r.reason);
                 }
                 return out;
               }""",
            cases,
        )
        alarm = page.evaluate(
            """async () => {
                 const { TableCheck } = await import("/static/js/fair.js");
                 const msg = { table: 7, phase: "playing", seats: [],
                   fair: { next: "ab".repeat(32), hand: 9, checkable: false, deals: [["Иван"]] },
                   hand: { id: 9, phase: "betting", players: [] } };
                 return await new TableCheck().observe(msg, "Иван");
               }"""
        )
    finally:
        page.close()
    assert dict(zip([c["name"] for c in cases], got, strict=True)) == {
        c["name"]: c["want"] for c in cases
    }
    assert alarm == {"ok": False, "reason": "fair.not_checkable", "params": None}
    for c in cases:
        rec = c["record"]
        verdict = check_document(
            c["doc"], mine=Mine(rec["seed"], rec["commit"], rec["name"]), bots=rec["bots"]
        )
        assert bool(verdict.problems) == (c["want"] not in (None, "fair.other_dealer")), c["name"]
