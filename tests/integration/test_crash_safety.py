"""Crash safety: two `energyhub serve` processes share PostgreSQL, one is killed with SIGKILL
while it holds leases on due work, and what every device received is counted at the device
(the sandbox command log, `ENERGYHUB_SANDBOX_COMMAND_LOG_DIR`), not in our own tables.

Half the devices have actions after the interrupted wave ("long"), half end with it
("short"). The rules checked, per action:
- not held by the killed process at the kill: its command reached its device exactly once,
  and it is `completed` with one `push.completed` event;
- held by the killed process (a lease, and maybe a call it made but never recorded): sent
  once more after the lease ran out, so the device got it once or twice (at least once is
  the best a crash between a call and its record allows), `completed` once; unless newer
  commands had reached its device by then: never sent again, `failed` (`DEVICE_TIMEOUT`)
  with one `push.failed` event;
- nothing is lost, and no device gets an older action's command after a newer one's.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import func, select

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.persistence.engine import create_engine
from energyhub.persistence.tables import actions, webhook_events
from energyhub.services.dispatch import LEASE
from tests.conftest import reset_postgres
from tests.integration.device_calls import Call, calls_by_action, kill_first_caller, sleep_until
from tests.processes import start_service

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

DEVICES = 80
COMMANDS = ("charge", "discharge", "idle", "charge", "discharge")  # one wave a second each
KILL_IN_WAVE = 2  # short devices have no wave after this one
COMPLETION_DELAY_S = 1.5  # the wave before the kill is acknowledged, not yet completed


async def _sandbox_key(database_url: str, secret: str) -> str:
    container = await build_container(Settings(database_url=database_url, secret_key=secret))
    try:
        account = await container.services.accounts.create_account("crash")
        created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
        return created.key
    finally:
        await container.aclose()


def _local(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S")


async def _gather_bounded(jobs: list[Any], width: int = 12) -> list[Any]:
    gate = asyncio.Semaphore(width)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))


async def _plan(
    clients: list[httpx.AsyncClient], devices_made: int, kill_wave: int
) -> tuple[dict[str, list[str]], datetime]:
    """Batteries, each with one scheduled action a second (long devices: one a wave, short
    ones: up to the kill's), pushed in turn through each process; returns each device's
    action ids in wave order and the first wave."""
    created = await _gather_bounded(
        [
            clients[0].post(
                "/sandbox/devices", json={"type": "battery", "userId": "u", "timezone": "UTC"}
            )
            for _ in range(devices_made)
        ]
    )
    devices = [response.json()["data"]["id"] for response in created]
    first_wave = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=6)
    pushes = [
        clients[(n + wave) % len(clients)].post(
            f"/battery/{device}",
            json={
                "action": {"command": command},
                "start": _local(first_wave + timedelta(seconds=wave)),
            },
        )
        for wave, command in enumerate(COMMANDS)
        for n, device in enumerate(devices)
        if n % 2 == 0 or wave <= kill_wave
    ]
    answers = await _gather_bounded(pushes)
    plan: dict[str, list[str]] = {device: [] for device in devices}
    for answer in answers:
        assert answer.status_code == 202, answer.text
        data = answer.json()["data"]
        plan[data["deviceId"]].append(data["id"])
    assert datetime.now(UTC) < first_wave, "pushing took longer than the lead time"
    return plan, first_wave


async def _stranded_leases(database_url: str, killed_at: datetime) -> dict[str, str]:
    """Work leased before the kill and still held: the killed process's (the survivor's
    batches take far less than the second waited before this look)."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(
                select(actions.c.id, actions.c.due_kind).where(
                    actions.c.lease_owner.is_not(None),
                    actions.c.lease_until <= killed_at + LEASE,
                )
            )
            return {row.id: row.due_kind for row in rows}
    finally:
        await engine.dispose()


async def _wait_until_all_done(database_url: str, total: int, seconds: float) -> None:
    engine = create_engine(database_url)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            async with engine.connect() as connection:
                done = await connection.scalar(
                    select(func.count())
                    .select_from(actions)
                    .where(actions.c.state.in_(["completed", "failed", "cancelled"]))
                )
            if done == total:
                return
            await asyncio.sleep(0.25)
    finally:
        await engine.dispose()


async def _stored(database_url: str) -> tuple[dict[str, Any], Counter[tuple[str, str]]]:
    """Every action's row, and how many push events each action has."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = {r.id: r for r in await connection.execute(select(actions))}
            events = await connection.execute(
                select(webhook_events.c.type, webhook_events.c.payload)
            )
            counted = Counter(
                (e.payload["actionId"], e.type) for e in events if "actionId" in e.payload
            )
        return rows, counted
    finally:
        await engine.dispose()


def _service_env(calls_dir: Path, secret: str) -> dict[str, str]:
    return {
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": str(COMPLETION_DELAY_S),
        "ENERGYHUB_SANDBOX_COMMAND_LOG_DIR": str(calls_dir),
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000",
        "ENERGYHUB_SECRET_KEY": secret,  # processes sharing a database share the key
    }


async def test_sigkill_of_one_of_two_processes_mid_batch(postgres_url: str, tmp_path: Path) -> None:
    """The survivor takes the dead process's work over once its leases run out."""
    await reset_postgres(postgres_url)
    secret = Fernet.generate_key().decode()
    key = await _sandbox_key(postgres_url, secret)
    calls_dir = tmp_path / "device-calls"
    env = _service_env(calls_dir, secret)
    services = [start_service(postgres_url, tmp_path, "--no-demo", env=env) for _ in range(2)]
    clients = [
        httpx.AsyncClient(base_url=s.base, headers={"x-api-key": key}, timeout=20) for s in services
    ]
    try:
        plan, first_wave = await _plan(clients, DEVICES, KILL_IN_WAVE)
        await sleep_until(first_wave + timedelta(seconds=KILL_IN_WAVE - 0.05))
        killed = kill_first_caller(calls_dir, services)
        killed_at = datetime.now(UTC)
        await asyncio.sleep(1)  # the survivor's own batches end; the dead one's leases stay
        stranded = await _stranded_leases(postgres_url, killed_at)
        total = sum(len(ids) for ids in plan.values())
        await _wait_until_all_done(postgres_url, total, LEASE.total_seconds() + 15)
    finally:
        for client in clients:
            await client.aclose()
        for service in services:
            service.stop()
    rows = await _verify(
        postgres_url, plan, calls_dir, stranded, services[killed].process.pid, killed_at
    )
    superseded = [r.id for r in rows.values() if r.error_code == "DEVICE_TIMEOUT"]
    assert superseded, "the survivor ran newer waves before the leases ran out"


async def test_sigkill_and_restart_with_work_due_while_down(
    database_url: str, tmp_path: Path
) -> None:
    """One process, killed mid-batch and started again after a wave fell due while it was
    down: that wave runs at once, the dead process's held work once its leases run out."""
    secret = Fernet.generate_key().decode()
    key = await _sandbox_key(database_url, secret)
    calls_dir = tmp_path / "device-calls"
    env = _service_env(calls_dir, secret)
    service = start_service(database_url, tmp_path, "--no-demo", env=env)
    client = httpx.AsyncClient(base_url=service.base, headers={"x-api-key": key}, timeout=20)
    kill_wave = 1
    try:
        plan, first_wave = await _plan([client], DEVICES // 2, kill_wave)
        await sleep_until(first_wave + timedelta(seconds=kill_wave - 0.05))
        kill_first_caller(calls_dir, [service])
        killed_at = datetime.now(UTC)
        killed_pid = service.process.pid
        stranded = await _stranded_leases(database_url, killed_at)
        await sleep_until(first_wave + timedelta(seconds=kill_wave + 1.5))  # one wave missed
        service = start_service(database_url, tmp_path, "--no-demo", env=env)
        ready_at = datetime.now(UTC)
        total = sum(len(ids) for ids in plan.values())
        await _wait_until_all_done(database_url, total, LEASE.total_seconds() + 15)
    finally:
        await client.aclose()
        service.stop()
    rows = await _verify(database_url, plan, calls_dir, stranded, killed_pid, killed_at)
    missed = [ids[kill_wave + 1] for ids in plan.values() if len(ids) > kill_wave + 1]
    late = max(rows[i].acknowledged_at for i in missed) - ready_at
    assert late < timedelta(seconds=2), f"the wave due while down ran {late} after the restart"


async def _verify(
    database_url: str,
    plan: dict[str, list[str]],
    calls_dir: Path,
    stranded: dict[str, str],
    killed_pid: int,
    killed_at: datetime,
) -> dict[str, Any]:
    """Checks every action by the rules in this module's docstring; returns their rows."""
    rows, events = await _stored(database_url)
    calls = calls_by_action(calls_dir)
    long_devices = {d for d, ids in plan.items() if len(ids) == len(COMMANDS)}
    pending = [  # acknowledged before the kill, completed after it
        r.id
        for r in rows.values()
        if r.completed_at and r.acknowledged_at < killed_at < r.completed_at
    ]
    print(
        f"killed pid {killed_pid} at {killed_at:%H:%M:%S.%f}; stranded leases "
        f"{dict(Counter(stranded.values()))}; {len(rows)} actions, "
        f"{sum(map(len, calls.values()))} device calls, "
        f"{sum(len(c) > 1 for c in calls.values())} actions called twice, "
        f"{Counter(r.state for r in rows.values())}; "
        f"{len(pending)} completions pending at the kill"
    )
    assert len(rows) == sum(map(len, plan.values())), "an action was lost or added"
    assert set(calls) <= set(rows), "a device was sent a command no action asked for"
    assert any(rows[i].device_id in long_devices for i in stranded), "nothing to supersede"
    assert any(rows[i].device_id not in long_devices for i in stranded), "nothing to resend"
    assert pending, "completions were pending at the kill"
    problems = [
        problem
        for action_id, row in rows.items()
        if (
            problem := _check_action(
                row,
                sorted(calls.get(action_id, []), key=lambda c: c.at),
                events,
                stranded.get(action_id),
                superseded=row.device_id in long_devices,
                killed=(killed_pid, killed_at),
            )
        )
    ]
    problems += _out_of_order(plan, rows, calls)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])
    return rows


def _check_action(
    row: Any,
    received: list[Call],
    events: Counter[tuple[str, str]],
    stranded: str | None,
    *,
    superseded: bool,
    killed: tuple[int, datetime],
) -> str | None:
    """What is wrong with one action, by the rules in this module's docstring."""
    killed_pid, killed_at = killed
    completed, failed = events[(row.id, "push.completed")], events[(row.id, "push.failed")]
    said = (
        f"{row.id}: {row.state} {row.error_code}, events completed {completed} failed "
        f"{failed}, calls: "
        + (", ".join(f"pid {c.pid} at {c.at:%H:%M:%S.%f}" for c in received) or "none")
    )
    if any((c.device_id, c.command) != (row.device_id, row.command) for c in received):
        return said + " (a call to another device or with another command)"
    by_killed = [c for c in received if c.pid == killed_pid]
    if any(c.at > killed_at for c in by_killed):
        return said + " (a call after the kill?)"
    if stranded != "dispatch":
        ok = len(received) == 1 and row.state == "completed" and (completed, failed) == (1, 0)
        return None if ok else said
    if superseded and (row.state, row.error_code) == ("failed", "DEVICE_TIMEOUT"):
        # newer commands reached the device before the lease ran out: never sent again
        ok = len(received) == len(by_killed) <= 1 and (completed, failed) == (0, 1)
        return None if ok else said + " (held by the killed process, superseded)"
    # sent again: on a long device only if still ahead of the newer ones (`_out_of_order`)
    resent = [c for c in received if c.pid != killed_pid]
    ok = (
        len(by_killed) <= 1
        and len(resent) == 1
        and resent[0].at >= killed_at + LEASE - timedelta(seconds=1)
        and row.state == "completed"
        and (completed, failed) == (1, 0)
    )
    return None if ok else said + " (held by the killed process, to be sent again)"


def _out_of_order(
    plan: dict[str, list[str]], rows: dict[str, Any], calls: dict[str, list[Call]]
) -> list[str]:
    """Devices that got an older action's command after a newer one's: a late repeat that
    overrode a newer command."""
    found = []
    for device_id, ids in plan.items():
        received = sorted((c for i in ids for c in calls.get(i, [])), key=lambda c: (c.at, c.seq))
        for before, after in pairwise(received):
            if rows[str(after.action_id)].start < rows[str(before.action_id)].start:
                found.append(
                    f"device {device_id} got {after.command} of action {after.action_id} (pid "
                    f"{after.pid} at {after.at:%H:%M:%S.%f}) after {before.command} of the newer "
                    f"action {before.action_id} (pid {before.pid} at {before.at:%H:%M:%S.%f})"
                )
                break
    return found
