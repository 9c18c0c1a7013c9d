"""Options every `svara` command shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from app.config import INSTANCE_ENV

F = TypeVar("F", bound=Callable[..., Any])


def instance_option(command: F) -> F:
    """`--instance DIR`: the installation to work on (database, secret key, config.py)."""
    return click.option(
        "--instance",
        "instance",
        type=click.Path(file_okay=False),
        envvar=INSTANCE_ENV,
        default="instance",
        show_default=True,
        help=f"instance folder (or ${INSTANCE_ENV})",
    )(command)
