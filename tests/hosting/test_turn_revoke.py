"""A relay ends with its player's voice (docs/hosting.md «TURN: the relay is not a way into
the house»): Debian's coturn with deploy/turnserver.conf on loopback, its admin CLI on a
port of the test's own, and a real `svara serve` handing out the logins. coturn grants an
allocation's refreshes long after its login expired, so only the CLI's `cs` ends it: once
Иван stands up, his allocation's next refresh is refused, while Мария's, still seated, is
granted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aioice import stun
from aioice.turn import TurnClientMixin, TurnTransport, create_turn_endpoint

from app.voice.settings import turn_credentials
from tests.browser.test_front_door import DEPLOY, free_port, running
from tests.server.conftest import WAIT, start_relayed, stopped
from tests.server.tablekit import Player, grant, new_table
from tests.server.voice.test_serve_voice import join_voice

SECRET = "s3cret-of-the-revoke-test"
CLI_PASSWORD = "cli-password-7"  # ASCII: the CLI compares bytes a terminal sends
Turn = tuple[int, int]  # coturn's TURN port and its CLI's


@pytest.fixture
def coturn(tmp_path: Path) -> Iterator[Turn]:
    port, cli = free_port(), free_port()
    command = [
        *("turnserver", "-c", str(DEPLOY / "turnserver.conf")),
        "--listening-ip=127.0.0.1",
        f"--listening-port={port}",
        "--relay-ip=127.0.0.1",
        "--no-tls",  # the file's TLS listener needs a certificate this test has not
        f"--static-auth-secret={SECRET}",
        f"--cli-port={cli}",
        f"--cli-password={CLI_PASSWORD}",
        f"--userdb={tmp_path / 'turndb'}",
        f"--pidfile={tmp_path / 'turnserver.pid'}",
        "--log-file=stdout",
        "--verbose",  # the line that says the CLI listens
    ]
    with running(command, "CLI listener opened"):
        yield port, cli


async def allocate(port: int, login: tuple[str, str]) -> tuple[TurnTransport, TurnClientMixin]:
    """An allocation whose refreshes the test sends itself (aioice's own task stopped)."""
    transport, _ = await create_turn_endpoint(
        asyncio.DatagramProtocol, ("127.0.0.1", port), *login, lifetime=600
    )
    inner: TurnClientMixin = transport._TurnTransport__inner_protocol  # type: ignore[attr-defined]
    assert inner.refresh_task is not None
    inner.refresh_task.cancel()
    return transport, inner


async def refreshed(inner: TurnClientMixin) -> bool:
    """One Refresh (RFC 8656 §7): granted, or refused (or unanswered)."""
    request = stun.Message(message_method=stun.Method.REFRESH, message_class=stun.Class.REQUEST)
    request.attributes["LIFETIME"] = 600
    try:
        await inner.request_with_retry(request)
    except (stun.TransactionFailed, stun.TransactionTimeout):
        return False
    return True


def test_coturn_grants_refreshes_past_the_logins_expiry(coturn: Turn) -> None:
    """Why a short login is not enough: coturn checks its expiry at the Allocate only."""
    port, _ = coturn

    async def run() -> bool:
        transport, inner = await allocate(port, turn_credentials(SECRET, "Ёж", 1, time.time()))
        await asyncio.sleep(2.5)  # the login's expiry passes: what is tested, not a wait for
        try:
            return await refreshed(inner)
        finally:
            transport.close()

    assert asyncio.run(run())


def test_standing_up_ends_the_relay_his_page_kept_refreshing(coturn: Turn, tmp_path: Path) -> None:
    """Fails without the CLI's `cs` (before VOICE_TURN_CLI): Иван's refreshes stay granted."""
    port, cli = coturn
    server = start_relayed(
        tmp_path / "instance",
        port,
        SECRET,
        SVARA_VOICE_TURN_CLI=f"127.0.0.1:{cli}",
        SVARA_VOICE_TURN_CLI_PASSWORD=CLI_PASSWORD,
    )
    with stopped(server):
        table = new_table(server, "classic", seats=4)
        ivan, maria = Player(server, table, "Иван"), Player(server, table, "Мария")
        try:
            logins = {}
            for player in (ivan, maria):
                grant(server, player.name, 100)
                player.join()
                player.sit()
            for player in (ivan, maria):
                (entry,) = join_voice(player.client, table)["iceServers"]
                logins[player.name] = (entry["username"], entry["credential"])
            ivan_kept, maria_kept = asyncio.run(
                relays(port, logins, lambda: ivan.call("table:stand"))
            )
            assert not ivan_kept, "Иван's relay outlived his seat"
            assert maria_kept
        finally:
            ivan.close()
            maria.close()


async def relays(
    port: int, logins: dict[str, tuple[str, str]], stand: Callable[[], object]
) -> tuple[bool, bool]:
    """Both allocate and refresh; Иван stands up; then Иван's refreshes until one is refused
    (within WAIT) and one of Мария's: whether each was still granted."""
    ivan, ivan_inner = await allocate(port, logins["Иван"])
    maria, maria_inner = await allocate(port, logins["Мария"])
    try:
        assert await refreshed(ivan_inner) and await refreshed(maria_inner)
        assert await asyncio.to_thread(stand) == {"ok": True}
        deadline = time.monotonic() + WAIT
        kept = True
        while kept and time.monotonic() < deadline:
            kept = await refreshed(ivan_inner)
            await asyncio.sleep(0.2)  # a page's next refresh, polled until the deadline
        return kept, await refreshed(maria_inner)
    finally:
        ivan.close()
        maria.close()
