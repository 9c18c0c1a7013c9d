"""Voice relayed through TURN (docs/hosting.md «Voice through routers»): Debian's coturn with
deploy/turnserver.conf on loopback, `svara serve` with VOICE_TURN_SECRET, and two pages whose
RTCPeerConnection may use relayed candidates only (an init script sets the relay-only ICE
policy, as a browser behind a strict NAT would end up): they hear each other's tone through
coturn, each with his own login — the first to sit only once the second sat down."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Playwright

from tests.server.conftest import start_relayed

from .conftest import CHROMIUM, DESKTOP, Crowd, Player
from .test_front_door import DEPLOY, free_port, running
from .test_voice import EXPOSE_VOICE, FLAGS, connected, grows, voice_on

SECRET = "s3cret-of-the-test"
RELAY_ONLY = """
const Native = window.RTCPeerConnection;
window.RTCPeerConnection = function (config, ...rest) {
  return new Native({ ...(config || {}), iceTransportPolicy: "relay" }, ...rest);
};
window.RTCPeerConnection.prototype = Native.prototype;
"""
# The type of the local candidate of the pair the page's connection uses.
SELECTED = """async () => {
  const stats = await window.voice.pc.getStats();
  for (const s of stats.values()) {
    if (s.type === "transport" && s.selectedCandidatePairId) {
      return stats.get(stats.get(s.selectedCandidatePairId).localCandidateId).candidateType;
    }
  }
  return null;
}"""


def relayed(crowd: Crowd, prefix: str) -> Player:
    player = crowd.add(DESKTOP, prefix)
    player.context.add_init_script(RELAY_ONLY)
    player.context.add_init_script(EXPOSE_VOICE)
    player.page.reload()
    return player


def test_voice_through_a_local_coturn_with_per_player_logins(
    tmp_path: Path, driver: Playwright
) -> None:
    port = free_port()
    coturn = [
        "turnserver",
        "-c",
        str(DEPLOY / "turnserver.conf"),
        "--listening-ip=127.0.0.1",
        f"--listening-port={port}",
        "--relay-ip=127.0.0.1",
        f"--static-auth-secret={SECRET}",
        f"--cli-port={free_port()}",  # the file's CLI port may be another test's coturn's
        "--allow-loopback-peers",  # the SFU is on loopback here: a test-only option,
        "--allowed-peer-ip=127.0.0.1",  # and the one address let through the denied ranges
        f"--userdb={tmp_path / 'turndb'}",
        f"--pidfile={tmp_path / 'turnserver.pid'}",
        "--log-file=stdout",
        "--verbose",  # a line per allocation, with its user
    ]
    with running(coturn, "Total General servers") as log:
        server = start_relayed(tmp_path / "instance", port, SECRET)
        chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        crowd = Crowd(server, chromium)
        try:
            ivan, maria = relayed(crowd, "Иван"), relayed(crowd, "Мария")
            table = ivan.new_table("TURN " + ivan.name, "classic", 3)
            # Alone at the table, Иван's voice gets no relay (nobody would hear him), so
            # his relay-only page cannot connect; once Мария sits, his page's next
            # `voice:ice` brings him a login and it connects through coturn.
            ivan.open_table(table)
            ivan.sit()
            ivan.page.click("#mic")
            maria.open_table(table)
            maria.sit()
            voice_on(maria)
            connected(ivan.page)
            grows(ivan, maria)
            grows(maria, ivan)
            for player in (ivan, maria):
                assert player.page.evaluate(SELECTED) == "relay"
            said = "".join(log)
            for player in (ivan, maria):  # coturn logged each one's own login
                assert re.search(rf"user <\d+:{re.escape(quote(player.name, safe=''))}>", said)
        finally:
            crowd.close()
            chromium.close()
            server.stop()
