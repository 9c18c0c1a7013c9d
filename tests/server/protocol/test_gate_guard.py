"""The Gate (app/protocol.py) patches python-socketio's private `Server._handle_event` and
`_send_packet`: it runs only on the release series it was tested on, which pyproject.toml
pins, and any other refuses to start with a message saying what to do."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import socketio

from app import create_app, extensions, protocol
from app.protocol import SOCKETIO_SERIES, check_socketio

ROOT = Path(__file__).resolve().parents[3]


def test_the_installed_python_socketio_is_the_tested_series() -> None:
    installed = metadata.version("python-socketio")
    assert installed.split(".")[:2] == SOCKETIO_SERIES.split("."), (
        f"python-socketio {installed} is installed; the Gate was tested on {SOCKETIO_SERIES}.x: "
        "re-run tests/server/protocol/ and tests/server/auth/test_guard.py on it, then move "
        "SOCKETIO_SERIES and the pin in pyproject.toml together"
    )
    check_socketio(installed, socketio.Server)


@pytest.mark.parametrize("extra", ["dependencies", "dev"])
def test_pyproject_pins_the_tested_series(extra: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = (
        project["dependencies"]
        if extra == "dependencies"
        else project["optional-dependencies"][extra]
    )
    pins = [d for d in listed if d.startswith("python-socketio")]
    major, minor = SOCKETIO_SERIES.split(".")
    assert len(pins) == 1 and pins[0].endswith(f">={major}.{minor},<{major}.{int(minor) + 1}"), pins


@pytest.mark.parametrize("version", ["5.19.0", "5.11.4", "6.0.0", "5.1.8"])
def test_another_release_is_refused_with_what_to_do(version: str) -> None:
    with pytest.raises(RuntimeError) as refused:
        check_socketio(version, socketio.Server)
    message = str(refused.value)
    assert f"python-socketio {version}" in message
    assert "_handle_event" in message and f"=={SOCKETIO_SERIES}.*" in message


def test_a_changed_private_method_is_refused() -> None:
    """The same release number with `_handle_event` taking other parameters is refused too."""

    class Changed(socketio.Server):
        def _handle_event(self, sid: str, namespace: str, data: list) -> None:  # type: ignore[override]
            raise AssertionError("never called")

    with pytest.raises(RuntimeError, match=r"Server\._handle_event\('sid', 'namespace', 'data'\)"):
        check_socketio(metadata.version("python-socketio"), Changed)


def test_the_app_refuses_to_start_on_another_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`create_app` (what `svara serve` and the admin CLI build) stops at the Gate, before it
    patches anything."""
    real = metadata.version

    def version(name: str) -> Any:
        return "5.19.0" if name == "python-socketio" else real(name)

    monkeypatch.setattr(protocol.metadata, "version", version)
    with pytest.raises(RuntimeError, match=r"python-socketio 5\.19\.0 is installed"):
        create_app({"INSTANCE": tmp_path, "ASYNC_MODE": "threading"})
    server = extensions.socketio.server  # the one `create_app` made: left unpatched
    assert server._handle_event.__func__ is socketio.Server._handle_event
