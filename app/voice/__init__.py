"""Voice, seen from the web process (C-8.3; docs/architecture.md «One voice toggle's path»).

The SFU (rtc/) is its own asyncio process because aiortc breaks under eventlet
(docs/architecture.md); this package never imports it and never uses asyncio. Its modules:

- `client`: the connection to the SFU over a unix socket in the instance folder, JSON lines
  (docs/voice-protocol.md);
- `settings`: the VOICE_* settings, the SFU's command line, each browser's ICE servers;
- `supervisor`: the SFU as a child process, restarted when it dies;
- `hub`: the one record of each table's voice (who is in it, mic, listen), which the
  tables show in their `table:state`;
- `sockets`: the `voice:*` events and the wiring to the live tables (the serving
  process's feature: `start`, `stop`).
"""
