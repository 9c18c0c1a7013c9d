"""The table store (app/tables/store.py) keeps, per hand in play, its table and the accounts of its
parties, so that an action costs three statements (docs/performance.md). What that keeping could get
wrong: an id from a rolled-back transaction, a hand it never saw (a restart), two tables of one
player, a stack opened after a hand began. In-process on a fresh migrated SQLite file.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from app import ledger, migrations
from app.bots import practice_preset
from app.engine.hand import Transfer
from app.models import (
    FINISHED,
    HOUSE,
    PLAYING,
    Account,
    Database,
    HandRecord,
    LedgerEntry,
    Table,
    User,
    utcnow,
)
from app.models.db import json_text
from app.tables.store import SAVE_HAND, TableStore
from tests.load.test_scale_out import postgres_server


def people(db: Database, *names: str, money: int = 100) -> None:
    with db.session() as s:
        for name in names:
            user = User(name=name, password_hash="-")
            s.add(user)
            s.flush()
            ledger.grant(s, user, money, "start")


def table(db: Database, variant: str = "classic") -> int:
    with db.session() as s:
        made = Table(name="t", variant=variant, seats=6)
        s.add(made)
        s.flush()
        assert made.id is not None
        return made.id


def doc(*actions: str) -> dict[str, Any]:
    """A stand-in hand file: the store keeps it as it is, with its action log."""
    return {"format": "test", "actions": [{"player": a} for a in actions]}


def books_ok(db: Database) -> None:
    with db.session() as s:
        books = ledger.verify(s)
    assert books.ok, books.problems


def house_accounts(db: Database) -> list[Account]:
    with db.session() as s:
        return list(s.exec(select(Account).where(Account.kind == HOUSE)).all())


def antes(*names: str) -> list[Transfer]:
    return [Transfer(10, name, "pot", "ante") for name in names]


def test_an_account_opened_by_a_refused_action_is_not_kept(db: Database) -> None:
    """C-0.3: an action whose payments cannot be made changes nothing, the house account it
    opened included; SQLite gives that id to the next account (here Carl's balance), and the
    hand's next rake still goes to the house, not to Carl."""
    people(db, "anna", "boris")
    table_id, store = table(db), TableStore(db)
    hand_id = store.begin_hand(table_id, doc(), antes("anna", "boris"), stacks=False)
    assert house_accounts(db) == []
    with db.session() as s:
        next_id = s.exec(select(func.max(Account.id))).one() + 1
    rake_then_overdraft = [Transfer(2, "pot", "house", "rake"), Transfer(500, "anna", "pot", "bet")]
    with pytest.raises(ledger.LedgerError, match="cannot pay"):
        store.record(hand_id, doc("anna"), rake_then_overdraft, stacks=False, finished=False)
    assert house_accounts(db) == []
    with db.session() as s:
        assert s.get(HandRecord, hand_id).hand_file == doc()  # type: ignore[union-attr]
    people(db, "carl", money=7)
    with db.session() as s:
        assert (
            ledger.user_account(s, s.exec(select(User.id).where(User.name == "carl")).one()).id
            == next_id
        )
    award = [Transfer(18, "pot", "anna", "award"), Transfer(2, "pot", "house", "rake")]
    store.record(hand_id, doc("anna"), award, stacks=False, finished=True)
    assert store.money(table_id, ["anna", "boris", "carl"], False) == {
        "anna": 108,
        "boris": 90,
        "carl": 7,
    }
    assert [a.balance for a in house_accounts(db)] == [2]
    books_ok(db)


def test_a_hand_begun_by_another_store_goes_on(db: Database) -> None:
    """C-8.5: after a restart the new store knows nothing of the hand in play; it finds the
    hand's table and parties, and the rows carry the same hand and table as before."""
    people(db, "anna", "boris")
    table_id = table(db)
    hand_id = TableStore(db).begin_hand(table_id, doc(), antes("anna", "boris"), stacks=False)
    restarted = TableStore(db)
    restarted.record(hand_id, doc("anna"), [Transfer(30, "anna", "pot", "bet")], False, False)
    restarted.record(
        hand_id, doc("anna", "boris"), [Transfer(50, "pot", "anna", "award")], False, True
    )
    assert restarted.money(table_id, ["anna", "boris"], False) == {"anna": 110, "boris": 90}
    with db.session() as s:
        record = s.get(HandRecord, hand_id)
        assert record is not None and record.status == FINISHED and record.finished is not None
        assert record.actions == doc("anna", "boris")["actions"]
        rows = s.exec(select(LedgerEntry).where(LedgerEntry.hand_id == hand_id)).all()
    assert len(rows) == 8 and {r.table_id for r in rows} == {table_id}
    books_ok(db)


def test_one_player_at_two_tables_pays_from_the_right_account_at_each(db: Database) -> None:
    """C-0.2 and S-1.5 through one store: Anna's classic hand pays from her balance, her
    shaha36 hand from the stack she bought after the classic hand began; neither hand's
    kept accounts leak into the other."""
    people(db, "anna", "boris", money=1000)
    classic, shaha = table(db), table(db, "shaha36")
    store = TableStore(db)
    at_classic = store.begin_hand(classic, doc(), antes("anna", "boris"), stacks=False)
    store.buy_in(shaha, _id(db, "anna"), 300)
    store.buy_in(shaha, _id(db, "boris"), 300)
    at_shaha = store.begin_hand(shaha, doc(), antes("anna", "boris"), stacks=True)
    store.record(at_classic, doc("anna"), [Transfer(40, "anna", "pot", "bet")], False, False)
    store.record(at_shaha, doc("boris"), [Transfer(25, "boris", "pot", "bet")], True, False)
    store.record(
        at_classic, doc("anna", "boris"), [Transfer(60, "pot", "boris", "award")], False, True
    )
    store.record(at_shaha, doc("boris", "anna"), [Transfer(45, "pot", "anna", "award")], True, True)
    assert store.money(classic, ["anna", "boris"], False) == {"anna": 650, "boris": 750}
    assert store.money(shaha, ["anna", "boris"], True) == {"anna": 335, "boris": 265}
    store.cash_out(shaha, [_id(db, "anna"), _id(db, "boris")])
    assert store.money(classic, ["anna", "boris"], False) == {"anna": 985, "boris": 1015}
    books_ok(db)


def _id(db: Database, name: str) -> int:
    with db.session() as s:
        return s.exec(select(User.id).where(User.name == name)).one()


def test_money_reads_without_opening_and_refuses_a_stranger(db: Database) -> None:
    """A player with no stack here yet plays from 0 (S-1.5) and reading it opens nothing;
    a name that is no user is an error, not a 0."""
    people(db, "anna")
    shaha, store = table(db, "shaha36"), TableStore(db)
    with db.session() as s:
        before = s.exec(select(func.count()).select_from(Account)).one()
    assert store.money(shaha, ["anna"], True) == {"anna": 0}
    with db.session() as s:
        assert s.exec(select(func.count()).select_from(Account)).one() == before
    with pytest.raises(ledger.LedgerError, match="nobody"):
        store.money(shaha, ["anna", "nobody"], True)


def test_an_action_costs_three_statements(db: Database) -> None:
    """docs/performance.md: under eventlet each statement holds every table, so an applied action
    with a payment is the UPDATE of the balances, the INSERT of its rows and the UPDATE of the hand
    row; one without a payment only the last; the money of a whole table one SELECT."""
    people(db, "anna", "boris", "carl")
    table_id, store = table(db), TableStore(db)
    hand_id = store.begin_hand(table_id, doc(), antes("anna", "boris", "carl"), stacks=False)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    store.record(hand_id, doc("anna"), [Transfer(20, "anna", "pot", "bet")], False, False)
    assert [s.split()[0] for s in statements] == ["UPDATE", "INSERT", "UPDATE"]
    statements.clear()
    store.record(hand_id, doc("anna", "boris"), [], False, False)
    assert [s.split()[0] for s in statements] == ["UPDATE"]
    statements.clear()
    assert store.money(table_id, ["anna", "boris", "carl"], False) == {
        "anna": 70,
        "boris": 90,
        "carl": 90,
    }
    assert [s.split()[0] for s in statements] == ["SELECT"]
    with db.session() as s:
        assert s.get(HandRecord, hand_id).status == PLAYING  # type: ignore[union-attr]


def test_a_players_standing_is_one_transaction(db: Database) -> None:
    """docs/performance.md: a «Готов» reads a player's money and where else his money is in
    play (docs/rules.md, «Money at one table at a time») in one transaction of two SELECTs
    when he plays nowhere else; a practice table (B-1.4) only reads the chips."""
    people(db, "Иван", "Мария", money=1000)
    classic, shaha, store = table(db), table(db, "shaha36"), TableStore(db)
    ivan, maria = _id(db, "Иван"), _id(db, "Мария")
    statements: list[str] = []
    transactions: list[object] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    event.listen(db.engine, "begin", transactions.append)
    players = {"Иван": ivan, "Мария": maria}
    assert store.standing(classic, players, False, False) == ({"Иван": 1000, "Мария": 1000}, {})
    assert [s.split()[0] for s in statements] == ["SELECT", "SELECT"]
    assert len(transactions) == 1
    store.buy_in(shaha, maria, 300)
    assert store.standing(classic, players, False, False) == (
        {"Иван": 1000, "Мария": 700},
        {maria: shaha},
    )
    statements.clear()
    assert store.standing(classic, players, False, True) == ({"Иван": 1000, "Мария": 700}, {})
    assert [s.split()[0] for s in statements] == ["SELECT"]


def test_standing_reads_each_named_player_on_the_bare_connection(db: Database) -> None:
    """The «Готов»'s one read (`standing`, on `Database.core`) for the players' own names —
    «Ёж», «ИвАн Петров» (a capital inside), «Мария 🌸» — finds exactly their accounts: each
    one's balance at a classic table (C-0.2), his stack at a shaha36 table and 0 for one not
    bought in (S-1.5); a hand of «Ёж» in play at the classic table makes that table his money
    elsewhere (docs/rules.md, «Money at one table at a time»), while his stack at a practice
    table is chips and not (B-1.4). A name written in another case is no user here."""
    yozh, ivan, maria = "Ёж", "ИвАн Петров", "Мария 🌸"
    people(db, yozh, ivan, maria, money=1000)
    classic, shaha, other = table(db), table(db, "shaha36"), table(db, "shaha36")
    practice = table(db, practice_preset())
    store = TableStore(db)
    ids = {name: _id(db, name) for name in (yozh, ivan, maria)}
    store.buy_in(shaha, ids[ivan], 300)
    store.buy_in(practice, ids[maria], 500)
    money, elsewhere = store.standing(classic, ids, stacks=False, practice=False)
    assert money == {yozh: 1000, ivan: 700, maria: 1000}
    assert elsewhere == {ids[ivan]: shaha}  # Мария's practice chips are no money
    store.begin_hand(classic, doc(), antes(yozh, maria), stacks=False)
    money, elsewhere = store.standing(other, ids, stacks=True, practice=False)
    assert money == {yozh: 0, ivan: 0, maria: 0}
    assert elsewhere == {ids[yozh]: classic, ids[ivan]: shaha, ids[maria]: classic}
    assert store.money(shaha, [ivan, yozh], True) == {ivan: 300, yozh: 0}
    with pytest.raises(ledger.LedgerError, match="no user named"):
        store.money(classic, ["ёж"], False)
    books_ok(db)


def test_the_tables_statements_skip_sqlalchemys_execute(db: Database) -> None:
    """docs/performance.md, «SQLAlchemy's share of an action, 2026-12-06»: an action's three
    statements and a «Готов»'s two run on the driver's cursor, compiled once
    (`app.models.db.run`), not through `Connection.execute` (its cache key, execution context
    and result object: its `before_execute` hears nothing), and the cursor still runs each
    of them once."""
    people(db, "Иван", "Ёж", "Мария")
    table_id, store = table(db), TableStore(db)
    ids = {name: _id(db, name) for name in ("Иван", "Ёж", "Мария")}
    hand_id = store.begin_hand(table_id, doc(), antes("Иван", "Ёж", "Мария"), stacks=False)
    executed: list[object] = []
    statements: list[str] = []
    event.listen(db.engine, "before_execute", lambda *a: executed.append(a[1]))
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    store.record(hand_id, doc("Иван"), [Transfer(20, "Иван", "pot", "bet")], False, False)
    assert [s.split()[0] for s in statements] == ["UPDATE", "INSERT", "UPDATE"]
    statements.clear()
    assert store.standing(table_id, ids, False, False) == (
        {"Иван": 70, "Ёж": 90, "Мария": 90},
        {},
    )
    assert [s.split()[0] for s in statements] == ["SELECT", "SELECT"]
    assert executed == []


def _hand_rows(db: Database, hand_id: int) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """A hand's ledger rows and hand row as SQLite stores them (the text of its dates and
    JSON, and their SQLite types), read past SQLAlchemy; the pot and the movement id, which
    differ from hand to hand, left out."""
    with db.engine.connect() as c:
        raw = c.connection.dbapi_connection
        assert raw is not None
        rows = raw.execute(
            "SELECT a.kind, a.user_id, l.amount, l.kind, l.table_id, l.reason, l.actor,"
            " typeof(l.created), length(l.created), length(l.movement)"
            " FROM ledger l JOIN accounts a ON a.id = l.account_id"
            " WHERE l.hand_id = ? ORDER BY l.id",
            (hand_id,),
        ).fetchall()
        hand = raw.execute(
            "SELECT status, hand_file, actions, typeof(finished), length(finished)"
            " FROM hands WHERE id = ?",
            (hand_id,),
        ).fetchone()
    return rows, hand


def test_the_cursor_writes_the_rows_sqlalchemy_writes(db: Database) -> None:
    """C-0.3: the same action recorded on the driver's cursor (`TableStore.record`) and
    through a session (`Connection.execute`, SQLAlchemy's bind processing) stores the same
    rows: the ledger rows with their dates as SQLAlchemy writes them, the hand file and
    action log as the same JSON text, the hand's end the same."""
    people(db, "Ёж", "Мария 🌸")
    table_id, store = table(db), TableStore(db)
    bets = [
        Transfer(30, "Ёж", "pot", "bet"),
        Transfer(45, "pot", "Мария 🌸", "award"),
        Transfer(5, "pot", "house", "rake"),
    ]
    shown = doc("Ёж", "Мария 🌸") | {"note": "«Готов» 🌸", "deep": [{"a": [1, None, True]}]}
    hands = []
    for through_session in (False, True):
        hand_id = store.begin_hand(table_id, doc(), antes("Ёж", "Мария 🌸"), stacks=False)
        if through_session:
            with db.session() as s:
                ledger.post(s, bets, hand_id=hand_id, table_id=table_id)
                s.execute(
                    SAVE_HAND,
                    {"hand": hand_id, "hand_file": shown, "actions": shown["actions"]}
                    | {"status": FINISHED, "finished": utcnow()},
                )
        else:
            store.record(hand_id, shown, bets, stacks=False, finished=True)
        hands.append(_hand_rows(db, hand_id))
    assert hands[0] == hands[1]
    assert hands[0][1][:3] == (FINISHED, json_text(shown), json_text(shown["actions"]))
    books_ok(db)


def _play(db: Database) -> dict[str, Any]:
    """One hand of three through the store (its antes, a bet, a «Готов», the award and the
    rake) and what it leaves: the answers, the ledger rows, the hand row, the balances. The
    bet and the «Готов» are not run by `Connection.execute`."""
    people(db, "Ёж", "ИвАн Петров", "Мария 🌸")
    table_id, store = table(db), TableStore(db)
    ids = {name: _id(db, name) for name in ("Ёж", "ИвАн Петров", "Мария 🌸")}
    hand_id = store.begin_hand(table_id, doc(), antes(*ids), stacks=False)
    executed: list[object] = []
    event.listen(db.engine, "before_execute", lambda *a: executed.append(a[1]))
    store.record(hand_id, doc("Ёж"), [Transfer(20, "Ёж", "pot", "bet")], False, False)
    standing = store.standing(table_id, ids, stacks=False, practice=False)
    assert executed == []
    with pytest.raises(ledger.LedgerError, match="no user named"):  # a name is its own case
        store.money(table_id, ["иван петров"], False)
    end = [Transfer(45, "pot", "Мария 🌸", "award"), Transfer(5, "pot", "house", "rake")]
    store.record(hand_id, doc("Ёж", "Мария 🌸"), end, False, True)  # opens the house's account
    with db.session() as s:
        rows = s.exec(select(LedgerEntry).order_by(col(LedgerEntry.id))).all()
        hand = s.get(HandRecord, hand_id)
        assert hand is not None
        kept = (hand.status, hand.hand_file, hand.actions, hand.finished is not None)
        return {
            "standing": standing,
            "money": store.money(table_id, list(ids), False),
            "rows": [(r.account_id, r.amount, r.kind, r.hand_id, r.reason) for r in rows],
            "hand": kept,
        }


def test_postgresql_stores_what_sqlite_does(db: Database) -> None:
    """docs/hosting.md, «Beyond one machine»: on PostgreSQL (psycopg's named parameters, not
    SQLite's question marks) the store's cursor statements give the same answers and write
    the same rows as on SQLite."""
    on_sqlite = _play(db)
    with postgres_server() as url:
        shared = Database(url)
        try:
            migrations.upgrade(shared.engine)
            on_postgresql = _play(shared)
        finally:
            shared.dispose()
    assert on_postgresql == on_sqlite
    assert on_sqlite["money"] == {"Ёж": 70, "ИвАн Петров": 90, "Мария 🌸": 135}


def test_sqlites_turns_share_one_connection(db: Database) -> None:
    """docs/performance.md, «SQLAlchemy's share of an action, 2026-12-06»: under SQLite the
    writers take turns (`Database.core`), so an action and a «Готов» take no connection from
    the pool: they share one, held from turn to turn. A turn taken inside another (the same
    thread) gets a connection of its own; `dispose` gives the held one back."""
    people(db, "Иван", "Ёж")
    table_id, store = table(db), TableStore(db)
    ids = {name: _id(db, name) for name in ("Иван", "Ёж")}
    hand_id = store.begin_hand(table_id, doc(), antes("Иван", "Ёж"), stacks=False)
    taken: list[object] = []
    given: list[object] = []
    event.listen(db.engine, "checkout", lambda *a: taken.append(a[0]))
    event.listen(db.engine, "checkin", lambda *a: given.append(a[0]))
    store.record(hand_id, doc("Иван"), [Transfer(20, "Иван", "pot", "bet")], False, False)
    assert store.standing(table_id, ids, False, False) == ({"Иван": 70, "Ёж": 90}, {})
    assert taken == given == []
    with db.core() as outer, db.core() as inner:
        assert inner is not outer
        assert (
            outer.exec_driver_sql("SELECT 1").scalar() == inner.exec_driver_sql("SELECT 1").scalar()
        )
    assert len(taken) == len(given) == 1
    db.dispose()
    assert len(given) == 2


def test_nobodys_money_is_no_statement(db: Database) -> None:
    """An empty table's money (no names) is an empty answer, read without a statement: the
    «Готов»'s SELECT is written per count of names, and none is written for none."""
    table_id, store = table(db), TableStore(db)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert store.money(table_id, [], False) == {}
    assert store.standing(table_id, {}, stacks=True, practice=False) == ({}, {})
    assert statements == []


def test_a_failing_statement_on_the_cursor_fails_as_sqlalchemys(db: Database) -> None:
    """A statement the driver refuses on the cursor path (`app.models.db.run`) fails as
    through `Connection.execute`: SQLAlchemy's error, the engine's `handle_error` told (it
    counts `svara_database_errors_total`, app/health.py), nothing written (C-0.3)."""
    people(db, "Иван")
    heard: list[object] = []
    event.listen(db.engine, "handle_error", lambda context: heard.append(context.statement))
    rows = ledger._movement([(10**6, 5)], "bet", None, None, "«Дал»")  # no such account
    with pytest.raises(IntegrityError), db.core() as c:  # (foreign keys are on)
        ledger._run(c, ledger.INSERT_ROWS, rows)
    assert len(heard) == 1 and str(heard[0]).startswith("INSERT INTO ledger")
    books_ok(db)
