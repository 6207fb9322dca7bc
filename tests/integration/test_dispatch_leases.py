"""Leases on due actions: a process that dies holding some (here: a dispatcher stopped in the
middle of a device call) gives them up within the 5 s lease, so an acknowledged action
completes seconds late, not 30; and a live holder whose device call outlasts the lease
renews it, so no other process calls the device again meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, select, update

from energyhub.domain.actions import RetryPolicy
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.domain.readings import DeviceReading
from energyhub.persistence.actions import SqlActionRepository
from energyhub.persistence.tables import actions
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.dispatch import Dispatcher
from energyhub.services.dispatch_leases import LEASE, LeaseKeeper
from tests.support import Api


@asynccontextmanager
async def stalled_reads(api: Api, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[
    tuple[asyncio.Event, asyncio.Event, Callable[[], int]]
]:  # fmt: skip
    """Sandbox reads that wait until released: (entered, release, how many reads began)."""
    driver = api.container.drivers[DriverName.SANDBOX]
    real_read = driver.read
    entered, release = asyncio.Event(), asyncio.Event()
    calls = 0

    async def read(device: Device, now: datetime) -> DeviceReading:
        nonlocal calls
        calls += 1
        entered.set()
        await release.wait()
        return await real_read(device, now)

    monkeypatch.setattr(driver, "read", read)
    yield entered, release, lambda: calls
    monkeypatch.setattr(driver, "read", real_read)


async def _acknowledged_charge(api: Api) -> str:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    pushed = await api.push(
        caller, device, "charge", parameters={"power": {"value": 3, "unit": "kw"}}
    )
    assert pushed.status_code == 200, pushed.text
    body: dict[str, Any] = pushed.json()["data"]
    assert body["state"] == "acknowledged"
    return str(body["id"])


async def _action_row(api: Api, action_id: str) -> Any:
    async with api.container.engine.connect() as connection:
        return (await connection.execute(select(actions).where(actions.c.id == action_id))).one()


async def test_claims_of_a_dead_dispatcher_are_taken_over_within_5_s(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    action_id = await _acknowledged_charge(api)
    api.clock.advance(api.container.settings.sandbox_completion_delay_s)
    async with stalled_reads(api, monkeypatch) as (entered, _release, _calls):
        dying = asyncio.create_task(api.container.dispatcher.run_due("killed-process"))
        await asyncio.wait_for(entered.wait(), 10)  # it holds the lease, mid-call
        dying.cancel()  # and is gone, its lease left in the table
        with pytest.raises(asyncio.CancelledError):
            await dying
    assert (await _action_row(api, action_id)).lease_owner == "killed-process"

    api.clock.advance(4.9)
    assert await api.container.dispatcher.run_due("survivor") == 0, "still leased"
    api.clock.advance(0.2)
    assert await api.container.dispatcher.run_due("survivor") == 1
    assert (await _action_row(api, action_id)).state == "completed"


async def test_a_holder_renews_its_lease_while_a_device_call_runs(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    action_id = await _acknowledged_charge(api)
    api.clock.advance(api.container.settings.sandbox_completion_delay_s)
    container = api.container
    renewing = Dispatcher(
        container.uow,
        container.drivers,
        api.clock,
        DeviceChangeFeed(),
        RetryPolicy.from_seconds([60]),
        renew_every_s=0.01,
    )
    async with stalled_reads(api, monkeypatch) as (entered, release, calls):
        slow = asyncio.create_task(renewing.run_due("slow-holder"))
        await asyncio.wait_for(entered.wait(), 10)
        api.clock.advance(60)  # far past the lease it took
        deadline = api.clock.now()
        for _ in range(1000):  # up to 10 s for the holder to renew it
            if (await _action_row(api, action_id)).lease_until > deadline:
                break
            await asyncio.sleep(0.01)
        assert await container.dispatcher.run_due("other-process") == 0, "no second call"
        release.set()
        assert await asyncio.wait_for(slow, 10) == 1
        assert calls() == 1
    row = await _action_row(api, action_id)
    assert (row.state, row.lease_owner) == ("completed", None)


async def test_a_renewal_under_way_when_the_call_ends_finishes_its_transaction(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The device call ends while a renewal is inside its transaction: the renewal commits
    and stops, and the pool keeps its connection (a renewal cancelled mid-statement made
    SQLAlchemy drop the connection, and on SQLite that made the next write fail with
    `database is locked`)."""
    action_id = await _acknowledged_charge(api)
    async with api.container.engine.begin() as connection:
        until = api.clock.now() + timedelta(seconds=5)
        await connection.execute(
            update(actions)
            .where(actions.c.id == action_id)
            .values(lease_owner="holder", lease_until=until)
        )
    async with api.container.uow() as tx:
        action = await tx.actions.get_by_id(action_id)
    assert action is not None

    real_extend = SqlActionRepository.extend_leases
    renewing = asyncio.Event()

    async def extend(
        self: SqlActionRepository, owner: str, ids: Sequence[str], until: datetime
    ) -> None:
        renewing.set()  # the call ends now, while this renewal is in the database
        await asyncio.sleep(0)
        await real_extend(self, owner, ids, until)

    monkeypatch.setattr(SqlActionRepository, "extend_leases", extend)
    dropped: list[BaseException | None] = []

    def on_invalidate(_connection: Any, _record: Any, error: BaseException | None) -> None:
        dropped.append(error)

    pool = api.container.engine.sync_engine.pool
    event.listen(pool, "invalidate", on_invalidate)

    async def call() -> str:
        await renewing.wait()
        return "answered"

    keeper = LeaseKeeper(api.container.uow, api.clock, renew_every_s=0.001)
    api.clock.advance(1)
    try:
        assert await keeper.held("holder", [action], call()) == "answered"
    finally:
        event.remove(pool, "invalidate", on_invalidate)
    assert dropped == [], "the pool dropped a connection"
    renewed = (await _action_row(api, action_id)).lease_until.replace(tzinfo=None)
    assert renewed == (api.clock.now() + LEASE).replace(tzinfo=None), "the renewal committed"
