"""The Socket.IO packet of this server (`socketio.init_app(serializer=WirePacket)`).

Why not python-socketio's own `Packet`: for every packet it sends, it walks the whole payload
in Python looking for bytes (to cut them out as binary attachments), then encodes it with the
standard library's json. Sending each watcher his `table:state` made those two a fifth of the
server's time at 125 tables (docs/performance.md, «Server load»). This server never sends bytes —
every payload is JSON data, voice included (SDP is text) — so what it sends is a text packet
without the scan, encoded by orjson. orjson writes non-ASCII text as UTF-8 instead of \\u
escapes: the same JSON value to the browser. What orjson refuses (an integer beyond 64 bits,
a lone surrogate, a non-string key) goes through the standard library as before.

The same class decodes what clients send, and a client may still send a binary event. Its
attachments are counted, never kept nor put back: the handler sees the placeholder object
(`{"_placeholder": true, "num": 0}`) that stands for them, which is plain JSON a text
client could send as well, and refuses it like any payload of the wrong shape
(app/protocol.py). So bytes never reach a handler, a table's state or an outgoing packet.
"""

from __future__ import annotations

import json
from typing import Any

from socketio import packet

from app.models.db import json_text


class _Json:
    """`dumps` by orjson (the standard library for what orjson refuses); `loads` is the
    standard library's, so what clients send is read exactly as before."""

    loads = staticmethod(json.loads)
    dumps = staticmethod(json_text)


class WirePacket(packet.Packet):
    """A Socket.IO packet that is always text on the way out and drops binary attachments
    on the way in."""

    json = _Json

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.received = 0  # attachments of an incoming binary packet, counted, not kept
        super().__init__(*args, **kwargs)

    @classmethod
    def data_is_binary(cls, data: Any) -> bool:
        """Never: nothing this server sends contains bytes (see the module's docstring)."""
        return False

    def add_attachment(self, attachment: bytes) -> bool:
        """Count an attachment and drop it; True once all announced have arrived."""
        if self.received >= self.attachment_count:
            raise ValueError("Unexpected binary attachment")
        self.received += 1
        return self.received == self.attachment_count
