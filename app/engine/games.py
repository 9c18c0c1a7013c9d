"""Which `Hand` class plays which game. Importing a game's module registers its hand."""

from __future__ import annotations

from importlib import import_module

from .hand import HANDS, Hand

GAMES = ("classic", "shaha36", "svara32")


def hand_class(game: str) -> type[Hand]:
    """The hand of a game; its module `app.engine.<game>` registers it on import."""
    if game not in HANDS:
        import_module(f"{__package__}.{game}")
    return HANDS[game]
