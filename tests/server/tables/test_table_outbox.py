"""A table sends after its lock (app/tables/outbox.py): a watcher whose send waits (a slow
Redis message queue, a busy bot) holds up no one else's action at the table, and every
watcher still gets the table's versions in order."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from app.tables import EXTENSION as TABLES
from app.tables.registry import Tables

from .test_table_seams import make_app, open_table, person

WAIT = 10  # seconds: a bound on a hang, never a pace


def test_a_send_that_waits_holds_up_no_other_action_at_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Мария's socket hangs while Иван's sit is sent to her: Ёж sits down meanwhile (the
    table's lock is free), and Мария then gets both states, in order. Under the old code
    the send ran under the lock and Ёж's sit waited for it."""
    app = make_app(tmp_path)
    table_id = open_table(app)
    maria, ivan, yozh = (person(app, n, 100) for n in ("Мария", "Иван", "Ёж"))
    hang, hanging, yozh_sat = threading.Event(), threading.Event(), threading.Event()
    got: list[int] = []

    def emit(event: str, data: dict[str, Any], to: str) -> None:
        if to == "maria-socket" and event == "table:state":
            if hang.is_set() and not hanging.is_set():
                hanging.set()
                assert yozh_sat.wait(WAIT), "Ёж waited for Мария's socket"
            got.append(data["version"])

    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        monkeypatch.setattr(tables.services, "emit", emit)
        live = tables.get(table_id)
        live.join("maria-socket", maria, None)
        hang.set()
        first = threading.Thread(target=lambda: live.sit(ivan, None, None))
        first.start()
        assert hanging.wait(WAIT)
        second = threading.Thread(target=lambda: (live.sit(yozh, None, None), yozh_sat.set()))
        second.start()
        sat = yozh_sat.wait(WAIT)
        first.join(WAIT)
        second.join(WAIT)
        assert sat and not first.is_alive() and not second.is_alive()
        assert len(got) == 2 and got == sorted(got) and got[-1] == live.snapshot().version
        assert live.member("Иван") is not None and live.member("Ёж") is not None


def test_states_reach_every_watcher_in_version_order_under_concurrent_actions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six players sit and stand from six threads while each send lets the others run:
    every socket and every in-process watcher sees the versions only grow."""
    app = make_app(tmp_path)
    table_id = open_table(app)
    names = ["Иван", "Ёж", "Мария", "Стоян", "Гергана", "🦊"]
    people = [person(app, n, 100) for n in names]
    seen: dict[str, list[int]] = {}
    turn = threading.Lock()

    def record(to: str, data: dict[str, Any]) -> None:
        with turn:  # another thread may run between two sends
            seen.setdefault(to, []).append(data["version"])

    def emit(event: str, data: dict[str, Any], to: str) -> None:
        if event == "table:state":
            record(to, data)

    with app.app_context():
        tables: Tables = app.extensions[TABLES]
        monkeypatch.setattr(tables.services, "emit", emit)
        live = tables.get(table_id)
        for i, who in enumerate(people):
            if i % 2:
                live.join(f"s{i}", who, None)
            else:
                live.join(
                    f"bot{i}",
                    who,
                    None,
                    lambda e, d, to=f"bot{i}": e == "table:state" and record(to, d),
                )

        def busy(i: int) -> None:
            for _ in range(5):
                live.sit(people[i], None, None)
                live.stand(people[i])

        threads = [threading.Thread(target=busy, args=(i,)) for i in range(len(people))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT * 3)
        assert not any(t.is_alive() for t in threads)
        assert len(seen) == len(people)
        for versions in seen.values():
            assert versions == sorted(set(versions)) and versions[-1] == live.snapshot().version
