"""Forwarded headers and the session cookie behind the front doors of deploy/ (docs/hosting.md
«On the open internet»): a real `svara serve` started as deploy/svara.service starts it,
behind Debian's caddy with deploy/Caddyfile and Debian's nginx with deploy/nginx.conf on
loopback (tests/browser/test_front_door.py runs them for a hand and voice). Forwarded
headers count only from PROXY_ADDRESSES; a client's own X-Forwarded-Host never passes a door.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from requests.adapters import HTTPAdapter

from tests.browser.test_front_door import DOORS
from tests.server.conftest import WAIT, Browser, Server, start_server, stopped

from .test_deploy import service_section

HANDSHAKE = "/socket.io/?EIO=4&transport=polling"


def as_the_service(folder: Path, **env: str) -> Server:
    """`svara serve` with deploy/svara.service's options and Environment (its own port)."""
    command, unit_env = service_section()
    options = dict(zip(command[2::2], command[3::2], strict=True))
    options.pop("--host"), options.pop("--port")
    kept = [word for pair in options.items() for word in pair]
    return start_server(folder, "eventlet", *kept, **{**unit_env, **env})


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    # Spoken to in plain HTTP here (not through a door): a Secure cookie would not come back.
    server = as_the_service(
        tmp_path / "instance", SVARA_LOGIN_RATE="3/minute", SVARA_SESSION_COOKIE_SECURE="false"
    )
    with stopped(server):
        yield server


def from_address(address: str) -> requests.Session:
    http = requests.Session()
    adapter = HTTPAdapter()
    adapter.init_poolmanager(4, 4, source_address=(address, 0))
    http.mount("http://", adapter)
    return http


def test_forwarded_headers_count_only_from_the_proxy(served: Server) -> None:
    """127.0.0.2 is not the proxy (127.0.0.1): a new X-Forwarded-For on each login does not
    make him a new address (the fourth is over LOGIN_RATE), and his X-Forwarded-Host does
    not make another site's page an origin Socket.IO accepts. The proxy's are believed."""
    stranger = Browser(served.url)
    stranger.http = from_address("127.0.0.2")
    codes = []
    for n in range(4):
        stranger.http.headers["X-Forwarded-For"] = f"203.0.113.{n + 1}"
        codes.append(stranger.login("Иван", "не тот пароль").status_code)
    assert codes == [401, 401, 401, 429], codes
    evil = {"Origin": "http://evil.example", "X-Forwarded-Host": "evil.example"}
    answer = stranger.http.get(served.url + HANDSHAKE, headers=evil, timeout=WAIT)
    assert answer.status_code == 400, answer.text
    proxy = from_address("127.0.0.1")
    told = proxy.get(served.url + HANDSHAKE, headers=evil, timeout=WAIT)
    assert told.status_code == 200  # the proxy vouches for the host it forwards


@pytest.mark.parametrize("door", sorted(DOORS))
def test_through_each_front_door_the_cookie_is_secure_and_the_host_the_doors(
    door: str, tmp_path: Path
) -> None:
    """Through caddy and nginx: HSTS, a Secure session cookie (SESSION_COOKIE_SECURE from the
    unit), and a client's own X-Forwarded-Host with a matching Origin does not pass for the
    site: Socket.IO refuses the handshake (400), while the page's own origin is accepted."""
    server = as_the_service(tmp_path / "instance")
    upstream = urlsplit(server.url).port
    assert upstream is not None
    (tmp_path / door).mkdir()
    with stopped(server), DOORS[door](tmp_path / door, upstream) as (url, ca):
        browser = Browser(url)
        browser.http.verify = str(ca)
        browser.http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
        browser.http.headers["Referer"] = url + "/"  # CSRF over HTTPS checks it
        page = browser.http.get(url + "/login", timeout=WAIT)
        assert page.headers["Strict-Transport-Security"].startswith("max-age=")
        answer = browser.register("Мария")
        cookie = next(c for c in answer.cookies if c.name == "session")
        assert cookie.secure, answer.headers["Set-Cookie"]
        forged: dict[str, Any] = {
            "Origin": "https://evil.example",
            "X-Forwarded-Host": "evil.example",
        }
        refused = browser.http.get(url + HANDSHAKE, headers=forged, timeout=WAIT)
        assert refused.status_code == 400, refused.text
        own = browser.http.get(url + HANDSHAKE, headers={"Origin": url}, timeout=WAIT)
        assert own.status_code == 200, own.text
