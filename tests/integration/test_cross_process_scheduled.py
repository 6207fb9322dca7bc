"""Scheduled actions across processes on PostgreSQL, with real processes: an API process
(`serve --no-workers`) takes 1,000 scheduled pushes to 200 sandbox batteries, due over 15 s;
two `energyhub worker` processes dispatch them, and the one that calls the devices first in
the middle second is killed with SIGKILL inside its batch. A webhook receiver run here (on
127.0.0.1) takes every event.

What is checked, per action:
- it ends: `completed`, with one accepted dispatch recorded (`tries` 1) and one
  `push.completed` event; only a dispatch the killed worker held at the kill may instead end
  `failed` (`DEVICE_TIMEOUT`, `push.failed`), when its device accepted a newer action before
  the lease ran out (sending it then would override that newer command);
- what the device received (the sandbox command log, `ENERGYHUB_SANDBOX_COMMAND_LOG_DIR`,
  written by the device before it answers): the action's command exactly once, from one
  worker; only a dispatch held by the killed worker may have had a call from it that was
  never recorded, and then is sent once more by the survivor after its lease (at least once
  is the best a crash between a call and its record allows), or not at all if superseded;
- its final event reached the receiver at least once, every delivery of it with one
  `webhook-id` (a resend after the crash carries the same id; a second id would be a second
  event or delivery), and no other event of it was sent."""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from aiohttp import web
from cryptography.fernet import Fernet
from sqlalchemy import func, select
from standardwebhooks import Webhook, WebhookVerificationError

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.persistence.engine import create_engine
from energyhub.persistence.tables import actions, webhook_deliveries, webhook_events
from energyhub.services.dispatch import LEASE
from energyhub.services.webhook_sender import LEASE as DELIVERY_LEASE
from tests.conftest import reset_postgres
from tests.integration.cross_process import wait_for_channels
from tests.integration.device_calls import Call, calls_by_action, kill_first_caller, sleep_until
from tests.processes import Service, start_service, start_worker

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

DEVICES = 200
COMMANDS = ("charge", "discharge", "idle", "charge", "discharge")
# A device's due seconds (after the first), by its number modulo 6: 1,000 actions over 15 s,
# 67 a second. The middle second (7) is the killed batch's: devices 1 (mod 6) have their next
# action 3 s later, within the lease (a stranded dispatch there is superseded), devices 4 only
# 6 s later (one stranded there is sent again first).
PLANS = (
    (0, 3, 6, 9, 12),
    (1, 4, 7, 10, 13),
    (2, 5, 8, 11, 14),
    (0, 3, 6, 9, 12),
    (1, 4, 7, 13, 14),
    (2, 5, 8, 11, 14),
)
MIDDLE_S = 7
SPREAD_S = 15
COMPLETION_S = 0.5  # the sandbox's completion delay
HOLD_S = 1.0  # the receiver answers nothing this long before the kill (and until it): the
# workers have attempts under way (the receiver has them; the killed one never hears back,
# they are sent again after their lease)
PUSHES_AT_ONCE = 8
TERMINAL = ("completed", "failed", "cancelled")
LOG_PRECISION = timedelta(milliseconds=1)  # the command log's times are cut to milliseconds


# --- the receiver ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Received:
    webhook_id: str
    event_type: str
    action_id: str
    verified: bool


@dataclass
class Receiver:
    """The customer's endpoint: checks each request's signature, answers 204 (or 401)."""

    port: int = 0
    secret: str = ""
    received: list[Received] = field(default_factory=list)
    holding: bool = False  # answers wait for `release`
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            Webhook(self.secret).verify(body, headers)
            verified = True
        except WebhookVerificationError:
            verified = False
        self.received.append(
            Received(
                headers.get("webhook-id", ""),
                headers.get("x-event-type", ""),
                str(orjson.loads(body).get("actionId")),
                verified,
            )
        )
        if self.holding:
            await self.release.wait()
        return web.Response(status=204 if verified else 401)

    def delivered(self) -> set[str]:
        """Actions whose event was received and accepted."""
        return {r.action_id for r in self.received if r.verified}


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    app = web.Application()
    app.router.add_post("/hooks", receiver.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    receiver.port = runner.addresses[0][1]
    yield receiver
    receiver.release.set()
    await runner.cleanup()


# --- setting up ------------------------------------------------------------------------------
async def _sandbox_key(database_url: str, secret: str) -> str:
    container = await build_container(Settings(database_url=database_url, secret_key=secret))
    try:
        account = await container.services.accounts.create_account("scheduled")
        created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
        return created.key
    finally:
        await container.aclose()


async def _bounded(jobs: list[Any], width: int = PUSHES_AT_ONCE) -> list[Any]:
    gate = asyncio.Semaphore(width)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))


async def _devices(client: httpx.AsyncClient) -> list[str]:
    made = await _bounded(
        [
            client.post(
                "/sandbox/devices", json={"type": "battery", "userId": f"u{n}", "timezone": "UTC"}
            )
            for n in range(DEVICES)
        ]
    )
    for answer in made:
        assert answer.status_code == 201, answer.text
    return [answer.json()["data"]["id"] for answer in made]


async def _push_all(
    client: httpx.AsyncClient, devices: list[str], first: datetime
) -> dict[str, dict[str, Any]]:
    """Every device's plan, pushed in due order; returns each action as pushed, by id."""
    planned = sorted(
        (first + timedelta(seconds=second), device, command)
        for n, device in enumerate(devices)
        for second, command in zip(PLANS[n % len(PLANS)], COMMANDS, strict=True)
    )
    answers = await _bounded(
        [
            client.post(
                f"/battery/{device}",
                json={
                    "action": {"command": command, "parameters": {}},
                    "start": start.strftime("%Y-%m-%dT%H:%M:%S"),
                },
            )
            for start, device, command in planned
        ]
    )
    pushed = {}
    for answer in answers:
        assert answer.status_code == 202, answer.text
        data = answer.json()["data"]
        assert data["state"] == "scheduled", f"pushed after its start (too slow?): {data}"
        pushed[data["id"]] = data
    return pushed


async def _start(
    database_url: str, workdir: Path, env: dict[str, str]
) -> tuple[list[Service], Service]:
    """Two workers and an API process, started side by side."""
    started = await asyncio.gather(
        asyncio.to_thread(start_worker, database_url, workdir, env),
        asyncio.to_thread(start_worker, database_url, workdir, env),
        asyncio.to_thread(
            start_service, database_url, workdir, "--no-demo", "--no-workers", env=env
        ),
        return_exceptions=True,
    )
    up = [s for s in started if isinstance(s, Service)]
    if len(up) < len(started):
        for service in up:
            service.stop()
        raise next(s for s in started if isinstance(s, BaseException))
    return up[:2], up[2]


# --- the kill --------------------------------------------------------------------------------
def _owner(worker: Service) -> str:
    """The dispatcher's lease owner, as the worker announced it."""
    found = re.search(r"energyhub worker (\S+) running", worker.log.read_text())
    assert found, worker.log.read_text()
    return found.group(1)


# --- what the database holds -----------------------------------------------------------------
async def _held_by(database_url: str, owner: str) -> dict[str, Any]:
    """The actions `owner` holds leases on: id -> row."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(select(actions).where(actions.c.lease_owner == owner))
            return {row.id: row for row in rows}
    finally:
        await engine.dispose()


async def _wait_until_done(
    database_url: str, receiver: Receiver, total: int, seconds: float
) -> tuple[int, int]:
    """Until every action has ended and the receiver has an event for each; returns how
    many had ended and how many the receiver had then."""
    engine = create_engine(database_url)
    ended = 0
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            async with engine.connect() as connection:
                ended = await connection.scalar(
                    select(func.count()).select_from(actions).where(actions.c.state.in_(TERMINAL))
                )
            if ended == total and len(receiver.delivered()) == total:
                break
            await asyncio.sleep(0.25)
    finally:
        await engine.dispose()
    return ended, len(receiver.delivered())


async def _stored(database_url: str) -> tuple[dict[str, Any], dict[str, list[Any]], list[Any]]:
    """Every action's row, each action's events, and every delivery."""
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = {r.id: r for r in await connection.execute(select(actions))}
            events: dict[str, list[Any]] = defaultdict(list)
            for event in await connection.execute(select(webhook_events)):
                events[str(event.payload.get("actionId"))].append(event)
            deliveries = list(await connection.execute(select(webhook_deliveries)))
        return rows, events, deliveries
    finally:
        await engine.dispose()


# --- the test --------------------------------------------------------------------------------
async def test_scheduled_actions_survive_the_kill_of_one_of_two_workers(
    postgres_url: str, tmp_path: Path, receiver: Receiver
) -> None:
    began = time.monotonic()
    await reset_postgres(postgres_url)
    secret = Fernet.generate_key().decode()
    key = await _sandbox_key(postgres_url, secret)
    calls_dir = tmp_path / "device-calls"
    env = {
        "ENERGYHUB_SECRET_KEY": secret,  # processes sharing a database share the key
        "ENERGYHUB_SANDBOX_COMPLETION_DELAY_S": str(COMPLETION_S),
        "ENERGYHUB_SANDBOX_PUSH_EVENT_DELAY_S": "0",  # push events go at once, not after 3 min
        "ENERGYHUB_SANDBOX_COMMAND_LOG_DIR": str(calls_dir),
        "ENERGYHUB_RATE_LIMIT_SANDBOX": "100000",
    }
    workers, api = await _start(postgres_url, tmp_path, env)
    owners = [_owner(w) for w in workers]
    client = httpx.AsyncClient(base_url=api.base, headers={"x-api-key": key}, timeout=30)
    try:
        pids = [s.process.pid for s in [*workers, api]]
        await asyncio.to_thread(wait_for_channels, postgres_url, *pids)
        made = await client.post(
            "/webhooks/endpoints",
            json={
                "url": f"http://127.0.0.1:{receiver.port}/hooks",
                "events": ["push.completed", "push.failed"],
            },
        )
        assert made.status_code == 201, made.text
        receiver.secret = made.json()["data"]["secret"]
        started = time.monotonic()
        devices = await _devices(client)
        per_request = (time.monotonic() - started) / DEVICES
        # every push in before the first is due: a push took 0.26-0.6 times as long as making
        # a device in trial runs (pushes that overlap dispatching run far slower); they go in
        # due order, so the last ones have up to SPREAD_S more
        lead = 2.0 + per_request * DEVICES * len(COMMANDS) * 0.7
        first = datetime.fromtimestamp(int(time.time() + lead) + 1, UTC)
        pushing = time.monotonic()
        pushed = await _push_all(client, devices, first)
        pushed_by = datetime.now(UTC)
        timings = {
            "processes up": started - began,
            "devices made": pushing - started,
            "pushed": time.monotonic() - pushing,
        }
        assert len(pushed) == DEVICES * len(COMMANDS)
        await sleep_until(first + timedelta(seconds=MIDDLE_S - HOLD_S))
        receiver.holding = True
        await sleep_until(first + timedelta(seconds=MIDDLE_S - 0.05))
        killed = await asyncio.to_thread(kill_first_caller, calls_dir, workers)
        killed_at = datetime.now(UTC)
        receiver.holding = False
        receiver.release.set()
        stranded = await _held_by(postgres_url, owners[killed])
        left = (first + timedelta(seconds=SPREAD_S) - datetime.now(UTC)).total_seconds()
        waiting = time.monotonic()
        ended, delivered = await _wait_until_done(
            postgres_url,
            receiver,
            len(pushed),
            max(0.0, left) + LEASE.total_seconds() + DELIVERY_LEASE.total_seconds() + 15,
        )
        timings["waited after the last due second"] = time.monotonic() - waiting - max(0, left)
    finally:
        await client.aclose()
        api.stop()
        for worker in workers:
            worker.stop()
    took = time.monotonic() - began
    rows, events, deliveries = await _stored(postgres_url)
    calls = calls_by_action(calls_dir)
    pids = [w.process.pid for w in workers]
    survivor = pids[1 - killed]
    by_pid = Counter(c.pid for cs in calls.values() for c in cs)
    duplicates = Counter(r.webhook_id for r in receiver.received)
    spent = {k: round(v, 1) for k, v in timings.items()}
    print(
        f"{took:.1f} s in all {spent}; pushes done {(first - pushed_by).total_seconds():.1f} s "
        f"before the first due second; killed worker {killed} (pid {pids[killed]}) at "
        f"{killed_at:%H:%M:%S.%f}, holding {Counter(r.due_kind for r in stranded.values())}; "
        f"device calls by pid {dict(by_pid)}; states "
        f"{Counter((r.state, r.error_code) for r in rows.values())}; "
        f"{len(receiver.received)} webhook requests, "
        f"{sum(n > 1 for n in duplicates.values())} webhook-ids received more than once"
    )
    assert ended == len(pushed), f"{len(pushed) - ended} actions never ended"
    assert delivered == len(pushed), f"{len(pushed) - delivered} actions' events never came"
    assert set(rows) == set(pushed), "an action was lost or added"
    assert set(calls) <= set(rows), "a device was sent a command no action asked for"
    assert set(by_pid) <= set(pids), f"a process other than the workers called devices: {by_pid}"
    held_dispatches = {i for i, r in stranded.items() if r.due_kind == "dispatch"}
    problems = [
        problem
        for action_id, row in rows.items()
        if (
            problem := _check_action(
                row,
                sorted(calls.get(action_id, []), key=lambda c: c.at),
                events.get(action_id, []),
                held=stranded[action_id] if action_id in held_dispatches else None,
                killed=(pids[killed], killed_at),
                survivor=survivor,
            )
        )
    ]
    problems += _check_webhooks(rows, events, deliveries, receiver)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])
    assert held_dispatches, "the kill did not land inside a batch of dispatches"
    assert any(n > 1 for n in duplicates.values()), "the kill interrupted no webhook attempt"


def _check_action(
    row: Any,
    received: list[Call],
    events: list[Any],
    *,
    held: Any | None,
    killed: tuple[int, datetime],
    survivor: int,
) -> str | None:
    """What is wrong with one action, by the rules in this module's docstring."""
    killed_pid, killed_at = killed
    kinds = sorted(e.type for e in events)
    said = f"{row.id}: {row.state} {row.error_code} tries {row.tries}, events {kinds}, calls: " + (
        ", ".join(f"pid {c.pid} at {c.at:%H:%M:%S.%f}" for c in received) or "none"
    )
    if any((c.device_id, c.command) != (row.device_id, row.command) for c in received):
        return said + " (a call to another device or with another command)"
    by_killed = [c for c in received if c.pid == killed_pid]
    if any(c.at > killed_at for c in by_killed):
        return said + " (a call after the kill?)"
    if held is None:  # not held by the killed worker at the kill: one call, one outcome
        ok = (
            len(received) == 1
            and row.state == "completed"
            and row.tries == 1
            and kinds == ["push.completed"]
        )
        return None if ok else said
    if row.state == "failed":  # superseded: a newer action reached the device first
        ok = (
            row.error_code == "DEVICE_TIMEOUT"
            and len(received) == len(by_killed) <= 1
            and row.tries == 1
            and kinds == ["push.failed"]
        )
        return None if ok else said + " (held by the killed worker, superseded)"
    resent = [c for c in received if c.pid != killed_pid]
    ok = (
        len(by_killed) <= 1
        and len(resent) == 1
        and resent[0].pid == survivor
        and resent[0].at >= held.lease_until - LOG_PRECISION
        and row.state == "completed"
        and row.tries == 1
        and kinds == ["push.completed"]
    )
    return None if ok else said + " (held by the killed worker, to be sent again)"


def _check_webhooks(
    rows: dict[str, Any],
    events: dict[str, list[Any]],
    deliveries: list[Any],
    receiver: Receiver,
) -> list[str]:
    """Each action's final event reached the receiver, every delivery of it with one
    `webhook-id`: the id of its one stored delivery."""
    delivery_of = {d.event_id: d.id for d in deliveries}
    got: dict[str, list[Received]] = defaultdict(list)
    for request in receiver.received:
        got[request.action_id].append(request)
    problems = []
    for action_id, row in rows.items():
        requests = got.get(action_id, [])
        ids = {r.webhook_id for r in requests}
        expected = [delivery_of.get(e.id) for e in events.get(action_id, [])]
        said = f"{action_id} ({row.state}): webhook-ids {ids} for deliveries {expected}"
        if len(ids) != 1 or ids != set(expected):
            problems.append(said)
        elif not all(r.verified for r in requests):
            problems.append(said + " (a request not signed with the endpoint's secret)")
        elif {r.event_type for r in requests} != {f"push.{row.state}"}:
            problems.append(said + f" (event types {[r.event_type for r in requests]})")
    if set(got) - set(rows):
        problems.append(f"events of unknown actions: {sorted(set(got) - set(rows))[:5]}")
    return problems
