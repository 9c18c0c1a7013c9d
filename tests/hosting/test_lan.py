"""`svara serve --lan` (docs/hosting.md «Friends on the LAN»): HTTPS, the addresses to open,
a QR code of the first, what a phone shows the first time. The tests bind loopback only:
`--host 127.0.0.1` narrows --lan to that address, and the machine's address list is handed
to `lan_urls`/`lan_addresses` directly."""

from __future__ import annotations

import io
import re
from pathlib import Path

import ifaddr
import requests
import segno

from app.tls import CERT_FILE, lan_addresses
from cli.serve import lan_banner, lan_urls
from tests.server.conftest import PASSWORD, WAIT, Browser, TlsClient, start_server


def qr(url: str) -> str:
    drawn = io.StringIO()
    segno.make(url, micro=False).terminal(out=drawn, compact=True)
    return drawn.getvalue()


def test_lan_serves_https_and_prints_the_address_its_qr_and_the_warning(tmp_path: Path) -> None:
    server = start_server(tmp_path, "eventlet", "--lan")
    try:
        server.wait_for(re.compile("not private"))  # the banner's last line
        printed = "".join(server.output)
        url = server.url
        assert url.startswith("https://127.0.0.1:")
        assert printed.index("Administrator created") < printed.index("listening on")
        assert PASSWORD.search(printed)
        assert f"Open on a phone or a laptop on this network:\n  {url}\n" in printed
        assert qr(url) in printed
        assert "«Proceed to 127.0.0.1»" in printed
        cert = tmp_path / CERT_FILE
        page = requests.get(url + "/login", verify=str(cert), timeout=WAIT)
        assert page.status_code == 200
        # A TLS mode like --tls: HSTS, and (below) the session cookie only over HTTPS.
        assert page.headers["Strict-Transport-Security"].startswith("max-age=")
        assert requests.get(url + "/static/js/app.js", verify=str(cert), timeout=WAIT).ok
        browser = Browser(url)
        browser.http.verify = str(cert)
        browser.http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
        browser.http.headers["Referer"] = url + "/"  # CSRF over HTTPS checks it
        browser.register("Ёж")
        assert [c.secure for c in browser.http.cookies if c.name == "session"] == [True]
        client = TlsClient(cert)
        try:
            client.connect(url, browser.cookie_header())
            assert client.call("lobby:join") == {"ok": True}
        finally:
            client.close()
    finally:
        server.stop()


def test_every_address_means_each_lan_address_private_first() -> None:
    adapters = [
        ifaddr.Adapter(
            "lo", "lo", [ifaddr.IP("127.0.0.1", 8, "lo"), ifaddr.IP(("::1", 0, 0), 128, "lo")]
        ),
        ifaddr.Adapter("wg0", "wg0", [ifaddr.IP("100.64.0.7", 10, "wg0")]),
        ifaddr.Adapter(
            "wlan0",
            "wlan0",
            [
                ifaddr.IP("169.254.3.4", 16, "wlan0"),
                ifaddr.IP("192.168.1.10", 24, "wlan0"),
                ifaddr.IP(("fe80::1", 0, 3), 64, "wlan0"),
            ],
        ),
        ifaddr.Adapter(
            "eth0", "eth0", [ifaddr.IP("10.0.0.5", 8, "eth0"), ifaddr.IP("10.0.0.5", 8, "eth0")]
        ),
    ]
    found = lan_addresses(adapters)
    assert found == ["192.168.1.10", "10.0.0.5", "100.64.0.7"]
    assert lan_urls("0.0.0.0", 5000, found) == [
        "https://192.168.1.10:5000",
        "https://10.0.0.5:5000",
        "https://100.64.0.7:5000",
    ]
    assert lan_urls("192.168.1.10", 8443) == ["https://192.168.1.10:8443"]
    assert lan_banner([]).startswith("No LAN address found")
