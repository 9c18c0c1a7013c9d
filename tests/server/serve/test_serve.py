"""`svara serve` on a fresh and on an existing instance folder (docs/hosting.md)."""

from __future__ import annotations

import gc
import os
import re
import resource
import signal
import socket
import stat
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlmodel import select

from app import migrations
from app.lobby.service import DEMO_NAME
from app.models import Database, Table, User
from cli.serve import LOOK_EVERY, collect_when_grown

from ..conftest import ASYNC_MODES, PASSWORD, SVARA, WAIT, Browser, start_server, stopped


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_first_start_then_restart(tmp_path: Path, async_mode: str) -> None:
    """The first start creates the schema, an admin with a password printed once and the
    demo classic table; a restart keeps all of it (and the sessions: the secret key is kept
    in the instance folder) and prints no password."""
    instance = tmp_path / "instance"
    first = start_server(instance, async_mode)
    try:
        printed = [m for line in first.output if (m := PASSWORD.search(line))]
        assert len(printed) == 1
        name, password = printed[0].groups()
        admin = Browser(first.url)
        assert admin.login(name, password).status_code == 302
        lobby = admin.http.get(first.url + "/")
        assert lobby.status_code == 200 and DEMO_NAME in lobby.text
        admin.socket().close()  # the admin's session is accepted by Socket.IO
    finally:
        first.stop()

    key = instance / "secret_key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    db = Database(f"sqlite:///{instance / 'svara.db'}")
    assert migrations.current(db.engine) == migrations.head()

    second = start_server(instance, async_mode)
    try:
        assert not any(PASSWORD.search(line) for line in second.output)
        admin.url = second.url
        page = admin.http.get(second.url + "/", allow_redirects=False)
        assert page.status_code == 200, "the session cookie of the first run is still valid"
        assert len(re.findall(r'class="table-row"', page.text)) == 1
    finally:
        second.stop()
    with db.session() as s:
        assert [u.name for u in s.exec(select(User)).all()] == ["admin"]
        assert s.exec(select(User)).one().is_admin
        assert [t.name for t in s.exec(select(Table)).all()] == [DEMO_NAME]
        assert s.exec(select(Table)).one().variant == "classic"
    db.dispose()


def test_a_database_url_from_the_environment(tmp_path: Path) -> None:
    """SVARA_DATABASE_URL puts the database anywhere (here: outside the instance folder)."""
    elsewhere = tmp_path / "elsewhere.db"
    server = start_server(
        tmp_path / "instance", "threading", SVARA_DATABASE_URL=f'"sqlite:///{elsewhere}"'
    )
    server.stop()
    assert not (tmp_path / "instance" / "svara.db").exists()
    db = Database(f"sqlite:///{elsewhere}")
    with db.session() as s:
        assert s.exec(select(User.name)).all() == ["admin"]
    db.dispose()


def test_serve_raises_its_open_files_limit_for_its_connections(tmp_path: Path) -> None:
    """A service started with the common soft limit of 1,024 open files could not hold a full
    server's sockets: `svara serve` raises its own soft limit to MAX_CONNECTIONS + 256
    (within the hard limit). The same number is eventlet's `max_size`; benchmarks/bench_load
    holds 1,000 players' sockets on one process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard == resource.RLIM_INFINITY or hard >= 3000 + 256, "this machine cannot test it"
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:  # the server inherits 1,024
        server = start_server(tmp_path, "eventlet", SVARA_MAX_CONNECTIONS="3000")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        limits = (Path("/proc") / str(server.process.pid) / "limits").read_text()
        row = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert row.split()[3] == str(3000 + 256)
    finally:
        server.stop()


def test_serving_freezes_start_up_and_leaves_full_collections_to_a_clock() -> None:
    """cli/serve.py `gc_for_serving` (a full collection held every table ~220 ms at 1,000
    players, 0.3–1 s at 4,000): start-up's objects frozen out of the collector's walk, and
    Python makes no full collection itself (`collect_when_grown` does). Run in a fresh
    interpreter: it is global."""
    probe = (
        "import gc; from cli.serve import NEVER, gc_for_serving;"
        "young, middle, _ = gc.get_threshold(); gc_for_serving();"
        "print(gc.get_freeze_count() > 10_000,"
        " gc.get_threshold() == (young, middle, NEVER) != (young, middle, 10))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=WAIT, check=True
    )
    assert done.stdout.split() == ["True", "True"], done.stderr


class _Cycle:
    """Garbage only a full collection frees: it refers to itself."""

    def __init__(self) -> None:
        self.me = self


class _Stop(Exception):
    pass


def test_a_full_collection_comes_when_players_who_left_grew_the_process_by_a_quarter() -> None:
    """`collect_when_grown` looks every LOOK_EVERY seconds and frees what only a cycle keeps
    once the peak size grew by GROWTH_FOR_A_COLLECTION since the last collection (the start
    first), counting the minutes in which a connection closed; a minute in which nobody left
    moves the mark up by its growth (the players who came), and a process that did not grow
    so much is left alone (automatic collections off meanwhile: only it can free the cycle)."""
    # the peak size and the connections closed so far, at the start and then at each look;
    # after each collection the size once more (1375 and 2500 twice)
    sizes = iter([1000, 1100, 1300, 1375, 1375, 2000, 2400, 2500, 2500])
    closed = iter([0, 0, 3, 5, 5, 6, 7])
    collected: list[bool] = []  # at each look after the first: was the cycle freed?
    left: list[weakref.ref[_Cycle]] = []
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if left:
            collected.append(left[-1]() is None)
        if len(slept) == 7:
            raise _Stop
        cycle = _Cycle()
        left.append(weakref.ref(cycle))
        del cycle

    automatic = gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(_Stop):
            collect_when_grown(sleep, lambda: next(closed), lambda: next(sizes))
    finally:
        if automatic:
            gc.enable()
        gc.collect()
    assert slept == [LOOK_EVERY] * 7
    # 1100, nobody left: the mark is 1100; 1300 < 1.25 × 1100; 1375: collected. 2000, nobody
    # left: the mark is 1375 + 625; 2400 < 1.25 × 2000; 2500: collected
    assert collected == [False, False, True, False, False, True]


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_a_taken_port_is_one_clear_error(tmp_path: Path, async_mode: str) -> None:
    """No traceback when the port is in use: the reason, the port, exit status 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [SVARA, "serve", "--port", str(port), "--instance", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=WAIT,
            env={**os.environ, "SVARA_ASYNC_MODE": async_mode},
        )
    # eventlet: our message; threading: werkzeug's own, equally clear.
    assert done.returncode == 1
    assert "Address already in use" in done.stderr and str(port) in done.stderr
    assert "Traceback" not in done.stderr


def test_start_upgrades_an_old_database_keeping_its_data(tmp_path: Path) -> None:
    """A database made by an older release (the first revision only, one user in it) is
    brought to the newest revision by the next start, with its rows kept."""
    instance = tmp_path / "instance"
    instance.mkdir()
    db = Database(f"sqlite:///{instance / 'svara.db'}")
    command.upgrade(migrations.alembic_config(db.engine), "0001")
    with db.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (name, password_hash, is_admin, banned, created) "
                "VALUES ('old', '-', 1, 0, '2025-01-01 00:00:00')"
            )
        )
    assert migrations.current(db.engine) == "0001" != migrations.head()
    server = start_server(instance, "threading")
    server.stop()
    assert not any(PASSWORD.search(line) for line in server.output), "users existed already"
    assert migrations.current(db.engine) == migrations.head()
    with db.session() as s:
        assert s.exec(select(User.name)).all() == ["old"]
    db.dispose()


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["systemd", "ctrl-c"])
def test_a_stop_with_players_at_the_table_ends_the_server(
    tmp_path: Path, async_mode: str, stop: signal.Signals
) -> None:
    """systemd's stop (SIGTERM) or Ctrl-C while «Иван» and «Мария» have their pages open:
    the server stops its features and exits by itself (cli/serve.py `ClosingPool`: an open
    websocket never ends on its own), and the pages see their connections close."""
    server = start_server(tmp_path, async_mode)
    with stopped(server):
        pages = []
        for name in ("Иван", "Мария"):
            browser = Browser(server.url)
            browser.register(name)
            pages.append(browser.socket())
        server.process.send_signal(stop)
        assert server.process.wait(timeout=WAIT) == 0, "".join(server.output)
        for page in pages:
            assert page.disconnected.wait(WAIT)
