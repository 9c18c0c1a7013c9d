"""What serving reads often is found by an index, not by a walk over the club's history:
SQLite's plan (https://sqlite.org/eqp.html) of the very statements the code runs, caught on
their way to the database: a freed seat's look for the hands whose seeds are still kept
(docs/fairness.md, «When the seeds are revealed»), the running server's poll of the
notices, the hosts asked by every table page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event

from app.admin.notices import PENDING
from app.admin.requests import hosts
from app.models import Database, User
from app.tables.fair import Reveal


def plans(db: Database, run: Callable[[], Any], table: str) -> list[str]:
    """SQLite's plan of each statement `run` sends that reads FROM `table`."""
    sent: list[tuple[str, Any]] = []

    def heard(_c: object, _cursor: object, sql: str, params: Any, *_rest: object) -> None:
        sent.append((sql, params))

    event.listen(db.engine, "before_cursor_execute", heard)
    try:
        run()
    finally:
        event.remove(db.engine, "before_cursor_execute", heard)
    found = [(q, p) for q, p in sent if f"FROM {table}" in q and q.lstrip().startswith("SELECT")]
    assert found, sent
    with db.engine.connect() as c:
        return [
            row[3]
            for sql, params in found
            for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)
        ]


def test_a_freed_seat_finds_the_kept_seeds_of_its_table_by_index(db: Database) -> None:
    reveal = Reveal(db, lambda table_id: ["Иван", "Ёж"])
    assert plans(db, lambda: reveal.seat_freed(7, "Мария"), "hands") == [
        "SEARCH hands USING INDEX ix_hands_table_id_seeds_revealed "
        "(table_id=? AND seeds_revealed=?)"
    ]


def test_the_poll_of_new_notices_reads_only_the_new_ones(db: Database) -> None:
    def poll() -> None:
        with db.core() as c:
            c.execute(PENDING).all()

    assert plans(db, poll, "notices") == ["SEARCH notices USING INDEX ix_notices_done (done=?)"]


def test_the_hosts_are_found_among_the_administrators_not_every_user(db: Database) -> None:
    with db.session() as s:
        s.add_all(User(name=n, password_hash="-", is_admin=n == "Иван") for n in ("Иван", "Ёж"))

    def asked() -> None:
        with db.reading() as s:
            assert [u.name for u in hosts(s)] == ["Иван"]

    assert plans(db, asked, "users")[0] == "SEARCH users USING INDEX ix_users_is_admin (is_admin=?)"
