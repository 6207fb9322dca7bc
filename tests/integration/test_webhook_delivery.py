"""Webhook delivery end to end (issue 4, point 7): a real HTTP receiver on 127.0.0.1 that
verifies every request with `standardwebhooks`, as a customer's would, on SQLite and
PostgreSQL.

Time is the fake clock's, kept near the real time because standardwebhooks checks the
timestamp against it (+/- 5 min); retries are driven by moving it and running the sender's
pump (`run_due`). Nothing sleeps: waits are on the receiver's condition, with timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from sqlalchemy import select
from standardwebhooks import Webhook, WebhookVerificationError

from energyhub.adapters.webhook_client import WebhookClient
from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import FakeClock, isoformat_utc
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import EventType
from energyhub.persistence.tables import webhook_deliveries
from energyhub.services.ids import prefixed_id
from energyhub.services.webhook_sender import LEASE, WebhookSender
from energyhub.workers.webhook_pump import run_due
from tests.processes import free_port, start_service
from tests.support import Api, Caller

HANG = -1  # an answer that never comes (until the receiver is released)


@dataclass(frozen=True)
class Received:
    path: str
    webhook_id: str
    event_type: str
    body: bytes
    verified: bool
    status: int  # what the receiver answered (HANG: nothing)

    @property
    def ok(self) -> bool:
        return self.verified and 200 <= self.status < 300


@dataclass
class Receiver:
    """A customer's endpoint: each path has its own secret and its own answers."""

    port: int = 0
    secrets: dict[str, str] = field(default_factory=dict)
    answers: dict[str, Callable[[int], int]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def on(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        secret = self.secrets.get(request.path)
        try:
            if secret is None:
                raise WebhookVerificationError("no endpoint at this path")
            Webhook(secret).verify(body, headers)
            verified = True
        except WebhookVerificationError:
            verified = False
        answer = self.answers.get(request.path, lambda _n: 204)
        status = answer(len(self.on(request.path))) if verified else 401
        self.received.append(
            Received(
                request.path,
                headers.get("webhook-id", ""),
                headers.get("x-event-type", ""),
                body,
                verified,
                status,
            )
        )
        async with self.changed:
            self.changed.notify_all()
        if status == HANG:
            await self.release.wait()
            status = 204
        return web.Response(status=status)

    async def wait_for(self, predicate: Callable[[], bool], seconds: float = 10) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), seconds)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    app = web.Application()
    app.router.add_post("/{tail:.*}", receiver.handle)
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    receiver.port = runner.addresses[0][1]
    yield receiver
    receiver.release.set()
    await runner.cleanup()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        key_cache_ttl_s=0,
        immediate_retry_backoff_s=(0, 0),
        sandbox_completion_delay_s=0,
        sandbox_push_event_delay_s=0,
        sandbox_link_event_delay_s=0,
        webhook_retry_schedule_s=(1, 2, 4),
        private_webhook_urls="all",  # the receiver is on loopback, for live endpoints too
    )


async def endpoint(
    api: Api, caller: Caller, receiver: Receiver, path: str, **body: Any
) -> dict[str, Any]:
    response = await api.client.post(
        "/webhooks/endpoints", json={"url": receiver.url(path), **body}, headers=caller.headers
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    receiver.secrets[path] = data["secret"]
    return data


def push_payload(n: int) -> dict[str, Any]:
    return {
        "actionId": f"act_{n}",
        "deviceId": "dev_1",
        "deviceType": "battery",
        "command": "charge",
        "parameters": {},
        "result": {"success": True},
        "completedAt": "2026-11-20T12:00:00.000Z",
    }


async def add_events(
    api: Api,
    caller: Caller,
    count: int,
    event: EventType = EventType.PUSH_COMPLETED,
    environment: str = "sandbox",
    first: int = 0,
) -> list[OutboxEvent]:
    now = api.clock.now()
    made = [
        OutboxEvent(
            prefixed_id("evt"),
            caller.account_id,
            environment,
            event,
            push_payload(first + n),
            now,
            now,
        )
        for n in range(count)
    ]
    async with api.container.uow() as tx:
        await tx.events.add(made)
    return made


async def deliveries(api: Api, caller: Caller, **query: Any) -> list[dict[str, Any]]:
    response = await api.get(caller, "/webhooks/deliveries", limit=50, **query)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return items


def action_ids(received: list[Received]) -> list[str]:
    return sorted(str(httpx.Response(200, content=r.body).json()["actionId"]) for r in received)


# --- (a) a receiver that fails the first half of its requests ------------------------------
async def test_receiver_failing_first_half_gets_every_event_same_id(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    await endpoint(api, caller, receiver, "/flaky")
    failures = [500, 503, 302, 404, 429]
    receiver.answers["/flaky"] = lambda n: failures[n % 5] if n < 20 else 200
    await add_events(api, caller, 20)
    sender = api.container.webhook_sender

    attempted = await run_due(sender, "sender-1")
    assert attempted == 20, (len(receiver.received), await deliveries(api, caller))
    assert [r.status for r in receiver.received] == [failures[n % 5] for n in range(20)]
    rounds = 0
    while len([r for r in receiver.received if r.ok]) < 20 and rounds < 5:
        api.clock.advance(1.2)  # past the first retry delay (1 s +- 10 %)
        await run_due(sender, "sender-1")
        rounds += 1

    assert len(receiver.received) == 40
    assert all(r.verified for r in receiver.received)
    good = [r for r in receiver.received if r.ok]
    assert action_ids(good) == sorted(f"act_{n}" for n in range(20)), "every event"
    by_id: dict[str, set[bytes]] = {}
    for r in receiver.received:
        by_id.setdefault(r.webhook_id, set()).add(r.body)
    assert len(by_id) == 20, "one webhook-id per event, the same on its retry"
    assert all(len(bodies) == 1 for bodies in by_id.values()), "the same bytes each time"
    stored = await deliveries(api, caller)
    assert {d["id"] for d in stored} == set(by_id)
    assert {d["status"] for d in stored} == {"succeeded"}
    for d in stored:
        assert [a["httpStatus"] for a in d["attempts"]][1:] == [200]
        assert d["attempts"][0]["httpStatus"] in failures
        assert d["nextAttemptAt"] is None


async def test_a_receiver_that_never_recovers_ends_failed(api: Api, receiver: Receiver) -> None:
    caller = await api.caller()
    await endpoint(api, caller, receiver, "/down")
    receiver.answers["/down"] = lambda _n: 500
    await add_events(api, caller, 1)
    sender = api.container.webhook_sender
    for _ in range(6):
        await run_due(sender, "sender-1")
        api.clock.advance(5)
    assert len(receiver.received) == 4, "the first attempt and the schedule's 3 retries"
    (stored,) = await deliveries(api, caller)
    assert (stored["status"], stored["nextAttemptAt"]) == ("failed", None)
    assert len(stored["attempts"]) == 4
    assert [a["httpStatus"] for a in stored["attempts"]] == [500] * 4
    assert len({r.webhook_id for r in receiver.received}) == 1

    receiver.answers["/down"] = lambda _n: 204
    response = await api.client.post(
        f"/webhooks/deliveries/{stored['id']}/resend", headers=caller.headers
    )
    assert response.status_code == 202
    await run_due(sender, "sender-1")
    assert receiver.received[-1].ok
    assert receiver.received[-1].webhook_id == stored["id"]


# --- (b) crash safety ------------------------------------------------------------------------
async def test_delivery_of_a_dead_sender_is_sent_again_once_its_lease_ends(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    await endpoint(api, caller, receiver, "/slow")
    receiver.answers["/slow"] = lambda n: HANG if n == 0 else 204
    (event,) = await add_events(api, caller, 1)
    container = api.container
    # it never looks for more work by itself: the test decides when its lease has run out
    dying = WebhookSender(
        container.uow, container.webhook_client, api.clock, cipher=container.cipher, recheck_s=3600
    )
    stuck = asyncio.create_task(run_due(dying, "dead-sender"))
    try:
        await receiver.wait_for(lambda: len(receiver.received) == 1)
        survivor = WebhookSender(
            container.uow, container.webhook_client, api.clock, cipher=container.cipher
        )
        assert await run_due(survivor, "survivor") == 0, "the lease still holds"
        api.clock.advance(LEASE.total_seconds() + 1)
        assert await run_due(survivor, "survivor") == 1
    finally:
        receiver.release.set()  # the dead sender's attempt ends now, long after its lease
        await asyncio.wait_for(stuck, 10)
    first, second = receiver.received
    assert first.webhook_id == second.webhook_id
    assert first.body == second.body
    assert second.ok
    (stored,) = await deliveries(api, caller)
    assert stored["status"] == "succeeded"
    # only the survivor's attempt (made after the lease ran out); the late holder's result
    # is not recorded over it
    assert [a["at"] for a in stored["attempts"]] == [isoformat_utc(api.clock.now())]
    assert action_ids([second]) == [event.payload["actionId"]]


@pytest.mark.slow
async def test_sigkill_mid_delivery_loses_nothing(
    database_url: str, receiver: Receiver, tmp_path: Path
) -> None:
    container = await build_container(Settings(database_url=database_url))
    try:
        account = await container.services.accounts.create_account("webhook-crash")
        key = (await container.services.accounts.create_key(account.id, Environment.SANDBOX)).key
    finally:
        await container.aclose()
    env = {
        "ENERGYHUB_SANDBOX_LINK_EVENT_DELAY_S": "0",
        "ENERGYHUB_WEBHOOK_RETRY_SCHEDULE_S": "1,1,1",
        "ENERGYHUB_LOG_LEVEL": "WARNING",
    }
    receiver.answers["/crash"] = lambda _n: HANG
    port = free_port()
    service = start_service(database_url, tmp_path, "--no-demo", env=env, port=port)
    client = httpx.AsyncClient(base_url=service.base, headers={"x-api-key": key}, timeout=10)
    try:
        created = await client.post("/webhooks/endpoints", json={"url": receiver.url("/crash")})
        assert created.status_code == 201, created.text
        receiver.secrets["/crash"] = created.json()["data"]["secret"]
        devices = []
        for n in range(5):
            made = await client.post(
                "/sandbox/devices", json={"type": "battery", "userId": f"u{n}"}
            )
            assert made.status_code == 201, made.text
            devices.append(made.json()["data"]["id"])
        await receiver.wait_for(lambda: len(receiver.received) == 5)
        service.kill()  # five attempts under way, none answered
        before = {r.webhook_id for r in receiver.received}
        receiver.answers["/crash"] = lambda _n: 204
        receiver.release.set()

        # an event written while the service is down waits in the outbox
        container = await build_container(Settings(database_url=database_url))
        try:
            now = datetime.now(UTC)
            late = OutboxEvent(
                prefixed_id("evt"),
                account.id,
                "sandbox",
                EventType.DEVICE_RECONNECTED,
                {"deviceId": devices[0], "deviceType": "battery", "userId": "u0"},
                now,
                now,
            )
            async with container.uow() as tx:
                await tx.events.add([late])
        finally:
            await container.aclose()

        service = start_service(database_url, tmp_path, "--no-demo", env=env, port=port)
        await receiver.wait_for(
            lambda: len({r.webhook_id for r in receiver.received if r.ok}) == 6,
            seconds=LEASE.total_seconds() + 20,
        )
    finally:
        await client.aclose()
        service.stop()
    good = [r for r in receiver.received if r.ok]
    assert all(r.verified for r in receiver.received)
    assert before <= {r.webhook_id for r in good}, "the interrupted ones, same webhook-id"
    delivered = {httpx.Response(200, content=r.body).json()["deviceId"] for r in good}
    assert delivered == set(devices)
    assert sorted(r.event_type for r in good).count("device.connected") == 5
    container = await build_container(Settings(database_url=database_url))
    try:
        async with container.engine.connect() as connection:
            rows = (await connection.execute(select(webhook_deliveries.c.status))).all()
    finally:
        await container.aclose()
    assert [r.status for r in rows] == ["succeeded"] * 6


async def test_two_senders_at_once_send_each_attempt_once(api: Api, receiver: Receiver) -> None:
    caller = await api.caller()
    await endpoint(api, caller, receiver, "/shared")
    receiver.answers["/shared"] = lambda n: 500 if n < 120 else 204
    await add_events(api, caller, 120)
    container = api.container
    senders = [
        WebhookSender(
            container.uow,
            container.webhook_client,
            api.clock,
            cipher=container.cipher,
            retry_schedule=container.settings.webhook_retry_schedule_s,
            batch=10,
        )
        for _ in range(2)
    ]

    async def both() -> int:
        counts = await asyncio.gather(*(run_due(s, f"sender-{n}") for n, s in enumerate(senders)))
        return sum(counts)

    assert await both() == 120, "each event fanned out once"
    api.clock.advance(1.2)
    assert await both() == 120, "each retry claimed once"
    per_id: dict[str, int] = {}
    for r in receiver.received:
        per_id[r.webhook_id] = per_id.get(r.webhook_id, 0) + 1
    assert sorted(set(per_id.values())) == [2]
    assert len(per_id) == 120
    good = [r for r in receiver.received if r.ok]
    assert action_ids(good) == sorted(f"act_{n}" for n in range(120))


# --- (c) signatures --------------------------------------------------------------------------
async def test_every_request_is_signed_and_rotation_switches_the_secret(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    created = await endpoint(api, caller, receiver, "/signed")
    (event,) = await add_events(api, caller, 1)
    sender = api.container.webhook_sender
    await run_due(sender, "sender-1")
    (first,) = receiver.received
    assert first.ok
    assert first.event_type == "push.completed"
    (stored,) = await deliveries(api, caller)
    assert first.webhook_id == stored["id"]
    assert httpx.Response(200, content=first.body).json() == event.payload
    assert b"push.completed" not in first.body, "the body is flat, without the event name"

    rotated = await api.client.post(  # the old secret stops at once (else it signs a day)
        f"/webhooks/endpoints/{created['id']}/rotate-secret",
        json={"expireOldNow": True},
        headers=caller.headers,
    )
    new_secret = rotated.json()["data"]["secret"]
    await add_events(api, caller, 1, first=1)
    await run_due(sender, "sender-1")
    assert not receiver.received[1].verified, "signed with the new secret, not the old"
    receiver.secrets["/signed"] = new_secret
    receiver.answers["/signed"] = lambda _n: 204
    api.clock.advance(1.2)
    await run_due(sender, "sender-1")
    assert receiver.received[2].ok
    assert receiver.received[2].webhook_id == receiver.received[1].webhook_id


# --- (d) who gets what -----------------------------------------------------------------------
async def test_environments_filters_accounts_and_deletion(api: Api, receiver: Receiver) -> None:
    caller = await api.caller()
    live = await api.key_for(caller.account_id, Environment.LIVE)
    stranger = await api.caller()
    await endpoint(api, caller, receiver, "/sandbox")
    await endpoint(api, live, receiver, "/live")
    await endpoint(api, caller, receiver, "/failures", events=["push.failed"])
    await endpoint(api, stranger, receiver, "/stranger")
    doomed = await endpoint(api, caller, receiver, "/deleted")
    deleted = await api.client.delete(f"/webhooks/endpoints/{doomed['id']}", headers=caller.headers)
    assert deleted.status_code == 200

    await add_events(api, caller, 2, EventType.PUSH_COMPLETED, "sandbox")
    await add_events(api, caller, 1, EventType.PUSH_FAILED, "sandbox", first=2)
    await add_events(api, caller, 3, EventType.DEVICE_CONNECTED, "live", first=3)
    assert await run_due(api.container.webhook_sender, "sender-1") == 2 + 1 + 1 + 3

    assert all(r.ok for r in receiver.received)
    assert action_ids(receiver.on("/sandbox")) == ["act_0", "act_1", "act_2"]
    assert action_ids(receiver.on("/live")) == ["act_3", "act_4", "act_5"]
    assert {r.event_type for r in receiver.on("/live")} == {"device.connected"}
    assert [r.event_type for r in receiver.on("/failures")] == ["push.failed"]
    assert receiver.on("/stranger") == []
    assert receiver.on("/deleted") == []
    assert len(await deliveries(api, caller)) == 4
    assert len(await deliveries(api, live)) == 3
    assert await deliveries(api, stranger) == []


async def test_live_endpoints_may_not_reach_private_addresses_unless_allowed(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    live = await api.key_for(caller.account_id, Environment.LIVE)
    await endpoint(api, live, receiver, "/live")
    await endpoint(api, caller, receiver, "/sandbox")
    await add_events(api, caller, 1, environment="live")
    await add_events(api, caller, 1, environment="sandbox", first=1)
    container = api.container
    client = WebhookClient(api.clock)  # ENERGYHUB_PRIVATE_WEBHOOK_URLS at its default
    guarded = WebhookSender(container.uow, client, api.clock, cipher=container.cipher)
    try:
        assert await run_due(guarded, "guarded") == 2
    finally:
        await client.aclose()
    assert [r.path for r in receiver.received] == ["/sandbox"], "sandbox endpoints may"
    (refused,) = await deliveries(api, live)
    assert refused["attempts"][0]["httpStatus"] is None
    assert "(only public addresses)" in refused["attempts"][0]["error"]
    assert refused["status"] == "pending"


# --- concurrency and the loop ----------------------------------------------------------------
async def test_a_hanging_endpoint_does_not_hold_up_the_others(api: Api, receiver: Receiver) -> None:
    caller = await api.caller()
    other = await api.caller()
    await endpoint(api, caller, receiver, "/hangs")
    await endpoint(api, other, receiver, "/healthy")
    receiver.answers["/hangs"] = lambda _n: HANG
    await add_events(api, caller, 1)
    await add_events(api, other, 1)
    wakeup = asyncio.Event()
    running = asyncio.create_task(run_due(api.container.webhook_sender, "sender-1", wakeup))
    try:
        await receiver.wait_for(lambda: len(receiver.received) == 2)
        await add_events(api, other, 1, first=1)
        wakeup.set()
        await receiver.wait_for(lambda: len(receiver.on("/healthy")) == 2)
        assert not running.done()
    finally:
        receiver.release.set()
        await asyncio.wait_for(running, 10)
    assert action_ids(receiver.on("/healthy")) == ["act_0", "act_1"]


async def test_the_worker_sends_events_of_real_routes_when_told(
    api: Api, receiver: Receiver
) -> None:
    caller = await api.caller()
    await endpoint(api, caller, receiver, "/e2e")
    worker = api.container.webhook_worker
    worker.start()
    try:
        device = await api.sandbox_device(caller, "battery", user_id="user-7")
        await receiver.wait_for(lambda: len(receiver.received) == 1)
        pushed = await api.push(caller, device, "charge")
        assert pushed.status_code == 200, pushed.text
        await api.run_due(0)  # the sandbox completes it (delay 0)
        await receiver.wait_for(lambda: len(receiver.received) == 2)
    finally:
        await worker.stop()
    connected, completed = receiver.received
    assert connected.ok
    assert connected.event_type == "device.connected"
    body = httpx.Response(200, content=connected.body).json()
    assert (body["deviceId"], body["userId"], body["deviceType"]) == (
        device["id"],
        "user-7",
        "battery",
    )
    assert completed.ok
    assert completed.event_type == "push.completed"
    payload = httpx.Response(200, content=completed.body).json()
    assert payload["actionId"] == pushed.json()["data"]["id"]
    assert payload["result"]["success"] is True
