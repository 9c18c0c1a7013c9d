"""Security headers on every response (flask-talisman; docs/hosting.md «Headers»).

- A Content-Security-Policy with no inline script: every script is a file of `static/`
  (templates/ hold none), so an injected `<script>` or `onclick=` never runs. Styles are
  files too; only style *attributes* are allowed, because the table places its seats with
  them (static/js/render.js).
- No page may be framed (`frame-ancestors 'none'` and X-Frame-Options: DENY), content
  types are not sniffed, the referrer leaves the site as its origin only, and the
  microphone (the voice chat) is the only powerful feature the pages ask for.
- Under `--tls` and `--lan` (config TLS) the session cookie is Secure and HSTS is sent;
  HSTS only ever goes with an HTTPS answer (talisman checks the request), so a plain-HTTP
  instance is never pinned to HTTPS. Behind a TLS proxy (`TRUST_PROXY`) HSTS goes with
  what it forwarded as HTTPS, and `SESSION_COOKIE_SECURE` (deploy/svara.service sets it)
  makes the cookie Secure.

Why flask-talisman and not a hand-made `after_request`: it is the well-known Flask
extension for exactly these headers, handles the cookie flags and HSTS rules above, and
keeps the policy a plain dictionary here.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_talisman import Talisman
from werkzeug.middleware.proxy_fix import ProxyFix

from app.clients import matches

CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' data:",
    "media-src": "'self' blob:",
    "connect-src": "'self'",  # the Socket.IO connection (ws:/wss: to the same host)
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
#: The forwarding headers of a request (WSGI names): ProxyFix reads the X-Forwarded ones,
#: Engine.IO's origin check X-Forwarded-Host and -Proto, app/health.py any of them.
FORWARDED = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_PREFIX",
    "HTTP_FORWARDED",
    "HTTP_X_REAL_IP",
)
PERMISSIONS = {"microphone": "(self)", "camera": "()", "geolocation": "()", "browsing-topics": "()"}


def init_app(app: Flask) -> None:
    config = app.config
    secure = bool(config.get("SESSION_COOKIE_SECURE") or config["TLS"])
    config["SESSION_COOKIE_SECURE"] = secure
    Talisman(
        app,
        force_https=False,  # `svara serve` serves either HTTP or HTTPS, never both
        content_security_policy=CSP,
        frame_options="DENY",
        permissions_policy=PERMISSIONS,
        referrer_policy="strict-origin-when-cross-origin",
        strict_transport_security=config["TLS"] or bool(config["TRUST_PROXY"]),
        strict_transport_security_include_subdomains=False,
        session_cookie_secure=secure,
        session_cookie_http_only=bool(config["SESSION_COOKIE_HTTPONLY"]),
        session_cookie_samesite=config["SESSION_COOKIE_SAMESITE"],
    )


def trust_proxy(app: Flask) -> None:
    """With `TRUST_PROXY` proxies in front, the client's address, scheme and host are the
    ones they forward (werkzeug's ProxyFix) — but only on a request from one of
    `PROXY_ADDRESSES`: anyone else who reaches the port directly has his forwarding headers
    dropped, so he can neither pass for another address (the limits per address, /metrics)
    nor name another origin (docs/hosting.md «On the open internet»). X-Forwarded-Port is
    never read: the forwarded Host carries the port."""
    proxies = int(app.config["TRUST_PROXY"])
    if not proxies:
        return
    allowed = tuple(app.config["PROXY_ADDRESSES"])
    inner = app.wsgi_app
    forwarded = ProxyFix(inner, x_for=proxies, x_proto=proxies, x_host=proxies)

    def wsgi_app(environ: dict[str, Any], start_response: Any) -> Any:
        if matches(environ.get("REMOTE_ADDR", ""), allowed):
            return forwarded(environ, start_response)
        for name in FORWARDED:
            environ.pop(name, None)
        return inner(environ, start_response)

    # Not typed (next line): Werkzeug's documented way to wrap the WSGI app.
    app.wsgi_app = wsgi_app  # type: ignore[method-assign]
