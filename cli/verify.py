"""`svara verify FILE`: check a hand file's shuffle as a player can (docs/fairness.md).

Unlike `svara admin hand verify` it needs no database: it reads a downloaded hand file (a
player's copy from GET /hands/<id>.json, or a full stored one) and checks that every deal's
seed opens its commitment and, with the players' seeds, reproduces the cards the file shows;
that every bot's and silent page's seed is the drawn one; and, given the player's own seed
and the commitment his page was shown (`--seed`, `--commit`, or the copy's `mine`), that
the hand used both. Exit status 0 when it does; 1 with the reason when it does not or the
file cannot be read. A file of the older schemes is refused unless `--legacy`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from app.engine.fairness import COMMIT, FairnessError, Mine, check_document, check_seed


def _seed(ctx: Any, param: Any, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return check_seed(value)
    except FairnessError as e:
        raise click.BadParameter(str(e)) from None


def _commit(ctx: Any, param: Any, value: str | None) -> str | None:
    if value is not None and not COMMIT.fullmatch(value):
        raise click.BadParameter("a commitment is 64 lowercase hexadecimal digits")
    return value


@click.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--seed", callback=_seed, help="the seed your page sent for this hand")
@click.option("--commit", callback=_commit, help="the commitment your page was shown then")
@click.option("--name", help="your name in the hand (the seed must be given as yours)")
@click.option("--bot", "bots", multiple=True, help="a participant you know was a bot")
@click.option("--legacy", is_flag=True, help="check a file of the older schemes anyway")
def verify(
    file: Any,
    seed: str | None,
    commit: str | None,
    name: str | None,
    bots: tuple[str, ...],
    legacy: bool,
) -> None:
    """Check the shuffle of a hand file (FILE, or - for stdin): exit 0 when its seeds open
    its commitments and reproduce its cards, 1 with the reason otherwise."""
    if (seed is None) != (commit is None):
        raise click.UsageError("--seed and --commit go together")
    mine = Mine(seed, commit, name) if seed is not None and commit is not None else None
    kinds: dict[str, str] = {}
    unproven: list[str] = []
    try:
        doc = json.load(file)
        problems, unproven, kinds = check_document(doc, legacy=legacy, mine=mine, bots=bots)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        problems = [f"not valid JSON: {e}"]
    except FairnessError as e:
        problems = [f"not a hand file: {e}"]
    for note in unproven:
        click.echo(f"svara verify: not proven: {note}", err=True)
    if problems:
        out = {"ok": False, "problems": problems, "unproven": unproven}
        click.echo(json.dumps(out, ensure_ascii=False))
        for problem in problems:
            click.echo(f"svara verify: {problem}", err=True)
        sys.exit(1)
    out = {"ok": True, "deals": len(doc["deals"]), "kinds": kinds, "unproven": unproven}
    click.echo(json.dumps(out, ensure_ascii=False))
