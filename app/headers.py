"""Security headers on every response (flask-talisman; docs/hosting.md «Headers»).

- A Content-Security-Policy with no inline script: every script is a file of `static/`
  (templates/ hold none), so an injected `<script>` or `onclick=` never runs. Styles are
  files too; only style *attributes* are allowed, because the table places its seats with
  them (static/js/render.js).
- No page may be framed (`frame-ancestors 'none'` and X-Frame-Options: DENY), content
  types are not sniffed, the referrer leaves the site as its origin only, and the
  microphone (the voice chat) is the only powerful feature the pages ask for.
- Under `--tls` (config TLS) the session cookie is Secure and HSTS is sent; HSTS only ever
  goes with an HTTPS answer (talisman checks the request), so a plain-HTTP instance is
  never pinned to HTTPS.

Why flask-talisman and not a hand-made `after_request`: it is the well-known Flask
extension for exactly these headers, handles the cookie flags and HSTS rules above, and
keeps the policy a plain dictionary here.
"""

from __future__ import annotations

from flask import Flask
from flask_talisman import Talisman

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
