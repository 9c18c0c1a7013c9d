"""The policies by name: `svara simulate --bot`, the arena, the benchmarks."""

from __future__ import annotations

from .base import Bot
from .odds import OddsBot
from .simple import ClassicBot, RandomBot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "classic": ClassicBot, "odds": OddsBot}
