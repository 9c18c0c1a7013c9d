"""The account pages' rate limits (docs/hosting.md «Limits» and «On the open internet»).

- Logins and sign-ups per client address (`app.clients.group`: IPv6 by /64), kept by the
  `limits` library (moving windows): a flood of either costs a password hash each (argon2,
  app/auth/hashing.py), so both are bounded before any hash is computed.
- Failed logins per address *and* name, and per name from addresses it never logged in
  from: guessing one player's password is slowed down, from one address or from many.
- The whole server's budget (`LOGIN_RATE_TOTAL`, `SIGNUP_RATE_TOTAL`) is spent on unknown
  clients only, and as `Turns`: once it is spent, a newcomer is given the next free turn
  and told to come back then (429 with `Retry-After`), and his turn is kept for him. So a
  flood from many addresses slows newcomers by about one turn per flooding address — each
  holds one turn at a time — instead of barring them all for the rest of the window.
- A login from one of the addresses the name last logged in (or signed up) from is not an
  unknown client's: neither the global budget nor the name's failures from elsewhere
  refuse a player's correct password from his usual address.

The moving windows live in `RATE_LIMIT_STORAGE` (`memory://`: this process, a restart
forgets them; a `redis://…` URL shares them between several processes); the turns and the
usual addresses live in this process.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from limits import RateLimitItem, parse, storage
from limits.strategies import MovingWindowRateLimiter

from app.clients import group

LOGIN, SIGNUP = "login", "signup"
BY_NAME = "name"  # the namespace of the failures per name
#: Addresses remembered per name, and names remembered (the least recent are forgotten).
USUAL_PER_NAME = 8
USUAL_NAMES = 100_000


class Turns:
    """A server-wide budget of `limit` per `window` seconds as a queue of turns (a GCRA):
    a burst of `limit`, then one turn every `window / limit` seconds. A client over it gets
    the next free turn, kept for his address until a little after it comes (at most
    `holders` addresses hold one; beyond them the answer is only «wait a turn»)."""

    def __init__(
        self,
        limit: int,
        window: float,
        clock: Callable[[], float] = time.monotonic,
        holders: int = 4096,
    ):
        self.interval, self.window, self.clock, self.holders = (
            window / limit,
            window,
            clock,
            holders,
        )
        self.grace = max(30.0, 2 * self.interval)  # how long a turn waits for its holder
        self.tat = 0.0  # the theoretical arrival time of the next request
        self.held: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, holder: str) -> float:
        """0 if `holder` may go on now (a turn is spent), else the seconds until his turn."""
        with self._lock:
            now = self.clock()
            turn = self.held.get(holder)
            if turn is not None:
                if turn <= now:
                    del self.held[holder]
                    return 0.0
                if turn + self.grace > now:
                    return turn - now
            next_tat = max(self.tat, now) + self.interval
            at = next_tat - self.window  # when this request conforms
            if at <= now:
                self.tat = next_tat
                return 0.0
            self._forget(now)
            if len(self.held) >= self.holders:
                return self.interval
            self.tat = next_tat  # the turn is his: the queue moves on
            self.held[holder] = at
            return at - now

    def _forget(self, now: float) -> None:
        for holder in [h for h, t in self.held.items() if t + self.grace <= now]:
            del self.held[holder]


def _turns(rule: RateLimitItem) -> Turns:
    return Turns(rule.amount, float(rule.get_expiry()))


class AccountLimits:
    """Every limit of the login and sign-up forms; each check says how long a client
    waits (0: he may go on)."""

    def __init__(self, config: dict[str, Any]):
        self.limiter = MovingWindowRateLimiter(
            storage.storage_from_string(config["RATE_LIMIT_STORAGE"])
        )
        self.per_address = {
            LOGIN: parse(config["LOGIN_RATE"]),
            SIGNUP: parse(config["SIGNUP_RATE"]),
        }
        self.turns = {
            LOGIN: _turns(parse(config["LOGIN_RATE_TOTAL"])),
            SIGNUP: _turns(parse(config["SIGNUP_RATE_TOTAL"])),
        }
        window = int(config["LOGIN_WINDOW"])
        self.failures = parse(f"{int(config['LOGIN_ATTEMPTS'])} per {window} second")
        self.name_failures = parse(f"{int(config['LOGIN_NAME_ATTEMPTS'])} per {window} second")
        self.usual: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def _retry(self, item: RateLimitItem, *keys: str) -> int:
        """Whole seconds until `item` has room for `keys` again (at least 1)."""
        reset = self.limiter.get_window_stats(item, *keys).reset_time
        return max(1, math.ceil(reset - time.time()))

    def known(self, address: str, name: str) -> bool:
        """`name` logged in (or signed up) from `address`'s group lately."""
        with self._lock:
            return group(address) in self.usual.get(name, ())

    def remember(self, address: str, name: str) -> None:
        """`name` has just proved itself from `address`: one of his usual addresses now."""
        key = group(address)
        with self._lock:
            seen = [a for a in self.usual.pop(name, []) if a != key]
            self.usual[name] = [key, *seen][:USUAL_PER_NAME]
            while len(self.usual) > USUAL_NAMES:
                self.usual.popitem(last=False)

    def login(self, address: str, name: str) -> int:
        """Count one login of `name` from `address`: 0 if its password may be checked, else
        the seconds to wait (nothing is counted then)."""
        key = group(address)
        if not self.limiter.test(self.failures, key, name):
            return self._retry(self.failures, key, name)
        known = self.known(address, name)
        if not known and not self.limiter.test(self.name_failures, BY_NAME, name):
            return self._retry(self.name_failures, BY_NAME, name)
        return self._attempt(LOGIN, key, known)

    def signup(self, address: str) -> int:
        """Count one sign-up from `address`, as `login` does."""
        return self._attempt(SIGNUP, group(address), known=False)

    def _attempt(self, form: str, key: str, known: bool) -> int:
        item = self.per_address[form]
        if not self.limiter.test(item, form, key):
            return self._retry(item, form, key)
        if not known and (wait := self.turns[form].take(key)):
            return max(1, math.ceil(wait))
        self.limiter.hit(item, form, key)
        return 0

    def fail(self, address: str, name: str) -> None:
        self.limiter.hit(self.failures, group(address), name)
        if not self.known(address, name):
            self.limiter.hit(self.name_failures, BY_NAME, name)

    def succeed(self, address: str, name: str) -> None:
        """A correct password: the address's failures for the name are forgotten, and the
        address is one of the name's usual ones."""
        self.limiter.clear(self.failures, group(address), name)
        self.remember(address, name)
