"""The roles of processes on one PostgreSQL database, as real processes: `serve
--no-workers` serves the API but dispatches nothing; an `energyhub worker` beside it
dispatches what is due. And `ENERGYHUB_LOG_FORMAT=json`: every line an object, a request's
lines carrying its id."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from tests.conftest import reset_postgres
from tests.processes import Service, start_service, start_worker

DUE_IN_S = 1.0
QUIET_S = 3.0  # well past the due time: a serve process with workers dispatches in < 1 s


async def sandbox_key(database_url: str, tmp_path: Path) -> str:
    container = await build_container(Settings(database_url=database_url, data_dir=str(tmp_path)))
    try:
        account = await container.services.accounts.create_account("roles")
        created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
        return created.key
    finally:
        await container.aclose()


def action_state(client: httpx.Client, action_id: str) -> str:
    response = client.get(f"/actions/{action_id}")
    assert response.status_code == 200, response.text
    state: str = response.json()["data"]["state"]
    return state


def scheduled_push(client: httpx.Client) -> dict[str, Any]:
    created = client.post(
        "/sandbox/devices", json={"type": "battery", "userId": "u", "timezone": "UTC"}
    )
    assert created.status_code == 201, created.text
    device = created.json()["data"]["id"]
    start = datetime.now(UTC) + timedelta(seconds=DUE_IN_S + 1)
    body = {
        "action": {"command": "charge", "parameters": {}},
        "start": start.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    pushed = client.post(f"/battery/{device}", json=body)
    assert pushed.status_code in (200, 201, 202), pushed.text
    action: dict[str, Any] = pushed.json()["data"]
    assert action["state"] == "scheduled"
    return action


def test_an_api_only_process_leaves_due_actions_to_a_worker_process(
    postgres_url: str, tmp_path: Path
) -> None:
    asyncio.run(reset_postgres(postgres_url))
    key = asyncio.run(sandbox_key(postgres_url, tmp_path))
    env = {"ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "0", "ENERGYHUB_DATA_DIR": str(tmp_path)}
    api = start_service(postgres_url, tmp_path, "--no-demo", "--no-workers", env=env)
    worker: Service | None = None
    try:
        with httpx.Client(base_url=api.base, headers={"x-api-key": key}) as client:
            action = scheduled_push(client)
            time.sleep(DUE_IN_S + 1 + QUIET_S)  # real processes: real time passes
            assert action_state(client, action["id"]) == "scheduled"
            worker = start_worker(postgres_url, tmp_path, env)
            deadline = time.monotonic() + 15
            while action_state(client, action["id"]) != "completed":
                assert time.monotonic() < deadline, action_state(client, action["id"])
                time.sleep(0.1)
    finally:
        api.stop()
        if worker is not None:
            worker.stop()


def test_json_logs_carry_the_request_id(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'logs.db'}"
    key = asyncio.run(sandbox_key(url, tmp_path))
    env = {"ENERGYHUB_LOG_FORMAT": "json", "ENERGYHUB_ACCESS_LOG": "true"}
    service = start_service(url, tmp_path, "--no-demo", env=env)
    try:
        headers = {"x-api-key": key, "x-request-id": "trace-42"}
        assert httpx.get(f"{service.base}/battery", headers=headers).status_code == 200
        assert httpx.get(f"{service.base}/readyz").status_code == 200
    finally:
        service.stop()
    lines = [json.loads(line) for line in service.log.read_text().splitlines() if line]
    assert lines, "no log line"
    for line in lines:
        assert {"time", "level", "logger", "message"} <= line.keys(), line
        assert "color_message" not in line, line  # uvicorn's terminal copy of the message
    served = [line for line in lines if line.get("requestId") == "trace-42"]
    assert served, lines
    assert served[0]["logger"] == "energyhub.access"
    assert served[0]["route"] == "/battery"
    assert served[0]["status"] == 200
    assert not [line for line in lines if line.get("route") in ("/healthz", "/readyz")]
