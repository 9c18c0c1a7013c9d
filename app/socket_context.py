"""The Flask application of this server: the URL map bound and matched once per socket.

Flask-SocketIO pushes a request context for every socket event, on the environ of the
socket's handshake, and Flask binds the URL map to that environ and matches its path each
time (the host checked, the server name and scheme read, every rule tried): ~5 % of the
server's time under load (docs/performance.md, «CPU per action, 2026-12-06»). The environ
of a socket does not change, so the adapter bound and the match made first are kept in it
and given again, as app/auth/cookie.py keeps the session it opened. An HTTP request has an
environ of its own: it is bound and matched as Flask does.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request
from flask.ctx import RequestContext
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter

BOUND = "svara.url_adapter"
MATCHED = "svara.url_match"


class _Context(RequestContext):
    """A request context that matches its environ's path once (Flask's hook for it)."""

    def match_request(self) -> None:
        request = self.request
        matched = request.environ.get(MATCHED)
        if matched is None:
            super().match_request()
            matched = (request.url_rule, request.view_args, _bare(request.routing_exception))
            request.environ[MATCHED] = matched
        request.url_rule, request.view_args, request.routing_exception = matched


def _bare(error: HTTPException | None) -> HTTPException | None:
    """The socket path's NotFound without its traceback or the NoMatch it was raised from.

    The environ keeps it for the socket's life; with its traceback it kept the frames of the
    handshake that first matched (the engine.io handler's stack, the request, the session:
    ~150 objects per connection), and their locals held the environ again: a cycle that
    only a full collection frees, and that every full collection walks meanwhile
    (docs/performance.md, «The full collection at 4,000: the handshakes' frames, …»)."""
    if error is not None:
        error.__traceback__ = None
        error.__context__ = error.__cause__ = None
    return error


class SocketApp(Flask):
    """Flask, with a request's URL adapter and match kept in its environ."""

    def request_context(self, environ: dict[str, Any]) -> RequestContext:
        return _Context(self, environ)

    def create_url_adapter(self, request: Request | None) -> MapAdapter | None:
        if request is None:  # an application context: nothing to keep it in
            return super().create_url_adapter(request)
        bound: MapAdapter | None = request.environ.get(BOUND)
        if bound is None:
            bound = request.environ[BOUND] = super().create_url_adapter(request)
        return bound
