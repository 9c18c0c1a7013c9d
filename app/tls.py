"""HTTPS for home hosts (`svara serve --tls`): a self-signed certificate, or given files.

Browsers give the microphone only to a secure context: `http://localhost` is one,
`http://192.168.1.10:5000` is not. So a host who lets friends in over the LAN or the
internet serves HTTPS: with a certificate of their own (`--cert/--key`, e.g. from Let's
Encrypt, or behind a reverse proxy, docs/hosting.md), or with one generated here into the
instance folder. The generated one names localhost and every address of this machine;
each browser shows a warning once and the host accepts it (no CA is involved).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import ifaddr
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.config import TLS_KEY_FILE

CERT_FILE = "tls-cert.pem"
KEY_FILE = TLS_KEY_FILE  # owner-only, and tightened at start (app/config.py)
#: Browsers refuse server certificates valid for longer than 825 days.
VALID_DAYS = 825
#: A generated certificate is replaced this long before it expires.
RENEW_BEFORE = datetime.timedelta(days=30)


class TlsError(ValueError):
    """Unusable certificate files (missing, or key and certificate do not match)."""


@dataclass(frozen=True)
class TlsFiles:
    """A certificate chain and its private key, as PEM files."""

    cert: Path
    key: Path

    def ssl_context(self) -> ssl.SSLContext:
        """A server context (TLS 1.2+); TlsError if the files do not make a pair."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as exc:
            raise TlsError(f"cannot use {self.cert} with {self.key}: {exc}") from exc
        return context

    def names(self) -> frozenset[str]:
        """The host names and addresses the certificate is valid for (its SAN), lower case."""
        try:
            certificate = x509.load_pem_x509_certificate(self.cert.read_bytes())
            alt = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except (OSError, ValueError, x509.ExtensionNotFound):
            return frozenset()
        names = {str(n).lower() for n in alt.value.get_values_for_type(x509.DNSName)}
        names |= {str(ip) for ip in alt.value.get_values_for_type(x509.IPAddress)}
        return frozenset(names)


def local_names(extra: Iterable[str] = ()) -> list[str]:
    """The names a browser may use for this machine: localhost, its hostname, its IPs."""
    names = ["localhost", socket.gethostname(), *extra]
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                names.append(ip.ip)
            elif ip.ip[2] == 0:  # link-local IPv6 (with a scope) is not typed into browsers
                names.append(ip.ip[0])
    return list(dict.fromkeys(n for n in names if n and n not in ("0.0.0.0", "::")))


def _alt_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def generate(cert: Path, key: Path, names: list[str], *, days: int = VALID_DAYS) -> TlsFiles:
    """Write a new self-signed certificate for `names` and its key (owner-only)."""
    private_key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Svara on {names[0]}")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(private_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName([_alt_name(n) for n in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(private_key, hashes.SHA256())
    )
    key_bytes = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an older key file keeps its mode through O_TRUNC
    with os.fdopen(fd, "wb") as out:
        out.write(key_bytes)
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return TlsFiles(cert, key)


def _still_good(cert: Path, names: list[str]) -> bool:
    """The certificate exists, is not about to expire and names every one of `names`."""
    try:
        certificate = x509.load_pem_x509_certificate(cert.read_bytes())
    except (OSError, ValueError):
        return False
    if certificate.not_valid_after_utc - RENEW_BEFORE < datetime.datetime.now(datetime.UTC):
        return False
    try:
        alt = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    covered = {str(n) for n in alt.get_values_for_type(x509.DNSName)}
    covered |= {str(ip) for ip in alt.get_values_for_type(x509.IPAddress)}
    return all(str(_alt_name(n).value) in covered for n in names)


def tls_files(
    instance: Path,
    cert: Path | None = None,
    key: Path | None = None,
    hosts: Iterable[str] = (),
) -> TlsFiles:
    """The files `svara serve --tls` uses: `cert`/`key` when given (checked), else the
    instance folder's self-signed pair, (re)generated when missing, expiring, or not
    naming one of `hosts` (e.g. the --host address or a DNS name)."""
    if cert is not None or key is not None:
        if cert is None or key is None:
            raise TlsError("give both --cert and --key, or neither")
        given = TlsFiles(cert, key)
        given.ssl_context()
        return given
    files = TlsFiles(instance / CERT_FILE, instance / KEY_FILE)
    names = local_names(hosts)
    if not (files.key.exists() and _still_good(files.cert, names)):
        generate(files.cert, files.key, names)
    return files


def lan_addresses(adapters: Iterable[ifaddr.Adapter] | None = None) -> list[str]:
    """The IPv4 addresses other machines of the LAN reach this one at (`svara serve --lan`):
    not loopback nor link-local; private ranges (a home router's) first. `adapters`:
    ifaddr's list, this machine's unless given."""
    found = []
    for adapter in ifaddr.get_adapters() if adapters is None else adapters:
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6: nobody types those into a phone
            address = ipaddress.IPv4Address(ip.ip)
            if not (address.is_loopback or address.is_link_local or address.is_unspecified):
                found.append(address)
    unique = list(dict.fromkeys(found))
    return [str(a) for a in sorted(unique, key=lambda a: not a.is_private)]
