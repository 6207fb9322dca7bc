"""Lists in bounded time (persistence/paging.py), on SQLite and PostgreSQL: pages read by
key from bookmarks are the pages OFFSET names, `total` is exact up to the count's cap past
the page and a lower bound beyond it while `hasMore` stays exact, and the workers'
next-due polls (two or three index probes now) give what `min()` over every row gave."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, insert, select

from energyhub.api.representations import pagination
from energyhub.bootstrap import Container
from energyhub.domain.accounts import Environment
from energyhub.persistence import paging
from energyhub.persistence.tables import actions, webhook_deliveries, webhook_endpoints
from tests.integration.test_repositories import T0, _account, _device

ENV = Environment.SANDBOX.value
STATES = ("completed", "failed", "scheduled", "completed", "cancelled")


async def _setup(container: Container) -> None:
    account = await _account(container)
    async with container.uow() as tx:
        for device_id in ("dev_a", "dev_b"):
            await tx.devices.add_device(_device(device_id, account.id))


def _action(n: int, **overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = dict(
        id=f"act_{n:04d}",
        account_id="acc_1",
        environment=ENV,
        device_id="dev_a" if n % 3 else "dev_b",
        device_type="battery",
        command="charge",
        parameters={},
        device_parameters={},
        state=STATES[n % len(STATES)],
        start=T0 + timedelta(minutes=n),
        created_at=T0 + timedelta(minutes=n),
        updated_at=T0 + timedelta(minutes=n),
        tries=0,
        due_at=None,
        due_kind=None,
        lease_until=None,
    )
    values.update(overrides)
    return values


def _delivery(
    n: int, next_at: Any, lease: Any = None, event_id: str | None = None
) -> dict[str, Any]:
    """A delivery row of endpoint `we_1`: pending while it has a `next_at`."""
    return dict(
        id=f"dlv_{n}",
        event_id=event_id or f"evt_{n}",
        endpoint_id="we_1",
        account_id="acc_1",
        environment=ENV,
        event_type="push.completed",
        body="{}",
        status="pending" if next_at else "succeeded",
        attempts=[],
        next_attempt_at=next_at,
        lease_until=lease,
        created_at=T0,
        updated_at=T0,
    )


async def _insert(container: Container, table: Any, rows: list[dict[str, Any]]) -> None:
    async with container.engine.begin() as connection:
        await connection.execute(insert(table), rows)


async def _listed(
    container: Container, device: str | None, state: str | None, offset: int, limit: int
) -> tuple[list[str], int]:
    async with container.uow() as tx:
        found, total = await tx.actions.list("acc_1", ENV, device, state, offset, limit)
    return [a.id for a in found], total


async def _by_offset(
    container: Container, device: str | None, state: str | None, offset: int, limit: int
) -> list[str]:
    """The same page the plain way: OFFSET over the whole ordered list."""
    query = select(actions.c.id).where(actions.c.account_id == "acc_1")
    if device is not None:
        query = query.where(actions.c.device_id == device)
    if state is not None:
        query = query.where(actions.c.state == state)
    async with container.engine.connect() as connection:
        rows = await connection.execute(
            query.order_by(actions.c.pk.desc()).offset(offset).limit(limit)
        )
        return [r.id for r in rows]


@pytest.mark.parametrize(
    ("device", "state"), [(None, None), ("dev_a", None), (None, "completed"), ("dev_a", "failed")]
)
async def test_pages_read_by_key_are_the_pages_offset_names(
    container: Container, monkeypatch: pytest.MonkeyPatch, device: str | None, state: str | None
) -> None:
    monkeypatch.setattr(paging, "WALK_LIMIT", 3)  # bookmarks from the fourth row on
    await _setup(container)
    await _insert(container, actions, [_action(n) for n in range(60)])
    limit, offset, added = 4, 0, 60
    while True:
        page, _ = await _listed(container, device, state, offset, limit)
        assert page == await _by_offset(container, device, state, offset, limit), offset
        if not page:
            break
        offset += limit
        if offset in (12, 24):  # rows added ahead of the bookmarks while a client walks
            await _insert(container, actions, [_action(added + i) for i in range(5)])
            added += 5
            offset += sum(  # the walker's next page moves as OFFSET does
                1 for i in range(added - 5, added) if _matches(_action(i), device, state)
            )
    for jump in (9, 17, 5, 30):  # straight to an offset, with and without a bookmark
        page, _ = await _listed(container, device, state, jump, limit)
        assert page == await _by_offset(container, device, state, jump, limit), jump


def _matches(row: dict[str, Any], device: str | None, state: str | None) -> bool:
    return (device is None or row["device_id"] == device) and (
        state is None or row["state"] == state
    )


async def test_total_is_exact_up_to_the_cap_past_the_page_then_a_lower_bound(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paging, "COUNT_CAP", 10)
    await _setup(container)
    await _insert(container, actions, [_action(n) for n in range(40)])
    expected = {  # (offset, limit): (items, total, hasMore)
        (0, 5): (5, 15, True),  # 35 follow: counted to 10, total = 0 + 5 + 10
        (20, 5): (5, 35, True),  # 15 follow: 20 + 5 + 10
        (24, 5): (5, 39, True),  # 11 follow
        (25, 5): (5, 40, True),  # 10 follow: exact
        (35, 5): (5, 40, False),
        (38, 5): (2, 40, False),
        (45, 5): (0, 40, False),  # past the end: exact
        (0, 50): (40, 40, False),
    }
    for (offset, limit), (items, total, has_more) in expected.items():
        page, counted = await _listed(container, None, None, offset, limit)
        shown = pagination(offset, limit, counted)
        assert (len(page), shown["total"], shown["hasMore"]) == (items, total, has_more), (
            offset,
            limit,
        )
        truly_more = offset + limit < 40
        assert shown["hasMore"] is truly_more
        assert shown["total"] <= 40


async def test_the_next_due_polls_find_what_min_over_every_row_found(
    container: Container,
) -> None:
    await _setup(container)
    due = T0 + timedelta(hours=1)
    rows = [
        _action(1, due_at=due + timedelta(minutes=5), due_kind="dispatch"),
        _action(2, due_at=due + timedelta(minutes=9), due_kind="dispatch"),
        _action(3, due_at=due - timedelta(minutes=1), lease_until=due + timedelta(minutes=7)),
        _action(4, due_at=None, lease_until=due - timedelta(minutes=30)),  # nothing due
    ]
    async with container.uow() as tx:
        assert await tx.actions.next_due_at() is None
    await _insert(container, actions, rows)
    async with container.uow() as tx:
        assert await tx.actions.next_due_at() == due + timedelta(minutes=5)
    await _insert(
        container,
        actions,
        [_action(5, due_at=due + timedelta(minutes=8), lease_until=due + timedelta(minutes=2))],
    )
    async with container.uow() as tx:  # a held row counts at its lease's end
        assert await tx.actions.next_due_at() == due + timedelta(minutes=2)

    await _insert(
        container,
        webhook_endpoints,
        [
            dict(
                id="we_1",
                account_id="acc_1",
                environment=ENV,
                url="https://example.com/hook",
                secret="s",
                enabled=True,
                created_at=T0,
            )
        ],
    )

    await _insert(
        container,
        webhook_deliveries,
        [
            _delivery(1, due + timedelta(minutes=4), due + timedelta(minutes=6)),  # held: 6
            _delivery(2, due + timedelta(minutes=5), None),
            _delivery(3, due + timedelta(minutes=3), due + timedelta(minutes=1)),  # lapsed: 3
            _delivery(4, None, due - timedelta(minutes=9)),  # done
        ],
    )
    async with container.uow() as tx:
        assert await tx.webhooks.next_due_at() == due + timedelta(minutes=3)
    await _insert(
        container,
        webhook_deliveries,
        [_delivery(5, due - timedelta(minutes=2), due + timedelta(seconds=30))],
    )
    async with container.uow() as tx:
        assert await tx.webhooks.next_due_at() == due + timedelta(seconds=30)


async def test_a_devices_list_does_not_walk_the_newer_actions_of_other_devices(
    container: Container,
) -> None:
    """PostgreSQL: the first page of a device whose many actions are older than the rest of
    the table comes from the device's index; walking the primary key back (with the account
    and environment filtered on the heap) would read every newer action first."""
    if container.settings.is_sqlite:
        pytest.skip("PostgreSQL's planner")
    await _setup(container)
    await _insert(container, actions, [_action(1, device_id="dev_b")])
    names = [c.name for c in actions.columns if c.name != "pk"]
    values = {name: f't."{name}"' for name in names}
    column_list = ", ".join(f'"{name}"' for name in names)
    async with container.engine.begin() as connection:
        for device, count in (("dev_b", 20_000), ("dev_a", 60_000)):  # dev_b's are older
            chosen = {**values, "id": f"'act_{device}_' || g", "device_id": f"'{device}'"}
            await connection.exec_driver_sql(
                f"INSERT INTO actions ({column_list}) "
                f"SELECT {', '.join(chosen[n] for n in names)} FROM actions t, "
                f"generate_series(1, {count}) g WHERE t.id = 'act_0001'"
            )
    async with container.engine.connect() as connection:  # as autovacuum leaves old rows
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.exec_driver_sql("VACUUM ANALYZE actions")
    statements: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "actions" in statement:
            statements.append((statement, parameters))

    event.listen(container.engine.sync_engine, "before_cursor_execute", seen)
    try:
        page, total = await _listed(container, "dev_b", None, 0, 50)
    finally:
        event.remove(container.engine.sync_engine, "before_cursor_execute", seen)
    assert len(page) == 50
    assert total > 50
    assert statements
    async with container.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        for statement, parameters in statements:
            plan = await raw.driver_connection.fetchval(  # type: ignore[union-attr]
                f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", *parameters
            )
            removed = _removed_by_filter(plan[0]["Plan"])  # the dialect decodes JSON
            assert removed < 1_000, (statement, removed)


def _removed_by_filter(node: dict[str, Any]) -> int:
    return int(node.get("Rows Removed by Filter", 0)) + sum(
        _removed_by_filter(child) for child in node.get("Plans", [])
    )
