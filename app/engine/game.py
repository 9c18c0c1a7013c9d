"""What one game is: its record (`Game`), all that differs between games in one place.

Each game's module (`app/engine/<game>.py`) defines its `GAME`; games.py is the registry of
them and the indexes over them (this module is below the games, games.py above them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .hand import Hand
    from .policies.base import Bot
    from .policies.odds import OddsPolicy
    from .scoring import Scorer
    from .variants import Param, Variant


@dataclass(frozen=True)
class Manners:
    """How a live table runs a game between hands and around its timers (app/tables/)."""

    stacks: bool  # S-1.5: play from a stack bought in at the table, not the balance
    gather_param: str | None  # the variant's gathering timer, else the table's default
    gather_after_hand: bool  # S-1.6: «Новая раздача» opens by itself after each hand
    stand_idle: bool  # C-1.7: no action in one's own timer stands one up
    stand_offline: bool  # S-1.7: offline for `offline_seconds` stands one up
    chat_in_hand: bool  # S-1.7's Decision: shaha36 sends chat only between hands
    # Hand phases whose timer is not the turn's (the variant's parameter), and phases that
    # run in the rest of the turn they interrupt (C-5.3: the vote has no timer of its own;
    # that turn goes on in the same time if the vote ends with it, `Hand.timer_owners`).
    phase_seconds: Mapping[str, str] = field(default_factory=dict)
    phase_keeps_turn: frozenset[str] = frozenset()


Words = tuple[str, Mapping[str, Any]]
"""A key of the pages' words (static/js/games/<game>.js) and its {placeholders}."""


def no_words(do: str, to: int | None, deal: str | None) -> Words | None:
    """A game whose every action is the word `<game>.<do>` (and the amount after it)."""
    return None


@dataclass(frozen=True)
class Game:
    """One game, all in one place."""

    name: str  # the id in variants, hand files and the protocol: "classic"
    title: str  # what the pages show: «Свара · классика, 37 карт»
    hand: type[Hand]
    scorer: Scorer  # the deck and the score of every three-card hand
    params: Mapping[str, Param]  # what a variant of the game sets, with ranges
    presets: tuple[Variant, ...]  # the named variants, the game's own first
    manners: Manners
    odds_policy: OddsPolicy
    # `svara admin seed`: the open tables of this game it creates (name, preset, rules)
    demo_tables: tuple[tuple[str, str, Mapping[str, Any]], ...] = ()
    # An action's words where they are not `<game>.<do>` (static/js/games/<game>.js `label`)
    action_words: Callable[[str, int | None, str | None], Words | None] = no_words
    # The game's own bots by kind (`svara simulate --bot`), besides the random and odds bots
    bots: Mapping[str, type[Bot]] = field(default_factory=dict)
