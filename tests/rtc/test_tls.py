"""`--tls` support (app/tls.py): generated or given certificates, used for a real handshake."""

from __future__ import annotations

import datetime
import socket
import ssl
import stat
import subprocess
import sys
import textwrap
import threading
import urllib.request
from pathlib import Path

import pytest
from cryptography import x509

from app.tls import CERT_FILE, KEY_FILE, TlsError, generate, tls_files


def alt_names(cert: Path) -> set[str]:
    certificate = x509.load_pem_x509_certificate(cert.read_bytes())
    alt = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(v) for v in alt.get_values_for_type(x509.DNSName)} | {
        str(v) for v in alt.get_values_for_type(x509.IPAddress)
    }


def handshake(files_cert: Path, context: ssl.SSLContext, server_name: str) -> str:
    """A TLS client on loopback that trusts exactly `files_cert`; returns the echoed line."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve() -> None:
            connection, _ = listener.accept()
            with context.wrap_socket(connection, server_side=True) as tls:
                tls.sendall(tls.recv(100))

        server = threading.Thread(target=serve)
        server.start()
        client_context = ssl.create_default_context(cafile=str(files_cert))
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
            client_context.wrap_socket(raw, server_hostname=server_name) as tls,
        ):
            tls.sendall(b"svara")
            echoed = tls.recv(100).decode()
        server.join(timeout=10)
        return echoed


def test_generated_certificate_serves_https_for_localhost_and_the_lan(tmp_path: Path) -> None:
    files = tls_files(tmp_path, hosts=["svara.home.arpa"])
    assert (files.cert, files.key) == (tmp_path / CERT_FILE, tmp_path / KEY_FILE)
    assert stat.S_IMODE(files.key.stat().st_mode) == 0o600
    names = alt_names(files.cert)
    assert {"localhost", "127.0.0.1", "svara.home.arpa"} <= names
    context = files.ssl_context()
    assert handshake(files.cert, context, "localhost") == "svara"
    assert handshake(files.cert, context, "127.0.0.1") == "svara"


def test_the_generated_pair_is_kept_until_it_no_longer_fits(tmp_path: Path) -> None:
    first = tls_files(tmp_path)
    pem = first.cert.read_bytes()
    assert tls_files(tmp_path).cert.read_bytes() == pem  # restarts keep the accepted cert
    assert tls_files(tmp_path, hosts=["new.example"]).cert.read_bytes() != pem  # new name
    generate(first.cert, first.key, ["localhost"], days=10)  # about to expire
    renewed = tls_files(tmp_path)
    certificate = x509.load_pem_x509_certificate(renewed.cert.read_bytes())
    assert certificate.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + (
        datetime.timedelta(days=800)
    )


def test_given_files_are_used_as_they_are(tmp_path: Path) -> None:
    own = generate(tmp_path / "own.pem", tmp_path / "own.key", ["game.example"])
    files = tls_files(tmp_path, own.cert, own.key)
    assert files == own
    assert not (tmp_path / CERT_FILE).exists()
    assert handshake(own.cert, files.ssl_context(), "game.example") == "svara"


def test_mismatched_or_partial_given_files_are_refused(tmp_path: Path) -> None:
    one = generate(tmp_path / "a.pem", tmp_path / "a.key", ["a.example"])
    other = generate(tmp_path / "b.pem", tmp_path / "b.key", ["b.example"])
    with pytest.raises(TlsError, match="cannot use"):
        tls_files(tmp_path, one.cert, other.key)
    with pytest.raises(TlsError, match="both"):
        tls_files(tmp_path, one.cert, None)
    with pytest.raises(TlsError):
        tls_files(tmp_path, tmp_path / "missing.pem", one.key)


def test_eventlet_serves_https_with_the_generated_pair(tmp_path: Path) -> None:
    """The call `svara serve --tls` makes under eventlet: wsgi over eventlet.wrap_ssl."""
    script = textwrap.dedent(
        f"""
        import warnings
        warnings.filterwarnings("ignore")
        import eventlet
        eventlet.monkey_patch()
        import eventlet.wsgi
        from pathlib import Path
        from app.tls import tls_files

        files = tls_files(Path({str(tmp_path)!r}))
        listener = eventlet.wrap_ssl(
            eventlet.listen(("127.0.0.1", 0)),
            certfile=str(files.cert), keyfile=str(files.key), server_side=True,
        )
        print(listener.getsockname()[1], flush=True)

        def app(environ, start_response):
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"secure " + environ["wsgi.url_scheme"].encode()]

        eventlet.wsgi.server(listener, app, log_output=False)
        """
    )
    root = Path(__file__).resolve().parents[2]
    server = subprocess.Popen(
        [sys.executable, "-c", script], cwd=root, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        context = ssl.create_default_context(cafile=str(tmp_path / CERT_FILE))
        with urllib.request.urlopen(f"https://localhost:{port}/", context=context, timeout=10) as r:
            assert r.read() == b"secure https"
    finally:
        server.terminate()
        server.wait(timeout=10)
