"""`svara`: the one command of the project. Sub-commands live in their own modules."""

from __future__ import annotations

import click

from . import admin, rules, serve, verify


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def svara() -> None:
    """Svara (Свара): a self-hosted, voice-enabled table for the three-card game."""


for command in rules.COMMANDS:
    svara.add_command(command)
svara.add_command(serve.serve)
svara.add_command(admin.admin)
svara.add_command(verify.verify)
