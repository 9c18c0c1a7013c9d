"""The one timer task of the table runtime (docs/architecture.md: deadlines, not a sleep per
player). Real Flask-SocketIO tasks in threading mode; the tests wait on events with
timeouts, and "never fired" is proved by a later timer having fired."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
from flask import Flask
from flask_socketio import SocketIO

from app.tables.scheduler import STALE_SLACK, Scheduler

WAIT = 10.0


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    app = Flask(__name__)
    running = Scheduler(SocketIO(app, async_mode="threading"), scale=0.01, context=app.app_context)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def recorder(fired: list[str], done: threading.Event) -> Callable[[str], Callable[[], None]]:
    """Callbacks that note their name; the one named "last" also sets `done`."""

    def make(name: str) -> Callable[[], None]:
        def fire() -> None:
            fired.append(name)
            if name == "last":
                done.set()

        return fire

    return make


def test_timers_fire_in_deadline_order_and_a_rearmed_or_cancelled_one_never_early(
    scheduler: Scheduler,
) -> None:
    fired: list[str] = []
    done = threading.Event()
    make = recorder(fired, done)
    scheduler.set("b", scheduler.deadline_in(20), make("b"))  # 0.2 s at scale 0.01
    scheduler.set("a", scheduler.deadline_in(10), make("a"))
    scheduler.set("gone", scheduler.deadline_in(5), make("gone"))
    scheduler.cancel("gone")
    scheduler.set("moved", scheduler.deadline_in(1), make("moved"))
    scheduler.set("moved", scheduler.deadline_in(30), make("moved"))  # replaces the first
    scheduler.set("last", scheduler.deadline_in(40), make("last"))
    assert done.wait(WAIT)
    assert fired == ["a", "b", "moved", "last"]
    assert scheduler.deadline("a") is None


def test_a_deadline_is_server_time_and_a_past_one_fires_at_once(scheduler: Scheduler) -> None:
    fired: list[str] = []
    done = threading.Event()
    deadline = scheduler.deadline_in(30)
    assert time.time() < deadline < time.time() + 30 * 0.01 + 1
    scheduler.set("last", time.time() - 5, recorder(fired, done)("last"))
    assert done.wait(WAIT)


def test_a_failing_callback_does_not_stop_the_others(scheduler: Scheduler) -> None:
    fired: list[str] = []
    done = threading.Event()

    def broken() -> None:
        raise RuntimeError("one table's bug")

    scheduler.set("broken", scheduler.deadline_in(1), broken)
    scheduler.set("last", scheduler.deadline_in(5), recorder(fired, done)("last"))
    assert done.wait(WAIT)
    assert fired == ["last"]


def test_a_table_whose_timer_hangs_delays_no_other_tables_timers(scheduler: Scheduler) -> None:
    """Each table's timers run in a lane of their own: while table 1's turn callback waits
    (for its lock, the SFU, the database), table 2's timer fires, and table 1's next timer
    runs after its first, in order."""
    release, hung, other, after = (threading.Event() for _ in range(4))
    fired: list[str] = []

    def stuck() -> None:
        hung.set()
        release.wait(WAIT)
        fired.append("1 turn")

    scheduler.set((1, "turn"), scheduler.deadline_in(1), stuck)
    assert hung.wait(WAIT)
    scheduler.set(
        (1, "offline", "Иван"), time.time(), lambda: (fired.append("1 offline"), after.set())
    )
    scheduler.set((2, "turn"), time.time(), lambda: (fired.append("2 turn"), other.set()))
    try:
        assert other.wait(WAIT), "table 2's timer waited for table 1's"
        assert fired == ["2 turn"]
    finally:
        release.set()
    assert after.wait(WAIT)
    assert fired == ["2 turn", "1 turn", "1 offline"]


def test_replaced_deadlines_do_not_pile_up_and_the_armed_ones_still_fire_in_order(
    scheduler: Scheduler,
) -> None:
    """A turn's deadline is replaced at every move: with long timers the replaced ones
    stayed in the heap until they passed (140,000 in a 10-minute run at 4,000 players)."""
    fired: list[str] = []
    done = threading.Event()
    make = recorder(fired, done)
    far = scheduler.deadline_in(10_000)  # 100 s at scale 0.01: none passes during the test
    for move in range(20_000):
        scheduler.set(("table 1", "turn"), far + move, make("turn"))
        scheduler.set(("table 2", "turn"), far + move, make("turn 2"))
    assert len(scheduler._heap) <= 2 * 2 + STALE_SLACK + 1
    scheduler.set(("table 1", "turn"), scheduler.deadline_in(2), make("a"))
    scheduler.set(("table 2", "turn"), scheduler.deadline_in(1), make("b"))
    scheduler.set("last", scheduler.deadline_in(5), make("last"))
    assert done.wait(WAIT)
    assert fired == ["b", "a", "last"]
