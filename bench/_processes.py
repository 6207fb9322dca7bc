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
from contextlib import contextmanager
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
