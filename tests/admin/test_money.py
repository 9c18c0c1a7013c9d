"""`svara admin balance …`, `ledger verify` and `settle` through click's runner: grants go
through the ledger (C-0.1), the books are proven (C-0.3), the settle-up counts game money
only."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import update
from sqlmodel import Session, select

from app import ledger
from app.admin.settle import Payment
from app.engine.games import get_variant
from app.engine.hand import Transfer
from app.models import FINISHED, PLAYING, Account, HandRecord, LedgerEntry, Table, User

from .conftest import Admin, play
from .test_settle import squared


def balance_of(admin: Admin, name: str) -> int:
    return admin.ok("balance", "show", name)["balance"]


def test_grant_deduct_and_show(admin: Admin) -> None:
    """C-0.1: money enters by a grant; a negative grant takes it back, never below 0."""
    admin.user("anna")
    done = admin.ok("balance", "grant", "anna", "500", "--reason", "welcome")
    assert (done["amount"], done["balance"], done["live"]) == (500, 500, {"server": False})
    assert admin.ok("balance", "grant", "anna", "-120", "--reason", "correction")["balance"] == 380
    shown = admin.ok("balance", "show", "anna")
    assert shown["balance"] == 380
    assert [(r["kind"], r["amount"], r["reason"]) for r in shown["recent"]] == [
        ("grant", -120, "correction"),
        ("grant", 500, "welcome"),
    ]
    assert len(admin.ok("balance", "show", "anna", "--recent", "1")["recent"]) == 1
    human = admin.run("balance", "show", "anna")
    assert "balance: 380" in human.stdout and "correction" in human.stdout
    report = admin.ok("ledger", "verify")
    assert (report["ok"], report["granted"], report["balances"]) == (True, 380, 380)


def test_grant_refusals_change_nothing(admin: Admin) -> None:
    admin.user("anna")
    admin.ok("balance", "grant", "anna", "100", "--reason", "welcome")
    admin.refused("balance", "grant", "anna", "-101", "--reason", "x", match="never below 0")
    admin.refused("balance", "grant", "anna", "0", "--reason", "x", match="not be zero")
    admin.refused("balance", "grant", "anna", "ten", "--reason", "x", match="not a valid integer")
    admin.refused("balance", "grant", "anna", "10", "--reason", " ", match="needs a reason")
    admin.refused("balance", "grant", "anna", "10", match="--reason")
    admin.refused("balance", "grant", "nobody", "10", "--reason", "x", match="unknown user")
    admin.refused("balance", "show", "nobody", match="unknown user")
    assert balance_of(admin, "anna") == 100


def test_ledger_verify_fails_with_the_first_discrepancy(admin: Admin) -> None:
    admin.user("anna")
    admin.ok("balance", "grant", "anna", "100", "--reason", "welcome")
    assert admin.run("ledger", "verify").exit_code == 0
    with admin.db.session() as s:  # money appears without a ledger row
        s.execute(update(Account).values(balance=Account.balance + 5))
    result = admin.run("ledger", "verify")
    assert result.exit_code == 1
    first = result.stderr.splitlines()[0]
    assert "do not balance" in first and "balance 105 but its rows sum to 100" in first
    as_json = admin.run("ledger", "verify", "--json")
    assert as_json.exit_code == 1 and '"ok": false' in as_json.stdout


def hand_at(
    s: Session,
    table: Table,
    day: datetime,
    status: str,
    transfers: list[Transfer],
    stacks: bool = False,
) -> None:
    """A hand of `table` started on `day` whose money moved as `transfers`."""
    hand = HandRecord(table_id=table.id, started=day, status=status)  # type: ignore[arg-type]
    s.add(hand)
    s.flush()
    ledger.post(s, transfers, hand_id=hand.id, table_id=table.id, stacks=stacks)  # type: ignore[arg-type]


def test_settle_counts_the_periods_ended_hands_only(admin: Admin) -> None:
    """Worked example: four friends, hands before, in and after the period, a grant, a hand
    still in play and a practice match (B-1.4: chips, not money); the house took a rake of 3
    and is a party to square."""
    for name in ("anna", "boris", "vera", "gleb"):
        admin.user(name)
        admin.ok("balance", "grant", name, "1000", "--reason", "start")
    with admin.db.session() as s:
        table = Table(name="t", variant="classic", seats=6)
        s.add(table)
        s.flush()
        before = [Transfer(500, "anna", "pot", "bet"), Transfer(500, "pot", "vera", "award")]
        hand_at(s, table, datetime(2025, 12, 1, tzinfo=UTC), FINISHED, before)
        hand_at(s, table, datetime(2026, 1, 10, 20, tzinfo=UTC), FINISHED, [
            Transfer(30, "anna", "pot", "ante"), Transfer(30, "boris", "pot", "ante"),
            Transfer(30, "vera", "pot", "ante"), Transfer(87, "pot", "anna", "award"),
            Transfer(3, "pot", "house", "rake"),
        ])  # fmt: skip
        hand_at(s, table, datetime(2026, 1, 11, tzinfo=UTC), FINISHED, [
            Transfer(50, "gleb", "pot", "bet"), Transfer(50, "boris", "pot", "bet"),
            Transfer(100, "pot", "boris", "award"),
        ])  # fmt: skip
        hand_at(s, table, datetime(2026, 1, 12, tzinfo=UTC), PLAYING,
                [Transfer(10, "anna", "pot", "ante")])  # fmt: skip
        after = [Transfer(70, "gleb", "pot", "bet"), Transfer(70, "pot", "anna", "award")]
        hand_at(s, table, datetime(2026, 2, 1, tzinfo=UTC), FINISHED, after)
        practice = Table(name="p", variant="svara32-practice", seats=2)
        s.add(practice)
        s.flush()
        for name in ("anna", "vera"):  # B-1.4: practice chips are granted to the stack
            user = s.exec(select(User).where(User.name == name)).one()
            ledger.buy_in(s, user.id, practice.id, 500)  # type: ignore[arg-type]
        chips = [Transfer(200, "vera", "pot", "bet"), Transfer(200, "pot", "anna", "award")]
        hand_at(s, practice, datetime(2026, 1, 15, tzinfo=UTC), FINISHED, chips, stacks=True)
    admin.ok("balance", "grant", "gleb", "-100", "--reason", "a grant is not a game result")
    report = admin.ok("settle", "--since", "2026-01-01", "--until", "2026-02-01")
    nets = {"anna": 57, "boris": 20, "gleb": -50, "house": 3, "vera": -30}
    assert report["results"] == nets
    payments = [Payment(**p) for p in report["payments"]]
    assert squared(nets, payments) == {}
    assert len(payments) == 4  # no group of them sums to zero: n − 1
    later = admin.ok("settle", "--since", "2026-01-11")
    assert later["results"] == {"anna": 70, "boris": 50, "gleb": -120}
    assert [tuple(p.values()) for p in later["payments"]] == [
        ("gleb", "anna", 70),
        ("gleb", "boris", 50),
    ]
    human = admin.run("settle", "--since", "2026-01-11")
    assert "payments:" in human.stdout and "gleb   anna   70" in human.stdout
    admin.refused("settle", "--since", "yesterday", match="--since")


def test_settle_over_hands_played_by_the_runtime(admin: Admin) -> None:
    """Real classic hands recorded through the table store: each player's result is his
    balance change, and the results square."""
    names = ["anna", "boris", "vera"]
    for name in names:
        admin.user(name)
        admin.ok("balance", "grant", name, "2000", "--reason", "start")
    table = admin.ok("table", "create", "Вечер", "--variant", "classic")
    for h in range(4):
        play(admin.db, table["id"], names, get_variant("classic"), f"evening:{h}")
    report = admin.ok("settle", "--since", "2020-01-01")
    for name in names:
        assert report["results"].get(name, 0) == balance_of(admin, name) - 2000
    assert squared(report["results"], [Payment(**p) for p in report["payments"]]) == {}
    assert admin.ok("ledger", "verify")["ok"]
    with admin.db.session() as s:
        assert len(s.exec(select(User)).all()) == 3
        assert s.exec(select(LedgerEntry)).all()
