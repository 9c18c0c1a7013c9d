"""The app factory in-process: configuration sources, proxy trust, and the seams the table
runtime uses (presence hooks, lobby occupancy and publishing)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import select

from app import create_app, protocol
from app.auth.presence import Player, get_presence
from app.auth.service import create_user, set_password
from app.extensions import socketio
from app.lobby.service import create_table, get_lobby
from app.models import User, get_db


def make_app(instance: Path, **config: Any) -> Flask:
    return create_app({"INSTANCE": instance, "ASYNC_MODE": "threading", **config})


def test_configuration_sources_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """defaults < instance config.py < SVARA_* variables < the factory's argument."""
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "config.py").write_text("CHAT_KEEP = 7\nPORT = 6000\nHOST = '0.0.0.0'\n")
    monkeypatch.setenv("SVARA_PORT", "6001")
    monkeypatch.setenv("SVARA_TIMER_SCALE", "0.01")
    app = make_app(instance, HOST="127.0.0.2")
    assert app.config["CHAT_KEEP"] == 7
    assert app.config["PORT"] == 6001
    assert app.config["HOST"] == "127.0.0.2"
    assert app.config["TIMER_SCALE"] == 0.01
    assert app.config["LOGIN_ATTEMPTS"] == 5  # a default
    assert app.config["DATABASE_URL"] == f"sqlite:///{instance / 'svara.db'}"


def test_the_secret_key_is_generated_once_and_kept(tmp_path: Path) -> None:
    first = make_app(tmp_path / "i").config["SECRET_KEY"]
    assert len(first) == 64
    assert stat.S_IMODE((tmp_path / "i" / "secret_key").stat().st_mode) == 0o600
    assert make_app(tmp_path / "i").config["SECRET_KEY"] == first
    assert make_app(tmp_path / "other").config["SECRET_KEY"] != first


def _login_failures(app: Flask, forwarded: list[str]) -> list[int]:
    """Status of a wrong login for `admin` from each X-Forwarded-For address in turn."""
    client = app.test_client()
    return [
        client.post(
            "/login",
            data={"name": "admin", "password": "wrong"},
            headers={"X-Forwarded-For": address},
        ).status_code
        for address in forwarded
    ]


@pytest.mark.parametrize("trusted", [False, True])
def test_proxy_headers_are_trusted_only_when_configured(tmp_path: Path, trusted: bool) -> None:
    """SVARA_TRUST_PROXY: without it a client cannot dodge the login limit by forging
    X-Forwarded-For; with it (behind a proxy) each real client has its own limit."""
    app = make_app(tmp_path, TRUST_PROXY=1 if trusted else 0, WTF_CSRF_ENABLED=False)
    with app.app_context(), get_db().session() as s:
        create_user(s, "admin", "right-password")
    statuses = _login_failures(app, ["10.0.0.1"] * 5 + ["10.0.0.2"])
    assert statuses[:5] == [401] * 5
    assert statuses[5] == (401 if trusted else 429)


def test_runtime_seams_presence_hooks_and_lobby_publish(tmp_path: Path) -> None:
    """What the table runtime plugs into: connect/disconnect hooks with the player, the
    lobby's occupancy provider and `publish` from outside any request (with no
    PRESENCE_GRACE the disconnect hooks run at once)."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=False, PRESENCE_GRACE=0)
    with app.app_context(), get_db().session() as s:
        create_user(s, "anna", "password-1")
        table = create_table(s, "Стол", "svara32")
    seen: list[tuple[str, Player, bool]] = []
    with app.app_context():
        presence = get_presence()
        presence.on_connect.append(lambda p, sid, table: seen.append(("connect", p, False)))
        presence.on_disconnect.append(lambda p, sid, over: seen.append(("gone", p, over)))
        get_lobby().occupancy = lambda table_id: (4, 2) if table_id == table.id else (0, 0)
    http = app.test_client()
    assert http.post("/login", data={"name": "anna", "password": "password-1"}).status_code == 302
    client = socketio.test_client(app, flask_test_client=http)
    assert client.is_connected()
    assert [(kind, p.name) for kind, p, _ in seen] == [("connect", "anna")]
    client.emit("lobby:join")
    (state,) = [m["args"][0] for m in client.get_received() if m["name"] == "lobby:state"]
    listed = next(t for t in state["tables"] if t["id"] == table.id)
    assert (listed["seated"], listed["queue"]) == (4, 2)
    assert listed["stakes"] == {"ante": 10, "buy_in": [200, 1000]}

    get_lobby_of(app).occupancy = lambda table_id: (5, 0)
    get_lobby_of(app).publish(table.id)  # as the runtime does, outside a request
    (update,) = [m["args"][0] for m in client.get_received() if m["name"] == "lobby:table"]
    assert (update["id"], update["seated"], update["queue"]) == (table.id, 5, 0)
    client.disconnect()
    assert seen[-1][0] == "gone" and seen[-1][2] is False


def get_lobby_of(app: Flask) -> Any:
    with app.app_context():
        return get_lobby()


def test_a_handler_that_fails_answers_internal_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in a handler still gets the sender an `error` (and is logged), instead of a
    client waiting forever for its ack."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=False)
    with app.app_context(), get_db().session() as s:
        create_user(s, "anna", "password-1")

    def broken(player: Player, payload: dict[str, Any]) -> None:
        raise RuntimeError(f"bug for {player.name}")

    protocol.on("test:broken", broken)
    http = app.test_client()
    http.post("/login", data={"name": "anna", "password": "password-1"})
    client = socketio.test_client(app, flask_test_client=http)
    ack = client.emit("test:broken", {}, callback=True)
    assert ack == {"ok": False, "error": "internal error"}
    errors = [m["args"][0] for m in client.get_received() if m["name"] == "error"]
    assert errors == [{"event": "test:broken", "reason": "internal error"}]
    assert "bug for anna" in caplog.text
    client.disconnect()


def test_a_new_password_ends_the_users_sessions(tmp_path: Path) -> None:
    """`set_password` (the admin CLI's password reset) logs the user out everywhere; the
    Argon2 rehash on login (same password) does not."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=False)
    with app.app_context(), get_db().session() as s:
        create_user(s, "anna", "password-1")
    http = app.test_client()
    http.post("/login", data={"name": "anna", "password": "password-1"})
    assert http.get("/").status_code == 200
    with app.app_context(), get_db().session() as s:
        anna = s.exec(select(User).where(User.name == "anna")).one()
        set_password(anna, "password-2")
    assert http.get("/").status_code == 302
    assert http.post("/login", data={"name": "anna", "password": "password-2"}).status_code == 302
    assert http.get("/").status_code == 200
