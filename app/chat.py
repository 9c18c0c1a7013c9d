"""The table's text chat and quick phrases (C-8.4, S-1.7), and the lobby's chat.

Lines are plain text: the server only bounds and rate-limits them, the page escapes them
on display. Each accepted line is sent at once and written to the database (`ChatLine`)
behind it, in the order said, by a writer of its own: the chat never waits for the
database, so it goes on while another process holds the write lock (a backup, a long admin
command) and the lines are stored once the lock is gone (docs/architecture.md, «A held
database»). Whoever joins gets the last `keep` lines: those stored, then those still on
their way. A table's chat lasts as long as the table, across restarts of the server, and
the lobby's is the same for every serving process: a normal stop (Ctrl-C, systemd's SIGTERM)
waits up to `FLUSH_SECONDS` for the lines still on their way (`flush`); only a killed process,
or a database held through the whole wait, loses them. The rate limit is the process's own
and starts afresh with it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from app.models import ChatLine, Database

# «Озвучить фразу» (C-8.4): the seed names the button, not the phrases; these are ours
# (docs/rules.md). A client sends the phrase's index; the page shows and speaks the text.
PHRASES: tuple[str, ...] = (
    "Привет всем!",
    "Ходи!",
    "Думаю…",
    "Удачи!",
    "Свара!",
    "Хорошая игра!",
    "Спасибо!",
    "Пока!",
)


log = logging.getLogger(__name__)

#: The longest pause of the chat's writer between tries while the database refuses writes.
RETRY = 1.0
#: How long a stopping server waits, for all its chats together, for the unstored lines.
FLUSH_SECONDS = 5.0


class ChatRefused(Exception):
    """A line the chat does not take: empty, too long, too fast, or not allowed now."""


@dataclass(frozen=True)
class Line:
    author: str
    text: str
    at: float
    phrase: int | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.author, "text": self.text, "time": self.at}
        if self.phrase is not None:
            out["phrase"] = self.phrase
        return out


class Chat:
    """One chat (a table's, or the lobby's when `table_id` is None): its lines in the
    database, and each author's recent sending times."""

    def __init__(
        self,
        keep: int,
        max_length: int,
        rate: int,
        window: float,
        db: Database,
        table_id: int | None,
    ):
        self.keep = keep
        self.max_length = max_length
        self.rate, self.window = rate, window
        self.db, self.table_id = db, table_id
        self._sent: dict[str, deque[float]] = defaultdict(deque)
        # Lines sent but not yet stored, oldest first; `_writing` while a writer runs.
        self._unsaved: deque[ChatLine] = deque()
        self._writing = False
        self._guard = threading.Lock()
        self._stored = threading.Event()  # set while nothing waits to be stored
        self._stored.set()

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], db: Database, table_id: int | None = None
    ) -> Chat:
        """A chat bounded by the app's settings, the same for the lobby and every table."""
        return cls(
            config["CHAT_KEEP"],
            config["CHAT_MAX_LENGTH"],
            config["CHAT_RATE"],
            config["CHAT_RATE_WINDOW"],
            db,
            table_id,
        )

    def _admit(self, author: str, now: float) -> None:
        """At most `rate` lines per author within `window` seconds."""
        sent = self._sent[author]
        while sent and sent[0] <= now - self.window:
            sent.popleft()
        if len(sent) >= self.rate:
            raise ChatRefused(f"too many messages: at most {self.rate} in {self.window:g} s")
        sent.append(now)

    def say(self, author: str, text: str) -> Line:
        text = " ".join(text.split())
        if not text:
            raise ChatRefused("empty message")
        if len(text) > self.max_length:
            raise ChatRefused(f"message longer than {self.max_length} characters")
        return self._add(author, text, None)

    def phrase(self, author: str, index: int) -> Line:
        if not 0 <= index < len(PHRASES):
            raise ChatRefused(f"no quick phrase {index}; there are {len(PHRASES)}")
        return self._add(author, PHRASES[index], index)

    def _add(self, author: str, text: str, phrase: int | None) -> Line:
        """Admit the line and queue it for the writer; the caller sends it at once."""
        row = ChatLine(table_id=self.table_id, author=author, text=text, phrase=phrase)
        self._admit(author, row.said.timestamp())
        with self._guard:
            self._unsaved.append(row)
            start, self._writing = not self._writing, True
            self._stored.clear()
        if start:  # a green thread under eventlet (threading is monkey-patched by then)
            threading.Thread(target=self._store, name="chat-writer", daemon=True).start()
        return _line(row)

    def _store(self) -> None:
        """Store the queued lines in order, each in its own short session. While the
        database refuses writes (locked past the busy timeout, full) the line waits and is
        tried again; a line it can never take (its table deleted) is dropped and logged."""
        pause = 0.05
        refused = False
        while True:
            with self._guard:
                if not self._unsaved:
                    self._writing = False
                    self._stored.set()
                    return
                row = self._unsaved[0]
            try:
                with self.db.session() as s:
                    s.add(_copy(row))
            except OperationalError:
                if not refused:  # one line per outage, not one per try
                    log.warning("chat lines not stored yet (the database refuses writes)")
                refused = True
                time.sleep(pause)
                pause = min(pause * 2, RETRY)
                continue
            except Exception:
                log.exception("chat line of %s dropped: the database does not take it", row.author)
            if refused:
                log.warning("chat lines stored again: the database takes writes")
            pause, refused = 0.05, False
            with self._guard:
                self._unsaved.popleft()

    def flush(self, seconds: float) -> bool:
        """Wait up to `seconds` until every line said is stored; False if some are not."""
        return self._stored.wait(max(seconds, 0.0))

    def unstored(self) -> int:
        """How many lines wait for the database."""
        with self._guard:
            return len(self._unsaved)

    def recent(self) -> list[dict[str, Any]]:
        """The last `keep` lines, oldest first: as stored (so also those from before a
        restart), then those the writer has not stored yet. Both are read under the queue's
        guard, which the writer takes to drop a stored line: the one line that may be both
        stored and queued is the newest stored, so it is read back and not counted twice
        (read apart, a queued line stored meanwhile could fall below the `keep` read)."""
        query = (
            select(ChatLine)
            .where(ChatLine.table_id == self.table_id)
            .order_by(col(ChatLine.id).desc())
            .limit(self.keep)
        )
        with self._guard, self.db.reading() as s:
            unsaved = [_line(row) for row in self._unsaved]
            rows = s.exec(query).all()
        lines = [_line(row) for row in reversed(rows)]
        lines += [line for line in unsaved if line not in lines]
        return [line.as_json() for line in lines[-self.keep :]]


def flush_all(chats: Iterable[Chat], seconds: float = FLUSH_SECONDS) -> int:
    """A stopping server's chats store what they still hold, within `seconds` for all of
    them together; the number of lines given up on is logged and returned."""
    deadline = time.monotonic() + seconds
    chats = list(chats)
    waiting = sum(chat.unstored() for chat in chats)
    if waiting:
        log.warning(
            "chat lines to store before the stop: %d (waiting up to %g s)", waiting, seconds
        )
    lost = sum(chat.unstored() for chat in chats if not chat.flush(deadline - time.monotonic()))
    if lost:
        log.warning("chat lines not stored at the stop (the database refused writes): %d", lost)
    return lost


def _line(row: ChatLine) -> Line:
    return Line(row.author, row.text, row.said.timestamp(), row.phrase)


def _copy(row: ChatLine) -> ChatLine:
    """A fresh row for each try: a rolled-back session leaves nothing of its own on it."""
    return ChatLine(
        table_id=row.table_id, author=row.author, text=row.text, phrase=row.phrase, said=row.said
    )
