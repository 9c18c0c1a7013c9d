"""What a live table costs the database: `TableStore` alone, without sockets or the hub.

Run: .venv/bin/python -m benchmarks.bench_store [--actions 3000] [--seats 8] [--runs 3]

On a temporary SQLite instance (migrated like a server's) `--seats` classic bots play real
hands, and every step goes through `TableStore` as the runtime (app/tables/runtime.py) does
it: each seat's «Готов» (`standing`: his money and where else it is in play), `standing` of
all and `begin_hand` to start a hand, `record` for each applied action (the hand file and
its payments), `money` again when the hand is over. Only the time inside the store
is counted. Prints one JSON line per run and the median: applied actions per second of store
time, the store's wall and CPU milliseconds (CPU time is steadier on a shared machine) and
the SQL statements sent per action, per answer, per hand start and per hand end (counted with a
`before_cursor_execute` listener; BEGIN/COMMIT are not statements the cursor sees).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlmodel import select

from app import ledger, migrations
from app.engine import games
from app.engine.games import SCORERS, get_variant
from app.engine.hand import Action, Seat
from app.engine.handfile import record
from app.engine.policies.roster import BOTS
from app.engine.simulate import seeded_deals
from app.models import Database, Table, User
from app.tables.store import TableStore


class Meter:
    """Store time and statements, per kind of call."""

    def __init__(self, db: Database):
        self.seconds: Counter[str] = Counter()
        self.cpu: Counter[str] = Counter()
        self.statements: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._phase = ""
        event.listen(db.engine, "before_cursor_execute", self._count)

    def _count(self, *_: Any) -> None:
        self.statements[self._phase] += 1

    @contextmanager
    def __call__(self, phase: str) -> Iterator[None]:
        self._phase = phase
        start, cpu = time.perf_counter(), time.process_time()
        yield
        self.seconds[phase] += time.perf_counter() - start
        self.cpu[phase] += time.process_time() - cpu
        self.calls[phase] += 1
        self._phase = ""  # statements outside the store's calls are not counted


STAKES = 20  # what a bot sits down with, in stakes: bounded, like a person's balance


# Two classic bots may give on («передать») and refuse splits for thousands of actions (seed 0,
# hand 218: 6,704), a hand file far longer than people make; such a hand is cancelled.
LONGEST = 300


def top_up(db: Database, money: dict[str, int], target: int) -> None:
    """Between hands (not counted): whoever is short of `target` is granted the rest, so
    every hand is full and no hand runs away with bets nobody can stop."""
    with db.session() as s:
        for name, amount in money.items():
            if amount < target:
                user = s.exec(select(User).where(User.name == name)).one()
                ledger.grant(s, user, target - amount, "bench")


def one_run(actions: int, seats: int, seed: int) -> dict[str, float]:
    """`actions` applied actions of whole classic hands (the last hand is played out)."""
    variant = get_variant("classic")
    cls = games.hand_class(variant.game)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="svara-store-") as folder:
        db = Database(f"sqlite:///{Path(folder) / 'svara.db'}")
        migrations.upgrade(db.engine)
        with db.session() as s:
            users = [User(name=f"bot{i}", password_hash="-") for i in range(seats)]
            s.add_all(users)
            table = Table(name="bench", variant="classic", seats=seats)
            s.add(table)
            s.flush()
            names, table_id = [u.name for u in users], table.id
            ids = {u.name: u.id for u in users}
        assert table_id is not None and None not in ids.values()
        store, meter = TableStore(db), Meter(db)
        bots = {n: BOTS["classic"](rng) for n in names}
        applied, h, dealer, money = 0, 0, names[0], dict.fromkeys(names, 0)
        while applied < actions:
            top_up(db, money, STAKES * cls.stake(variant))
            for name in names:  # every seat answers «Готов» (LiveTable.answer)
                with meter("answer"):
                    store.standing(table_id, {name: ids[name]}, False, False)
            with meter("start"):
                money, _ = store.standing(table_id, ids, False, False)  # type: ignore[arg-type]
            deals = seeded_deals(SCORERS[variant.game].deck, f"S{seed}:{h}")
            hand = cls(variant, [Seat(n, money[n]) for n in names], dealer, deals)
            doc = record(hand, [])
            with meter("start"):
                hand_id = store.begin_hand(table_id, doc, hand.transfers, False)
            done: list[Action] = []
            while not hand.finished:
                if len(done) == LONGEST:  # not counted: store time per action stays comparable
                    store.cancel_hand(hand_id, "bench: two bots giving on without end")
                    break
                awaiting = hand.awaiting()
                player = awaiting[0] if len(awaiting) == 1 else rng.choice(awaiting)
                bot, paid = bots[player], len(hand.transfers)
                view = hand.view(player) if bot.uses_view else None
                done.append(bot.choose(player, hand.legal(player), view))
                hand.act(done[-1])
                doc = record(hand, done)
                with meter("action"):
                    store.record(hand_id, doc, hand.transfers[paid:], False, hand.finished)
                applied += 1
            with meter("end"):
                money = store.money(table_id, names, False)
            dealer, h = hand.next_dealer or dealer, h + 1
        with db.session() as s:
            books = ledger.verify(s)
        assert books.ok, books.problems
        db.dispose()
    hands = meter.calls["end"]
    return {
        "actions": applied,
        "hands": hands,
        "actions_per_s": round(applied / meter.seconds["action"]),
        "ms_per_action": round(1000 * meter.seconds["action"] / applied, 3),
        "cpu_ms_per_action": round(1000 * meter.cpu["action"] / applied, 3),
        "statements_per_action": round(meter.statements["action"] / applied, 2),
        "ms_per_answer": round(1000 * meter.seconds["answer"] / meter.calls["answer"], 3),
        "cpu_ms_per_answer": round(1000 * meter.cpu["answer"] / meter.calls["answer"], 3),
        "statements_per_answer": round(meter.statements["answer"] / meter.calls["answer"], 2),
        "ms_per_hand_start": round(1000 * meter.seconds["start"] / hands, 3),
        "cpu_ms_per_hand_start": round(1000 * meter.cpu["start"] / hands, 3),
        "statements_per_hand_start": round(meter.statements["start"] / hands, 2),
        "ms_per_hand_end": round(1000 * meter.seconds["end"] / hands, 3),
        "cpu_ms_per_hand_end": round(1000 * meter.cpu["end"] / hands, 3),
        "statements_per_hand_end": round(meter.statements["end"] / hands, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = []
    for i in range(args.runs):
        runs.append(one_run(args.actions, args.seats, seed=i))
        print(json.dumps({"run": i, **runs[-1]}), flush=True)
    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(json.dumps({"median": median}))


if __name__ == "__main__":
    main()
