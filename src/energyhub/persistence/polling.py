"""Which devices the state poller pulls next: live devices of the given drivers whose stored
state is oldest, claimed by moving `last_pulled_at` on (under `SKIP LOCKED` on PostgreSQL),
so several pollers sharing a database do not pull one device twice."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.domain.devices import Device
from energyhub.persistence.devices import SELECT_DEVICE, device_from_row
from energyhub.persistence.tables import devices


def _polled(drivers: Sequence[str]) -> ColumnElement[bool]:
    return and_(
        devices.c.environment == Environment.LIVE.value,
        devices.c.driver.in_(list(drivers)),
        devices.c.disconnected_at.is_(None),
    )


class SqlPollingRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def claim_stale(
        self, drivers: Sequence[str], pulled_before: datetime, now: datetime, limit: int
    ) -> list[Device]:
        """Up to `limit` devices last pulled before `pulled_before` (or never), oldest
        first, as they were before the claim."""
        if not drivers:
            return []
        stale = or_(devices.c.last_pulled_at.is_(None), devices.c.last_pulled_at < pulled_before)
        query = (
            SELECT_DEVICE.where(_polled(drivers), stale)
            .order_by(devices.c.last_pulled_at.asc().nulls_first(), devices.c.pk)
            .limit(limit)
        )
        if self._c.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True)
        found = [device_from_row(r._mapping) for r in await self._c.execute(query)]
        if found:
            await self._c.execute(
                update(devices)
                .where(devices.c.id.in_([d.id for d in found]))
                .values(last_pulled_at=now)
            )
        return found

    async def oldest_pull(self, drivers: Sequence[str]) -> tuple[bool, datetime | None]:
        """Whether any device is polled, and the oldest `last_pulled_at` (None: never)."""
        if not drivers:
            return False, None
        query = (
            select(devices.c.last_pulled_at)
            .where(_polled(drivers))
            .order_by(devices.c.last_pulled_at.asc().nulls_first())
            .limit(1)
        )
        row = (await self._c.execute(query)).first()
        return (False, None) if row is None else (True, row.last_pulled_at)
