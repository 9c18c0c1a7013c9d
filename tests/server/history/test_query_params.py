"""The documented query parameters of the history pages (docs/protocol.md «HTTP next to the
protocol») on a real `svara serve`: a bad `?page=`, `?since=` or `?until=` is a 400 page in
the page's language (its words keyed for static/js/i18n.js), never a 500; a good date
works; and a table's settle-up shows one night, so `?since=` never shows a night the viewer
was not at (the hands of last Friday to «Иван», who played then, not tonight's).
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.models import HandRecord

from ..conftest import Server, start_server, stopped
from ..tablekit import SCALE, Player, database, everyone, grant, new_table, play_hand

DAY = "%Y-%m-%d"


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Any:
    running = start_server(
        Path(tmp_path_factory.mktemp("query")) / "instance",
        "eventlet",
        SVARA_TIMER_SCALE=str(SCALE),
    )
    with stopped(running):
        yield running


def seated(server: Server, table: int, name: str) -> Player:
    player = Player(server, table, name)
    grant(server, name, 500)
    player.join()
    player.sit()
    return player


def hand(players: list[Player], seed: int) -> int:
    for p in players:
        assert p.call("table:ready") == {"ok": True}
    everyone(players, lambda s: s["phase"] == "playing")
    return int(play_hand(players, random.Random(seed))["id"])


def move_back(server: Server, hand_id: int, by: timedelta) -> None:
    db = database(server)
    with db.session() as s:
        record = s.exec(select(HandRecord).where(HandRecord.id == hand_id)).one()
        record.started -= by
        s.add(record)
    db.dispose()


def get(player: Player, path: str) -> tuple[int, str]:
    page = player.browser.http.get(player.browser.url + path, timeout=20)
    return page.status_code, page.text


def test_bad_values_are_a_400_page_and_a_settle_up_is_one_night(fast: Server) -> None:
    table = new_table(fast, "classic", seats=3)
    ivan, maria = seated(fast, table, "Иван"), seated(fast, table, "мАрия")
    friday = hand([ivan, maria], 1)
    move_back(fast, friday, timedelta(days=2))
    assert ivan.call("table:stand") == {"ok": True}
    ezh = seated(fast, table, "Ёж")
    hand([maria, ezh], 2)
    night = (datetime.now(UTC) - timedelta(days=2, hours=1)).strftime("%Y-%m-%dT%H:%M")

    # Tonight's settle-up is for those who played tonight.
    assert get(ivan, f"/table/{table}/settle")[0] == 404
    status, page = get(maria, f"/table/{table}/settle")
    assert status == 200 and ezh.name in page and ivan.name not in page
    # Friday night's is for Friday's players, and shows Friday only.
    status, page = get(ivan, f"/table/{table}/settle?since={night}")
    assert status == 200, page
    assert maria.name in page and ezh.name not in page
    assert get(ezh, f"/table/{table}/settle?since={night}")[0] == 404
    assert get(ivan, f"/table/{table}/settle?since=1970-01-01")[0] == 404

    # A good date works (the form's date field, a date and time, an offset).
    for since in ((datetime.now(UTC) - timedelta(days=3)).strftime(DAY), night, night + "%2B03:00"):
        status, page = get(ivan, f"/stats?since={since}")
        assert status == 200, (since, page)
        assert re.search(r'id="stat-hands">1<', page), since
    today = datetime.now(UTC).strftime(DAY)
    status, page = get(ivan, f"/stats?since=2026-11-01&until={today}")
    assert status == 200
    assert get(ivan, "/hands?page=1")[0] == 200
    assert get(ivan, "/hands?page=2")[0] == 200

    # Bad ones: a 400 page whose words the page's language gives.
    bad = {
        "/stats?since=2026-13-01": "query.date",
        "/stats?until=0001-01-01": "query.date",
        "/stats?since=9999-12-31": "query.date",
        "/stats?since=２０２６-11-01": "query.date",
        f"/table/{table}/settle?since=вчера": "query.date",
        f"/table/{table}/settle?since=0001-01-01": "query.date",
        "/hands?page=²": "query.page",
        "/hands?page=99999999999999999999": "query.page",
        "/hands?page=0": "query.page",
        "/hands?page=-1": "query.page",
    }
    for path, key in bad.items():
        status, page = get(ivan, path)
        assert status == 400, (path, page)
        assert f'data-i18n="{key}"' in page and 'data-i18n="query.title"' in page, path
        assert "Неверный адрес страницы" in page  # Russian until the page translates it
        assert "Bad Request" not in page  # not the framework's English page
    for p in (ivan, maria, ezh):
        p.close()
