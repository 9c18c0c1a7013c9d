"""The suite's last check (tests/conftest.py): a run whose tests leave a process behind —
even a grandchild whose parent already ended — fails, names it, and kills it."""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

LEAKY = '''
import subprocess, sys

def test_leaves_a_grandchild(tmp_path):
    """A child that starts `sleep` in the background and ends: the grandchild is orphaned."""
    script = (
        "import subprocess; "
        "print(subprocess.Popen(['sleep', '600'], stdin=-3, stdout=-3, stderr=-3).pid)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    (tmp_path.parent.parent / "pid").write_text(out.stdout.strip())
'''

CLEAN = """
import subprocess

def test_waits_for_its_child():
    subprocess.run(["true"], check=True)
"""


def test_a_leftover_grandchild_fails_the_run_and_is_killed(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_leaky=LEAKY)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["*1 process(es) started by the tests outlived them:*", "*sleep 600*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    pid = int(next(Path(pytester.path).rglob("pid")).read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_clean_run_passes(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_clean=CLEAN)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert "outlived" not in result.stdout.str()


STOPPED = """
import subprocess, threading
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def server():
    child = subprocess.Popen(["sleep", "600"])
    Path("child").write_text(str(child.pid))
    yield child
    child.kill()
    child.wait()


def test_runs_until_stopped(server):
    print("started", flush=True)
    threading.Event().wait(120)
"""


def test_a_run_stopped_by_sigterm_still_stops_what_its_fixtures_started(
    pytester: pytest.Pytester,
) -> None:
    """CI's timeout or a `kill` ends pytest with SIGTERM: the fixtures are torn down all the
    same, so the module's server is stopped instead of outliving the run."""
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_stopped=STOPPED)
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-s"],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert run.stdout is not None
        said = ""
        while "started" not in said:  # pytest's own lines may come first
            ready, _, _ = select.select([run.stdout], [], [], 60)
            said = run.stdout.readline() if ready else ""
            assert said, "the test never said it runs"
        child = int((pytester.path / "child").read_text())
        run.terminate()
        assert run.wait(timeout=60) != 0
    finally:
        if run.poll() is None:
            run.kill()
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
