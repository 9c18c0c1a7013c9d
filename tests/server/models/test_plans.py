"""What serving reads often is found by an index, not by a walk over the club's history:
SQLite's plan (https://sqlite.org/eqp.html) of the very statements the code runs, caught on
their way to the database: a freed seat's look for the hands whose seeds are still kept
(docs/fairness.md, «When the seeds are revealed»), the running server's poll of the
notices, the hosts asked by every table page, the pots of a player's statistics, a table's
settle-up of the night."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlmodel import select

from app.admin.notices import PENDING
from app.admin.requests import hosts
from app.admin.settle import settle_up
from app.auth.roster import BOT_HASH
from app.engine.hand import Transfer
from app.history.service import stats
from app.models import Database, User
from app.tables.fair import Reveal
from app.tables.store import TableStore
from tests.server.tables.test_table_store import antes, doc, people, table


def plans(db: Database, run: Callable[[], Any], table: str, having: str = "") -> list[str]:
    """SQLite's plan of each statement `run` sends that reads FROM `table` (and says
    `having`)."""
    sent: list[tuple[str, Any]] = []

    def heard(_c: object, _cursor: object, sql: str, params: Any, *_rest: object) -> None:
        sent.append((sql, params))

    event.listen(db.engine, "before_cursor_execute", heard)
    try:
        run()
    finally:
        event.remove(db.engine, "before_cursor_execute", heard)
    found = [
        (q, p)
        for q, p in sent
        if f"FROM {table}" in q and having in q and q.lstrip().startswith("SELECT")
    ]
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


def test_a_players_statistics_find_his_hands_pots_by_hand(db: Database) -> None:
    """«Статистика»'s biggest pot: the pots of his hands, not every pot ever opened."""
    players = ("Ёж", "ИвАн Петров", "Мария 🌸")
    people(db, *players)
    store = TableStore(db)
    for bet in (20, 40):
        hand_id = store.begin_hand(table(db), doc(), antes(*players), stacks=False)
        pot = 30 + bet
        end = [Transfer(pot - 5, "pot", "Мария 🌸", "award"), Transfer(5, "pot", "house", "rake")]
        store.record(hand_id, doc("Ёж"), [Transfer(bet, "Ёж", "pot", "bet")], False, False)
        store.record(hand_id, doc("Ёж", "Мария 🌸"), end, False, True)

    def asked() -> None:
        with db.reading() as s:
            user = s.exec(select(User).where(User.name == "Ёж")).one()
            got = stats(s, user, datetime(2026, 1, 1, tzinfo=UTC))
            assert (got.hands, got.net, got.biggest_pot) == (
                2,
                -80,
                70,
            )  # two antes of 10, bets of 20 and 40

    assert plans(db, asked, "ledger", "hand_id IN") == [
        "SEARCH ledger USING INDEX ix_ledger_hand_id (hand_id=?)",
        "SEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)",
    ]


def test_a_nights_settle_up_reads_the_rows_of_its_hands_and_their_players(db: Database) -> None:
    """«Расчёт за вечер» (/table/<id>/settle, `svara admin settle`): the ledger rows of the
    night's hands and the users they name, not every account of a player or the house (the
    whole ledger) nor every user."""
    players = ("ЁЖ", "ИвАн Петров", "Мария 🌸", "Бот Вася")
    people(db, *players, "Пенка")  # Пенка played elsewhere: not read
    with db.session() as s:  # a bot plays with the house's money (docs/rules.md, «Bots»)
        bot = s.exec(select(User).where(User.name == "Бот Вася")).one()
        bot.password_hash = BOT_HASH
        s.add(bot)
    store = TableStore(db)
    here = table(db)
    hand_id = store.begin_hand(here, doc(), antes(*players), stacks=False)
    end = [Transfer(35, "pot", "Мария 🌸", "award"), Transfer(5, "pot", "house", "rake")]
    store.record(hand_id, doc("ЁЖ"), end, False, True)

    def asked() -> None:
        with db.reading() as s:
            report = settle_up(s, datetime(2026, 1, 1, tzinfo=UTC), table_id=here)
            # Each name as its owner writes it; the bot's ante is the house's loss.
            assert report["results"] == {
                "house": 5 - 10,
                "ЁЖ": -10,
                "ИвАн Петров": -10,
                "Мария 🌸": 25,
            }

    ledger_plan = plans(db, asked, "ledger", "ledger.hand_id IN")
    assert ledger_plan[0] == "SEARCH ledger USING INDEX ix_ledger_hand_id (hand_id=?)"
    assert ledger_plan[-1] == "SEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)"
    read = plans(db, asked, "users")  # the names and which of them are bots
    assert len(read) == 2, read
    assert set(read) == {"SEARCH users USING INTEGER PRIMARY KEY (rowid=?)"}, read
