"""The registry: every game by name, and the indexes over the games' records.

Each game is one `Game` record (game.py), defined by its own module (`app/engine/<game>.py`):
the title players read, the `Hand` class, the deck and scoring table (`Scorer`), the
parameters a variant sets and the presets, how a live table runs between hands (`Manners`),
the odds bot's policy, its own bots, its demo tables and the words of its actions where they
are not `<game>.<do>`. Everything else (the lobby, the admin's seed, the bots' roster, the
history, the CLI) finds them here and names no game (tests/test_one_game_files.py):
`GAMES`, `SCORERS`, `GAME_PARAMS`, `PRESETS` and `get_variant` are built on first use.
This module is above the games (it imports them), and the modules the games are built from
(cards, scoring, variants, hand, policies) are below them: none looks a game up by name.

Adding a game (a fourth, `mygame`):
1. `app/engine/mygame.py`: its `Hand` subclass (`actions`, `legal`, `_apply`, and
   `_why_not` for the rule behind a refusal: `Hand.check` checks every action against
   `legal()`; `view`, `result`, `phase`), its score rule, its `PARAMS` and presets, and
   `GAME = Game(...)` (with its `demo_tables`, `bots`, `action_words` where it has them);
2. its name in `MODULES` below — the one registration line on the server's side;
3. `static/js/games/mygame.js`: its decisions, action bar order, deck, dialogs and its words
   (`game.mygame`, `game_name.mygame`, `mygame.<do>`, `variant.mygame-…` in RU, EN and BG;
   app/i18n.py reads them there too), and its import and place in `MODULES` of
   static/js/games/index.js — the registration on the pages' side;
4. its rules text in `app/rules_text/` (a Markdown file named after it) and its hand files under
   `tests/hands/mygame/`: the shared contract test (tests/engine/test_contract.py) then runs
   over it with every other game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache, cached_property
from importlib import import_module
from typing import Any, Generic, TypeVar

from .game import Game
from .hand import Hand
from .scoring import Scorer
from .variants import Param, Variant, VariantError

MODULES = ("classic", "shaha36", "svara32")  # one line per game: its module in app/engine/


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


SCORERS: Index[Scorer] = Index(lambda gs: ((g.name, g.scorer) for g in gs))
GAME_PARAMS: Index[Mapping[str, Param]] = Index(lambda gs: ((g.name, g.params) for g in gs))
PRESETS: Index[Variant] = Index(lambda gs: ((v.name, v) for g in gs for v in g.presets))


def get_variant(name: str, overrides: Mapping[str, Any] | None = None) -> Variant:
    """A preset by name, optionally with overrides (VariantError if unknown or invalid)."""
    try:
        variant = PRESETS[name]
    except KeyError:
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(PRESETS)}") from None
    return variant.with_rules(overrides) if overrides else variant
