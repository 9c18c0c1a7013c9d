"""`python -m cli` is the `svara` command (for environments without the console script)."""

from cli.main import svara

svara()
