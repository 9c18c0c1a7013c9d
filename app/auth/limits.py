"""The account pages' rate limits, kept by the `limits` library (moving windows).

- Logins and sign-ups per client address and over the whole server: a flood of either
  costs a password hash each (argon2, app/auth/hashing.py), so both are bounded before any
  hash is computed.
- Failed logins per address *and* name: guessing one player's password is slowed down
  without locking him out from his own address.

The storage is `RATE_LIMIT_STORAGE` (`memory://`: this process, a restart forgets it; a
`redis://…` URL shares the counts between several processes, docs/hosting.md).
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, parse, storage
from limits.strategies import MovingWindowRateLimiter

LOGIN, SIGNUP = "login", "signup"
ANYONE = "*"  # the identifier of a server-wide limit


class AccountLimits:
    """Every limit of the login and sign-up forms; `wait` says how long a client waits."""

    def __init__(self, config: dict[str, Any]):
        self.limiter = MovingWindowRateLimiter(
            storage.storage_from_string(config["RATE_LIMIT_STORAGE"])
        )
        self.rules: dict[str, tuple[RateLimitItem, RateLimitItem]] = {
            LOGIN: (parse(config["LOGIN_RATE"]), parse(config["LOGIN_RATE_TOTAL"])),
            SIGNUP: (parse(config["SIGNUP_RATE"]), parse(config["SIGNUP_RATE_TOTAL"])),
        }
        self.failures = parse(
            f"{int(config['LOGIN_ATTEMPTS'])} per {int(config['LOGIN_WINDOW'])} second"
        )

    def _retry(self, item: RateLimitItem, *keys: str) -> int:
        """Whole seconds until `item` has room for `keys` again (at least 1)."""
        reset = self.limiter.get_window_stats(item, *keys).reset_time
        return max(1, math.ceil(reset - time.time()))

    def attempt(self, form: str, address: str) -> int:
        """Count one submission of `form` (LOGIN or SIGNUP) from `address`: 0 if it may go
        on, else the seconds to wait (nothing is counted then)."""
        per_address, total = self.rules[form]
        checks = ((per_address, address), (total, ANYONE))
        for item, key in checks:
            if not self.limiter.test(item, form, key):
                return self._retry(item, form, key)
        for item, key in checks:
            self.limiter.hit(item, form, key)
        return 0

    def failed_wait(self, address: str, name: str) -> int:
        """Seconds until `name` may be tried again from `address` (0: now)."""
        if self.limiter.test(self.failures, address, name):
            return 0
        return self._retry(self.failures, address, name)

    def fail(self, address: str, name: str) -> None:
        self.limiter.hit(self.failures, address, name)

    def clear(self, address: str, name: str) -> None:
        self.limiter.clear(self.failures, address, name)
