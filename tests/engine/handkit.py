"""What the engine tests of every game share: literal deals, a hand's fingerprint, a copy to
try an action on, and the money check (C-0.3, S-8, B-3.4: money is never created or lost)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from typing import Any

from app.engine.cards import CardError, parse_card, parse_cards
from app.engine.hand import HOUSE, POT, Deal, DealSource, Hand, RuleError, Seat

NO_MORE_DEALS = "no more deals in this test"


def scripted(*deals: dict[str, str]) -> DealSource:
    """A deal source from literal hands, e.g. {"anna": "A♥ K♥ Q♥", …}, dealt in order to the
    players asked for (a hand may name more); one deal more than given is refused, as a hand
    file short of deals is (docs/rules/hand-file.md)."""
    pending = iter(deals)

    def source(players: Sequence[str]) -> Deal:
        cards = next(pending, None)
        if cards is None:
            raise RuleError(NO_MORE_DEALS)
        return Deal({p: parse_cards(cards[p].split()) for p in players})

    return source


def clone(hand: Hand) -> Hand:
    """An independent copy to try an action on (the variant is immutable and shared)."""
    return copy.deepcopy(hand, {id(hand.variant): hand.variant})


def fingerprint(hand: Hand) -> str:
    """Everything observable: every seat's view and the spectator's, whom the hand awaits,
    the transfers and the deals drawn."""
    views = [hand.view(v) for v in (None, *(s.name for s in hand.seats))]
    deals = [{p: [str(c) for c in cs] for p, cs in d.cards.items()} for d in hand.deals]
    return json.dumps(
        [views, hand.awaiting(), hand.transfers, deals], ensure_ascii=False, default=str
    )


def balances(hand: Hand) -> dict[str, int]:
    """Each player's money now, as the public view gives it."""
    return {p["name"]: p["balance"] for p in hand.view(None)["players"]}


def check_money(hand: Hand, seats: Sequence[Seat] | None = None) -> None:
    """Balances + pot + rake are what the seats sat down with; the pot is what the transfers
    put in less what they took out; each balance is its start plus its transfers."""
    seats = hand.seats if seats is None else seats
    money = balances(hand)
    pot = hand.view(None)["pot"]
    rake = sum(t.amount for t in hand.transfers if t.target == HOUSE)
    assert sum(money.values()) + pot + rake == sum(s.balance for s in seats)
    into = sum(t.amount for t in hand.transfers if t.target == POT)
    out = sum(t.amount for t in hand.transfers if t.source == POT)
    assert into - out == pot
    for seat in seats:
        moved = sum(
            t.amount if t.target == seat.name else -t.amount
            for t in hand.transfers
            if seat.name in (t.source, t.target)
        )
        assert money[seat.name] == seat.balance + moved >= 0


def cards_in(obj: Any) -> Iterator[str]:
    """Every string inside a JSON value that reads as a card."""
    if isinstance(obj, str):
        try:
            parse_card(obj)
        except CardError:
            return
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from cards_in(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from cards_in(value)
