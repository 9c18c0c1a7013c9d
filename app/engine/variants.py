"""Rule variants as data: a game (which engine and scoring) plus typed, validated parameters.

A variant is immutable; `with_rules` makes a new one from overrides (a hand file's `rules`,
`svara admin variant create --set key=value`), checking each key, type and range against the
game's `Param`s. Each game declares its parameters and presets in its own module; the presets by
name and `get_variant` are games.py's, the registry above the games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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


def params(*items: Param) -> dict[str, Param]:
    """A game's parameters by name, in the order given (its module's `PARAMS`)."""
    return {p.name: p for p in items}


# The ranges the parameters' records leave open, checked by `build_variant` for every variant
# however it is built (a preset, `svara admin variant create --set`, a table's overrides
# from the CLI or the lobby, a hand file): each item of a list parameter within its
# [low, high] (C-4.2: a level is a bet, so at least 1), a list of at most MOST_ITEMS, and
# pairs that must not cross (S-1.5: the smallest stack is not above the largest).
RANGES: dict[str, tuple[int, int]] = {"levels": (1, 1_000_000)}
MOST_ITEMS = 8
ORDERED: tuple[tuple[str, str], ...] = (("buy_in_min", "buy_in_max"),)


def check_ranges(rules: Mapping[str, Any]) -> None:
    """VariantError for a value of `rules` outside RANGES or ORDERED."""
    for key, (low, high) in RANGES.items():
        items = rules.get(key, ())
        if len(items) > MOST_ITEMS:
            raise VariantError(f"{key} has at most {MOST_ITEMS} values, got {len(items)}")
        if any(not low <= item <= high for item in items):
            raise VariantError(f"each of {key} must be between {low} and {high}")
    for first, second in ORDERED:
        if first in rules and second in rules and rules[first] > rules[second]:
            raise VariantError(f"{first} must not be above {second}")


@dataclass(frozen=True)
class Variant:
    """A named set of rules: which game, and the value of each of its parameters."""

    name: str
    game: str
    description: str
    rules: Mapping[str, Any]
    # The game's parameters the rules were checked against (its record's `params`): a new
    # variant is checked against them again, without looking the game up (games.py is
    # above this module).
    params: Mapping[str, Param] = field(compare=False, repr=False)

    def __getitem__(self, key: str) -> Any:
        return self.rules[key]

    def with_rules(self, overrides: Mapping[str, Any], name: str | None = None) -> Variant:
        """A new variant with `overrides` checked against the game's parameters."""
        values = {**self.rules, **overrides}
        return build_variant(name or self.name, self.game, self.description, self.params, values)


def build_variant(
    name: str,
    game: str,
    description: str,
    known: Mapping[str, Param],
    values: Mapping[str, Any],
) -> Variant:
    """A variant checked against the parameters `known` (a game module builds its presets
    with its own, before the game is registered)."""
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise VariantError(f"unknown rule key {unknown[0]!r} for {game}; known: {', '.join(known)}")
    rules = {key: p.check(values[key]) if key in values else p.default for key, p in known.items()}
    check_ranges(rules)
    return Variant(name, game, description, MappingProxyType(rules), known)
