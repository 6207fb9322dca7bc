"""Device list pages in one statement (persistence/device_lists.py), on SQLite and
PostgreSQL: the rows and `total` are those `page_of` gives, and a device read again from an
unchanged row is the same object, while any change to its row shows in the next page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event, select

from energyhub.bootstrap import Container
from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.persistence import paging
from energyhub.persistence.tables import devices
from tests.integration.test_repositories import T0, _account, _device

SANDBOX = Environment.SANDBOX


async def _listed(
    container: Container,
    types: list[DeviceType],
    user_id: str | None,
    offset: int,
    limit: int,
) -> tuple[list[Device], int]:
    async with container.uow() as tx:
        found, total = await tx.devices.list_devices(
            "acc_1", SANDBOX, types, user_id, offset, limit
        )
    return list(found), total


async def _by_offset(
    container: Container, types: list[DeviceType], user_id: str | None, offset: int, limit: int
) -> list[str]:
    query = select(devices.c.id).where(devices.c.account_id == "acc_1")
    if types:
        query = query.where(devices.c.type.in_([t.value for t in types]))
    if user_id is not None:
        query = query.where(devices.c.user_id == user_id)
    async with container.engine.connect() as connection:
        rows = await connection.execute(query.order_by(devices.c.pk).offset(offset).limit(limit))
        return [r.id for r in rows]


async def _setup(container: Container) -> None:
    await _account(container)
    await _account(container, "acc_2")
    async with container.uow() as tx:
        for n in range(40):
            kind = DeviceType.EV_CHARGER if n % 4 == 3 else DeviceType.BATTERY
            await tx.devices.add_device(
                _device(f"dev_{n:02d}", "acc_1", type=kind, user_id=f"u{n % 3}")
            )
        await tx.devices.add_device(_device("other", "acc_2"))


@pytest.mark.parametrize(
    ("types", "user_id"),
    [([DeviceType.BATTERY], None), ([DeviceType.EV_CHARGER], None), ([], "u1"), ([], None)],
)
async def test_pages_and_totals_are_those_page_of_gives(
    container: Container,
    monkeypatch: pytest.MonkeyPatch,
    types: list[DeviceType],
    user_id: str | None,
) -> None:
    monkeypatch.setattr(paging, "COUNT_CAP", 10)
    await _setup(container)
    statements: list[str] = []

    def seen(*args: object) -> None:
        statements.append(str(args[2]))

    event.listen(container.engine.sync_engine, "before_cursor_execute", seen)
    postgres = container.engine.dialect.name == "postgresql"
    for offset, limit in [(0, 5), (0, 50), (3, 4), (9, 2), (20, 5), (28, 3), (30, 5), (45, 5)]:
        statements.clear()
        near = await _listed(container, types, user_id, offset, limit)
        if near[0]:  # a page and its count in one statement, on PostgreSQL the driver's
            assert len(statements) == (0 if postgres else 1), statements
        with monkeypatch.context() as walked:
            walked.setattr(paging, "WALK_LIMIT", 0)  # every page through `page_of`
            general = await _listed(container, types, user_id, offset, limit)
        ids = [d.id for d in near[0]]
        assert ids == await _by_offset(container, types, user_id, offset, limit), (offset, limit)
        assert (ids, near[1]) == ([d.id for d in general[0]], general[1]), (offset, limit)
        assert near[0] == general[0]
    event.remove(container.engine.sync_engine, "before_cursor_execute", seen)


async def test_an_unchanged_row_gives_the_same_device_and_a_change_shows(
    container: Container,
) -> None:
    await _setup(container)
    first, _ = await _listed(container, [DeviceType.BATTERY], None, 0, 3)
    again, _ = await _listed(container, [DeviceType.BATTERY], None, 0, 3)
    assert all(a is b for a, b in zip(first, again, strict=True))
    async with container.uow() as tx:
        assert await tx.devices.get_device("acc_1", SANDBOX, "dev_01") == first[1]
        await tx.devices.update_device(
            "dev_01", state={"level": 60.0, "status": "charging"}, last_pulled_at=T0 + timedelta(1)
        )
        # `lastAction` alone, the device's `updated_at` untouched
        await tx.devices.update_device("dev_02", last_action_id="act_1")
        await tx.devices.set_last_actions([("dev_02", "act_1", {"id": "act_1"})])
    changed, _ = await _listed(container, [DeviceType.BATTERY], None, 0, 3)
    assert changed[0] is first[0]
    assert changed[1].state == {"level": 60.0, "status": "charging"}
    assert changed[1].last_pulled_at == T0 + timedelta(1)
    assert changed[2].last_action == {"id": "act_1"}
    assert changed[2].updated_at == first[2].updated_at
    async with container.uow() as tx:
        for device in changed:
            assert await tx.devices.get_device("acc_1", SANDBOX, device.id) == device
