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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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
