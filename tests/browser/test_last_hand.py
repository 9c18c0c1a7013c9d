"""«Прошлая раздача» under «История действий» (docs/rules.md, C-4.15's decisions): the last
ended hand a player played, a tap away while the next one is played, opened in a tab of its
own so that he keeps the table page (his seat, his voice). A spectator gets none: a replay is
its players' only (docs/protocol.md, `GET /hands/<id>`)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect
from sqlmodel import col, select

from app.models import HandRecord
from tests.server.tablekit import database

from .conftest import DESKTOP, PHONE, Crowd, Player, Table
from .layout import problems
from .test_evening import PHONE as PHONE_390


def _open_history(p: Player) -> None:
    p.page.click('[data-panel="history-panel"]')
    expect(p.page.locator("#history-panel")).to_be_visible()


def _hands(crowd: Crowd, table_id: int) -> list[int]:
    db = database(crowd.server)
    try:
        with db.session() as s:
            query = select(HandRecord.id).where(HandRecord.table_id == table_id)
            return list(s.exec(query.order_by(col(HandRecord.id))).all())  # type: ignore[arg-type]
    finally:
        db.dispose()


def test_the_last_hand_stays_a_tap_away_while_the_next_is_played(
    crowd: Crowd, artifacts: Path
) -> None:
    ivan, maria = crowd.add(DESKTOP, "Иван"), crowd.add(PHONE, "Мария")
    ezh = crowd.add(PHONE, "Ёж")
    table = Table([ivan, maria], ivan.new_table("Прошлая «Ёж» " + ivan.name, "classic", 2))
    table.seat_everyone()
    ezh.open_table(table.id)  # watches: plays no hand
    for p in (maria, ezh):
        _open_history(p)
    expect(maria.page.locator("#last-hand")).to_be_hidden()  # no hand played yet

    table.start()
    table.do("Дал 10")
    expect(maria.page.locator("#last-hand")).to_be_hidden()  # the hand is still in play
    table.do("Упал")
    table.over()
    (first,) = _hands(crowd, table.id)
    link = maria.page.locator("#last-hand-link")
    expect(link).to_be_visible()
    expect(link).to_have_text("Прошлая раздача")
    expect(link).to_have_attribute("href", f"/hands/{first}")

    table.start()  # the next hand: the link still shows the one before
    assert _hands(crowd, table.id)[0] == first and len(_hands(crowd, table.id)) == 2
    expect(link).to_have_attribute("href", f"/hands/{first}")
    expect(link).to_have_attribute("target", "_blank")
    for other in ("#my-hands-link", "#settle-link"):
        expect(maria.page.locator(f"#history-panel {other}")).to_have_attribute("target", "_blank")

    # On a phone the history is a drawer above the action bar: her turn's buttons stay in
    # reach and nothing is drawn over anything, at 360 and 390 px.
    if "my-turn" not in (maria.page.locator("body").get_attribute("class") or ""):
        table.do("Дал 10", ivan)
    expect(maria.page.locator("body.my-turn")).to_have_count(1)
    for size in (PHONE, PHONE_390):
        maria.page.set_viewport_size(size)
        expect(maria.page.locator(".chip.flying")).to_have_count(0)  # the bet's chips landed
        assert problems(maria.page) == [], size
        maria.shot(artifacts, "history-drawer-turn")
        for button in maria.page.locator("#actions button").all():
            assert button.is_visible() and button.is_enabled()
            button.click(trial=True)  # not covered by the drawer
    with maria.context.expect_page() as opened:
        link.click()
    replay = opened.value
    expect(replay.locator("h1")).to_have_text(f"Раздача {first}")
    # The table page is still hers: seated, and it goes on drawing the hand in play.
    expect(maria.page.locator(f'.seat[data-seat="{maria.name}"]')).to_be_visible()
    before = table.version()
    table.do(table.first_of(["Дал 10", "Упал"])[1])
    assert table.version() > before
    replay.close()

    expect(ezh.page.locator("#history-panel")).to_be_visible()
    expect(ezh.page.locator("#last-hand")).to_be_hidden()
    assert not (maria.errors or ezh.errors), maria.errors + ezh.errors
