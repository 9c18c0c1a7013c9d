"""`python -m app.migrations revision "message"`: write the next revision by comparing the
models with a scratch SQLite database brought to the current head."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from alembic import command
from sqlmodel import create_engine

from . import alembic_config, upgrade


def main(message: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{Path(scratch) / 'scratch.db'}")
        upgrade(engine)
        command.revision(alembic_config(engine), message=message, autogenerate=True)
        engine.dispose()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "revision":
        sys.exit('usage: python -m app.migrations revision "what changed"')
    main(sys.argv[2])
