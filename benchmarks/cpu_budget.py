"""A fixed CPU budget for a server process: the size of the machine it would have alone.

Why: on this 2-core machine, the load generator, PostgreSQL and Redis share the cores with
the servers. Once one server process nearly fills a core, two of them cannot each get one,
and «two processes carry 1.8× of one» measures the machine, not the servers. Giving every
server process the same quota (Linux CFS bandwidth, the cgroup `cpu` controller) models one
small machine per process, and leaves the rest of the cores to the load generator and the
services; a process that has spare budget shows it as CPU below its quota.

Needs root and the cgroup v1 `cpu` controller at /sys/fs/cgroup/cpu (this machine), or
cgroup v2 with the `cpu` controller enabled at /sys/fs/cgroup.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import psutil

V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")
PERIOD_US = 100_000


def _root() -> tuple[Path, bool]:
    """The cpu hierarchy's root and whether it is cgroup v2."""
    if (V1 / "cpu.cfs_quota_us").exists():
        return V1, False
    if "cpu" in (V2 / "cgroup.controllers").read_text(errors="replace").split():
        return V2, True
    raise RuntimeError("no cgroup cpu controller here: run without --cpu-budget")


@contextmanager
def cpu_budget(pid: int, cores: float) -> Iterator[None]:
    """Process `pid` and its children run within `cores` of CPU until the block ends."""
    if not cores > 0:
        raise ValueError(f"--cpu-budget {cores}: a positive number of cores")
    root, v2 = _root()
    group = root / f"svara-bench-{pid}"
    group.mkdir()
    quota = round(cores * PERIOD_US)
    if v2:
        (group / "cpu.max").write_text(f"{quota} {PERIOD_US}")
    else:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(quota))
    process = psutil.Process(pid)
    members = [process, *process.children(recursive=True)]
    try:
        for member in members:
            (group / "cgroup.procs").write_text(str(member.pid))
        yield
    finally:
        for line in (group / "cgroup.procs").read_text().split():
            with suppress(ProcessLookupError):  # it ended meanwhile
                (root / "cgroup.procs").write_text(line)
        group.rmdir()
