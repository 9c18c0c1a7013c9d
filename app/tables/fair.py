"""A live table's shuffle commitments (docs/fairness.md, docs/protocol.md «table:state» `fair`).

The table always holds the server seed of its NEXT hand, whose commitment every viewer is
shown before anyone answers the gathering; the seeds the players' pages send with «Готов»
(«Новая раздача», «Темнить», «Тёмный») are kept until the hand starts. Then the hand's deals
come from `FairDeals` (its Svara re-deals too, by their index), a participant who sent no
seed (a bot, an old page) gets one derived from the server's committed seed, marked `drawn`,
and a new server seed is drawn for the hand after. Once the hand is over its participants
are shown the seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.engine.cards import Card
from app.engine.fairness import FairDeals, ServerSeed, drawn_seed
from app.engine.hand import Hand, PlayerSeed, Seat
from app.engine.handfile import seed_json


class TableFairness:
    """The next hand's server seed and the seeds offered for it."""

    def __init__(self) -> None:
        self.next = ServerSeed.draw()
        self.offered: dict[str, str] = {}

    def offer(self, name: str, seed: str | None) -> None:
        """A player's page gave its seed with its answer (checked by the caller)."""
        if seed is not None:
            self.offered[name] = seed

    def withdraw(self, name: str, seed: str | None) -> None:
        """The answer that brought `seed` was refused: it was never given."""
        if seed is not None and self.offered.get(name) == seed:
            del self.offered[name]

    def deals(self, deck: Sequence[Card], seats: Sequence[Seat]) -> FairDeals:
        """The deal source of the hand about to start (`started` once it is saved)."""
        seeds = [
            PlayerSeed(s.name, self.offered[s.name])
            if s.name in self.offered
            else PlayerSeed(s.name, drawn_seed(self.next.seed, s.name), drawn=True)
            for s in seats
        ]
        return FairDeals(deck, self.next, seeds)

    def started(self) -> None:
        """The hand is saved: the next one gets a fresh seed and fresh offers."""
        self.next, self.offered = ServerSeed.draw(), {}


def fair_view(
    next_commit: str, hand: Hand | None, hand_id: int | None, viewer: str | None
) -> dict[str, Any]:
    """The `fair` object of `viewer`'s `table:state`: the next hand's commitment; the
    hand's commitment and its dealing orders; its seeds once it is over, for its
    participants only (the seeds let one compute every card dealt: docs/fairness.md)."""
    out: dict[str, Any] = {
        "next": next_commit,
        "hand": None,
        "commit": None,
        "deals": [],
        "seed": None,
        "seeds": None,
    }
    if hand is None or not hand.deals:
        return out
    first = hand.deals[0]
    if first.seeds is None:
        return out
    out.update(
        hand=hand_id,
        game=hand.variant.game,
        commit=first.commit,
        deals=[list(d.cards) for d in hand.deals],
    )
    if hand.finished and any(s.name == viewer for s in hand.seats):
        out["seed"] = first.seed
        out["seeds"] = [seed_json(s) for s in first.seeds]
    return out
