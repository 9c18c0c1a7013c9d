"""Which `Hand` class plays which game. Importing a game module registers it."""

from __future__ import annotations

from .hand import HANDS, Hand


def hand_class(game: str) -> type[Hand]:
    """The hand of a game (every game module imported first, so each has registered)."""
    from . import classic, shaha36, svara32  # noqa: F401  (registration on import)

    return HANDS[game]
