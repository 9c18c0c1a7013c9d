"""The table store of a practice table (B-1.4): the chips are the table's own.

Sitting down at a practice table takes no money from the balance — app/ledger.py grants the
stack and takes it back when the player stands up — so a player's balance never decides
whether he may sit there: any balance covers a practice stack.
"""

from __future__ import annotations

import sys

from app.tables.store import TableStore


class PracticeStore(TableStore):
    """A `TableStore` whose balance check always passes (the runtime's `_check_stack`)."""

    def balance(self, user_id: int) -> int:
        """Enough for any stack: practice chips are granted, not bought (B-1.4)."""
        return sys.maxsize
