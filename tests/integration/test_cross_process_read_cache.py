"""Read caches across processes on PostgreSQL, with two real `serve` processes: a device
changed through one (a settings write, a push) is never served stale by the other once the
first has answered, though the other keeps its cached reads (no short expiry) while the
channel between them is up."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import reset_postgres
from tests.integration.cross_process import sandbox_key, wait_for_channels
from tests.processes import start_service

WRITES = 40
READS_AFTER_EACH = 5


def floor_of(client: httpx.Client, path: str) -> int:
    read = client.get(path)
    assert read.status_code == 200, read.text
    value: int = read.json()["data"]["settings"]["discharge_floor"]["value"]
    return value


def test_a_change_through_one_process_is_never_served_stale_by_another(
    postgres_url: str, tmp_path: Path
) -> None:
    asyncio.run(reset_postgres(postgres_url))
    key = sandbox_key(postgres_url, tmp_path)
    env = {"ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "0", "ENERGYHUB_DATA_DIR": str(tmp_path)}
    a = start_service(postgres_url, tmp_path, "--no-demo", "--no-workers", env=env)
    b = start_service(postgres_url, tmp_path, "--no-demo", "--no-workers", env=env)
    headers = {"x-api-key": key}
    try:
        wait_for_channels(postgres_url, a.process.pid, b.process.pid)
        with (
            httpx.Client(base_url=a.base, headers=headers) as via_a,
            httpx.Client(base_url=b.base, headers=headers) as via_b,
        ):
            created = via_a.post(
                "/sandbox/devices", json={"type": "battery", "userId": "u", "timezone": "UTC"}
            )
            assert created.status_code == 201, created.text
            path = f"/battery/{created.json()['data']['id']}"
            stale: list[tuple[int, int]] = []
            for value in range(11, 11 + WRITES):
                floor_of(via_b, path)  # B holds the device in its cache
                body = {"discharge_floor": {"value": value, "unit": "percent"}}
                written = via_a.post(f"{path}/settings", json=body)
                assert written.status_code == 200, written.text
                for _ in range(READS_AFTER_EACH):
                    seen = floor_of(via_b, path)
                    if seen != value:
                        stale.append((value, seen))
            assert not stale, (len(stale), stale)

            before: dict[str, Any] = via_b.get(path).json()["data"]
            pushed = via_a.post(path, json={"action": {"command": "charge", "parameters": {}}})
            assert pushed.status_code in (200, 201, 202), pushed.text
            after_a: dict[str, Any] = via_a.get(path).json()["data"]
            after_b: dict[str, Any] = via_b.get(path).json()["data"]
            assert after_b == after_a
            assert after_b != before, "the push changed nothing visible"

            time.sleep(1.5)  # past the expiry used while the channel is down
            began = time.perf_counter()
            assert floor_of(via_b, path) == 10 + WRITES
            assert time.perf_counter() - began < 1.0
    finally:
        a.stop()
        b.stop()
