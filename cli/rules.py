"""The rules tools of docs/rules/hand-file.md: `svara hand`, `svara replay`, `svara variants`.

Errors are one clear line on stderr with the documented exit status, never a traceback.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, NoReturn

import click

from app.engine import handfile
from app.engine.cards import CardError, parse_cards
from app.engine.games import PRESETS, SCORERS, get_variant
from app.engine.policies.roster import BOTS
from app.engine.simulate import simulate as run_simulation
from app.engine.variants import VariantError

VARIANT_HELP = "a preset: a game's own (its name) or one of its variants"


def _print(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False))


def fail(message: str, status: int = 2) -> NoReturn:
    click.echo(f"svara: {message}", err=True)
    sys.exit(status)


def score_line(game: str, texts: list[str]) -> dict[str, Any]:
    """The JSON object of one hand (CardError when the cards are not a hand of the game)."""
    cards = parse_cards(texts)
    score = SCORERS[game].checked_score(cards)
    return {
        "variant": game,
        "cards": [str(c) for c in cards],
        "points": score.points,
        "absolute": score.absolute,
        "label": score.label,
    }


@click.command()
@click.option("--variant", "variant_name", required=True, help=VARIANT_HELP)
@click.argument("cards", nargs=-1)
def hand(variant_name: str, cards: tuple[str, ...]) -> None:
    """Score a hand: three CARDS, or one hand per line on stdin."""
    try:
        game = get_variant(variant_name).game
    except VariantError as e:
        fail(str(e))
    if cards:
        try:
            _print(score_line(game, list(cards)))
        except CardError as e:
            fail(str(e))
        return
    failed = False
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            _print(score_line(game, line.split()))
        except CardError as e:
            _print({"error": str(e)})
            failed = True
    if failed:
        sys.exit(2)


@click.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
def replay(file: Any) -> None:
    """Re-run a hand file (FILE, or - for stdin) through the engine."""
    try:
        doc = json.load(file)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(f"not valid JSON: {e}")
    try:
        hf = handfile.parse(doc)
    except handfile.HandFileError as e:
        fail(f"bad hand file: {e}")
    try:
        played = handfile.replay(hf)
    except handfile.ReplayError as e:
        _print({"ok": False, "error": e.as_json()})
        sys.exit(3)
    _print(handfile.replay_summary(played))


@click.command()
def variants() -> None:
    """List the rule variants with their game and description."""
    for v in PRESETS.values():
        click.echo(f"{v.name:<22} {v.game:<8} {v.description}")


@click.command()
@click.option("--variant", "variant_name", required=True, help=VARIANT_HELP)
@click.option("--players", type=click.IntRange(2, 8), required=True, help="bots at the table")
@click.option("--hands", type=click.IntRange(1), required=True, help="hands to play")
@click.option("--seed", type=int, default=0, show_default=True, help="same seed, same hands")
@click.option("--bot", type=click.Choice(sorted(BOTS)), default="random", show_default=True)
def simulate(variant_name: str, players: int, hands: int, seed: int, bot: str) -> None:
    """Bots play HANDS hands at one table; prints the summary as one JSON object."""
    try:
        variant = get_variant(variant_name)
        _print(run_simulation(variant, players, hands, seed, bot, clock=time.perf_counter))
    except (VariantError, ValueError) as e:
        fail(str(e))


COMMANDS = [hand, replay, variants, simulate]
