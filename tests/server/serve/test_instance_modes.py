"""The instance's files are the owner's only (docs/hosting.md, «The instance folder»): a
real `svara serve --tls` started under umask 022 makes the folder 0700 and the database,
its WAL and SHM files, the session key and the TLS key 0600; a start on looser ones
tightens them and says so."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import ASYNC_MODES, Server, start_server

PRIVATE = ("svara.db", "svara.db-wal", "svara.db-shm", "secret_key", "tls-key.pem")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def serving(instance: Path, async_mode: str) -> Iterator[Server]:
    """`svara serve --tls` started under the common umask 022, stopped whatever happens."""
    before = os.umask(0o022)
    try:
        server = start_server(instance, async_mode, "--tls")
    finally:
        os.umask(before)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_a_new_instance_is_owner_only_under_umask_022(tmp_path: Path, async_mode: str) -> None:
    instance = tmp_path / "Ёжик instance"
    with serving(instance, async_mode) as server:
        assert mode(instance) == 0o700
        for name in PRIVATE:  # the WAL and SHM files exist while the server holds the database
            assert mode(instance / name) == 0o600, name
        assert mode(instance / "tls-cert.pem") & 0o077 == 0o044  # a certificate is public
        assert not [line for line in server.output if "readable by others" in line]


@pytest.mark.parametrize("async_mode", ASYNC_MODES)
def test_a_start_tightens_looser_files_with_a_warning(tmp_path: Path, async_mode: str) -> None:
    """Files left 0644 (an older version, a copy, a restore) are made 0600 at start, the
    folder 0700, each with a log line naming it."""
    instance = tmp_path / "instance"
    with serving(instance, async_mode):
        pass
    for name in ("svara.db", "secret_key", "tls-key.pem"):
        (instance / name).chmod(0o644)
    (instance / "svara.db-wal").touch(0o644)  # as a crash would leave it, readable
    (instance / "svara.db-wal").chmod(0o644)
    instance.chmod(0o755)
    with serving(instance, async_mode) as server:
        assert mode(instance) == 0o700
        for name in PRIVATE:
            assert mode(instance / name) == 0o600, name
        warned = "".join(line for line in server.output if "readable by others" in line)
        for path in (
            instance,
            *(instance / n for n in ("svara.db", "svara.db-wal", "secret_key", "tls-key.pem")),
        ):
            assert f"{path} was mode" in warned, server.output
