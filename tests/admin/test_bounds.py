"""Numbers from the command line are bounded (docs/hosting.md, «Administration»): a grant,
an id, a rule value out of range is a clear refusal (exit status 2) that changes nothing,
and `ledger verify` reports rows written around the service instead of crashing."""

from __future__ import annotations

import pytest
from sqlalchemy import insert

from app.ledger import LEDGER, MAX_AMOUNT
from app.models import Account

from .conftest import Admin

HUGE = str(2**63 - 1)


def test_a_grant_is_bounded_both_ways_and_a_balance_too(admin: Admin) -> None:
    """9223372036854775807 used to be granted, twice, into a float balance."""
    admin.user("Иван")
    for amount in (HUGE, f"-{HUGE}", str(MAX_AMOUNT + 1), "99999999999999999999999"):
        admin.refused("balance", "grant", "Иван", amount, "--reason", "x", match="range")
    admin.ok("balance", "grant", "Иван", str(MAX_AMOUNT), "--reason", "всё")
    admin.refused("balance", "grant", "Иван", "1", "--reason", "x", match="at most")
    assert admin.ok("balance", "show", "Иван")["balance"] == MAX_AMOUNT
    assert admin.ok("ledger", "verify")["ok"]


@pytest.mark.parametrize(
    "args",
    [
        ("hand", "show", HUGE + "0"),
        ("hand", "verify", "0"),
        ("hand", "list", "--limit", HUGE),
    ],
)
def test_ids_and_limits_are_bounded(admin: Admin, args: tuple[str, ...]) -> None:
    admin.refused(*args, match="range")


@pytest.mark.parametrize("key", [str(2**63), "99999999999999999999", "²"])
def test_a_table_key_beyond_the_ids_is_no_table(admin: Admin, key: str) -> None:
    """`table show 2⁶³` was an OverflowError traceback; «²» is a digit to Python, no id."""
    admin.refused("table", "show", key, match="no ")


@pytest.mark.parametrize(
    ("sets", "match"),
    [
        ("levels=10,-20", "between 1 and 1000000"),
        ("levels=10,0", "between 1 and 1000000"),
        ("levels=10,2000000", "between 1 and 1000000"),
        ("levels=" + ",".join(map(str, range(10, 100, 10))), "at most 8"),
        ("ante=" + HUGE, "between 1 and 1000000"),
    ],
)
def test_rule_values_are_bounded_in_variants_and_tables(
    admin: Admin, sets: str, match: str
) -> None:
    """`--set levels=10,-20` was stored, and the engine then offered a bet of −20 (C-4.2)."""
    admin.refused("variant", "create", "bad", "--from", "classic", "--set", sets, match=match)
    admin.refused("table", "create", "Пятница", "--variant", "classic", "--set", sets, match=match)


def test_a_stack_range_must_not_cross(admin: Admin) -> None:
    """S-1.5: a smallest stack above the largest made every seat unreachable."""
    admin.refused(
        "table", "create", "Шаха", "--variant", "shaha36", "--set", "buy_in_min=200",
        match="buy_in_min must not be above buy_in_max",
    )  # fmt: skip
    made = admin.ok("variant", "create", "deep", "--from", "shaha36", "--set", "buy_in_min=100")
    assert made["name"] == "deep"


@pytest.mark.parametrize("amount", [2**63 - 1, 2.5e19, "много", 1.5])
def test_verify_reports_a_corrupted_row_and_never_crashes(admin: Admin, amount: object) -> None:
    """A row written around the service (a huge, fractional or text amount) is a problem in
    the report (exit 1), not a traceback of the SQL sum."""
    admin.user("Мария")
    admin.ok("balance", "grant", "Мария", "100", "--reason", "welcome")
    with admin.db.session() as s:
        (account,) = s.exec(Account.__table__.select()).all()  # type: ignore[attr-defined]
        for _ in range(2):  # two of the huge rows overflowed SQLite's sum()
            s.execute(
                insert(LEDGER).values(
                    account_id=account.id, amount=amount, kind="grant", movement="x" * 32,
                    reason="corrupted", created=account.created,
                )
            )  # fmt: skip
    report = admin.ok_or_fail("ledger", "verify")
    assert not report["ok"]
    assert any("ledger row" in p or "rows sum to" in p for p in report["problems"]), report
    human = admin.run("ledger", "verify")
    assert human.exit_code == 1 and "the books do not balance" in human.stderr
    assert human.exception is None or isinstance(human.exception, SystemExit)
