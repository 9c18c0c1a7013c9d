"""Voice for a phone on a network that drops UDP and lets only TCP 443 out (docs/hosting.md
«TURN on 443»): Debian's coturn with deploy/turnserver.conf, `svara serve` with
VOICE_TURNS_PORT=443, and two Chromium pages that hear each other's tone through coturn over
TLS. Nobody forces the relay: every other way (the SFU's own UDP address, TURN over UDP on
3478) is offered and dropped, and ICE finds the one that is left.

Two network namespaces of the test's own joined by a veth pair, nothing else: «the server»
holds `svara serve` with its SFU (10.79.0.1, HTTPS on 443) and coturn (10.79.0.2, TLS on
443); «the phone» (10.79.0.3) runs Chromium behind a firewall (nftables, its output chain)
that passes TCP to port 443 and drops everything else, counting the UDP it drops. A CA made
here signed the certificate of both; Chromium trusts it through the NSS database under its
own HOME (Chromium reads the user's NSS database on Linux), as a phone trusts Let's Encrypt.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from playwright.sync_api import Playwright

from app.voice.settings import VoiceSettings
from tests.hosting.test_turn_relay import ip
from tests.server.conftest import SVARA, WAIT, start_server

from .conftest import CHROMIUM, DESKTOP, Crowd
from .test_front_door import DEPLOY, running
from .test_voice import EXPOSE_VOICE, FLAGS, grows, voice_on

SECRET = "s3cret-of-the-tls-test"
WEB = "10.79.0.1"  # svara serve and its SFU
TURN = "10.79.0.2"  # coturn
PHONE = "10.79.0.3"  # the phone's browser
STUN = {"urls": "stun:stun.example.org:3478"}
# The phone's network: TCP to 443 goes out, nothing else does; the UDP it drops is counted.
HOTEL = """
table inet hotel {
  counter udp_dropped { }
  chain out {
    type filter hook output priority filter; policy drop;
    tcp dport 443 accept
    meta l4proto udp counter name "udp_dropped" drop
  }
}
"""
# The pair the page's connection uses: its local candidate's type and the protocol
# between the browser and its TURN server (RTCIceCandidateStats.relayProtocol).
SELECTED = """async () => {
  const stats = await window.voice.pc.getStats();
  for (const s of stats.values()) {
    if (s.type === "transport" && s.selectedCandidatePairId) {
      const local = stats.get(stats.get(s.selectedCandidatePairId).localCandidateId);
      return [local.candidateType, local.relayProtocol, local.url];
    }
  }
  return null;
}"""


def test_the_browsers_are_offered_turn_over_tls_with_their_own_login(tmp_path: Path) -> None:
    voice = VoiceSettings.from_config(
        {
            "VOICE_ICE_SERVERS": [{"urls": f"turn:{TURN}:3478?transport=udp"}],
            "VOICE_TURN_SECRET": SECRET,
            "VOICE_TURNS_PORT": 443,
        },
        tmp_path,
    )
    (relay,) = voice.browser_ice_servers("Ёж", now=1_800_000_000)
    assert relay["urls"] == [f"turn:{TURN}:3478?transport=udp", f"turns:{TURN}:443?transport=tcp"]
    assert relay["username"] == "1800000600:%D0%81%D0%B6"
    assert voice.browser_ice_servers("Ёж", relay=False) == []


@pytest.mark.parametrize(
    ("given", "offered"),
    [
        (
            ["turn:turn.example.org:3478?transport=udp", "turn:turn.example.org?transport=tcp"],
            ["turns:turn.example.org:443?transport=tcp"],
        ),
        ("turn:[2001:db8::7]:3478", ["turns:[2001:db8::7]:443?transport=tcp"]),
        (["turns:relay.example.org:5349"], []),  # listed over TLS already: left as it is
    ],
)
def test_each_turn_host_once_more_over_tls(
    tmp_path: Path, given: str | list[str], offered: list[str]
) -> None:
    voice = VoiceSettings.from_config(
        {"VOICE_ICE_SERVERS": [{"urls": given}, STUN], "VOICE_TURNS_PORT": "443"}, tmp_path
    )
    relay, stun = voice.browser_ice_servers("Мария 🃏")
    assert relay["urls"] == [*([given] if isinstance(given, str) else given), *offered]
    assert stun == STUN


@pytest.mark.parametrize("port", [0, 65536, "443/tcp", True, 4.43])
def test_a_turns_port_that_is_no_port_stops_the_start(tmp_path: Path, port: object) -> None:
    with pytest.raises(ValueError, match="VOICE_TURNS_PORT must be a port number"):
        VoiceSettings.from_config({"VOICE_TURNS_PORT": port}, tmp_path)


@pytest.fixture
def networks() -> Iterator[tuple[str, str]]:
    """«The server» and «the phone»: two namespaces and one veth pair between them."""
    server, phone = f"svara-tls-{os.getpid()}", f"svara-phone-{os.getpid()}"
    ip("netns", "add", server)
    try:
        ip("netns", "add", phone)
        try:
            ip(*f"-n {server} link add lan0 type veth peer name phone0 netns {phone}".split())
            for address in (WEB, TURN):
                ip("-n", server, "addr", "add", f"{address}/24", "dev", "lan0")
            ip("-n", phone, "addr", "add", f"{PHONE}/24", "dev", "phone0")
            # No IPv6 link-local address: its arrival, once the link is up, is a network
            # change to Chromium, which aborted the first page load (ERR_NETWORK_CHANGED).
            for name, link in ((server, "lan0"), (phone, "phone0")):
                ip("-n", name, "link", "set", link, "addrgenmode", "none")
            for name, link in ((server, "lan0"), (server, "lo"), (phone, "phone0")):
                ip("-n", name, "link", "set", link, "up")
            nft(phone, "-f", "-", rules=HOTEL)
            yield server, phone
        finally:
            ip("netns", "del", phone)
    finally:
        ip("netns", "del", server)


def in_namespace(folder: Path, name: str, namespace: str, program: str) -> Path:
    """An executable that runs `program` (with its arguments) inside `namespace`."""
    wrapper = folder / name
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {namespace} {program} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA of this test's own, and a certificate it signed for the server's two addresses
    (the pages and the relay); the CA's file, the certificate's and its key's."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Svara test CA")])

    def issued(subject: x509.Name, public: ec.EllipticCurvePublicKey) -> x509.CertificateBuilder:
        return (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(ca_name)
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
        )

    ca = (
        issued(ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    names = [x509.IPAddress(ipaddress.ip_address(a)) for a in (WEB, TURN)]
    server = (
        issued(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, WEB)]), key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


def trusting(home: Path, ca: Path) -> Path:
    """A HOME whose NSS database (where Chromium on Linux looks for the certificates its
    user added) trusts `ca` for servers (`C,,`)."""
    database = home / ".pki" / "nssdb"
    database.mkdir(parents=True)
    for command in (
        ["-N", "--empty-password"],
        ["-A", "-n", "Svara test CA", "-t", "C,,", "-i", str(ca)],
    ):
        subprocess.run(
            ["certutil", "-d", f"sql:{database}", *command],
            check=True,
            capture_output=True,
            timeout=WAIT,
        )
    return home


def nft(namespace: str, *args: str, rules: str | None = None) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", namespace, "nft", *args],
        input=rules,
        check=True,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    return done.stdout


def dropped_udp(phone: str) -> int:
    """Packets of UDP the phone's firewall dropped so far."""
    listed = json.loads(nft(phone, "-j", "list", "counter", "inet", "hotel", "udp_dropped"))
    (counter,) = [item["counter"] for item in listed["nftables"] if "counter" in item]
    return int(counter["packets"])


def test_phones_behind_a_firewall_that_lets_only_443_out_talk_through_turn_over_tls(
    tmp_path: Path, driver: Playwright, networks: tuple[str, str]
) -> None:
    server_side, phone = networks
    ca, cert, key = certificates(tmp_path)
    coturn = [
        *("ip", "netns", "exec", server_side, "turnserver", "-c", str(DEPLOY / "turnserver.conf")),
        f"--listening-ip={TURN}",
        f"--relay-ip={TURN}",
        f"--cert={cert}",
        f"--pkey={key}",
        f"--static-auth-secret={SECRET}",
        f"--allowed-peer-ip={WEB}",  # the SFU: the one private address the relay may reach
        f"--userdb={tmp_path / 'turndb'}",
        f"--pidfile={tmp_path / 'turnserver.pid'}",
        "--log-file=stdout",
        "--verbose",
    ]
    # Ready once it listens for TLS on 443: the file opens that port (it said no-tls before).
    with running(coturn, f"TLS/TCP listener opened on : {TURN}:443"):
        server = start_server(
            tmp_path / "instance",
            "eventlet",
            *("--host", WEB, "--port", "443", "--cert", str(cert), "--key", str(key)),
            svara=str(in_namespace(tmp_path, "svara", server_side, SVARA)),
            SVARA_VOICE_ADDRESSES=json.dumps([WEB]),
            SVARA_VOICE_ICE_SERVERS=json.dumps([{"urls": f"turn:{TURN}:3478?transport=udp"}]),
            SVARA_VOICE_TURN_SECRET=SECRET,
            SVARA_VOICE_TURNS_PORT="443",
        )
        try:
            chromium = driver.chromium.launch(
                executable_path=in_namespace(tmp_path, "chromium", phone, CHROMIUM),
                headless=True,
                args=FLAGS,
                env={**os.environ, "HOME": str(trusting(tmp_path / "home", ca))},
            )
            crowd = Crowd(server, chromium)
            try:
                ivan, maria = (crowd.add(DESKTOP, prefix) for prefix in ("Иван", "Мария"))
                for player in (ivan, maria):
                    player.context.add_init_script(EXPOSE_VOICE)
                table = ivan.new_table("443 " + ivan.name, "classic", 3)
                for player in (ivan, maria):  # a relay login only with someone to hear
                    player.open_table(table)
                    player.sit()
                for player in (ivan, maria):
                    voice_on(player)
                grows(ivan, maria)
                grows(maria, ivan)
                for player in (ivan, maria):
                    pair = player.page.evaluate(SELECTED)
                    assert pair == ["relay", "tls", f"turns:{TURN}:443?transport=tcp"]
                assert dropped_udp(phone) > 0  # the pages tried UDP first, and lost it
            finally:
                crowd.close()
                chromium.close()
        finally:
            server.stop()
