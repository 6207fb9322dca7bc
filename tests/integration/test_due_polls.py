"""The workers' next-due polls and the dispatcher's superseded check, on SQLite and
PostgreSQL: a poll is one statement outside any transaction (one round trip on PostgreSQL,
no BEGIN or COMMIT) and still finds the earliest due row of each kind; whether a device
accepted a later action is one probe of an index, however long the device's history."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from energyhub.bootstrap import Container
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.tables import actions, webhook_deliveries, webhook_endpoints
from energyhub.persistence.tables import webhook_events as events_table
from energyhub.persistence.uow import SqlUnitOfWork
from tests.integration.test_list_paging import ENV, _action, _delivery, _insert, _setup
from tests.integration.test_repositories import T0

DUE = T0 + timedelta(hours=1)


def _endpoint() -> dict[str, Any]:
    return dict(
        id="we_1",
        account_id="acc_1",
        environment=ENV,
        url="https://example.com/hook",
        secret="s",
        enabled=True,
        created_at=T0,
    )


def _event(n: int, deliver_after: Any, fanned_out_at: Any = None) -> dict[str, Any]:
    return dict(
        id=f"evt_{n}",
        account_id="acc_1",
        environment=ENV,
        type="push.completed",
        payload={},
        occurred_at=T0,
        deliver_after=deliver_after,
        fanned_out_at=fanned_out_at,
    )


async def test_the_webhook_senders_poll_finds_the_earliest_of_each_kind_of_due_row(
    container: Container,
) -> None:
    await _setup(container)
    await _insert(container, webhook_endpoints, [_endpoint()])
    poll = container.webhook_sender.next_due_at
    assert await poll() is None

    await _insert(container, events_table, [_event(1, DUE + timedelta(minutes=9))])
    await _insert(container, events_table, [_event(2, DUE - timedelta(hours=1), T0)])  # done
    assert await poll() == DUE + timedelta(minutes=9)  # an event to fan out
    await _insert(
        container, webhook_deliveries, [_delivery(1, DUE + timedelta(minutes=7), event_id="evt_d1")]
    )
    assert await poll() == DUE + timedelta(minutes=7)  # a delivery to attempt
    held = _delivery(2, DUE + timedelta(minutes=1), DUE + timedelta(minutes=5), "evt_d2")
    await _insert(container, webhook_deliveries, [held, _delivery(3, None, DUE, "evt_d3")])
    assert await poll() == DUE + timedelta(minutes=5)  # a held one, at its lease's end
    await _insert(container, events_table, [_event(3, DUE + timedelta(minutes=2))])
    assert await poll() == DUE + timedelta(minutes=2)


async def test_the_dispatchers_poll_finds_the_earliest_unheld_action_or_lease_end(
    container: Container,
) -> None:
    await _setup(container)
    poll = container.dispatcher.next_due_at
    assert await poll() is None
    await _insert(
        container,
        actions,
        [
            _action(1, due_at=DUE + timedelta(minutes=5), due_kind="dispatch"),
            _action(2, due_at=DUE - timedelta(minutes=1), lease_until=DUE + timedelta(minutes=3)),
        ],
    )
    assert await poll() == DUE + timedelta(minutes=3)


@contextmanager
def _statements_sent(container: Container) -> Iterator[list[str]]:
    """What the driver sends as plain statements (BEGIN, COMMIT, ...) on every connection
    checked out meanwhile; prepared statements are not listed."""
    sent: list[str] = []

    def log(record: Any) -> None:
        sent.append(record.query.strip())

    def checkout(_dbapi: Any, record: Any, _proxy: Any) -> None:
        record.driver_connection.add_query_logger(log)

    def checkin(_dbapi: Any, record: Any) -> None:
        record.driver_connection.remove_query_logger(log)

    engine = container.engine.sync_engine
    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)
    try:
        yield sent
    finally:
        event.remove(engine, "checkout", checkout)
        event.remove(engine, "checkin", checkin)


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_poll_is_one_round_trip_on_postgresql(container: Container) -> None:
    """No BEGIN and COMMIT around the poll's one statement: two round trips of three."""
    await _setup(container)
    polls = (
        container.webhook_sender.next_due_at,
        container.dispatcher.next_due_at,
        container.scheduler.planner.next_due_at,
    )
    with _statements_sent(container) as sent:
        for poll in polls:
            await poll()
        async with container.uow() as tx:  # the logger sees a transaction's BEGIN and COMMIT
            await tx.actions.next_due_at()
        await asyncio.sleep(0)  # the driver hands records to its loggers on the next turn
    assert [s.split()[0].rstrip(";") for s in sent] == ["BEGIN", "COMMIT"], sent


async def test_superseded_reads_the_devices_later_acknowledged_actions(
    container: Container,
) -> None:
    await _setup(container)
    acked = T0 + timedelta(minutes=1)
    await _insert(
        container,
        actions,
        [
            _action(1, device_id="dev_a", acknowledged_at=acked),  # a later one was accepted
            _action(2, device_id="dev_a", start=T0 + timedelta(minutes=30), acknowledged_at=acked),
            # never accepted
            _action(3, device_id="dev_a", start=T0 + timedelta(minutes=40), acknowledged_at=None),
            # its device accepted nothing later (dev_a's action does not count)
            _action(4, device_id="dev_b", acknowledged_at=None),
            _action(5, device_id="dev_a", start=T0 + timedelta(minutes=35), acknowledged_at=None),
        ],
    )
    async with container.uow() as tx:
        found = await tx.actions.superseded(["act_0001", "act_0002", "act_0004", "act_0005"])
    assert found == {"act_0001"}


async def test_superseded_probes_the_index_of_a_devices_acknowledged_starts(
    tmp_path: Path,
) -> None:
    """On SQLite (no statistics) too: the device's later acknowledged actions are searched
    in the index by device and start, not walked one by one."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'plan.db'}")
    sent: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    try:
        await migrate(engine)
        event.listen(engine.sync_engine, "before_cursor_execute", capture)
        async with SqlUnitOfWork(engine) as tx:
            assert await tx.actions.superseded(["act_1"]) == set()
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
        ((statement, parameters),) = sent
        async with engine.connect() as connection:
            plan = " | ".join(
                row[3]
                for row in await connection.exec_driver_sql(
                    f"EXPLAIN QUERY PLAN {statement}", parameters
                )
            )
        assert "INDEX ix_actions_device_id_start_acknowledged (device_id=? AND start>?)" in plan, (
            plan
        )
    finally:
        await engine.dispose()
