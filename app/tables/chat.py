"""The table's text chat and quick phrases (C-8.4, S-1.7).

Lines are plain text: the server only bounds and rate-limits them, the page escapes them
on display. A table keeps its last `keep` lines for its lifetime in the process and sends
them to whoever joins.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
    """The last lines of one table, and each author's recent sending times."""

    def __init__(self, keep: int, max_length: int, rate: int, window: float):
        self.lines: deque[Line] = deque(maxlen=keep)
        self.max_length = max_length
        self.rate, self.window = rate, window
        self._sent: dict[str, deque[float]] = defaultdict(deque)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Chat:
        """A chat bounded by the app's settings, the same for the lobby and every table."""
        return cls(
            config["CHAT_KEEP"],
            config["CHAT_MAX_LENGTH"],
            config["CHAT_RATE"],
            config["CHAT_RATE_WINDOW"],
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
        return self._add(Line(author, text, time.time()))

    def phrase(self, author: str, index: int) -> Line:
        if not 0 <= index < len(PHRASES):
            raise ChatRefused(f"no quick phrase {index}; there are {len(PHRASES)}")
        return self._add(Line(author, PHRASES[index], time.time(), index))

    def _add(self, line: Line) -> Line:
        self._admit(line.author, line.at)
        self.lines.append(line)
        return line

    def recent(self) -> list[dict[str, Any]]:
        return [line.as_json() for line in self.lines]
