"""Several server processes on one database (docs/hosting.md, «Beyond one machine»).

Each table is played by exactly one process, its owner: the table's id modulo the number of
processes (`SHARD = "i/n"`: this is process i of n, counting from 0). Only the owner loads
the table, resumes its hands after a restart and runs its timers; any other process refuses
its events (`elsewhere`), so two processes never hold the same table. The proxy in front
routes a table's page and socket to the owner; the lobby, accounts and pages may be served by
any process, and Flask-SocketIO's message queue (`MESSAGE_QUEUE`, Redis) carries every emit
to the clients of every process.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """This process's share of the tables: ids ≡ `index` (mod `count`)."""

    index: int = 0
    count: int = 1

    def owns(self, table_id: int) -> bool:
        return table_id % self.count == self.index

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`"i/n"`; ValueError unless 0 ≤ i < n."""
        index, sep, count = str(text).partition("/")
        shard = cls(int(index), int(count)) if sep else cls()
        if not 0 <= shard.index < shard.count:
            raise ValueError(f"SHARD {text!r}: expected i/n with 0 <= i < n")
        return shard
