"""The policies by name: `svara simulate --bot`, the arena, the benchmarks: the random bot,
each game's own bots (its `Game.bots`) and the odds bot."""

from __future__ import annotations

from ..games import GAMES
from .base import Bot
from .odds import OddsBot
from .simple import RandomBot

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    **{kind: bot for game in GAMES.values() for kind, bot in game.bots.items()},
    "odds": OddsBot,
}
