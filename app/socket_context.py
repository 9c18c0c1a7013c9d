"""The Flask application of this server: the URL adapter bound once per socket.

Flask-SocketIO pushes a request context for every socket event, on the environ of the
socket's handshake, and Flask binds the URL map to that environ each time (the host checked,
the server name and scheme read): ~3 % of the server's time under load (docs/performance.md,
«A third less CPU per action»). The environ of a socket does not change, so the adapter bound
first is kept in it and given again, as app/auth/cookie.py keeps the session it opened. An
HTTP request has an environ of its own: its adapter is bound as Flask does.
"""

from __future__ import annotations

from flask import Flask, Request
from werkzeug.routing import MapAdapter

BOUND = "svara.url_adapter"


class SocketApp(Flask):
    """Flask, with a request's URL adapter kept in its environ."""

    def create_url_adapter(self, request: Request | None) -> MapAdapter | None:
        if request is None:  # an application context: nothing to keep it in
            return super().create_url_adapter(request)
        bound: MapAdapter | None = request.environ.get(BOUND)
        if bound is None:
            bound = request.environ[BOUND] = super().create_url_adapter(request)
        return bound
