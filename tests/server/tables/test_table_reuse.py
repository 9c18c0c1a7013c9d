"""What a live table makes once and gives again (docs/performance.md, «CPU per action,
2026-12-06»), and that it is never given stale: the hand's views once per point of the hand
(`Play.views`: an action or another hand makes them anew), and the «Готов» that opens a
gathering reads every seat's money in its own one transaction. In-process, on a migrated
SQLite file (the `db` fixture)."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from sqlalchemy import event

from app import ledger
from app.chat import Chat
from app.engine.games import SCORERS, game, get_variant, hand_class
from app.engine.hand import Hand, Seat
from app.engine.policies.simple import RandomBot
from app.engine.simulate import seeded_deals
from app.models import Database, User
from app.tables.model import READY, Member, Person
from app.tables.play import Play
from app.tables.runtime import LiveTable, Services
from app.tables.scheduler import Scheduler
from app.tables.store import TableStore

NAMES = ("Иван", "Мария", "Ёж")
VIEWERS = (*NAMES, None)


def dealt(seed: str) -> Hand:
    seats = [Seat(name, 1000) for name in NAMES]
    deals = seeded_deals(SCORERS["classic"].deck, seed)
    return hand_class("classic")(get_variant("classic"), seats, NAMES[0], deals)


def test_the_views_are_made_once_per_point_of_the_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str | None] = []
    view = hand_class("classic").view

    def counted(self: Hand, viewer: str | None) -> dict[str, Any]:
        made.append(viewer)
        return view(self, viewer)

    monkeypatch.setattr(hand_class("classic"), "view", counted)
    play = Play(1, cast(Any, None), cast(Any, None), game("classic").manners, lambda token: None)
    play.hand, play.hand_id = dealt("a"), 1
    first, players = play.views(VIEWERS)
    assert players == frozenset(NAMES) and len(made) == 4
    again, _ = play.views(VIEWERS)  # another version, the hand as it was: nothing made
    assert len(made) == 4 and all(again[v] is first[v] for v in VIEWERS)

    hand = play.hand
    player = hand.awaiting()[0]
    hand.act(RandomBot(random.Random(1), timeout_rate=0).choose(player, hand.legal(player), None))
    after, _ = play.views(VIEWERS)  # an action: every view anew, none of the old ones
    assert len(made) == 8 and all(after[v] == {"id": 1, **view(hand, v)} for v in VIEWERS)
    assert all(after[v] is not first[v] for v in VIEWERS)

    play.hand, play.hand_id = dealt("b"), 2  # the next hand, at the same point (no action)
    nxt, _ = play.views(VIEWERS)
    assert len(made) == 12 and all(nxt[v]["id"] == 2 for v in VIEWERS)


def test_the_answer_that_opens_the_gathering_reads_once(db: Database) -> None:
    """The first «Готов» reads the answering player's money and where else it is in play,
    and every seat's money for `Seating.broke`, in one transaction; a later «Готов» reads
    his own only, in one too."""
    with db.session() as s:
        users = [User(name=name, password_hash="-") for name in NAMES]
        s.add_all(users)
        s.flush()
        for user in users:
            ledger.grant(s, user, 1000, "start")
        people = [Person(cast(int, u.id), u.name) for u in users]
    services = Services(
        store=TableStore(db),
        scheduler=Scheduler(None),
        emit=lambda *args, **kwargs: None,
        chat=lambda table_id: Chat(50, 200, 5, 10.0, db, table_id),
        seats_changed=lambda table_id: None,
    )
    live = LiveTable(1, "Стол", get_variant("classic"), services)
    for seat, person in enumerate(people):
        live.seating.seats[seat] = Member(person, seat)
    transactions: list[object] = []
    event.listen(db.engine, "begin", transactions.append)
    live.answer(people[0], READY)
    assert len(transactions) == 1
    assert live.seating.money() == dict.fromkeys(NAMES, 1000)  # every seat's, read anew
    live.answer(people[1], READY)
    assert len(transactions) == 2
