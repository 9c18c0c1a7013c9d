"""Rule variants as data: a game (which engine and scoring) plus typed, validated parameters.

A variant is immutable; `with_rules` makes a new one from overrides (a hand file's `rules`,
`svara admin variant create --set key=value`), checking each key, type and range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


class VariantError(ValueError):
    """An unknown variant, an unknown parameter or a value out of its range."""


@dataclass(frozen=True)
class Param:
    """One parameter of a game: its type, default, range and what it means."""

    name: str
    kind: type  # int, bool or tuple (a tuple of ints)
    default: Any
    doc: str
    low: int | None = None
    high: int | None = None

    def check(self, value: Any) -> Any:
        """The value normalised, or VariantError saying what is wrong with it."""
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in {"true", "yes", "on", "1"}:
                return True
            if isinstance(value, str) and value.lower() in {"false", "no", "off", "0"}:
                return False
            raise VariantError(f"{self.name} must be true or false, got {value!r}")
        if self.kind is tuple:
            items = value.split(",") if isinstance(value, str) else value
            if not isinstance(items, list | tuple) or not items:
                raise VariantError(f"{self.name} must be a list of whole numbers, got {value!r}")
            return tuple(self._int(v) for v in items)
        return self._int(value)

    def _int(self, value: Any) -> int:
        if isinstance(value, bool):
            raise VariantError(f"{self.name} must be a whole number, got {value!r}")
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise VariantError(f"{self.name} must be a whole number, got {value!r}") from None
        if isinstance(value, float) and value != number:
            raise VariantError(f"{self.name} must be a whole number, got {value!r}")
        if (self.low is not None and number < self.low) or (
            self.high is not None and number > self.high
        ):
            raise VariantError(f"{self.name} must be between {self.low} and {self.high}")
        return number


def _params(*params: Param) -> dict[str, Param]:
    return {p.name: p for p in params}


# Parameters each game understands. Engines read them from `Variant.rules`.
GAME_PARAMS: dict[str, dict[str, Param]] = {
    "classic": _params(
        Param("seats", int, 8, "seats at the table (C-1.1)", 2, 8),
        Param("ante", int, 10, "ante paid by each participant (C-2.1)", 1, 1_000_000),
        Param("levels", tuple, (10, 20, 30), "ordinary bet levels (C-4.2)"),
        Param("dark", bool, True, "the dark may be chosen (C-1.5)"),
        Param("dark_fee", int, 15, "what the dark costs (C-1.5, C-2.1)", 0, 1_000_000),
        Param("dark_min_players", int, 4, "participants needed to activate the dark (C-1.6)", 2, 8),
        Param(
            "look_fee", int, 15, "price of the dark player's privileged look (C-4.17)", 0, 1_000_000
        ),
        Param("turn_seconds", int, 30, "time for one decision (C-4.1)", 5, 600),
        Param("ready_seconds", int, 30, "gathering timer between hands (C-1.3)", 5, 600),
        Param("svara_seconds", int, 30, "time to decide on a Svara entry (C-7.3)", 5, 600),
    ),
    "shaha36": _params(
        Param("seats", int, 6, "seats at the table (S-1.2)", 2, 6),
        Param("ante", int, 10, "the ante, «кон» (S-1.2)", 1, 1_000_000),
        Param("buy_in_min", int, 20, "smallest stack, in antes (S-1.5)", 1, 10_000),
        Param("buy_in_max", int, 100, "largest stack, in antes (S-1.5)", 1, 10_000),
        Param("dark", bool, True, "the dark circle is allowed (S-4)"),
        Param("turn_seconds", int, 20, "time for one decision (S-3.4)", 5, 600),
        Param("new_hand_seconds", int, 30, "time to press «Новая раздача» (S-1.6)", 5, 600),
        Param("show_seconds", int, 3, "time to show or muck a weaker hand (S-6.2)", 1, 60),
        Param("tie_seconds", int, 10, "time for two tied players to split or cook (S-7.1)", 1, 120),
        Param("buy_in_seconds", int, 10, "time for each Svara buy-in offer (S-7.3)", 1, 120),
        Param("offline_seconds", int, 120, "offline time before standing up (S-1.7)", 10, 3600),
        Param("rake_percent", int, 3, "rake of the final pot, percent (S-8.1)", 0, 100),
        Param("rake_cap_antes", int, 10, "rake ceiling in antes (S-8.1)", 0, 1000),
        Param("max_svaras", int, 10, "Svaras in a row before the pot is split (S-7.5)", 1, 100),
        Param("bots", bool, False, "a bot sits at the table: no rake (S-8.2)"),
    ),
    "svara32": _params(
        Param("seats", int, 6, "seats at the table (B-1.2)", 2, 6),
        Param("ante", int, 10, "the table stake (B-1.2)", 1, 1_000_000),
        Param("buy_in_min", int, 20, "smallest stack, in antes", 1, 10_000),
        Param("buy_in_max", int, 100, "largest stack, in antes", 1, 10_000),
        Param("dark", bool, True, "the dark before the deal is allowed (B-4.1, B-4.4)"),
        Param("turn_seconds", int, 30, "time for one decision (B-1.5)", 5, 600),
        Param("svara_seconds", int, 30, "time to decide on a Svara entry (B-5.2)", 5, 600),
        Param("practice", bool, False, "practice chips, not the balance (B-1.4)"),
        Param("practice_stack", int, 500, "practice chips each (B-1.4)", 1, 1_000_000),
        Param("heads_up_call_ends", bool, True, "heads-up, a call ends the betting (B-3.2)"),
        Param("blind_chain", bool, False, "the blind chain of seed 003 (B-6.1)"),
        Param("blind_pays_to_see", bool, False, "a blind bettor pays to see (B-6.2)"),
        Param("last_blind_wins", bool, False, "an unpaid blind wins the pot (B-6.3)"),
        Param("dealer_wins_unbet", bool, False, "no bet at all: the dealer wins (B-6.4)"),
        Param("bots", bool, False, "a bot sits at the table"),
    ),
}


@dataclass(frozen=True)
class Variant:
    """A named set of rules: which game, and the value of each of its parameters."""

    name: str
    game: str
    description: str
    rules: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.rules[key]

    def with_rules(self, overrides: Mapping[str, Any], name: str | None = None) -> Variant:
        """A new variant with `overrides` checked against the game's parameters."""
        return make_variant(
            name or self.name, self.game, self.description, {**self.rules, **overrides}
        )


def make_variant(name: str, game: str, description: str, values: Mapping[str, Any]) -> Variant:
    """Build a variant: every key must be a parameter of the game, every value in range."""
    try:
        params = GAME_PARAMS[game]
    except KeyError:
        raise VariantError(f"unknown game {game!r}; known: {', '.join(GAME_PARAMS)}") from None
    unknown = sorted(set(values) - set(params))
    if unknown:
        raise VariantError(
            f"unknown rule key {unknown[0]!r} for {game}; known: {', '.join(params)}"
        )
    rules = {key: p.check(values[key]) if key in values else p.default for key, p in params.items()}
    return Variant(name, game, description, MappingProxyType(rules))


PRESETS: dict[str, Variant] = {
    v.name: v
    for v in (
        make_variant(
            "classic", "classic", "37 cards with a joker, play from the balance (seed 000)", {}
        ),
        make_variant(
            "shaha36", "shaha36", "36 cards, the 6♣ «шаха», pot limit, rake (seed 001)", {}
        ),
        make_variant("svara32", "svara32", "Bulgarian Svara, 32 cards, 7♣ joker (seed 004)", {}),
        make_variant(
            "svara32-traditional",
            "svara32",
            "svara32 with the blind chain of seed 003 (B-6)",
            {
                "blind_chain": True,
                "blind_pays_to_see": True,
                "last_blind_wins": True,
                "dealer_wins_unbet": True,
                "heads_up_call_ends": False,
                "dark": False,
            },
        ),
        make_variant(
            "svara32-practice",
            "svara32",
            "one player against the bot, 500 practice chips each, ante 10 (B-1.4)",
            {"seats": 2, "ante": 10, "practice": True, "bots": True},
        ),
    )
}


def get_variant(name: str, overrides: Mapping[str, Any] | None = None) -> Variant:
    """A preset by name, optionally with overrides (VariantError if unknown or invalid)."""
    try:
        variant = PRESETS[name]
    except KeyError:
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(PRESETS)}") from None
    return variant.with_rules(overrides) if overrides else variant
