"""Wake-ups across processes on PostgreSQL, with real processes: `serve --no-workers` takes
the pushes, an `energyhub worker` process does what is due the moment it is due, told over
the channel between processes (its safety poll is 30 s); and when that channel's connection
is killed, the worker polls until it is back. Lateness is read from the actions' stored
times."""

from __future__ import annotations

import asyncio
import math
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import reset_postgres
from tests.integration.cross_process import at, kill_channel, sandbox_key, wait_for_channels
from tests.processes import Service, start_service, start_worker

COMPLETION_S = 0.3  # the sandbox's completion delay: the worker completes immediate pushes
SIGNALLED_LATENESS_S = 0.25  # well under the 0.5 s poll it replaces
POLLED_LATENESS_S = 1.0  # the 0.5 s fallback poll and a pass
RECONNECT_S = 6.0  # the worker's channel stays down this long after it is killed


def new_battery(client: httpx.Client) -> str:
    created = client.post(
        "/sandbox/devices", json={"type": "battery", "userId": "u", "timezone": "UTC"}
    )
    assert created.status_code == 201, created.text
    device: str = created.json()["data"]["id"]
    return device


def push(client: httpx.Client, device: str, start: datetime | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"action": {"command": "charge", "parameters": {}}}
    if start is not None:
        body["start"] = start.strftime("%Y-%m-%dT%H:%M:%S")
    pushed = client.post(f"/battery/{device}", json=body)
    assert pushed.status_code in (200, 201, 202), pushed.text
    action: dict[str, Any] = pushed.json()["data"]
    return action


def next_second(after_s: float) -> datetime:
    """A whole second at least `after_s` from now (a push's start has seconds)."""
    return datetime.fromtimestamp(math.ceil(time.time() + after_s), UTC)


def completed(client: httpx.Client, action_id: str, timeout: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        found: dict[str, Any] = client.get(f"/actions/{action_id}").json()["data"]
        if found["state"] in ("completed", "failed", "cancelled"):
            assert found["state"] == "completed", found
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.05)


def scheduled_lateness(client: httpx.Client, device: str, start: datetime) -> float:
    action = push(client, device, start)
    assert action["state"] == "scheduled", action
    done = completed(client, action["id"])
    return (at(done["acknowledgedAt"]) - start).total_seconds()


def roles(postgres_url: str, tmp_path: Path, worker_env: dict[str, str]) -> tuple[Service, Service]:
    env = {
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": str(COMPLETION_S),
        "ENERGYHUB_DATA_DIR": str(tmp_path),
    }
    worker = start_worker(postgres_url, tmp_path, {**env, **worker_env})
    api = start_service(postgres_url, tmp_path, "--no-demo", "--no-workers", env=env)
    wait_for_channels(postgres_url, worker.process.pid, api.process.pid)
    return api, worker


def test_a_worker_process_does_at_once_what_an_api_process_took(
    postgres_url: str, tmp_path: Path
) -> None:
    asyncio.run(reset_postgres(postgres_url))
    key = sandbox_key(postgres_url, tmp_path)
    api, worker = roles(postgres_url, tmp_path, {})
    try:
        with httpx.Client(base_url=api.base, headers={"x-api-key": key}) as client:
            late = [scheduled_lateness(client, new_battery(client), next_second(1.0))]
            late += [scheduled_lateness(client, new_battery(client), next_second(0.5))]
            for _ in range(3):  # the API process acknowledges, the worker completes
                action = push(client, new_battery(client))
                done = completed(client, action["id"])
                due = at(done["acknowledgedAt"]) + timedelta(seconds=COMPLETION_S)
                late.append((at(done["completedAt"]) - due).total_seconds())
    finally:
        api.stop()
        worker.stop()
    print("lateness (s):", [round(s, 3) for s in late])
    assert max(late) < SIGNALLED_LATENESS_S, late


def test_the_worker_polls_while_its_channel_is_down(postgres_url: str, tmp_path: Path) -> None:
    asyncio.run(reset_postgres(postgres_url))
    key = sandbox_key(postgres_url, tmp_path)
    api, worker = roles(postgres_url, tmp_path, {"ENERGYHUB_SIGNALS_RECONNECT_S": str(RECONNECT_S)})
    try:
        with httpx.Client(base_url=api.base, headers={"x-api-key": key}) as client:
            device = new_battery(client)
            killed_at = time.time()
            kill_channel(postgres_url, worker.process.pid)
            start = next_second(1.0)  # due well before the channel comes back
            assert start.timestamp() + POLLED_LATENESS_S < killed_at + RECONNECT_S
            polled = scheduled_lateness(client, device, start)
            assert polled < POLLED_LATENESS_S, polled
            assert time.time() < killed_at + RECONNECT_S, "the test ran past the outage"
            wait_for_channels(postgres_url, worker.process.pid, timeout=RECONNECT_S + 10)
            signalled = scheduled_lateness(client, device, next_second(1.0))
            assert signalled < SIGNALLED_LATENESS_S, signalled
    finally:
        api.stop()
        worker.stop()
    print(f"lateness while down {polled:.3f} s, once back {signalled:.3f} s")
