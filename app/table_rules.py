"""Which rules a table plays: a preset (app/engine/variants.py) or a stored custom variant,
with the table's own overrides on top."""

from __future__ import annotations

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
