"""The session cookie is verified once per socket, not once per event (app/auth/cookie.py);
HTTP requests verify theirs each time, and the events still act for the cookie's player."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

from app import create_app
from app.auth.presence import get_presence
from app.auth.service import create_user
from app.extensions import socketio
from app.models import get_db


def test_a_sockets_events_open_the_cookie_of_its_handshake_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading", "WTF_CSRF_ENABLED": False})
    with app.app_context(), get_db().session() as s:
        maria = create_user(s, "Мария", "password-1").id
    assert maria is not None
    opened: list[str] = []
    verify = SecureCookieSessionInterface.open_session

    def counted(
        self: SecureCookieSessionInterface, app: Flask, request: Request
    ) -> SecureCookieSession | None:
        opened.append(request.path)
        return verify(self, app, request)

    monkeypatch.setattr(SecureCookieSessionInterface, "open_session", counted)
    http = app.test_client()
    # She types her name in capitals: the login and then the socket are still Мария's.
    assert http.post("/login", data={"name": "МАРИЯ", "password": "password-1"}).status_code == 302
    client = socketio.test_client(app, flask_test_client=http)
    assert client.is_connected()  # the handshake's cookie named a player
    connected = len(opened)
    assert connected >= 2  # the login, then the handshake
    for _ in range(5):
        assert client.emit("lobby:join", callback=True) == {"ok": True}
    assert len(opened) == connected  # no event opened the cookie again
    with app.app_context():
        (sid,) = get_presence().sids(maria)
        player = get_presence().player(sid)
    assert player is not None and player.name == "Мария"

    assert http.get("/").status_code == 200
    assert http.get("/").status_code == 200
    assert opened[connected:] == ["/", "/"]  # each request its own
    client.disconnect()
