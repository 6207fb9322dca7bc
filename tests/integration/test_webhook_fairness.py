"""A noisy tenant does not hold up anybody else's webhooks (issue 12, defect 1), on SQLite and
PostgreSQL, with real receivers on 127.0.0.1: one tenant's endpoints hold every request they
get (slow receivers), and a bystander's first attempt must still come within 2 s of its
event. Also: a sender's lease renewals stay in bounded statements however much is waiting.

The sender runs in its worker loop, woken as the outbox wakes it; the fake clock stands
still (leases never run out by themselves), real time is measured at the receivers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from aiohttp import web
from sqlalchemy import event

from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import EventType
from energyhub.services.ids import prefixed_id
from energyhub.services.webhook_sender import WebhookSender
from energyhub.workers.webhook_pump import run_due
from tests.support import Api, Caller, local_receiver

PROMISE_S = 2.0  # a webhook with no delay is first attempted within 2 s of its event
RENEWAL = re.compile(r"UPDATE webhook_deliveries SET lease_until=")


@dataclass
class Receivers:
    """Requests that arrived, by endpoint (the `n` of `?n=`), with when; slow ones are held
    until `release` is set."""

    arrived: dict[str, list[float]] = field(default_factory=dict)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def count(self, prefix: str = "") -> int:
        return sum(len(at) for n, at in self.arrived.items() if n.startswith(prefix))

    async def wait_for(self, prefix: str, count: int, seconds: float) -> None:
        async def reached() -> None:
            while self.count(prefix) < count:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(reached(), seconds)

    def handler(self, *, hold: bool) -> Any:
        async def handle(request: web.Request) -> web.Response:
            await request.read()
            name = request.query["n"]
            self.arrived.setdefault(name, []).append(asyncio.get_running_loop().time())
            self.changed.set()
            if hold:
                await self.release.wait()
            return web.Response(status=204)

        return handle


@pytest.fixture
async def receivers() -> AsyncIterator[tuple[Receivers, str, str]]:
    """A slow receiver (holds each request) and a quick one: their base URLs."""
    found = Receivers()
    async with (
        local_receiver(found.handler(hold=True)) as slow,
        local_receiver(found.handler(hold=False)) as quick,
    ):
        try:
            yield found, slow, quick
        finally:
            found.release.set()


async def endpoint(api: Api, caller: Caller, url: str, **body: Any) -> None:
    response = await api.client.post(
        "/webhooks/endpoints", json={"url": url, **body}, headers=caller.headers
    )
    assert response.status_code == 201, response.text


async def add_events(api: Api, caller: Caller, count: int, event_type: EventType) -> None:
    now = api.clock.now()
    payload = {"deviceId": "dev_1", "deviceType": "battery", "userId": "u1"}
    made = [
        OutboxEvent(prefixed_id("evt"), caller.account_id, "sandbox", event_type, payload, now, now)
        for _ in range(count)
    ]
    async with api.container.uow() as tx:
        await tx.events.add(made)
    api.container.webhook_worker.wake()  # as the outbox does once the events are written


@pytest.fixture
async def worker(api: Api) -> AsyncIterator[None]:
    api.container.webhook_worker.start()
    try:
        yield
    finally:
        await api.container.webhook_worker.stop()


async def test_a_tenant_of_slow_endpoints_does_not_delay_a_bystander(
    api: Api, receivers: tuple[Receivers, str, str], worker: None
) -> None:
    found, slow, quick = receivers
    noisy, bystander = await api.caller(), await api.caller()
    for n in range(20):  # as many as an environment may have
        await endpoint(api, noisy, f"{slow}?n=noisy-{n}")
    await endpoint(api, bystander, f"{quick}?n=bystander")
    await add_events(api, noisy, 15, EventType.DEVICE_CONNECTED)  # 300 deliveries
    await found.wait_for("noisy", 40, 10)  # the noisy tenant's attempts hang
    await asyncio.sleep(0.2)  # and it has had time to take more slots, if it could

    written = asyncio.get_running_loop().time()
    await add_events(api, bystander, 1, EventType.DEVICE_CONNECTED)
    try:
        await found.wait_for("bystander", 1, PROMISE_S)
    except TimeoutError:
        pytest.fail(
            f"the bystander's webhook was not attempted within {PROMISE_S} s of its event "
            f"while {found.count('noisy')} of the noisy tenant's requests were held"
        )
    assert found.arrived["bystander"][0] - written < PROMISE_S
    assert not found.release.is_set(), "the noisy tenant's attempts were still under way"
    per_endpoint = [len(at) for n, at in found.arrived.items() if n.startswith("noisy")]
    assert len(per_endpoint) == 20, "the slots went round the noisy tenant's endpoints"
    assert max(per_endpoint) - min(per_endpoint) <= 1


async def test_a_slow_endpoint_does_not_delay_its_accounts_other_endpoints(
    api: Api, receivers: tuple[Receivers, str, str], worker: None
) -> None:
    found, slow, quick = receivers
    tenant = await api.caller()
    await endpoint(api, tenant, f"{slow}?n=slow", events=["device.connected"])
    await endpoint(api, tenant, f"{quick}?n=quick", events=["device.reconnected"])
    await add_events(api, tenant, 120, EventType.DEVICE_CONNECTED)
    await found.wait_for("slow", 5, 10)
    await asyncio.sleep(0.2)

    written = asyncio.get_running_loop().time()
    await add_events(api, tenant, 1, EventType.DEVICE_RECONNECTED)
    try:
        await found.wait_for("quick", 1, PROMISE_S)
    except TimeoutError:
        pytest.fail(
            f"the quick endpoint got nothing within {PROMISE_S} s while "
            f"{found.count('slow')} requests to its account's slow endpoint were held"
        )
    assert found.arrived["quick"][0] - written < PROMISE_S
    assert found.count("slow") <= 20, "at most 20 attempts at once to one endpoint"


async def test_a_fast_receivers_backlog_is_fetched_in_full_batches(
    api: Api, receivers: tuple[Receivers, str, str]
) -> None:
    """A fast receiver drains its share between two fetches; each fetch must still bring a
    full batch (200): a fetch costs several round trips, and small ones halved the sender's
    throughput on PostgreSQL."""
    found, _, quick = receivers
    tenant = await api.caller()
    await endpoint(api, tenant, f"{quick}?n=fast")
    await add_events(api, tenant, 1000, EventType.DEVICE_CONNECTED)
    inserts: list[str] = []

    def count_inserts(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("INSERT INTO webhook_deliveries"):
            inserts.append(statement)

    engine = api.container.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count_inserts)
    container = api.container
    sender = WebhookSender(
        container.uow, container.webhook_client, api.clock, cipher=container.cipher
    )
    try:
        assert await asyncio.wait_for(run_due(sender, "batches"), 60) == 1000
    finally:
        event.remove(engine, "before_cursor_execute", count_inserts)
    assert found.count("fast") == 1000
    assert len(inserts) <= 10, f"1,000 deliveries written by {len(inserts)} fetches"


async def test_lease_renewals_are_bounded_statements(
    api: Api, receivers: tuple[Receivers, str, str]
) -> None:
    found, slow, _ = receivers
    tenants = [await api.caller() for _ in range(3)]
    for t, tenant in enumerate(tenants):
        for n in range(20):
            await endpoint(api, tenant, f"{slow}?n=t{t}-{n}")
        await add_events(api, tenant, 10, EventType.DEVICE_CONNECTED)  # 200 deliveries each
    renewed: list[int] = []
    enough = asyncio.Event()
    loop = asyncio.get_running_loop()

    def count_renewals(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if RENEWAL.match(statement):
            renewed.append(sum(1 for p in params if isinstance(p, str) and p.startswith("msg_")))
            if len(renewed) >= 6:
                loop.call_soon_threadsafe(enough.set)

    engine = api.container.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count_renewals)
    container = api.container
    sender = WebhookSender(
        container.uow,
        container.webhook_client,
        api.clock,
        cipher=container.cipher,
        # renewed every 0.3 s: long enough that a busy machine's pauses (a test run beside
        # others on two cores) do not let leases lapse while every slot is held
        lease=timedelta(seconds=1.2),
    )
    run = asyncio.create_task(run_due(sender, "renewing"))
    try:
        await found.wait_for("t", 42, 20)  # every slot it may use is held
        await asyncio.wait_for(enough.wait(), 20)  # a few rounds of renewals
    finally:
        found.release.set()
        await asyncio.wait_for(run, 30)
        event.remove(engine, "before_cursor_execute", count_renewals)
    assert found.count("t") == 600, "every delivery was attempted in the end"
    assert max(renewed) <= 100, f"lease renewals of {max(renewed)} ids in one statement"
    assert max(renewed) > 0
