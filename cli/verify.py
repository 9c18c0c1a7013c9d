"""`svara verify FILE`: check a hand file's shuffle as a player can (docs/fairness.md).

Unlike `svara admin hand verify` it needs no database: it reads a downloaded hand file (a
player's copy from GET /hands/<id>.json, or a full stored one) and checks that every deal's
seed opens its commitment and, with the players' seeds, reproduces the cards the file shows.
Exit status 0 when it does; 1 with the reason when it does not or the file cannot be read.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from app.engine.fairness import FairnessError, check_document


@click.command()
@click.argument("file", type=click.File("r", encoding="utf-8"))
def verify(file: Any) -> None:
    """Check the shuffle of a hand file (FILE, or - for stdin): exit 0 when its seeds open
    its commitments and reproduce its cards, 1 with the reason otherwise."""
    try:
        doc = json.load(file)
        problems = check_document(doc)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        problems = [f"not valid JSON: {e}"]
    except FairnessError as e:
        problems = [f"not a hand file: {e}"]
    if problems:
        click.echo(json.dumps({"ok": False, "problems": problems}, ensure_ascii=False))
        for problem in problems:
            click.echo(f"svara verify: {problem}", err=True)
        sys.exit(1)
    deals = doc["deals"]
    click.echo(json.dumps({"ok": True, "deals": len(deals)}, ensure_ascii=False))
