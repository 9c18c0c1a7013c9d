"""A socket's events bind and match the URL map once, on its handshake's environ
(app/socket_context.py); HTTP requests do each time, and the events still reach their
handlers."""

from __future__ import annotations

import gc
from pathlib import Path
from types import FrameType, ModuleType, TracebackType

import pytest
from flask import Flask, Request
from flask.ctx import RequestContext
from werkzeug.routing import MapAdapter
from werkzeug.test import EnvironBuilder

from app import create_app
from app.auth.service import create_user
from app.extensions import socketio
from app.models import get_db
from app.socket_context import MATCHED


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


def test_a_sockets_kept_match_holds_no_frame_of_its_handshake(tmp_path: Path) -> None:
    """The environ lives as long as the socket: what it keeps must not hold the frames of
    the handshake (a cycle back to the environ, freed only by a full collection)."""
    app = create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading"})
    environ = EnvironBuilder(path="/socket.io/", query_string="EIO=4&transport=websocket")
    kept = environ.get_environ()

    def handshake() -> None:  # a frame of its own, as the engine.io handler's stack
        with app.request_context(kept):
            pass

    handshake()
    assert kept[MATCHED][2] is not None  # the socket path is no page: a NotFound, kept
    reached, seen, todo = [], {id(kept)}, [kept]
    while todo:
        for o in gc.get_referents(todo.pop()):
            if id(o) not in seen and not isinstance(o, type | ModuleType):
                seen.add(id(o))
                reached.append(o)
                todo.append(o)
    assert not [o for o in reached if isinstance(o, FrameType | TracebackType)]
