"""A socket's events bind and match the URL map once, on its handshake's environ
(app/socket_context.py); HTTP requests do each time, and the events still reach their
handlers."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask, Request
from flask.ctx import RequestContext
from werkzeug.routing import MapAdapter

from app import create_app
from app.auth.service import create_user
from app.extensions import socketio
from app.models import get_db


def test_a_sockets_events_bind_and_match_the_url_map_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading", "WTF_CSRF_ENABLED": False})
    with app.app_context(), get_db().session() as s:
        create_user(s, "Мария", "password-1")
    bound: list[str] = []
    bind = Flask.create_url_adapter

    def counted(self: Flask, request: Request | None) -> MapAdapter | None:
        if request is not None:
            bound.append(request.path)
        return bind(self, request)

    matched: list[str] = []
    match = RequestContext.match_request

    def matching(self: RequestContext) -> None:
        matched.append(self.request.path)
        match(self)

    monkeypatch.setattr(Flask, "create_url_adapter", counted)
    monkeypatch.setattr(RequestContext, "match_request", matching)
    http = app.test_client()
    assert http.post("/login", data={"name": "Мария", "password": "password-1"}).status_code == 302
    client = socketio.test_client(app, flask_test_client=http)
    assert client.is_connected()
    connected, tried = len(bound), len(matched)
    for _ in range(5):
        assert client.emit("lobby:join", callback=True) == {"ok": True}
    assert (len(bound), len(matched)) == (connected, tried)  # no event bound nor matched again

    assert http.get("/").status_code == 200
    assert http.get("/").status_code == 200
    assert bound[connected:] == matched[tried:] == ["/", "/"]  # each request its own
    client.disconnect()
