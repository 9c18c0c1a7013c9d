"""Every game is one `Game` record, defined by its own module (`app/engine/<game>.py`).

The record holds all that differs between games: the title players read, the `Hand` class,
the deck and scoring table (`Scorer`), the parameters a variant sets and the presets, how a
live table runs between hands (`Manners`) and the odds bot's policy. Everything else reads
these records: `GAMES`, `scoring.SCORERS`, `variants.PRESETS` and `variants.GAME_PARAMS` are
indexes over them, built on first use (the game modules import this one, so they are loaded
after it, when a first lookup needs them).

Adding a game (a fourth, `mygame`):
1. `app/engine/mygame.py`: its `Hand` subclass (`_validate` and the effects, `legal`, `view`,
   `result`, `phase`), its score rule, its `PARAMS` and presets, and `GAME = Game(...)`;
2. its name in `MODULES` below — the one registration line;
3. `static/js/games/mygame.js` (its words and dialogs, see static/js/games/index.js) and
   its line in `static/js/games/index.js`; its rules text in `app/rules_text/mygame.md` and
   its words in static/js/i18n.js;
4. its hand files under `tests/hands/mygame/`: the shared contract test
   (tests/engine/test_contract.py) then runs over it with every other game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from .hand import Action, Hand, Legal
    from .policies.odds import OddsBot, Reading
    from .scoring import Scorer
    from .variants import Param, Variant

MODULES = ("classic", "shaha36", "svara32")  # one line per game: its module in app/engine/


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


OddsPolicy = Callable[["OddsBot", str, "Sequence[Legal]", Mapping[str, Any], "Reading"], "Action"]
"""The odds bot's play in one game: (bot, player, legal, view, reading) → its action."""


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


@cache
def registry() -> dict[str, Game]:
    """Every game by name, in `MODULES` order (importing each module once)."""
    out: dict[str, Game] = {}
    for module in MODULES:
        game: Game = import_module(f"{__package__}.{module}").GAME
        out[game.name] = game
    return out


def game(name: str) -> Game:
    """The game called `name` (KeyError if none is)."""
    return registry()[name]


def hand_class(name: str) -> type[Hand]:
    """The `Hand` class of a game: what replay, simulate and the server build."""
    return game(name).hand


V = TypeVar("V")


class Index(Mapping[str, V], Generic[V]):
    """A read-only mapping drawn from every game's record on first use."""

    def __init__(self, build: Callable[[Iterable[Game]], Iterable[tuple[str, V]]]):
        self._build = build

    @cached_property
    def _items(self) -> dict[str, V]:
        return dict(self._build(registry().values()))

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Index({self._items!r})"


GAMES: Index[Game] = Index(lambda games: ((g.name, g) for g in games))
