"""deploy/svara.service as systemd would run it: its ExecStart and Environment start a server
that trusts one proxy (the front door of deploy/Caddyfile or deploy/nginx.conf)."""

from __future__ import annotations

import shlex
from pathlib import Path

import requests

from tests.server.conftest import WAIT, start_server

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "svara.service"


def service_section() -> tuple[list[str], dict[str, str]]:
    """ExecStart's words and the Environment= settings of the unit's [Service]."""
    command: list[str] = []
    env: dict[str, str] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            if key == "ExecStart":
                command = shlex.split(value)
            elif key == "Environment":
                name, setting = value.split("=", 1)
                env[name] = setting
    return command, env


def test_the_unit_starts_a_server_behind_one_trusted_proxy(tmp_path: Path) -> None:
    command, env = service_section()
    assert Path(command[0]).name == "svara" and command[1] == "serve"
    options = dict(zip(command[2::2], command[3::2], strict=True))
    # Loopback only: the proxy is the one door from outside. (The test's own port instead.)
    assert options.pop("--host") == "127.0.0.1" and options.pop("--port")
    kept = [word for pair in options.items() for word in pair]
    assert env["SVARA_TRUST_PROXY"] == "1" and env["SVARA_INSTANCE"]
    server = start_server(tmp_path, "eventlet", *kept, **env)  # --instance beats SVARA_INSTANCE
    try:
        outsider = {"X-Forwarded-For": "203.0.113.7"}
        assert requests.get(server.url + "/login", headers=outsider, timeout=WAIT).ok
        assert (
            requests.get(server.url + "/metrics", headers=outsider, timeout=WAIT).status_code == 404
        )
        assert requests.get(server.url + "/metrics", timeout=WAIT).status_code == 200
    finally:
        server.stop()
