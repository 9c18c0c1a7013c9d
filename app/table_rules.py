"""Which rules a table plays: a preset (app/engine/variants.py) or a stored custom variant,
with the table's own overrides on top."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from sqlmodel import Session, select

from app.engine.games import PRESETS, get_variant
from app.engine.variants import Variant, VariantError
from app.models import CustomVariant, Table

log = logging.getLogger(__name__)
_refused: set[int | None] = set()  # the tables whose refusal was logged (once a process)


def find_variant(s: Session, name: str, overrides: Mapping[str, Any] | None = None) -> Variant:
    """A preset or custom variant by name, with `overrides` checked (VariantError)."""
    if name in PRESETS:
        return get_variant(name, overrides)
    custom = s.exec(select(CustomVariant).where(CustomVariant.name == name)).first()
    if custom is None:
        raise VariantError(f"unknown variant {name!r}")
    base = get_variant(custom.base).with_rules(custom.rules, name=custom.name)
    return base.with_rules(overrides) if overrides else base


def variant_names(s: Session) -> list[str]:
    """Every variant a table may be created with: the presets, then custom ones."""
    return [*PRESETS, *s.exec(select(CustomVariant.name).order_by(CustomVariant.name)).all()]


def table_variant(s: Session, table: Table) -> Variant:
    """The rules of a table: its variant with its overrides and its number of seats."""
    return find_variant(s, table.variant, {**table.rules, "seats": table.seats})


def playable_variant(s: Session, table: Table) -> Variant | None:
    """The rules of a table, or None when this version refuses them (a value stored under
    wider ranges, a deleted custom variant): such a table is not played, listed or opened,
    and says why in the log, instead of keeping the server from starting
    (docs/hosting.md «Upgrading»)."""
    try:
        return table_variant(s, table)
    except VariantError as refused:
        if table.id in _refused:
            return None
        _refused.add(table.id)
        log.warning(
            "table %s (%r) is not played: its rules are refused (%s); "
            "`svara admin table show %s` shows them",
            table.id, table.name, refused, table.id,
        )  # fmt: skip
        return None


class PlayableVariants:
    """`playable_variant` for the many tables one reading lists (the lobby's): each distinct
    variant, overrides and seats is built and checked once, not once per table (~50 µs each:
    at 500 open tables, 40 % of the lobby's list)."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self._built: dict[tuple[str, str, int], Variant] = {}

    def __call__(self, table: Table) -> Variant | None:
        key = (table.variant, json.dumps(table.rules, sort_keys=True), table.seats)
        found = self._built.get(key)
        if found is None:  # a refused one is asked again: it is logged once per table
            found = playable_variant(self.s, table)
            if found is not None:
                self._built[key] = found
        return found
