"""The lobby's list of open tables (app/lobby/service.py `Lobby.tables`), read at every lobby
page and every lobby socket's `lobby:join`: each distinct set of rules is built and checked
once per list, not once per table, and a table whose rules this version refuses is still
left out (docs/hosting.md «Upgrading»)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.engine import variants
from app.lobby.service import create_table, get_lobby
from app.models import Table, get_db
from tests.server.tables.test_table_seams import make_app


def test_the_list_builds_each_distinct_variant_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(tmp_path)
    with app.app_context():
        with get_db().session() as s:
            for i in range(30):
                create_table(s, f"Стол «Ёж» {i}", ("classic", "shaha36", "svara32")[i % 3])
            create_table(s, "Иван, 4 места", "classic", seats=4)
            refused = create_table(s, "Старые правила", "classic")
            refused.rules = {"ante": 10**12}  # stored under wider ranges than this version's
            s.add(refused)
            s.flush()
            refused_id = refused.id
        built: list[str] = []
        build = variants.build_variant

        def counted(name: str, *args: Any) -> variants.Variant:
            built.append(name)
            return build(name, *args)

        monkeypatch.setattr(variants, "build_variant", counted)
        listed = get_lobby().tables()
    names = [t["name"] for t in listed]
    assert "Старые правила" not in names and len(names) == 31
    assert sorted(built).count("classic") == 3  # 8 seats, 4 seats, the refused one's try
    assert len(built) == 5, built
    assert {t["variant"] for t in listed} == {"classic", "shaha36", "svara32"}
    with app.app_context(), get_db().reading() as s:
        kept = s.get(Table, refused_id)
        assert kept is not None and not kept.closed  # left out of the list, not closed
