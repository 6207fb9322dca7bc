"""Retention on SQLite and PostgreSQL: old deliveries, events, ended actions and samples are
pruned in batches; recent rows, sessions and whatever is still in play are kept."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Table, func, insert, select

from energyhub.adapters.prometheus import PrometheusMetrics
from energyhub.bootstrap import Container
from energyhub.domain.accounts import Account
from energyhub.domain.clock import FakeClock
from energyhub.domain.retention import PrunedBatch, PrunedKind
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.retention import PRUNABLE, SqlHistoryPruner, prune_statement
from energyhub.persistence.tables import (
    actions,
    charging_sessions,
    device_samples,
    webhook_deliveries,
    webhook_endpoints,
    webhook_events,
)
from energyhub.services.retention import Retention
from energyhub.workers.retention import RetentionWorker
from tests.conftest import START
from tests.integration.test_repositories import _device

OLD = START - timedelta(days=91)
RECENT = START - timedelta(days=89)


class CountingPruner:
    """The SQL pruner, with the batches it was asked for counted."""

    def __init__(self, pruner: SqlHistoryPruner) -> None:
        self.pruner = pruner
        self.batches: list[tuple[PrunedKind, int]] = []

    async def prune_batch(
        self,
        kind: PrunedKind,
        before: datetime,
        now: datetime,
        limit: int,
        since: datetime | None = None,
    ) -> PrunedBatch:
        batch = await self.pruner.prune_batch(kind, before, now, limit, since)
        self.batches.append((kind, batch.count))
        return batch


async def _device_and_endpoint(container: Container) -> None:
    async with container.uow() as tx:
        await tx.accounts.add_account(Account("acc_1", "Acme", "app_acc_1", OLD))
        await tx.devices.add_device(_device("dev_1", "acc_1", created_at=OLD, updated_at=OLD))
    await _insert(
        container,
        webhook_endpoints,
        [
            dict(
                id="ep_1",
                account_id="acc_1",
                environment="sandbox",
                url="https://example.com/hook",
                secret="s",
                enabled=True,
                created_at=OLD,
            )
        ],
    )


async def _insert(container: Container, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    async with container.engine.begin() as connection:
        for row in rows:  # one at a time: the rows set different columns
            await connection.execute(insert(table), row)


def _delivery(delivery_id: str, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict(
        id=delivery_id,
        event_id=f"evt_{delivery_id}",
        endpoint_id="ep_1",
        account_id="acc_1",
        environment="sandbox",
        event_type="push.completed",
        body="{}",
        status="succeeded",
        attempts=[{"at": OLD.isoformat(), "httpStatus": 200, "durationMs": 3, "error": None}],
        next_attempt_at=None,
        lease_owner=None,
        lease_until=None,
        created_at=OLD,
        updated_at=OLD,
    )
    return {**row, **values}


def _event(event_id: str, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict(
        id=event_id,
        account_id="acc_1",
        environment="sandbox",
        type="push.completed",
        payload={},
        occurred_at=OLD,
        deliver_after=OLD,
        fanned_out_at=OLD,
    )
    return {**row, **values}


def _action(action_id: str, state: str, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict(
        id=action_id,
        account_id="acc_1",
        environment="sandbox",
        device_id="dev_1",
        device_type="battery",
        command="battery.charge",
        parameters={},
        device_parameters={},
        state=state,
        start=OLD,
        end=None,
        created_at=OLD,
        updated_at=OLD,
        tries=0,
    )
    return {**row, **values}


async def _ids(container: Container, table: Table) -> set[str]:
    column = table.c.id if "id" in table.c else table.c.pk
    async with container.engine.connect() as connection:
        return {str(r[0]) for r in await connection.execute(select(column))}


def _retention(container: Container, clock: FakeClock, **options: Any) -> Retention:
    return Retention(SqlHistoryPruner(container.engine), clock, 90, rest_ratio=0, **options)


async def test_old_rows_of_each_kind_are_pruned_and_the_rest_kept(
    container: Container, clock: FakeClock
) -> None:
    await _device_and_endpoint(container)
    await _insert(
        container,
        webhook_deliveries,
        [
            _delivery("d_succeeded"),
            _delivery("d_failed", status="failed"),
            _delivery("d_pending", status="pending", next_attempt_at=START + timedelta(hours=1)),
            _delivery("d_resend_asked", status="failed", next_attempt_at=START),
            _delivery("d_leased", lease_owner="w", lease_until=START + timedelta(seconds=20)),
            _delivery("d_lease_ran_out", lease_owner="w", lease_until=OLD),
            _delivery("d_recent", created_at=RECENT, updated_at=RECENT),
            _delivery("d_attempted_lately", updated_at=RECENT),
        ],
    )
    await _insert(
        container,
        webhook_events,
        [
            _event("e_fanned_out"),
            _event("e_not_fanned_out", fanned_out_at=None),
            _event("e_recent", occurred_at=RECENT, deliver_after=RECENT, fanned_out_at=RECENT),
            _event("e_delivered_lately", deliver_after=RECENT, fanned_out_at=RECENT),
        ],
    )
    window_end = START + timedelta(days=1)
    await _insert(
        container,
        actions,
        [
            _action("a_completed", "completed", completed_at=OLD),
            _action("a_failed", "failed"),
            _action("a_cancelled", "cancelled"),
            _action("a_scheduled", "scheduled", start=START + timedelta(days=1)),
            _action("a_acknowledged", "acknowledged"),
            _action("a_deferred", "deferred", due_at=OLD),
            _action("a_window_running", "completed", end=window_end),
            _action("a_restore_due", "completed", end=OLD, due_at=OLD, due_kind="restore"),
            _action("a_leased", "failed", lease_owner="w", lease_until=START + timedelta(1)),
            _action("a_recent", "completed", created_at=RECENT, updated_at=RECENT),
            _action("a_cancelled_ahead", "cancelled", start=START + timedelta(days=2)),
        ],
    )
    await _insert(
        container,
        device_samples,
        [
            dict(device_id="dev_1", at=OLD, level=50.0, power_kw=1.0),
            dict(device_id="dev_1", at=RECENT, level=51.0, power_kw=1.0),
        ],
    )
    await _insert(
        container,
        charging_sessions,
        [
            dict(
                id="s_old",
                device_id="dev_1",
                status="ended",
                started_at=OLD,
                ended_at=OLD,
                energy_kwh=5.0,
                measurement="metered",
                updated_at=OLD,
            )
        ],
    )
    metrics = PrometheusMetrics()

    pruned = await _retention(container, clock, metrics=metrics).prune()

    assert pruned == {
        PrunedKind.DELIVERIES: 3,
        PrunedKind.EVENTS: 1,
        PrunedKind.ACTIONS: 3,
        PrunedKind.SAMPLES: 1,
    }
    assert await _ids(container, webhook_deliveries) == {
        "d_pending",
        "d_resend_asked",
        "d_leased",
        "d_recent",
        "d_attempted_lately",
    }
    assert await _ids(container, webhook_events) == {
        "e_not_fanned_out",
        "e_recent",
        "e_delivered_lately",
    }
    assert await _ids(container, actions) == {
        "a_scheduled",
        "a_acknowledged",
        "a_deferred",
        "a_window_running",
        "a_restore_due",
        "a_leased",
        "a_recent",
        "a_cancelled_ahead",
    }
    async with container.engine.connect() as connection:
        samples = (await connection.execute(select(device_samples.c.at))).scalars().all()
    assert samples == [RECENT]
    assert await _ids(container, charging_sessions) == {"s_old"}
    for kind, count in pruned.items():
        assert metrics.registry.get_sample_value(
            "energyhub_retention_pruned_total", {"kind": kind.value}
        ) == float(count)
    assert sum((await _retention(container, clock).prune()).values()) == 0  # a second pass


async def test_batches_of_two_prune_five_rows(container: Container, clock: FakeClock) -> None:
    await _device_and_endpoint(container)
    await _insert(container, webhook_deliveries, [_delivery(f"d_{n}") for n in range(5)])
    pruner = CountingPruner(SqlHistoryPruner(container.engine))

    pruned = await Retention(pruner, clock, 90, batch=2, rest_ratio=0).prune()

    assert pruned[PrunedKind.DELIVERIES] == 5
    deliveries = [count for kind, count in pruner.batches if kind is PrunedKind.DELIVERIES]
    assert deliveries == [2, 2, 1]
    assert await _ids(container, webhook_deliveries) == set()


async def test_the_oldest_are_pruned_first(container: Container, clock: FakeClock) -> None:
    await _device_and_endpoint(container)
    rows = [
        _delivery(f"d_{n}", created_at=OLD - timedelta(days=n), updated_at=OLD)
        for n in (3, 1, 4, 2)
    ]
    await _insert(container, webhook_deliveries, rows)
    pruner = SqlHistoryPruner(container.engine)
    before = START - timedelta(days=90)

    batch = await pruner.prune_batch(PrunedKind.DELIVERIES, before, START, 2)

    assert batch == PrunedBatch(2, OLD - timedelta(days=3))
    assert await _ids(container, webhook_deliveries) == {"d_1", "d_2"}
    resumed = await pruner.prune_batch(PrunedKind.DELIVERIES, before, START, 2, OLD)
    assert resumed == PrunedBatch(0, None)  # none from OLD on: d_1 and d_2 are older
    assert await _ids(container, webhook_deliveries) == {"d_1", "d_2"}


async def test_zero_days_keeps_everything(container: Container, clock: FakeClock) -> None:
    await _device_and_endpoint(container)
    await _insert(container, webhook_deliveries, [_delivery("d_old")])
    retention = Retention(SqlHistoryPruner(container.engine), clock, 0)

    assert sum((await retention.prune()).values()) == 0
    assert not retention.enabled
    worker = RetentionWorker(retention, clock)
    worker.start()
    assert worker._task is None  # not started: nothing to do, ever
    assert await _ids(container, webhook_deliveries) == {"d_old"}


async def test_several_pruners_at_once_delete_each_row_once(
    container: Container, clock: FakeClock
) -> None:
    """As processes sharing the database would: each batch takes rows the others do not."""
    await _device_and_endpoint(container)
    await _insert(container, webhook_deliveries, [_delivery(f"d_{n}") for n in range(60)])
    pruners = [
        Retention(SqlHistoryPruner(container.engine), clock, 90, batch=5, rest_ratio=0)
        for _ in range(3)
    ]

    results = await asyncio.gather(*(p.prune() for p in pruners))

    assert sum(r[PrunedKind.DELIVERIES] for r in results) == 60
    async with container.engine.connect() as connection:
        left = await connection.execute(select(func.count()).select_from(webhook_deliveries))
        assert left.scalar_one() == 0


@pytest.mark.parametrize("resumed", [False, True])
async def test_each_batch_reads_the_index_of_its_time_column(tmp_path: Path, resumed: bool) -> None:
    """On SQLite (no statistics) too: not another column's index followed by a sort."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'plan.db'}")
    try:
        await migrate(engine)
        for kind in PrunedKind:
            compiled = prune_statement(kind, postgres=False, resumed=resumed).compile(
                dialect=engine.dialect
            )
            given = {"before": START, "now": START, "limit": 1000, "since": OLD}
            args = tuple(given.get(n, compiled.params.get(n)) for n in compiled.positiontup or [])
            async with engine.connect() as connection:
                plan = " | ".join(
                    row[3]
                    for row in await connection.exec_driver_sql(
                        f"EXPLAIN QUERY PLAN {compiled.string}", args
                    )
                )
            table, time, _ = PRUNABLE[kind]
            assert f"INDEX ix_{table.name}_{time.name} " in plan, plan
            assert "TEMP B-TREE" not in plan, plan
    finally:
        await engine.dispose()
