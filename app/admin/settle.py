"""The friends' settle-up: each player's net result over a period (`results`), and who pays
whom so that every net result is squared in the FEWEST transfers (`settle`). `settle_up` is
the one service of both `svara admin settle` and a table's page (app/history/): it reads
only the books, so history uses it without loading the live tables or the bots.

With n parties of non-zero net, n − 1 transfers always suffice (settle a chain). Fewer are
possible exactly when the parties split into groups that each sum to zero: a group of m
settles in m − 1, so the minimum is n − k for the largest number k of zero-sum groups a
partition can have. Finding k is NP-hard in general (it contains subset-sum), so:

- up to `EXACT_LIMIT` parties, an exact dynamic programme over subsets (O(2ⁿ·n)) finds a
  partition with the most zero-sum groups; each group is then settled in m − 1 transfers;
- above it, a greedy settlement: exact opposite pairs first (one transfer squares two
  parties), then the largest debtor pays the largest creditor. Every transfer squares at
  least one party, so it never needs more than n − 1, but it may miss a better grouping.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlmodel import Session, col, select

from app.auth.roster import bot_ids
from app.engine.variants import VariantError
from app.models import (
    CANCELLED,
    FINISHED,
    HOUSE,
    STACK,
    USER,
    Account,
    HandRecord,
    LedgerEntry,
    Table,
    User,
)
from app.table_rules import table_variant

#: A table's «tonight»: the hands of the last 12 hours (a settle-up is one night).
NIGHT = timedelta(hours=12)
EXACT_LIMIT = 15


class Payment(NamedTuple):
    """`payer` gives `amount` to `payee`."""

    payer: str
    payee: str
    amount: int


def settle(nets: Mapping[str, int]) -> list[Payment]:
    """Transfers that bring every net to zero; the fewest possible up to EXACT_LIMIT parties.

    `nets` must sum to zero (what some won, others lost); ValueError otherwise.
    """
    if sum(nets.values()) != 0:
        raise ValueError(f"the results sum to {sum(nets.values())}, not 0")
    parties = sorted(name for name, net in nets.items() if net)
    if len(parties) > EXACT_LIMIT:
        return _greedy({p: nets[p] for p in parties}, pairs_first=True)
    payments: list[Payment] = []
    for group in zero_sum_groups([nets[p] for p in parties]):
        payments += _greedy({parties[i]: nets[parties[i]] for i in group}, pairs_first=False)
    return payments


def zero_sum_groups(amounts: Sequence[int]) -> list[list[int]]:
    """A partition of the indices of `amounts` (summing to 0) into the most zero-sum groups.

    best[mask] is the most zero-sum groups that the members of `mask` can be cut into when
    they are taken in some order and a group closes each time the running sum is zero; it
    is best[mask − i] for the best last member i, plus one if `mask` itself sums to zero.
    """
    n = len(amounts)
    full = (1 << n) - 1
    total = [0] * (1 << n)
    best = [0] * (1 << n)
    last = [0] * (1 << n)
    for mask in range(1, full + 1):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + amounts[low]
        closes = 1 if total[mask] == 0 else 0
        best[mask] = -1
        rest = mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            if best[mask ^ bit] + closes > best[mask]:
                best[mask], last[mask] = best[mask ^ bit] + closes, bit
    groups: list[list[int]] = []
    mask, current = full, list[int]()
    while mask:
        if total[mask] == 0 and current:
            groups.append(current)
            current = []
        bit = last[mask]
        current.append(bit.bit_length() - 1)
        mask ^= bit
    if current:
        groups.append(current)
    return [sorted(g) for g in reversed(groups)]


def _greedy(nets: Mapping[str, int], *, pairs_first: bool) -> list[Payment]:
    """The largest debtor pays the largest creditor until all are square (each payment
    squares at least one of the two); optionally exact opposite pairs first."""
    owed = dict(nets)
    payments: list[Payment] = []
    if pairs_first:
        creditors: dict[int, list[str]] = {}
        for name, net in sorted(owed.items()):
            if net > 0:
                creditors.setdefault(net, []).append(name)
        for name, net in sorted(owed.items()):
            if net < 0 and creditors.get(-net):
                payee = creditors[-net].pop()
                payments.append(Payment(name, payee, -net))
                owed[name] = owed[payee] = 0
    while True:
        debtors = sorted((net, name) for name, net in owed.items() if net < 0)
        creditors_now = sorted(((-net, name) for name, net in owed.items() if net > 0))
        if not debtors:
            return payments
        debt, payer = debtors[0]
        credit, payee = creditors_now[0]
        amount = min(-debt, -credit)
        payments.append(Payment(payer, payee, amount))
        owed[payer] += amount
        owed[payee] -= amount


def practice_tables(s: Session) -> list[int]:
    """The tables that play for practice chips (B-1.4); a table whose custom variant was
    deleted is taken for one that played for money."""
    found: list[int] = []
    for table in s.exec(select(Table)).all():
        try:
            if table_variant(s, table).rules.get("practice"):
                found.append(table.id)  # type: ignore[arg-type]  # a stored row has its id
        except VariantError:
            continue
    return found


def results(
    s: Session, since: datetime, until: datetime | None = None, table_id: int | None = None
) -> dict[str, int]:
    """Each player's net result over the hands started in [since, until) (the house's rake
    as «house»), at every table or at `table_id`: game money only, never grants, buy-ins or
    cash-outs. A bot plays with the house's money (docs/rules.md, «Bots»): its result is the
    house's, so a settle-up never asks anyone to pay a bot.

    Only ended hands (finished or cancelled) count, and each counts whole, so the results sum
    to zero: every such hand's pot was paid out or refunded to the last chip. Practice tables
    play for chips, not money (B-1.4), and do not count.
    """
    hands = select(HandRecord.id).where(
        HandRecord.started >= since,
        col(HandRecord.status).in_((FINISHED, CANCELLED)),
        col(HandRecord.table_id).not_in(practice_tables(s)),
    )
    if until is not None:
        hands = hands.where(HandRecord.started < until)
    if table_id is not None:
        hands = hands.where(HandRecord.table_id == table_id)
    # The rows found by their hands (ix_ledger_hand_id); asking for the accounts' kinds in
    # SQL made SQLite walk every account of those kinds, then each one's rows: the whole
    # ledger (docs/performance.md, «Reads that grew with the club's history»).
    nets: dict[str, int] = defaultdict(int)
    by_user: dict[int, int] = defaultdict(int)
    for kind, user_id, amount in s.exec(
        select(Account.kind, Account.user_id, LedgerEntry.amount)
        .join(Account, col(Account.id) == LedgerEntry.account_id)
        .where(col(LedgerEntry.hand_id).in_(hands))
    ):
        if kind == HOUSE:
            nets[HOUSE] += amount
        elif kind in (USER, STACK) and user_id is not None:
            by_user[user_id] += amount
    bots = bot_ids(s, among=by_user)
    names = dict(s.exec(select(User.id, User.name).where(col(User.id).in_(list(by_user)))).all())
    for user_id, amount in by_user.items():
        nets[HOUSE if user_id in bots else names[user_id]] += amount
    return dict(sorted(nets.items()))


def settle_up(
    s: Session, since: datetime, until: datetime | None = None, table_id: int | None = None
) -> dict[str, Any]:
    """The period's results and the fewest payments that square them (settle.py); one
    table's only with `table_id` (its page, app/history/)."""
    nets = results(s, since, until, table_id)
    return {
        "since": since.isoformat(timespec="seconds"),
        "until": until.isoformat(timespec="seconds") if until else None,
        "results": nets,
        "payments": [p._asdict() for p in settle(nets)],
    }
