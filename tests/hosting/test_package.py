"""The wheel is the product (docs/hosting.md «Installing»): built from the checkout's files,
installed into a fresh environment outside the checkout, its `svara serve` answers pages,
static files, the rules texts and a Socket.IO connection from any directory.

The fresh environment is a `venv` without pip; the project's own pip installs the wheel into
it with `--no-deps`, and one .pth line lends it the dependencies already installed in the
project's .venv. So nothing is fetched (fast, no network), the versions are those every other
test runs with, and the package itself comes only from the wheel: the checkout is never on its
`sys.path` (the .venv's editable-install hooks are .pth files of the .venv, which a path added
by a .pth line does not run).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.lobby.service import DEMO_NAME
from tests.server.conftest import WAIT, Browser, Server, start_server, stopped, unique_name

ROOT = Path(__file__).resolve().parents[2]
#: What a fresh clone builds the wheel from (tests/, docs/ and benchmarks/ are not shipped).
SOURCES = ("pyproject.toml", "setup.py", "README.md", "app", "cli", "rtc", "templates", "static")
BUILD_TIMEOUT = 120


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
    return done.stdout


def build_wheel(into: Path) -> Path:
    """`pip wheel . --no-deps` on a copy of the shipped folders (a build in the checkout
    would reuse its build/ folder, and so files deleted since the last build)."""
    source = into / "source"
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, source / name)
    pip = (sys.executable, "-m", "pip")
    _run(*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", into, source)
    (wheel,) = into.glob("svara-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A fresh venv holding the wheel, with the .venv's dependencies lent by a .pth line;
    its `svara` command."""
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    (Path(purelib.strip()) / "svara-test-deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel)
    return venv / "bin" / "svara"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Server]]:
    """The wheel's `svara serve`, started from an empty directory far from the checkout."""
    base = tmp_path_factory.mktemp("wheel")
    svara = install(build_wheel(base), base / "venv")
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    server = start_server(
        elsewhere / "instance", "eventlet", svara=str(svara), cwd=elsewhere, PYTHONPATH=""
    )
    with stopped(server):
        yield svara, server


def test_the_wheel_imports_from_itself(installed: tuple[Path, Server]) -> None:
    svara, _ = installed
    python = svara.with_name("python")
    code = "import app, cli, rtc, rtc._forward as f; print(app.__file__, rtc.__file__, f.__file__)"
    where = _run(python, "-c", code, cwd="/")  # the SFU's compiled forwarding is in the wheel
    assert str(ROOT) not in where and where.count(str(svara.parents[1])) == 3


def test_pages_static_files_and_rules_from_the_wheel(installed: tuple[Path, Server]) -> None:
    _, server = installed
    browser = Browser(server.url)
    assert "csrf_token" in browser.http.get(server.url + "/login", timeout=WAIT).text
    for path in ("/static/js/app.js", "/static/css/table.css", "/static/icons/icon-192.png"):
        assert browser.http.get(server.url + path, timeout=WAIT).status_code == 200, path
    assert browser.http.get(server.url + "/sw.js", timeout=WAIT).status_code == 200
    rules = browser.http.get(server.url + "/rules/svara32?lang=en", timeout=WAIT)
    assert rules.status_code == 200 and "7♣" in rules.text


def test_a_player_connects_to_the_wheels_server(installed: tuple[Path, Server]) -> None:
    _, server = installed
    browser = Browser(server.url)
    name = unique_name("Ёж")
    browser.register(name)
    assert name in browser.http.get(server.url + "/", timeout=WAIT).text
    client = browser.socket()
    try:
        client.sio.emit("lobby:join", {})
        state = client.wait("lobby:state")
        assert DEMO_NAME in str(state["tables"])
    finally:
        client.close()
