"""Rule variants as the administrator sees them: the presets and custom variants stored in
the database (a base preset plus checked overrides), usable by any new table."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlmodel import Session, col, select

from app.engine.games import GAME_PARAMS, PRESETS
from app.engine.variants import RANGES, Variant, VariantError
from app.models import CustomVariant, Table
from app.table_rules import find_variant

from . import AdminError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{1,63}$")


def parse_sets(pairs: Iterable[str]) -> dict[str, str]:
    """`key=value` pairs (the values are checked later against the parameter's type)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise AdminError(f"--set wants key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def json_value(value: Any) -> Any:
    """A rule's value as JSON holds it (a tuple becomes a list)."""
    return list(value) if isinstance(value, tuple) else value


def json_rules(rules: Any) -> dict[str, Any]:
    """Rules as stored in JSON."""
    return {k: json_value(v) for k, v in dict(rules).items()}


def _custom(s: Session, name: str) -> CustomVariant | None:
    return s.exec(select(CustomVariant).where(CustomVariant.name == name)).first()


def variant_row(s: Session, variant: Variant) -> dict[str, Any]:
    custom = _custom(s, variant.name)
    return {
        "name": variant.name,
        "game": variant.game,
        "base": custom.base if custom else None,
        "description": variant.description,
    }


def list_variants(s: Session) -> list[dict[str, Any]]:
    """The presets, then the custom variants by name."""
    customs = s.exec(select(CustomVariant.name).order_by(CustomVariant.name)).all()
    return [variant_row(s, find_variant(s, name)) for name in [*PRESETS, *customs]]


def show_variant(s: Session, name: str) -> dict[str, Any]:
    """Every parameter: its value here, the game's default, its range and its meaning."""
    variant = find_variant(s, name)
    params = []
    for key, param in GAME_PARAMS[variant.game].items():
        value = variant[key]
        low, high = RANGES.get(key, (param.low, param.high))  # a list's range is per item
        params.append(
            {
                "key": key,
                "value": json_value(value),
                "default": json_value(param.default),
                "type": param.kind.__name__ if param.kind is not tuple else "list",
                "low": low,
                "high": high,
                "doc": param.doc,
            }
        )
    return {**variant_row(s, variant), "params": params}


def create_variant(s: Session, name: str, base: str, sets: dict[str, str]) -> dict[str, Any]:
    """A stored variant: `base` (a preset or a custom variant) with `sets` checked on top."""
    if not NAME.match(name):
        raise AdminError(
            "a variant name has 2 to 64 characters: Latin letters, digits, _ and -, "
            "starting with a letter or digit"
        )
    if name in PRESETS or _custom(s, name) is not None:
        raise AdminError(f"a variant named {name!r} exists")
    parent = find_variant(s, base)  # VariantError for an unknown base
    made = parent.with_rules(sets, name=name)  # VariantError for a key or value
    # Not typed (next line): find_variant above found `base`: a preset or a custom variant.
    preset = _custom(s, base).base if base not in PRESETS else base  # type: ignore[union-attr]
    defaults = json_rules(PRESETS[preset].rules)
    rules = {k: v for k, v in json_rules(made.rules).items() if v != defaults[k]}
    s.add(CustomVariant(name=name, base=preset, rules=rules))
    s.flush()
    return show_variant(s, name)


def delete_variant(s: Session, name: str) -> None:
    """Remove a custom variant; refused for a preset or while an open table plays it."""
    if name in PRESETS:
        raise AdminError(f"{name!r} is a preset and cannot be deleted")
    custom = _custom(s, name)
    if custom is None:
        raise VariantError(f"unknown variant {name!r}")
    users = s.exec(select(Table.name).where(Table.variant == name, ~col(Table.closed))).all()
    if users:
        raise AdminError(f"{name!r} is in use by the open table(s) {', '.join(users)}")
    s.delete(custom)
