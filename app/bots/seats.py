"""Bot seats at live tables (docs/rules.md, «Bots»): the server plays them through the table
runtime.

A bot is a user (no password opens it) who watches its table the way a person's socket
does: `LiveTable.join` with a socket id of its own and a listener. The runtime hands the
listener the bot's own `table:state` (it never reaches Socket.IO); this module keeps it,
waits a human-like moment in the table scheduler and answers from that state — the view it
was sent — through the same `LiveTable` calls the socket handlers make: `sit`, `answer`
(«Готов», the dark), `act`, `stand`. It sees only its own state (its seat's view and legal
actions), never the hand's hidden cards. It never joins
the voice chat, and it goes when the table closes.

Its money: at a practice table its chips are practice chips like the person's (B-1.4,
app/ledger.py, `TableStore.covers`). At a money table a bot brings no money into the world:
the house stakes it (`ledger.stake_bot`, money the host granted the house) before it sits
(S-1.5) or, at classic, before each «Готов» (C-0.2); once it is seated nowhere in the
serving process, what it holds goes back to the house (`ledger.return_bot`). A bot plays
at one money table at a time (docs/rules.md, «Money at one table at a time»).
"""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from typing import Any

from sqlmodel import select

from app import ledger
from app.auth.roster import BOT_HASH, ROSTER, bot_ids
from app.auth.service import find_user
from app.engine.games import GAMES
from app.engine.hand import Legal
from app.engine.policies.odds import OddsBot
from app.ledger import LedgerError
from app.models import Database, User
from app.tables.model import DARK, PLAYING, READY, Person, TableError
from app.tables.registry import Tables
from app.tables.runtime import LiveTable
from app.tables.view import Snapshot

log = logging.getLogger(__name__)

SID = "bot:"  # the socket ids of bots (their events go to `BotSeats.heard`)
BANKROLL_ANTES = 100  # what a classic bot plays from (C-0.2), topped up between hands


@dataclass
class Seated:
    """One bot at one table: who it is, its socket id, its policy and the last state it
    was sent (what it decides on)."""

    person: Person
    sid: str
    policy: OddsBot
    state: dict[str, Any] | None = None


class BotSeats:
    """Every bot of this process: seats them, hears their states, answers for them."""

    def __init__(self, tables: Tables, db: Database, think: tuple[float, float]):
        self.tables = tables
        self.db = db
        self.think = think  # seconds of game time before each answer (scaled for tests)
        self.rng = random.Random(secrets.randbits(64))
        self.bots: dict[str, tuple[int, Seated]] = {}  # sid -> (table id, bot)
        self.serving = False  # only the serving process gives idle bots' money back

    # --- the runtime's side -------------------------------------------------------------
    def heard(self, sid: str, event: str, data: dict[str, Any]) -> None:
        """The listener of a bot's watcher (`LiveTable.join`): a new state is kept and
        schedules its answer from it; a bot reads no chat."""
        found = self.bots.get(sid)
        if found is None or event != "table:state":
            return
        table_id, bot = found
        bot.state = data
        scheduler = self.tables.scheduler
        low, high = self.think
        deadline = scheduler.deadline_in(self.rng.uniform(low, high))
        scheduler.set((table_id, "bot", bot.sid), deadline, lambda: self.answer(table_id, bot))

    # --- seats --------------------------------------------------------------------------
    def at(self, live: LiveTable, snap: Snapshot | None = None) -> list[Seated]:
        """The bots seated at a table (in seat order)."""
        seated = {bot.person.name: bot for tid, bot in list(self.bots.values()) if tid == live.id}
        members = (snap or live.snapshot()).members()
        return [seated[m.name] for m in members if m.name in seated]

    def room(self, snap: Snapshot) -> int:
        """How many bots may sit now: bots leave room for people (docs/rules.md, «Bots»), so
        one free seat stays for the next person — but where a person sits already and one
        seat is free, a bot takes it (a two-seat table gets its opponent)."""
        free = sum(1 for m in snap.seats if m is None)
        people = any(m.name not in snap.bots for m in snap.members())
        return max(free - 1, 1 if people and free else 0)

    def stake(self, snap: Snapshot) -> int:
        """What the house gives one bot to sit with: the largest buy-in (S-1.5), or at
        classic its bankroll (C-0.2)."""
        ante = snap.variant["ante"]
        return snap.variant["buy_in_max"] * ante if snap.stacks else BANKROLL_ANTES * ante

    def fill(self, live: LiveTable, count: int | None = None) -> list[str]:
        """Seat up to `count` bots (as many as there is `room` for when None); returns
        their names."""
        room = self.room(live.snapshot())
        want = room if count is None else min(count, room)
        names = []
        for _ in range(want):
            person = self._bot_user(live)
            if person is None:
                break
            try:
                if not self._sit(live, person):
                    break
            except TableError as refused:  # the house cannot stake it: no more bots
                log.warning("table %s: %s does not sit: %s", live.id, person.name, refused)
                break
            names.append(person.name)
        if names:
            self._no_rake(live)
        return names

    def clear(self, live: LiveTable) -> list[str]:
        """Every bot stands up (one in a hand plays it out first, as a person would)."""
        bots = self.at(live)
        for bot in bots:
            self._stand(live, bot)
        self.return_idle()
        return [bot.person.name for bot in bots]

    def adopt(self, live: LiveTable) -> None:
        """Bots seated by a restart's recovery (C-8.5) are played again."""
        snap = live.snapshot()
        bots = set(self._bot_names(m.name for m in snap.members()))
        for member in snap.members():
            if member.name in bots and member.name not in snap.connected:
                person = member.person
                self._watch(live, Person(person.id, person.name, ROSTER.get(person.name)))

    def _sit(self, live: LiveTable, person: Person) -> bool:
        """A free seat for the bot (never the queue); False when none is left."""
        snap = live.snapshot()
        stack = None
        practice = snap.variant.rules.get("practice")
        if snap.stacks:
            stack = self.stake(snap)
            if not practice:
                self._fund(person, stack)
        elif not practice:  # C-0.2: a seat needs the ante (docs/rules.md)
            self._fund(person, self.stake(snap))
        try:
            seated = live.sit(person, None, stack, wait=False)
        except TableError:
            self.return_idle()  # its stake goes back
            raise
        if not seated:
            self.return_idle()
            return False
        self._watch(live, person)
        return True

    def _watch(self, live: LiveTable, person: Person) -> None:
        sid = f"{SID}{live.id}:{person.id}"
        self.bots[sid] = (
            live.id,
            Seated(person, sid, OddsBot(random.Random(self.rng.random()), GAMES)),
        )
        live.join(sid, person, None, lambda event, data: self.heard(sid, event, data))

    def _stand(self, live: LiveTable, bot: Seated) -> None:
        self.bots.pop(bot.sid, None)
        self.tables.scheduler.cancel((live.id, "bot", bot.sid))
        if live.member(bot.person.name) is not None:
            live.stand(bot.person)
        live.leave(bot.sid)

    def _no_rake(self, live: LiveTable) -> None:
        """S-8.2: no rake at a table with a bot — the variant's `bots` rule, kept with the
        table (between hands: the hand in play keeps its rules)."""
        variant = live.snapshot().variant
        if "bots" in variant.rules and not variant["bots"]:
            live.set_rules({"bots": True})

    # --- bot users and their money ------------------------------------------------------
    def _bot_user(self, live: LiveTable) -> Person | None:
        """A bot not yet at this table (the practice bot first), made on first use."""
        snap = live.snapshot()
        taken = {m.name for m in snap.members()} | set(snap.queue)
        money = not snap.variant.rules.get("practice")
        if money:  # one money table at a time: not one where it plays in this process
            taken |= {b.person.name for t, b in self.bots.values() if not self._practice(t)}
        with self.db.session() as s:
            for name in ROSTER:
                if name in taken:
                    continue
                user = find_user(s, name)  # by key: a person's «гэри» is not the bot
                if user is None:
                    user = User(name=name, password_hash=BOT_HASH)
                    s.add(user)
                    s.flush()
                if user.password_hash != BOT_HASH:
                    continue  # a person has this name
                assert user.id is not None
                if money and ledger.stacks_elsewhere(s, [user.id], live.id):
                    continue  # it plays at another process's table
                return Person(user.id, user.name, ROSTER[name])
        return None

    def _practice(self, table_id: int) -> bool:
        """B-1.4: a live practice table of this process (its chips are no money)."""
        live = self.tables.find(table_id)
        return live is not None and bool(live.snapshot().variant.rules.get("practice"))

    def _bot_names(self, names: Any) -> list[str]:
        """Which of `names` are bots."""
        wanted = set(names)
        bots = select(User.name).where(User.password_hash == BOT_HASH)
        with self.db.session() as s:
            return [n for n in s.exec(bots).all() if n in wanted]

    def _fund(self, person: Person, amount: int) -> None:
        """The house stakes a bot what it lacks of `amount` (money moves, none is made);
        TableError `money` when the house has less (docs/rules.md, «Bots»)."""
        try:
            with self.db.session() as s:
                short = amount - ledger.user_balance(s, person.id)
                if short > 0:
                    ledger.stake_bot(s, person.id, short)
        except LedgerError as refused:
            raise TableError("money", str(refused)) from None

    def return_idle(self) -> None:
        """Every bot seated at no money table of this process gives the house back what its
        balance holds (its stakes, what it won). Only the serving process: another one (the admin
        CLI) does not know which bots play."""
        if not self.serving:
            return
        busy = {b.person.id for t, b in list(self.bots.values()) if not self._practice(t)}
        busy |= {
            person
            for live in self.tables.live()
            if not live.practice  # B-1.4: chips, not money
            for person in live.seated_ids()
        }
        with self.db.session() as s:
            for bot_id in sorted(bot_ids(s) - busy):
                ledger.return_bot(s, bot_id)

    def closed(self, table_id: int) -> None:
        """A table closed for good (`Hooks.closed`): its bots are gone (their stacks went
        to their balances) and give the house its money back."""
        for sid, (at, _) in list(self.bots.items()):
            if at == table_id:
                self.bots.pop(sid, None)
        self.return_idle()

    # --- answering ----------------------------------------------------------------------
    def answer(self, table_id: int, bot: Seated) -> None:
        """One decision for `bot` from its own fresh state, through the runtime's calls
        (each checks the state it answers: a stale one is refused, and the next decides)."""
        live = self.tables.find(table_id)
        if live is None:  # the table closed: the bot is gone with it
            self.bots.pop(bot.sid, None)
            return
        if self.bots.get(bot.sid, (None, None))[1] is not bot:
            return
        if live.member(bot.person.name) is None:
            self.bots.pop(bot.sid, None)
            live.leave(bot.sid)
            self.return_idle()
            return
        try:
            self._decide(live, bot)
        except TableError as refused:  # a newer state is on its way and decides again
            log.info("table %s: %s was refused: %s", table_id, bot.person.name, refused)

    def _decide(self, live: LiveTable, bot: Seated) -> None:
        """From the state it was sent (a stale one is refused, and the next one decides),
        and for the seats between hands a snapshot of the table."""
        name, state = bot.person.name, bot.state
        if state is None:
            return
        if state["phase"] == PLAYING:
            hand = state["hand"]
            if name not in hand["awaiting"] or not hand["legal"]:
                return
            legal = [Legal(**option) for option in hand["legal"]]
            live.act(bot.person, state["version"], bot.policy.choose(name, legal, hand))
            return
        snap = live.snapshot()
        if snap.queue:  # a person wants the seat: a bot steps aside between hands
            self._stand(live, bot)
            self.return_idle()
            return
        can = state["you"]["can"]
        bots = {b.person.name for b in self.at(live, snap)}
        people = [m.name for m in snap.members() if m.name not in bots]
        money, variant, playable = snap.money, snap.variant, snap.hand_cls.playable
        if READY not in can or not any(playable(variant, money.get(p, 0)) for p in people):
            return  # bots play with people who can play, not among themselves
        if not snap.stacks:  # C-0.2: a classic bot plays from its balance
            self._fund(bot.person, BANKROLL_ANTES * variant["ante"])
        elif not playable(variant, money.get(name, 0)):
            if variant.rules.get("practice"):
                return  # B-1.4: out of practice chips, the match is over
            self._stand(live, bot)  # S-1.5: stand up and buy in again
            self.fill(live, 1)
            return
        dark = DARK in can and bot.policy.wants_dark()
        live.answer(bot.person, DARK if dark else READY)
