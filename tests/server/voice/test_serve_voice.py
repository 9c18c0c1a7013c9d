"""`svara serve --tls` with the voice chat wired in (C-8.3): HTTPS with the certificate it
generated, the SFU as a supervised child process (restarted after kill -9), and the voice
lifetimes at a real table: seated players only, and standing up, a kick and closing the
table each end the right voice (docs/protocol.md «Voice»).

Everything is on loopback; the SFU offers 127.0.0.1 only. Events are waited for with
timeouts and the SFU's room count is read from its own socket; the one retry loop is the
first `voice:join`, asked again while a new SFU is still starting (it says so).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from app.tls import CERT_FILE, generate
from app.voice.client import SfuClient
from app.voice.settings import socket_path

from ..conftest import (
    ASYNC_MODES,
    SVARA,
    WAIT,
    Browser,
    Client,
    Server,
    TlsClient,
    start_server,
    stopped,
    unique_name,
)
from ..tablekit import grant, new_table

VOICE_ENV = {"SVARA_VOICE_ADDRESSES": '["127.0.0.1"]'}
RESTARTING = "voice is restarting"


def sfu_pids(server: Server) -> list[int]:
    """The server's child processes that run the SFU (`python -m rtc`)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.process.pid and command[1:3] == [b"-m", b"rtc"]:
            pids.append(int(entry.name))
    return pids


def tls_socket(browser: Browser, cert: Path) -> TlsClient:
    """A Socket.IO client over wss:// that trusts exactly the server's own certificate."""
    client = TlsClient(cert)
    client.connect(browser.url, browser.cookie_header())
    return client


def join_voice(client: Client, table: int) -> dict[str, Any]:
    """`voice:join`, asked again while the SFU is (re)starting (bounded by WAIT)."""
    done = threading.Event()
    for _ in range(int(WAIT / 0.05)):
        ack = client.call("voice:join", {"table": table})
        if ack.get("error") != RESTARTING:
            return ack
        done.wait(0.05)  # the SFU is still importing aiortc: ask again shortly
    raise AssertionError("the voice SFU never came up")


def rooms(sfu: SfuClient) -> int:
    return int(sfu.request("stats")["rooms"])


def admin(server: Server, *args: str) -> None:
    """`svara admin` as its own process (it waits for the server to apply the notice)."""
    subprocess.run(
        [SVARA, "admin", "--instance", str(server.instance), *args],
        check=True,
        capture_output=True,
        timeout=3 * WAIT,
    )


@pytest.fixture(params=ASYNC_MODES)
def tls_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path / "instance", request.param, "--tls", **VOICE_ENV)
    with stopped(server):
        yield server


def test_tls_serves_https_with_the_generated_certificate(tls_server: Server) -> None:
    cert = tls_server.instance / CERT_FILE
    assert tls_server.url.startswith("https://127.0.0.1:")
    page = requests.get(tls_server.url + "/login", verify=str(cert), timeout=WAIT)
    assert page.status_code == 200 and "csrf_token" in page.text
    with pytest.raises(requests.exceptions.SSLError):  # self-signed: no public CA vouches
        requests.get(tls_server.url + "/login", timeout=WAIT)


def seat_voice(client: Client, player: str, **expected: Any) -> dict[str, Any] | None:
    """The voice of `player`'s seat in the next `table:state` where it has these fields
    (earlier states are passed over); with none, the next state where he has no seat."""
    while True:
        state = client.wait("table:state")
        seat = next((s for s in state["seats"] if s and s["name"] == player), None)
        if seat is None and not expected:
            return None
        voice = seat and seat["voice"]
        if voice and expected and all(voice[key] == value for key, value in expected.items()):
            return dict(voice)


def unread(client: Client) -> list[tuple[str, Any]]:
    """Every event the client got, read by the test or not."""
    while not client.events.empty():
        client.seen.append(client.events.get_nowait())
    return client.seen


def test_the_sfu_is_supervised_and_voice_follows_the_seats(tls_server: Server) -> None:
    server = tls_server
    cert = server.instance / CERT_FILE
    sfu = SfuClient.connect(socket_path(server.instance), lambda event: None)
    table = new_table(server, "classic", seats=3)
    names: dict[str, str] = {}
    clients: dict[str, Client] = {}
    try:
        for who in ("ann", "bob", "sam"):
            browser = Browser(server.url)
            browser.http.verify = str(cert)
            browser.http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
            browser.http.headers["Referer"] = server.url + "/"  # CSRF over HTTPS checks it
            names[who] = unique_name(who)
            browser.register(names[who])
            grant(server, names[who], 10)  # a seat needs the ante (docs/rules.md)
            clients[who] = tls_socket(browser, cert)
            assert clients[who].call("table:join", {"table": table})["state"]
        ann, bob, sam = clients["ann"], clients["bob"], clients["sam"]
        for client in (ann, bob):
            assert client.call("table:sit", {"table": table}) == {"ok": True}

        # Seated players join the voice; a spectator is refused.
        joined = join_voice(ann, table)
        assert (joined["ok"], joined["slots"], joined["mic"], joined["listen"]) == (
            True,
            2,
            True,
            True,
        )
        refused = sam.call("voice:join", {"table": table})
        assert refused == {"ok": False, "error": "voice is for the players seated at the table"}
        assert join_voice(bob, table)["ok"]
        assert ann.call("voice:mic", {"table": table, "on": False}) == {"ok": True}
        # No page offered: she is not in the voice, her toggle shows (table:state, seated).
        assert seat_voice(bob, names["ann"], mic=False)["in"] is False  # type: ignore[index]
        assert rooms(sfu) == 1

        # kill -9: the supervisor starts a new SFU; the seated pages are told to re-offer,
        # and the toggles the web process kept come back with the re-join.
        (old,) = sfu_pids(server)
        os.kill(old, signal.SIGKILL)
        assert ann.wait("voice:restart") == {"table": table}
        assert bob.wait("voice:restart") == {"table": table}
        again = join_voice(ann, table)
        assert again["ok"] and again["mic"] is False
        (new,) = sfu_pids(server)
        assert new != old
        sfu.close()
        sfu = SfuClient.connect(socket_path(server.instance), lambda event: None)
        assert rooms(sfu) == 1

        # Standing up ends the player's voice; the others see him go.
        assert bob.call("table:stand", {"table": table}) == {"ok": True}
        assert seat_voice(ann, names["bob"]) is None
        assert bob.call("voice:join", {"table": table})["ok"] is False

        # A kick by the admin does too; closing the table ends its room.
        assert bob.call("table:sit", {"table": table}) == {"ok": True}
        assert join_voice(bob, table)["ok"]
        admin(server, "table", "kick", str(table), names["bob"])
        assert seat_voice(ann, names["bob"]) is None
        assert rooms(sfu) == 1  # ann is still in it
        admin(server, "table", "close", str(table))
        assert ann.wait("table:closed")["table"] == table
        assert rooms(sfu) == 0

        # The spectator never got a voice event (not even the restart), nor a seat's voice.
        assert not [event for event, _ in unread(sam) if event.startswith("voice:")]
        shown = [s["voice"] for e, d in unread(sam) if e == "table:state" for s in d["seats"] if s]
        assert shown and not any(shown)

        # Ctrl-C stops the server and, before it exits, the SFU it started.
        server.stop(signal.SIGINT)
        assert server.process.returncode == 0, "".join(server.output)
        assert not Path(f"/proc/{new}").exists()
    finally:
        sfu.close()
        for client in clients.values():
            client.close()


def test_voice_off_starts_no_sfu(tmp_path: Path) -> None:
    server = start_server(tmp_path / "instance", "eventlet", SVARA_VOICE="false")
    try:
        browser = Browser(server.url)
        name = unique_name("off")
        browser.register(name)
        grant(server, name, 10)  # a seat needs the ante (docs/rules.md)
        client = browser.socket()
        table = new_table(server, "classic", seats=3)
        client.call("table:join", {"table": table})
        assert client.call("table:sit", {"table": table}) == {"ok": True}
        ack = client.call("voice:join", {"table": table})
        assert ack == {"ok": False, "error": "voice is not enabled on this server"}
        assert sfu_pids(server) == []
        client.close()
    finally:
        server.stop()


def test_tls_with_given_files_and_a_clear_error_for_a_bad_pair(tmp_path: Path) -> None:
    """--cert/--key: the host's own certificate is served as given; a key that does not
    match it stops the start with one line saying so."""
    own = generate(tmp_path / "chain.pem", tmp_path / "own.key", ["localhost", "127.0.0.1"])
    server = start_server(
        tmp_path / "instance", "eventlet", "--cert", str(own.cert), "--key", str(own.key)
    )
    try:
        page = requests.get(server.url + "/login", verify=str(own.cert), timeout=WAIT)
        assert page.status_code == 200
        assert not (server.instance / CERT_FILE).exists()  # nothing generated
    finally:
        server.stop()
    other = generate(tmp_path / "other.pem", tmp_path / "other.key", ["localhost"])
    mismatched = ["--cert", str(own.cert), "--key", str(other.key)]
    refused = subprocess.run(
        [SVARA, "serve", "--instance", str(tmp_path / "instance"), *mismatched],
        capture_output=True,
        text=True,
        timeout=3 * WAIT,
    )
    assert refused.returncode == 1
    assert f"cannot use {own.cert} with {other.key}" in refused.stderr
