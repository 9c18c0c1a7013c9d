"""A table stored with rules this version refuses (a value under wider ranges of an older
version, a deleted custom variant) is not played, listed or opened, and the log says why;
the server starts and every other table plays (docs/hosting.md «Upgrading»)."""

from __future__ import annotations

from pathlib import Path

import requests

from app.models import Table

from ..conftest import WAIT, Browser, start_server, stopped, unique_name
from ..tablekit import Player, database, grant, new_table


def test_a_table_with_refused_rules_does_not_keep_the_server_from_starting(
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path, "eventlet")
    with stopped(server):
        kept, refused = new_table(server, "classic"), new_table(server, "classic")
    db = database(server)
    with db.session() as s:  # as an older version with a wider range stored it
        row = s.get(Table, refused)
        assert row is not None
        row.rules = {**row.rules, "ante": 10**9}  # classic's ante: 1..1,000,000 (C-2.1)
        row.name = "Стол Ёжика"
        s.add(row)
        s.commit()
    db.dispose()

    server = start_server(tmp_path, "eventlet")
    with stopped(server):
        ivan = Browser(server.url)
        ivan.register(unique_name("Иван"))
        lobby = ivan.http.get(server.url + "/", timeout=WAIT)
        assert lobby.status_code == 200
        assert f"/table/{kept}" in lobby.text and f"/table/{refused}" not in lobby.text
        assert ivan.http.get(f"{server.url}/table/{refused}", timeout=WAIT).status_code == 404
        maria = Player(server, kept, unique_name("Мария"))
        grant(server, maria.name, 10)
        maria.join()
        assert maria.call("table:sit")["ok"]
        assert not maria.client.call("table:join", {"table": refused})["ok"]
        assert requests.get(server.url + "/healthz", timeout=WAIT).json()["database"] == "ok"
    printed = "".join(server.output)
    assert f"table {refused} ('Стол Ёжика') is not played" in printed
    assert printed.count(f"table {refused} ") == 1  # told once, not at every lobby visit
