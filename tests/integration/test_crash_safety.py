"""Crash safety (issue: pushes): SIGKILL the service while actions are scheduled, one due
during the downtime; after a restart each runs exactly once, the late one at once."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.persistence.tables import actions
from tests.processes import free_port, start_service

pytestmark = pytest.mark.slow
SERVICE_ENV = {"ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": "0.5"}


async def _sandbox_key(database_url: str) -> str:
    container = await build_container(Settings(database_url=database_url))
    try:
        account = await container.services.accounts.create_account("crash")
        created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
        return created.key
    finally:
        await container.aclose()


async def _tries(database_url: str) -> dict[str, int]:
    container = await build_container(Settings(database_url=database_url))
    try:
        async with container.engine.connect() as connection:
            rows = await connection.execute(select(actions.c.id, actions.c.tries))
            return {r.id: r.tries for r in rows}
    finally:
        await container.aclose()


async def _wait_for(
    client: httpx.AsyncClient, action_id: str, state: str, seconds: float
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        data: dict[str, Any] = (await client.get(f"/actions/{action_id}")).json()["data"]
        if data["state"] == state or time.monotonic() > deadline:
            return data
        await asyncio.sleep(0.05)


def _local(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S")


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_sigkill_with_scheduled_actions_loses_nothing(
    database_url: str, tmp_path: Path
) -> None:
    key = await _sandbox_key(database_url)
    port = free_port()
    service = start_service(database_url, tmp_path, "--no-demo", env=SERVICE_ENV, port=port)
    client = httpx.AsyncClient(base_url=service.base, headers={"x-api-key": key}, timeout=10)
    try:
        created = await client.post(
            "/sandbox/devices", json={"type": "battery", "userId": "u", "timezone": "UTC"}
        )
        device = created.json()["data"]
        now = datetime.now(UTC).replace(microsecond=0)
        plan = {
            "charge": now + timedelta(seconds=3),
            "discharge": now + timedelta(seconds=8),
            "idle": now + timedelta(seconds=16),
        }
        ids = {}
        for command, start in plan.items():
            response = await client.post(
                f"/battery/{device['id']}",
                json={"action": {"command": command}, "start": _local(start)},
            )
            assert response.status_code == 202, response.text
            ids[command] = response.json()["data"]["id"]
        first = await _wait_for(client, ids["charge"], "completed", 8)
        assert first["state"] == "completed"
        assert _at(first["acknowledgedAt"]) - plan["charge"] < timedelta(seconds=1)
        service.kill()
        await asyncio.sleep(max(0.0, (plan["discharge"] - datetime.now(UTC)).total_seconds() + 1.5))
        restarted_at = datetime.now(UTC)
        service = start_service(database_url, tmp_path, "--no-demo", env=SERVICE_ENV, port=port)
        ready_at = datetime.now(UTC)  # healthy: its workers have started
        late = await _wait_for(client, ids["discharge"], "completed", 8)
        assert late["state"] == "completed"
        assert _at(late["acknowledgedAt"]) >= restarted_at
        assert _at(late["acknowledgedAt"]) - ready_at < timedelta(seconds=2), "at once"
        last = await _wait_for(client, ids["idle"], "completed", 20)
        assert last["state"] == "completed"
        assert _at(last["acknowledgedAt"]) - plan["idle"] < timedelta(seconds=1)
        battery = (await client.get(f"/battery/{device['id']}")).json()["data"]
        assert battery["state"]["currentMode"] == "idle"
        assert battery["lastAction"]["id"] == ids["idle"]
        charge = (await client.get(f"/actions/{ids['charge']}")).json()["data"]
        assert charge["state"] == "completed"
    finally:
        await client.aclose()
        service.stop()
    tries = await _tries(database_url)
    assert [tries[ids[c]] for c in plan] == [1, 1, 1], "each dispatched exactly once"
