"""The bot seats' plumbing (issue 9): states addressed to a bot become a scheduled answer
after its thinking delay; everything else still goes to Socket.IO."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace
from typing import Any

from app.bots.seats import SID, BotSeats, Seated
from app.engine.bots_odds import OddsBot
from app.tables.runtime import Person
from app.tables.scheduler import Scheduler


def seats(think: tuple[float, float], scale: float) -> tuple[BotSeats, list[Any], Scheduler]:
    sent: list[Any] = []
    scheduler = Scheduler(socketio=None, scale=scale)  # never started: deadlines only
    services = SimpleNamespace(emit=lambda *args, **kwargs: sent.append((args, kwargs)))
    tables = SimpleNamespace(services=services, scheduler=scheduler)
    return BotSeats(tables, db=None, think=think), sent, scheduler  # type: ignore[arg-type]


def test_a_bot_state_schedules_its_answer_after_the_thinking_delay() -> None:
    bots, sent, scheduler = seats((1.0, 3.0), scale=0.5)
    sid = f"{SID}7:42"
    bots.bots[sid] = (7, Seated(Person(42, "Гэри"), sid, OddsBot(random.Random(1))))
    before = time.time()
    bots.emit("table:state", {"table": 7}, to=sid)
    after = time.time()
    deadline = scheduler.deadline((7, "bot", sid))
    assert deadline is not None
    assert before + 0.5 <= deadline <= after + 1.5  # 1–3 s of game time at scale 0.5
    assert sent == []  # a bot's state never reaches Socket.IO


def test_other_emits_pass_through_and_a_zero_delay_answers_at_once() -> None:
    bots, sent, scheduler = seats((0.0, 0.0), scale=1.0)
    sid = f"{SID}3:5"
    bots.bots[sid] = (3, Seated(Person(5, "Бот Вася"), sid, OddsBot(random.Random(2))))
    bots.emit("table:chat", {"text": "привет"}, to=sid)  # a bot reads no chat
    assert scheduler.deadline((3, "bot", sid)) is None
    bots.emit("table:state", {"table": 3}, to="person-socket")
    assert sent == [(("table:state", {"table": 3}), {"to": "person-socket"})]
    bots.emit("table:state", {"table": 3}, to=sid)
    deadline = scheduler.deadline((3, "bot", sid))
    assert deadline is not None and deadline <= time.time()
    bots.emit("table:state", {"table": 3}, to=f"{SID}9:9")  # a bot that left: nothing
    assert scheduler.deadline((9, "bot", f"{SID}9:9")) is None
