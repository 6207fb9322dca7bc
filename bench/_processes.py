"""What the bench scripts share: starting and stopping the processes they measure, a free
port, a process's CPU time, and waiting until the service answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(RuntimeError):
    """The setup failed or the service answered something unexpected."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running(
    argv: list[str], env: dict[str, str], log: Path, name: str | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Starts a subprocess (output to `log`) and always stops it: SIGINT, then SIGKILL.
    With a `name`, an unexpected exit status is noted on stderr."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if name and proc.returncode not in (0, 130, -signal.SIGINT, -signal.SIGKILL, None):
            print(f"note: {name} exited with {proc.returncode}; log: {log}", file=sys.stderr)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # fields[0] is field 3 (state)
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def machine_cpu() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine since boot, from /proc/stat: busy is
    everything but idle and iowait."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    every = sum(fields[:8])  # user nice system idle iowait irq softirq steal
    return (every - fields[3] - fields[4]) / CLK_TCK, every / CLK_TCK


def postgres_cpu() -> dict[int, float]:
    """utime + stime of each PostgreSQL server process on the machine (by name), by pid."""
    found: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    found[int(entry.name)] = cpu_seconds(int(entry.name))
            except OSError:  # it ended meanwhile
                continue
    return found


def postgres_cpu_since(before: dict[int, float]) -> float:
    """PostgreSQL's CPU seconds since `before` (`postgres_cpu()`), by the processes alive
    now: those that ended meanwhile are not counted, so it may be short, never negative."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in postgres_cpu().items())


def http_get(url: str, key: str | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"x-api-key": key} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_healthy(
    base: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0
) -> None:
    """Until `base/healthz` answers 200; fails with the log's tail if the process ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if http_get(base + "/healthz", timeout=1.0)[0] == 200:
                return
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-3000:]
    raise BenchError(f"{base}/healthz never answered 200; last output:\n{tail}")


CGROUP_V1_CPU = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000


def _cpu_cgroup_root() -> tuple[Path, bool]:
    """Where a CPU-limited group can be made, and whether it is cgroup v2 (`cpu.max`) or v1
    (`cpu.cfs_quota_us`)."""
    controllers = CGROUP_V2 / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return CGROUP_V2, True
    if (CGROUP_V1_CPU / "cpu.cfs_quota_us").exists():
        return CGROUP_V1_CPU, False
    raise BenchError("no writable cgroup CPU controller: run without --cpu-budget")


@contextmanager
def cpu_budget(pid: int, cores: float, name: str) -> Iterator[None]:
    """Holds process `pid` (and what it starts) to `cores` of CPU time with a cgroup quota,
    as if it had that share of a machine of its own; needs root. On leaving, the process
    goes back to the root group and the group is removed."""
    root, v2 = _cpu_cgroup_root()
    group = root / f"energyhub-bench-{os.getpid()}-{name}"
    try:
        group.mkdir()
    except OSError as error:
        raise BenchError(f"cannot make a cgroup at {group} ({error}): run as root") from error
    quota = int(cores * CFS_PERIOD_US)
    try:
        if v2:
            (group / "cpu.max").write_text(f"{quota} {CFS_PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(CFS_PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
        (group / "cgroup.procs").write_text(str(pid))
        yield
    finally:
        for line in (group / "cgroup.procs").read_text().split():
            with suppress(OSError):  # it ended meanwhile
                (root / "cgroup.procs").write_text(line)
        group.rmdir()
