"""Security headers and cookies of a real `svara serve`, plain and `--tls` (docs/hosting.md
«Headers»): a Content-Security-Policy without inline script on every page, no framing, no
sniffing, a Referrer-Policy; under TLS a Secure session cookie and HSTS."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from app import ROOT
from app.tls import CERT_FILE

from ..conftest import WAIT, Browser, Server, start_server, stopped, unique_name

PAGES = ["/login", "/register", "/rules", "/install", "/offline", "/", "/settings"]


def directives(policy: str) -> dict[str, list[str]]:
    parts = (p.split() for p in policy.split(";") if p.strip())
    return {p[0]: p[1:] for p in parts}


def check_headers(answer: requests.Response) -> None:
    policy = directives(answer.headers["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"], policy
    assert policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert "microphone=(self)" in answer.headers["Permissions-Policy"]


def test_every_page_has_the_headers_and_no_hsts_over_http(server: Server) -> None:
    browser = Browser(server.url)
    browser.register(unique_name("Мария"))
    for path in PAGES:
        answer = browser.http.get(server.url + path, timeout=WAIT)
        assert answer.status_code == 200, path
        check_headers(answer)
        assert "Strict-Transport-Security" not in answer.headers
    cookie = next(c for c in browser.http.cookies if c.name == "session")
    assert not cookie.secure  # plain HTTP: a Secure cookie would never come back


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path / "instance", "eventlet", "--tls", SVARA_VOICE="false")
    with stopped(server):
        yield server


def test_under_tls_the_cookie_is_secure_and_hsts_is_sent(tls_server: Server) -> None:
    browser = Browser(tls_server.url)
    browser.http.trust_env = False  # REQUESTS_CA_BUNDLE would replace `verify`
    browser.http.verify = str(tls_server.instance / CERT_FILE)
    # Over HTTPS Flask-WTF wants a same-origin Referer, as browsers send under our policy.
    browser.http.headers["Referer"] = tls_server.url + "/register"
    answer = browser.post_form(
        "/register", {"name": "Ёж", "password": "correct horse", "confirm": "correct horse"}
    )
    assert answer.status_code == 302
    assert re.search(r"session=[^;]+;.*Secure", answer.headers["Set-Cookie"], re.IGNORECASE)
    page = browser.http.get(tls_server.url + "/", timeout=WAIT)
    assert page.headers["Strict-Transport-Security"].startswith("max-age=")
    check_headers(page)


def test_no_template_has_inline_script() -> None:
    """The policy allows script files only: an inline one would silently not run."""
    for template in (ROOT / "templates").glob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (template.name, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), template.name
        assert "javascript:" not in text, template.name
