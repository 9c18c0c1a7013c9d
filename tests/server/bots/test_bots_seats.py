"""The bot seats' plumbing (docs/rules.md, «Bots»): a state handed to a bot's listener becomes a
scheduled answer after its thinking delay; other events and bots that left schedule nothing. (That
the runtime hands a listener its watcher's events instead of Socket.IO is
tests/server/tables/test_table_seams.py.)"""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

from app.bots.seats import SID, BotSeats, Seated
from app.engine.games import GAMES
from app.engine.policies.odds import OddsBot
from app.tables.model import Person
from app.tables.scheduler import Scheduler


def seats(think: tuple[float, float], scale: float) -> tuple[BotSeats, Scheduler]:
    scheduler = Scheduler(socketio=None, scale=scale)  # never started: deadlines only
    tables = SimpleNamespace(scheduler=scheduler)
    return BotSeats(tables, db=None, think=think), scheduler  # type: ignore[arg-type]


def test_a_bot_state_schedules_its_answer_after_the_thinking_delay() -> None:
    bots, scheduler = seats((1.0, 3.0), scale=0.5)
    sid = f"{SID}7:42"
    bots.bots[sid] = (7, Seated(Person(42, "Гэри"), sid, OddsBot(random.Random(1), GAMES)))
    before = time.time()
    bots.heard(sid, "table:state", {})
    after = time.time()
    deadline = scheduler.deadline((7, "bot", sid))
    assert deadline is not None
    assert before + 0.5 <= deadline <= after + 1.5  # 1–3 s of game time at scale 0.5


def test_only_a_seated_bots_state_schedules_and_a_zero_delay_answers_at_once() -> None:
    bots, scheduler = seats((0.0, 0.0), scale=1.0)
    sid = f"{SID}3:5"
    bots.bots[sid] = (3, Seated(Person(5, "Бот Вася"), sid, OddsBot(random.Random(2), GAMES)))
    bots.heard(sid, "table:chat", {})  # a bot reads no chat
    assert scheduler.deadline((3, "bot", sid)) is None
    bots.heard(sid, "table:state", {})
    deadline = scheduler.deadline((3, "bot", sid))
    assert deadline is not None and deadline <= time.time()
    bots.heard(f"{SID}9:9", "table:state", {})  # a bot that left: nothing
    assert scheduler.deadline((9, "bot", f"{SID}9:9")) is None
