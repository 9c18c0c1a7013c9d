"""The front doors of deploy/ in front of a real `svara serve` (docs/hosting.md «A domain
behind Caddy»): Debian's caddy with deploy/Caddyfile (`tls internal`), and Debian's nginx with
deploy/nginx.conf, each on loopback. Through each, two people in Chromium register, play a hand
by clicking and talk over the voice chat (its signalling passes the proxy; the media goes
straight to the SFU on loopback, as docs/hosting.md says), whose answer also offers the
stated VOICE_PUBLIC_ADDRESS.

Chromium ignores certificate errors here only (the proxies' certificates are made for the
test); nothing binds an address but 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from playwright.sync_api import Playwright

from app.tls import generate
from tests.server.conftest import WAIT, start_server

from .conftest import CHROMIUM, Crowd, Table
from .test_voice import FLAGS, grows, join, voice_on

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PUBLIC = "127.0.0.3"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(command: list[str], ready: str, **env: str) -> Iterator[list[str]]:
    """A proxy (or TURN) process until the block ends, once its log (stdout and stderr)
    said `ready`; its log lines, growing."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **env},
    )
    lines: queue.Queue[str | None] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=WAIT)
            assert line is not None, f"{command[0]} exited: {''.join(log)}"
            if ready in line:
                break
        yield log
    finally:
        process.terminate()
        process.wait(timeout=WAIT)


def handshakes(port: int, ca: Path) -> None:
    """Until a TLS handshake with `port` succeeds: caddy logs that it obtained its internal
    certificate a moment before it serves it (bounded: 200 tries, 50 ms apart)."""
    context = ssl.create_default_context(cafile=str(ca))
    for _ in range(200):
        try:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=WAIT) as raw,
                context.wrap_socket(raw, server_hostname="127.0.0.1"),
            ):
                return
        except ssl.SSLError:
            threading.Event().wait(0.05)
    raise AssertionError(f"no TLS handshake with 127.0.0.1:{port}")


@contextmanager
def caddy(folder: Path, upstream: int) -> Iterator[tuple[str, Path]]:
    """deploy/Caddyfile as it is, set for a LAN (`tls internal`) on a loopback port."""
    port = free_port()
    with running(
        ["caddy", "run", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        '"certificate obtained successfully"',
        SVARA_SITE=f"https://127.0.0.1:{port}",
        SVARA_TLS="internal",
        SVARA_UPSTREAM=f"127.0.0.1:{upstream}",
        SVARA_BIND="127.0.0.1",
        SVARA_HTTP_PORT=str(free_port()),
        SVARA_CADDY_ADMIN="off",
        HOME=str(folder),
        XDG_DATA_HOME=str(folder / "data"),
        XDG_CONFIG_HOME=str(folder / "config"),
    ):
        root = folder / "data/caddy/pki/authorities/local/root.crt"
        handshakes(port, root)
        yield f"https://127.0.0.1:{port}", root


def rendered_nginx(port: int, upstream: int, cert: Path, key: Path) -> str:
    """deploy/nginx.conf with the test's port, upstream and certificate (each replaced line
    must be there, so a change of the file is a change of the test)."""
    text = (DEPLOY / "nginx.conf").read_text()
    for old, new in [
        ("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;"),
        ("listen [::]:443 ssl;", ""),
        ("/etc/letsencrypt/live/svara.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/svara.example.org/privkey.pem", str(key)),
        ("http://127.0.0.1:5000;", f"http://127.0.0.1:{upstream};"),
    ]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@contextmanager
def nginx(folder: Path, upstream: int) -> Iterator[tuple[str, Path]]:
    """deploy/nginx.conf in a minimal nginx.conf of its own (pid, logs and temp files in
    `folder`), on a loopback port."""
    port = free_port()
    files = generate(folder / "cert.pem", folder / "key.pem", ["127.0.0.1"])
    (folder / "svara.conf").write_text(rendered_nginx(port, upstream, files.cert, files.key))
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"pid {folder / 'nginx.pid'};\nerror_log stderr notice;\nevents {{}}\n"
        f"http {{ access_log off; {temp} include {folder / 'svara.conf'}; }}\n"
    )
    command = ["nginx", "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"]
    with running(command, "start worker process"):  # after the listening socket is bound
        yield f"https://127.0.0.1:{port}", files.cert


DOORS = {"caddy": caddy, "nginx": nginx}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_hand_and_voice_through_the_front_door(
    door: str, tmp_path: Path, driver: Playwright
) -> None:
    server = start_server(
        tmp_path / "instance",
        "eventlet",
        SVARA_TRUST_PROXY="1",
        SVARA_VOICE_ADDRESSES='["127.0.0.1"]',
        # A router's address stated (docs/hosting.md): a loopback one nobody listens on, so
        # the browser's checks to it stay on this machine and the host candidate wins.
        SVARA_VOICE_PUBLIC_ADDRESS=PUBLIC,
    )
    upstream = urlsplit(server.url).port
    assert upstream is not None
    (tmp_path / door).mkdir()
    try:
        with DOORS[door](tmp_path / door, upstream) as (url, ca):
            http = requests.Session()
            http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
            assert http.get(url + "/login", verify=str(ca), timeout=WAIT).status_code == 200
            # The proxy tells the client's own address (this machine's here, so the health
            # check answers; a visitor's elsewhere: tests/hosting/test_health.py).
            assert http.get(url + "/metrics", verify=str(ca), timeout=WAIT).status_code == 200
            chromium = driver.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=[*FLAGS, "--ignore-certificate-errors"],
            )
            crowd = Crowd(dataclasses.replace(server, url=url), chromium)
            try:
                ivan, maria = join(crowd, "Иван"), join(crowd, "Мария")
                table = Table([ivan, maria], ivan.new_table("Дверь " + ivan.name, "classic", 3))
                table.seat_everyone()
                table.start()
                table.do("Дал 10")
                table.do("Упал")
                table.over()
                for player in (ivan, maria):
                    voice_on(player)
                grows(ivan, maria)
                grows(maria, ivan)
                answer = ivan.page.evaluate("window.voice.pc.remoteDescription.sdp")
                assert re.search(rf"{PUBLIC} (\d+) typ srflx raddr 127\.0\.0\.1 rport \1", answer)
                assert not ivan.errors and not maria.errors, ivan.errors + maria.errors
            finally:
                crowd.close()
                chromium.close()
    finally:
        server.stop()
