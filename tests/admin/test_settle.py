"""The settle-up arithmetic (app/admin/settle.py): a worked example, and properties — the
payments square every result, and for small groups their number is the minimum found by an
independent brute force over set partitions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.admin.settle import EXACT_LIMIT, Payment, _greedy, settle, zero_sum_groups

NAMES = [f"p{i}" for i in range(EXACT_LIMIT + 5)]


def squared(nets: dict[str, int], payments: list[Payment]) -> dict[str, int]:
    """What each party is left with after the payments (all zero when they square it)."""
    left = Counter(nets)
    for p in payments:
        assert p.amount > 0 and p.payer != p.payee
        left[p.payer] += p.amount
        left[p.payee] -= p.amount
    return {name: amount for name, amount in left.items() if amount}


def partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every set partition of `items` (Bell-number many: only for small lists)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]


def brute_minimum(amounts: list[int]) -> int:
    """n − (the most blocks of a partition into zero-sum blocks), trying every partition."""
    nonzero = [a for a in amounts if a]
    best = max(
        len(partition)
        for partition in partitions(list(range(len(nonzero))))
        if all(sum(nonzero[i] for i in block) == 0 for block in partition)
    )
    return len(nonzero) - best


def test_worked_example() -> None:
    """Seven friends after an evening. A debtor-pays-creditor greedy needs 6 payments; two
    groups square among themselves — {lena, gleb, vera, dima} (−50 −40 +80 +10) and
    {anna, oleg, boris} (−70 +60 +10) — so 3 + 2 = 5 payments suffice, and no fewer do."""
    nets = {"anna": -70, "boris": 10, "vera": 80, "gleb": -40, "dima": 10, "lena": -50, "oleg": 60}
    payments = settle(nets)
    assert squared(nets, payments) == {}
    assert len(payments) == 5 == brute_minimum(list(nets.values()))
    assert len(_greedy(nets, pairs_first=True)) == 6
    pairs = {frozenset((p.payer, p.payee)) for p in payments}
    first = {"lena", "gleb", "vera", "dima"}
    assert all(pair <= first or pair <= {"anna", "oleg", "boris"} for pair in pairs)
    assert sum(p.amount for p in payments) == 70 + 40 + 50  # every debt paid exactly once


def test_opposite_pairs_and_nothing_to_do() -> None:
    assert settle({}) == [] and settle({"anna": 0}) == []
    assert settle({"anna": 30, "boris": -30, "vera": 0}) == [Payment("boris", "anna", 30)]


def test_results_must_sum_to_zero() -> None:
    with pytest.raises(ValueError, match="sum to 5"):
        settle({"anna": 10, "boris": -5})


nets_strategy = st.lists(st.integers(-200, 200), min_size=1, max_size=7).map(
    lambda xs: {NAMES[i]: x for i, x in enumerate([*xs, -sum(xs)])}
)


@settings(max_examples=250, deadline=None)
@given(nets_strategy)
def test_payments_square_every_result_in_the_fewest_payments(nets: dict[str, int]) -> None:
    payments = settle(nets)
    assert squared(nets, payments) == {}
    assert len(payments) == brute_minimum(list(nets.values()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=11))
def test_zero_sum_groups_partition_the_parties(xs: list[int]) -> None:
    """Small amounts, so that many subsets square among themselves."""
    amounts = [x for x in [*xs, -sum(xs)] if x] or [0]
    groups = zero_sum_groups(amounts)
    assert sorted(i for g in groups for i in g) == list(range(len(amounts)))
    assert all(sum(amounts[i] for i in g) == 0 for g in groups)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=EXACT_LIMIT + 1, max_size=EXACT_LIMIT + 4))
def test_above_the_limit_greedy_squares_in_at_most_n_minus_1(xs: list[int]) -> None:
    nets = {NAMES[i]: x for i, x in enumerate([*xs, -sum(xs)])}
    payments = settle(nets)
    assert squared(nets, payments) == {}
    assert len(payments) <= max(0, sum(1 for v in nets.values() if v) - 1)
