"""The host's chair at one live table (docs/hosting.md, «The host's table menu»): what the
table's creator or an administrator set for the evening — a pause after the hand, the seats
locked, rules waiting for the hand in play to end, the microphones muted here and who asks
to speak again.

A part of `LiveTable` (runtime.py), called under the table's lock; who may host is decided
before it (app/lobby/invites.py `Access.may_host`), and what crosses parts — stopping the
gathering, standing a player up, telling the voice — is the owner's. Every change returns
the `host` event every watcher reads (docs/protocol.md, «table:host»).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.hand import Event
from app.engine.variants import Variant, VariantError

from .model import TableError

#: The host's switches (docs/protocol.md, «table:host»); «stand» and «rules» are the owner's.
SWITCHES = {"pause": ("paused", True), "resume": ("paused", False),
            "lock": ("locked", True), "unlock": ("locked", False)}  # fmt: skip
#: The rules a host changes between hands besides the timers (every `*_seconds`).
HOST_RULES = ("ante", "levels")


def host_event(by: str, do: str, **data: Any) -> Event:
    """What every watcher is told of a host's control: who did what (to whom)."""
    return Event("host", by, {"do": do, **data})


class Chair:
    """The host's settings of one table, kept while the process owns it."""

    def __init__(self) -> None:
        self.paused = False
        self.locked = False
        self.muted: set[str] = set()
        self.asking: set[str] = set()  # muted players who asked to speak
        self.pending: dict[str, Any] = {}  # rules for the next hand, once the hand in play ends
        self.pending_by = ""  # who changed them

    def frozen(self) -> dict[str, Any]:
        """The chair as `table:state` shows it to everyone (`host`)."""
        return {
            "paused": self.paused,
            "locked": self.locked,
            "muted": sorted(self.muted),
            "asking": sorted(self.asking),
            "pending": dict(self.pending) or None,
        }

    def switch(self, by: str, do: str) -> Event:
        """Pause/resume, lock/unlock; `not_now` when it is so already (nothing to tell)."""
        field, on = SWITCHES[do]
        if getattr(self, field) == on:
            raise TableError("not_now", f"the table is {do}d already" if on else f"not {field}")
        setattr(self, field, on)
        return host_event(by, do)

    def mute(self, by: str, name: str, on: bool) -> Event:
        """His microphone at this table: muted by the host (the voice chat enforces it,
        app/voice/hub.py `hold`), or given back; an unmute answers his request."""
        if (name in self.muted) == on:
            raise TableError("not_now", f"{name} is {'muted' if on else 'not muted'} already")
        if on:
            self.muted.add(name)
        else:
            self.muted.discard(name)
        self.asking.discard(name)
        return host_event(by, "mute" if on else "unmute", whom=name)

    def ask(self, name: str) -> Event:
        """A muted player asks to speak: the host sees it in `host.asking`."""
        if name not in self.muted:
            raise TableError("not_now", "your microphone is not muted by the host")
        if name in self.asking:
            raise TableError("not_now", "you asked already: the host sees it")
        self.asking.add(name)
        return Event("ask_speak", name, {})

    def checked(self, variant: Variant, rules: Mapping[str, Any]) -> dict[str, Any]:
        """The host's rule change checked against the variant's ranges (the same check
        as every variant's, `Variant.with_rules`): only the ante, the bet levels and the
        timers, normalised; `bad_request` saying what is wrong, and nothing changes."""
        allowed = {k for k in variant.rules if k.endswith("_seconds") or k in HOST_RULES}
        refused = sorted(set(rules) - allowed)
        if not rules or refused:
            which = f"{refused[0]!r} is not" if refused else "nothing is"
            raise TableError("bad_request", f"{which} a rule the host changes: {sorted(allowed)}")
        try:
            changed = variant.with_rules({**self.pending, **rules})
        except VariantError as wrong:
            raise TableError("bad_request", str(wrong)) from None
        return {key: changed[key] for key in {*self.pending, *rules}}

    def change(
        self, by: str, variant: Variant, rules: Mapping[str, Any], playing: bool
    ) -> tuple[Event, dict[str, Any] | None]:
        """The host's rule change (`checked`) and the rules to apply now — None while a
        hand is in play: a hand keeps the rules it began with, the change waits for it."""
        checked = self.checked(variant, rules)
        if playing:
            self.pending, self.pending_by = checked, by
            return host_event(by, "rules", rules=_json(checked), after_hand=True), None
        return _told(by, checked), checked

    def take_pending(self) -> tuple[dict[str, Any], Event]:
        """The waiting change, taken as the hand ends, and what every watcher is told."""
        rules, self.pending = self.pending, {}
        return rules, _told(self.pending_by, rules)


def _json(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in rules.items()}


def _told(by: str, rules: Mapping[str, Any]) -> Event:
    """The rules changed now (between hands, or as the hand ended)."""
    return host_event(by, "rules", rules=_json(rules), after_hand=False)
