"""A live table's shuffle commitments (docs/fairness.md, docs/protocol.md «table:state» `fair`).

The table always holds the server seed of its NEXT hand, whose commitment every viewer is
shown before anyone answers the gathering. The FIRST seed a player's page sends for that
commitment («Готов», «Новая раздача», «Темнить», «Тёмный») is the one the hand uses: a
refused and retried answer cannot change the deck. Then the hand's deals come from
`FairDeals` (its Svara re-deals too, by their index); every seed says who gave it (`kind`):
a person's page, or nobody — a bot, or a person whose page sent none — whose seed is the one
derived from the committed server seed. A new server seed is drawn for the hand after.

The seeds let one compute every card dealt, folded ones too (C-6.2), so no `table:state`
carries them: they are shown in «Мои раздачи» once the hand's table session ended
(`Reveal`: the table closed, or every person of the hand has left it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from app.engine.cards import Card
from app.engine.fairness import BOT, PERSON, SILENT, FairDeals, ServerSeed, drawn_seed
from app.engine.hand import Hand, PlayerSeed, Seat
from app.models import CANCELLED, FINISHED, HandRecord
from app.models.db import Database

log = logging.getLogger(__name__)


class TableFairness:
    """The next hand's server seed and the first seed each page offered for it."""

    def __init__(self) -> None:
        self.next = ServerSeed.draw()
        self.offered: dict[str, str] = {}

    def offer(self, name: str, seed: str | None) -> None:
        """A player's page gave its seed with its answer (checked by the caller). Only the
        first counts, whatever happened to the answer that brought it: a server that refuses
        an answer gets the same seed again, never a second chance at the deck."""
        if seed is not None:
            self.offered.setdefault(name, seed)

    def deals(
        self, deck: Sequence[Card], seats: Sequence[Seat], bots: Collection[str]
    ) -> FairDeals:
        """The deal source of the hand about to start (`started` once it is saved): a bot
        never contributes a seed of its own, a person his page's or (none sent) the drawn one."""
        seeds = []
        for s in seats:
            if s.name not in bots and s.name in self.offered:
                seeds.append(PlayerSeed(s.name, self.offered[s.name], kind=PERSON))
            else:
                kind = BOT if s.name in bots else SILENT
                seeds.append(PlayerSeed(s.name, drawn_seed(self.next.seed, s.name), True, kind))
        return FairDeals(deck, self.next, seeds)

    def started(self) -> None:
        """The hand is saved: the next one gets a fresh seed and fresh offers."""
        self.next, self.offered = ServerSeed.draw(), {}


def fair_view(next_commit: str, hand: Hand | None, hand_id: int | None) -> dict[str, Any]:
    """The `fair` object of a `table:state`: the next hand's commitment; the hand's
    commitment, dealer and dealing orders (`checkable` false for a hand dealt by the older
    single-seed shuffle, which the page cannot check). Never a seed (docs/fairness.md)."""
    out: dict[str, Any] = {"next": next_commit, "hand": None, "commit": None, "deals": []}
    if hand is None or not hand.deals:
        return out
    first = hand.deals[0]
    out.update(
        hand=hand_id,
        game=hand.variant.game,
        dealer=hand.dealer,
        checkable=first.seeds is not None,
        commit=first.commit,
        deals=[list(d.cards) for d in hand.deals],
    )
    return out


def persons(doc: Mapping[str, Any]) -> set[str]:
    """The hand's players who are not bots (a file without kinds: all of them)."""
    seeds = doc.get("seeds") or []
    bots = {s.get("name") for s in seeds if s.get("kind") == BOT}
    return {p["name"] for p in doc.get("players", [])} - bots


class Reveal:
    """When the seeds of a table's hands are shown (docs/fairness.md, «When the seeds are
    revealed»): as soon as none of a hand's persons is seated or queued at its table. The
    owner's `seat_freed` hook calls `seat_freed` with who is still there; a closed table's
    hands are revealed by its closing (app/history/service.py reads `Table.closed`)."""

    def __init__(self, db: Database, present: Callable[[int], Collection[str] | None]):
        self.db, self.present = db, present

    def seat_freed(self, table_id: int, name: str) -> None:
        there = self.present(table_id)
        if there is None:
            return
        present = set(there)
        try:
            with self.db.session() as s:
                # The id and hand file only (not the action log, nor a row object each): an
                # evening's hands wait here until their last person leaves.
                pending = s.exec(
                    select(HandRecord.id, HandRecord.hand_file).where(
                        HandRecord.table_id == table_id,
                        col(HandRecord.status).in_((FINISHED, CANCELLED)),
                        col(HandRecord.seeds_revealed).is_(False),
                    )
                ).all()
                shown = [i for i, doc in pending if doc is not None and not persons(doc) & present]
                if shown:
                    s.execute(
                        update(HandRecord)
                        .where(col(HandRecord.id).in_(shown))
                        .values(seeds_revealed=True)
                    )
        except Exception as failure:  # kept back a while longer: the next leave tries again
            log.warning("table %s: seeds not revealed: %s", table_id, failure)
