"""A newcomer's first start (CONTRACT 0), as a real process: `energyhub serve` on an empty
database prints a sandbox key that reads a battery at once."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[str]]]:
    port = _free_port()
    log = tmp_path / "serve.log"
    env = {
        **os.environ,
        "ENERGYHUB_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'energyhub.db'}",
        "COLUMNS": "300",
    }
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "energyhub", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("service did not start:\n" + log.read_text())
        yield base, log, process
    finally:
        process.terminate()
        process.wait(10)


def test_first_start_prints_a_working_sandbox_key(
    served: tuple[str, Path, subprocess.Popen[str]],
) -> None:
    base, log, _ = served
    output = log.read_text()
    key = re.search(r"sk_test_[A-Za-z0-9]{32,}", output)
    battery = re.search(r"/battery/([0-9a-f-]{36})", output)
    assert key, output
    assert battery, output
    assert f"{base}/docs" in output
    assert f"{base}/dashboard" in output
    assert f"{base}/link/app_" in output
    response = httpx.get(f"{base}/battery/{battery.group(1)}", headers={"x-api-key": key.group(0)})
    assert response.status_code == 200
    assert response.json()["data"]["type"] == "battery"
    users = httpx.get(f"{base}/users/demo-user/devices", headers={"x-api-key": key.group(0)})
    assert users.json()["data"]["pagination"]["total"] == 8  # six devices, two vehicles
