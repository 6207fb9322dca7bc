"""Running `energyhub serve` as a real process for tests that need one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


def run_cli(db: Path, *args: str) -> str:
    """`energyhub ARGS` as its own process on the SQLite file `db`; its standard output."""
    env = {**os.environ, "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    done = subprocess.run(
        [sys.executable, "-m", "energyhub", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


WORKER_PORTS = 20_000  # first port of pytest-xdist worker gw0's range; gw1's follows, ...
PORTS_PER_WORKER = 1_000
_port_cursor: dict[int, int] = {}  # where each range goes on from


def _worker_ports() -> range | None:
    """This pytest-xdist worker's own loopback ports, below the kernel's ephemeral range (which
    binds to port 0 draw from); None outside xdist or where the range does not leave room."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not worker[2:].isdigit():
        return None
    try:
        ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    first = WORKER_PORTS + int(worker[2:]) * PORTS_PER_WORKER
    if first + PORTS_PER_WORKER > min(ephemeral, 65_536):
        return None
    return range(first, first + PORTS_PER_WORKER)


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A loopback port nothing listens on now: for a process to be started on, or for a
    connection that must be refused. The port is free only until someone binds it: under
    pytest-xdist each worker takes its ports in turn from a range of its own below the
    ephemeral ports, so that no other worker's server (bound to port 0, or to a port of this
    kind) takes one in the moment between this probe and the bind of the process it is for."""
    ports = _worker_ports()
    if ports is None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
            return port
    cursor = _port_cursor.setdefault(ports.start, ports.start)
    for step in range(len(ports)):
        candidate = ports.start + (cursor - ports.start + step) % len(ports)
        if _bindable(candidate):
            _port_cursor[ports.start] = candidate + 1
            return candidate
    raise RuntimeError(f"no free loopback port in {ports.start}-{ports.stop - 1}")


@dataclass
class Service:
    base: str
    log: Path
    process: subprocess.Popen[str]

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


def start_service(
    database_url: str,
    workdir: Path,
    *args: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
) -> Service:
    port = port or free_port()
    log = workdir / f"serve-{port}-{time.monotonic_ns()}.log"
    environment = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": database_url,
        "COLUMNS": "300",
        **(env or {}),
    }
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "energyhub", "serve", "--port", str(port), *args],
            cwd=workdir,
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    service = Service(f"http://127.0.0.1:{port}", log, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("service exited:\n" + log.read_text())
        try:
            if httpx.get(f"{service.base}/healthz").status_code == 200:
                return service
        except httpx.TransportError:
            time.sleep(0.1)
    service.stop()
    pytest.fail("service did not start:\n" + log.read_text())


def start_worker(database_url: str, workdir: Path, env: dict[str, str] | None = None) -> Service:
    """`energyhub worker` (the background workers only; it serves no HTTP): returned once it
    says it is running. `base` is empty."""
    log = workdir / f"worker-{time.monotonic_ns()}.log"
    environment = {**os.environ, "ENERGYHUB_DATABASE_URL": database_url, **(env or {})}
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "energyhub", "worker"],
            cwd=workdir,
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    worker = Service("", log, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("worker exited:\n" + log.read_text())
        if "running" in log.read_text():
            return worker
        time.sleep(0.1)
    worker.stop()
    pytest.fail("worker did not start:\n" + log.read_text())
