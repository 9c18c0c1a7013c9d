"""The session cookie, verified once per socket rather than once per event.

Flask opens the session of every request context it pushes, and Flask-SocketIO pushes one
for every socket event on the environ of the socket's handshake: every «Готов» and every
move verified the cookie's signature again (~0.1 ms; docs/performance.md, «A hand's pot,
and the session cookie once per socket»). A socket's events all see the session of its
handshake (Flask-SocketIO copies it at the first event and keeps that copy), so the session
opened first is kept in that environ and given again. An HTTP request has an environ of its
own: its cookie is opened as Flask does.
"""

from __future__ import annotations

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

OPENED = "svara.session"


class SocketCookieSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, opened once per environ."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        opened: SecureCookieSession | None = request.environ.get(OPENED)
        if opened is None:
            opened = super().open_session(app, request)
            request.environ[OPENED] = opened
        return opened
