"""The ledger (app/ledger.py): every movement is rows, balances follow them, the books balance
(C-0.1, C-0.3, C-8.5). In-process on a real SQLite file migrated by Alembic."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event, update
from sqlmodel import Session, select

from app import ledger, migrations
from app.engine import games
from app.engine.games import SCORERS, get_variant
from app.engine.hand import Seat, Transfer
from app.engine.policies.roster import BOTS
from app.engine.simulate import play_hand, seeded_deals
from app.models import (
    CANCELLED,
    FINISHED,
    Account,
    Database,
    HandRecord,
    LedgerEntry,
    Table,
    User,
)

_serial = iter(range(1_000_000))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'svara.db'}")
    migrations.upgrade(database.engine)
    yield database
    database.dispose()


def users(s: Session, count: int) -> list[User]:
    """Fresh users (names unique across the module's database), with no password to hash."""
    made = [User(name=f"u{next(_serial)}", password_hash="-") for _ in range(count)]
    s.add_all(made)
    s.flush()
    return made


def new_hand(s: Session, variant: str = "classic") -> HandRecord:
    table = Table(name="t", variant=variant, seats=6)
    s.add(table)
    s.flush()
    assert table.id is not None
    hand = HandRecord(table_id=table.id)
    s.add(hand)
    s.flush()
    return hand


def books_ok(db: Database) -> ledger.Books:
    with db.session() as s:
        books = ledger.verify(s)
    assert books.ok, books.problems
    return books


def test_new_account_holds_zero_and_has_no_rows(db: Database) -> None:
    """C-0.1: a new account starts with balance 0."""
    with db.session() as s:
        (user,) = users(s, 1)
        assert user.id is not None
        account = ledger.user_account(s, user.id)
        assert ledger.balance(s, account) == 0
        rows = s.exec(select(LedgerEntry).where(LedgerEntry.account_id == account.id)).all()
        assert rows == []
    books_ok(db)


def test_grant_is_one_row_and_never_goes_below_zero(db: Database) -> None:
    """C-0.1: balances grow by grants; a negative grant may not overdraw."""
    with db.session() as s:
        (user,) = users(s, 1)
        before = ledger.verify(s).granted
        row = ledger.grant(s, user, 500, "welcome")
        assert (row.amount, row.kind, row.reason) == (500, "grant", "welcome")
        ledger.grant(s, user, -200, "correction")
        assert user.id is not None
        assert ledger.user_balance(s, user.id) == 300
    with pytest.raises(ledger.LedgerError, match="cannot pay 301"), db.session() as s:
        ledger.grant(s, s.get(User, user.id), -301, "too much")  # type: ignore[arg-type]
    with pytest.raises(ledger.LedgerError, match="zero"), db.session() as s:
        ledger.grant(s, s.get(User, user.id), 0, "nothing")  # type: ignore[arg-type]
    with db.session() as s:
        assert ledger.user_balance(s, user.id) == 300
    assert books_ok(db).granted == before + 300


def test_posting_a_hand_moves_money_through_its_pot(db: Database) -> None:
    """C-0.3: antes and bets go into the pot (out of the balances, recorded against the
    hand); the award and the rake empty it."""
    with db.session() as s:
        anna, boris = users(s, 2)
        for u in (anna, boris):
            ledger.grant(s, u, 100, "start")
        hand = new_hand(s)
        assert hand.id is not None and anna.id is not None and boris.id is not None
        before = ledger.verify(s)
        ledger.post(
            s,
            [
                Transfer(10, anna.name, "pot", "ante"),
                Transfer(10, boris.name, "pot", "ante"),
                Transfer(20, anna.name, "pot", "bet"),
            ],
            hand_id=hand.id,
            table_id=hand.table_id,
        )
        in_play = ledger.verify(s)
        assert in_play.ok, in_play.problems
        assert ledger.balance(s, ledger.pot_account(s, hand.id)) == 40
        assert (in_play.balances, in_play.in_play) == (before.balances - 40, before.in_play + 40)
        ledger.post(
            s,
            [Transfer(38, "pot", boris.name, "award"), Transfer(2, "pot", "house", "rake")],
            hand_id=hand.id,
            table_id=hand.table_id,
        )
        hand.status = FINISHED
        s.add(hand)
        assert ledger.user_balance(s, anna.id) == 70
        assert ledger.user_balance(s, boris.id) == 128
        rows = s.exec(select(LedgerEntry).where(LedgerEntry.hand_id == hand.id)).all()
        assert len(rows) == 10  # two legs per transfer
        assert {r.table_id for r in rows} == {hand.table_id}
    books = books_ok(db)
    assert books.granted == before.granted and books.in_play == before.in_play


def test_unknown_party_or_overdraft_changes_nothing(db: Database) -> None:
    with db.session() as s:
        (anna,) = users(s, 1)
        ledger.grant(s, anna, 15, "start")
        hand = new_hand(s)
    assert hand.id is not None and anna.id is not None
    for transfers, message in (
        ([Transfer(10, anna.name, "pot", "ante"), Transfer(10, anna.name, "pot", "bet")], "pay"),
        ([Transfer(10, anna.name, "pot", "ante"), Transfer(5, "nobody", "pot", "ante")], "nobody"),
        ([Transfer(0, anna.name, "pot", "ante")], "positive"),
    ):
        with pytest.raises(ledger.LedgerError, match=message), db.session() as s:
            ledger.post(s, transfers, hand_id=hand.id, table_id=hand.table_id)
        with db.session() as s:
            assert ledger.user_balance(s, anna.id) == 15
            assert s.exec(select(LedgerEntry).where(LedgerEntry.hand_id == hand.id)).all() == []
    books_ok(db)


def test_refund_returns_every_payment_of_a_cancelled_hand(db: Database) -> None:
    """C-8.5: a cancelled hand gives every payment back to its owner; the pot ends empty."""
    with db.session() as s:
        players = users(s, 3)
        for u in players:
            ledger.grant(s, u, 100, "start")
        hand = new_hand(s)
        assert hand.id is not None
        a, b, c = (u.name for u in players)
        ledger.post(
            s,
            [
                Transfer(10, a, "pot", "ante"),
                Transfer(10, b, "pot", "ante"),
                Transfer(10, c, "pot", "ante"),
                Transfer(25, b, "pot", "bet"),
                Transfer(5, "pot", c, "return"),
            ],
            hand_id=hand.id,
            table_id=hand.table_id,
        )
        pot = ledger.pot_account(s, hand.id)
        assert ledger.balance(s, pot) == 50
        rows = ledger.refund(s, hand.id, "server restart")
        assert sorted(r.amount for r in rows if r.account_id != pot.id) == [5, 10, 35]
        hand.status = CANCELLED
        s.add(hand)
        assert [ledger.user_balance(s, u.id) for u in players if u.id] == [100, 100, 100]
        assert ledger.balance(s, pot) == 0
    books_ok(db)


def test_verify_finds_a_balance_changed_without_a_row(db: Database) -> None:
    """The check can fail: a balance edited behind the ledger's back is reported."""
    with db.session() as s:
        (anna,) = users(s, 1)
        ledger.grant(s, anna, 50, "start")
        assert anna.id is not None
        account = ledger.user_account(s, anna.id)
    with db.session() as s:
        s.execute(update(Account).where(Account.id == account.id).values(balance=75))
    with db.session() as s:
        books = ledger.verify(s)
        assert not books.ok
        assert any(f"account {account.id}" in p and "sum to 50" in p for p in books.problems)
        assert any("granted" in p for p in books.problems)
        s.execute(update(Account).where(Account.id == account.id).values(balance=50))
    books_ok(db)


def test_verify_finds_money_left_in_a_finished_hand(db: Database) -> None:
    with db.session() as s:
        (anna,) = users(s, 1)
        ledger.grant(s, anna, 50, "start")
        hand = new_hand(s)
        assert hand.id is not None
        ledger.post(
            s, [Transfer(10, anna.name, "pot", "ante")], hand_id=hand.id, table_id=hand.table_id
        )
        hand.status = FINISHED
        s.add(hand)
    with db.session() as s:
        books = ledger.verify(s)
        assert any(f"left in the pot of the finished hand {hand.id}" in p for p in books.problems)
        ledger.refund(s, hand.id, "test cleanup")
    books_ok(db)


@pytest.mark.parametrize("variant_name", ["classic", "shaha36", "svara32"])
def test_real_hands_posted_to_the_ledger_match_the_engine(db: Database, variant_name: str) -> None:
    """Bots play whole hands of each game; posting the engine's transfers leaves every
    player's money (balance, or stack in the stack variants) where the engine says, the
    rake with the house, and the books balanced."""
    variant = get_variant(variant_name)
    cls = games.hand_class(variant.game)
    stacks = variant.game != "classic"
    rng = random.Random(7)
    stake = cls.stake(variant)
    with db.session() as s:
        players = users(s, 4)
        for u in players:
            ledger.grant(s, u, 2 * stake, "start")
        table = Table(name="bots", variant=variant_name, seats=variant["seats"])
        s.add(table)
        s.flush()
        assert table.id is not None
        if stacks:
            for u in players:
                assert u.id is not None
                ledger.buy_in(s, u.id, table.id, stake)
        house_before = ledger.balance(s, ledger.house_account(s))
    names = [u.name for u in players]
    # classic plays from the whole balance (C-0.2); the others from the stack bought in.
    money = dict.fromkeys(names, stake if stacks else 2 * stake)
    rake = 0
    dealer = names[0]
    for h in range(6):
        seats = [Seat(n, money[n]) for n in names if cls.playable(variant, money[n])]
        if len(seats) < 2:
            break
        hand = cls(variant, seats, seats[0].name, seeded_deals(SCORERS[variant.game].deck, f"L{h}"))
        play_hand(hand, {n: BOTS["random"](rng) for n in names}, rng)
        result = hand.result()
        with db.session() as s:
            record = HandRecord(table_id=table.id)
            s.add(record)
            s.flush()
            assert record.id is not None
            ledger.post(s, hand.transfers, hand_id=record.id, table_id=table.id, stacks=stacks)
            record.status = FINISHED
            s.add(record)
        money.update(result.balances)
        rake += result.rake
        dealer = hand.next_dealer or dealer
    with db.session() as s:
        for u in players:
            assert u.id is not None
            account = (
                ledger.stack_account(s, u.id, table.id) if stacks else ledger.user_account(s, u.id)
            )
            assert ledger.balance(s, account) == money[u.name]
        assert ledger.balance(s, ledger.house_account(s)) == house_before + rake
        if stacks:
            for u in players:
                assert u.id is not None
                ledger.cash_out(s, u.id, table.id)
        total = sum(ledger.user_balance(s, u.id) for u in players if u.id)
    assert total + rake == 4 * 2 * stake
    books_ok(db)


operations = st.lists(
    st.tuples(
        st.sampled_from(["grant", "pay", "finish", "cancel"]),
        st.integers(0, 3),
        st.integers(-50, 200),
    ),
    max_size=25,
)


@settings(max_examples=100, deadline=None)
@given(operations)
def test_any_sequence_of_movements_keeps_the_books(db: Database, ops: list) -> None:
    """Property (C-0.3): whatever is granted, paid into hands, awarded or refunded — and
    whatever is refused — granted == balances + money in play, and verify passes."""
    with db.session() as s:
        players = users(s, 4)
        hand = new_hand(s)
        start = ledger.verify(s)
    granted = 0
    for op, who, amount in ops:
        player = players[who]
        try:
            with db.session() as s:
                if op == "grant":
                    ledger.grant(s, s.get(User, player.id), amount, "prop")  # type: ignore[arg-type]
                    granted += amount
                elif hand.status != "playing":
                    hand = new_hand(s)
                elif op == "pay":
                    ledger.post(
                        s,
                        [Transfer(amount, player.name, "pot", "bet")],
                        hand_id=hand.id,
                        table_id=hand.table_id,
                    )  # type: ignore[arg-type]
                elif op == "finish":
                    assert hand.id is not None
                    pot = ledger.balance(s, ledger.pot_account(s, hand.id))
                    if pot:
                        rake = pot // 10
                        ledger.post(
                            s,
                            [Transfer(pot - rake, "pot", player.name, "award")]
                            + ([Transfer(rake, "pot", "house", "rake")] if rake else []),
                            hand_id=hand.id,
                            table_id=hand.table_id,
                        )
                    hand.status = FINISHED
                    s.add(hand)
                else:
                    assert hand.id is not None
                    ledger.refund(s, hand.id, "prop")
                    hand.status = CANCELLED
                    s.add(hand)
        except ledger.LedgerError:
            pass  # refused (overdraft, zero): the session rolled back, nothing changed
        books = books_ok(db)
        assert books.granted == start.granted + granted
        assert books.balances + books.in_play == books.granted


def test_a_stack_left_on_a_closed_table_is_reported(db: Database) -> None:
    """Stacks (S-1.5) are money in play until cashed out; a closed table must hold none."""
    with db.session() as s:
        (anna,) = users(s, 1)
        ledger.grant(s, anna, 300, "start")
        table = Table(name="stacks", variant="shaha36", seats=6)
        s.add(table)
        s.flush()
        assert anna.id is not None and table.id is not None
        ledger.buy_in(s, anna.id, table.id, 200)
        assert ledger.user_balance(s, anna.id) == 100
        table.closed = True
        s.add(table)
    with db.session() as s:
        problems = ledger.verify(s).problems
        assert any("200 on the closed table" in p for p in problems)
        rows = ledger.cash_out(s, anna.id, table.id)
        assert sorted(r.amount for r in rows) == [-200, 200]
        assert ledger.user_balance(s, anna.id) == 300
        assert ledger.cash_out(s, anna.id, table.id) == []
    books_ok(db)


def stack_tables(s: Session, count: int) -> list[int]:
    """Fresh tables whose players play from stacks (S-1.5)."""
    made = [Table(name="stacks", variant="shaha36", seats=6) for _ in range(count)]
    s.add_all(made)
    s.flush()
    return [t.id for t in made if t.id is not None]


def test_stacks_elsewhere_names_money_at_another_table_only(db: Database) -> None:
    """`stacks_elsewhere` (docs/rules.md, «Money at one table at a time»): of the users asked,
    each one's other table where a stack of his holds money; his stack at this table, a stack
    cashed out (0) and a user not asked are not in it. The same on a session and on a bare
    connection (a table's «Готов» reads it there)."""
    with db.session() as s:
        ivan, yozh, maria = (User(name=n, password_hash="-") for n in ("Иван", "Ёж", "Мария"))
        s.add_all([ivan, yozh, maria])
        s.flush()
        assert ivan.id is not None and yozh.id is not None and maria.id is not None
        for player in (ivan, yozh, maria):
            ledger.grant(s, player, 1000, "start")
        here, other, old = stack_tables(s, 3)
        ledger.buy_in(s, ivan.id, other, 200)
        ledger.buy_in(s, yozh.id, old, 100)
        ledger.cash_out(s, yozh.id, old)
        ledger.buy_in(s, yozh.id, here, 150)
        ledger.buy_in(s, maria.id, other, 300)
        ledger.cash_out(s, maria.id, other)
        players = [ivan.id, yozh.id, maria.id]
        assert ledger.stacks_elsewhere(s, players, here) == {ivan.id: other}
        assert ledger.stacks_elsewhere(s, players, other) == {yozh.id: here}
        assert ledger.stacks_elsewhere(s, [yozh.id, maria.id], here) == {}
    with db.core() as c:
        assert ledger.stacks_elsewhere(c, players, here) == {ivan.id: other}


@pytest.mark.parametrize("count", [1, 3, 6])
def test_stacks_elsewhere_reads_only_the_asked_users_stacks(db: Database, count: int) -> None:
    """A table asks `stacks_elsewhere` at every «Готов» and hand's start: SQLite's plan of the
    very statement it runs looks the asked users' stacks up by kind and user, not every
    stack account the club ever opened by kind (https://sqlite.org/eqp.html)."""
    names = ("Иван", "ЁЖ", "Мария", "Борис Петров", "ГЭРИ-младший", "Ёлка 🎄")[:count]
    with db.session() as s:
        people = [User(name=f"{n} №{count}", password_hash="-") for n in names]  # db shared
        s.add_all(people)
        s.flush()
        asked = [p.id for p in people if p.id is not None]
        here, other = stack_tables(s, 2)
        for person in people:
            ledger.grant(s, person, 500, "start")
            ledger.buy_in(s, person.id, other, 100)
    sent: list[tuple[str, object]] = []

    def heard(_c: object, _cursor: object, sql: str, params: object, *_rest: object) -> None:
        sent.append((sql, params))

    event.listen(db.engine, "before_cursor_execute", heard)
    try:
        with db.core() as c:
            assert ledger.stacks_elsewhere(c, asked, here) == dict.fromkeys(asked, other)
    finally:
        event.remove(db.engine, "before_cursor_execute", heard)
    ((sql, params),) = [(q, p) for q, p in sent if "FROM accounts" in q]  # then its tables
    with db.engine.connect() as c:
        plan = [row[3] for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)]
    assert plan == [
        "SEARCH accounts USING INDEX ix_accounts_kind_user_id_table_id (kind=? AND user_id=?)"
    ]


def test_the_house_money_read_from_its_accounts_is_what_verify_proves(db: Database) -> None:
    """The administrator's page shows the house's balance and what the bots hold of its money
    (`house_money`, from those accounts alone) at every view: the same figures as `verify`'s,
    which walks the whole ledger — a bot's balance and his stack at a money table count."""
    with db.session() as s:
        bots = [User(name=n, password_hash="!bot") for n in ("Бот Ёж", "Бот Мария 🌸")]
        ivan = User(name="Иван у дома", password_hash="-")  # the module shares its database
        s.add_all([*bots, ivan])
        s.flush()
        ids = [b.id for b in bots if b.id is not None]
        ledger.grant_house(s, 1_000, "the house's float")
        ledger.grant(s, ivan, 300, "start")
        for bot_id in ids:
            ledger.stake_bot(s, bot_id, 200)
        (money_table,) = stack_tables(s, 1)
        ledger.buy_in(s, ids[0], money_table, 150)
        ledger.buy_in(s, ivan.id or 0, money_table, 100)
    with db.session() as s:
        books = ledger.verify(s, ids)
        assert books.ok, books.problems
        assert ledger.house_money(s, ids) == (books.house, books.bots)
        assert books.bots == 400 and books.house >= 600
