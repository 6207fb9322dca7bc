"""Sites' grid meters in SQL (`site_meters`): one per site, claimed for polling by moving
`polled_at` on (under `SKIP LOCKED` on PostgreSQL), as devices are for the state poller."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.persistence.tables import site_meters
from energyhub.ports.site_meters import MeterAddress, SiteMeter
from energyhub.ports.sunspec import ModelLocation


def _meter(row: Mapping[Any, Any]) -> SiteMeter:
    return SiteMeter(
        account_id=row["account_id"],
        environment=Environment(row["environment"]),
        user_id=row["user_id"],
        address=MeterAddress(
            row["host"],
            row["port"],
            row["unit_id"],
            ModelLocation(row["model_id"], row["model_address"], row["model_length"]),
        ),
        manufacturer=row["manufacturer"],
        model=row["model"],
        serial=row["serial"],
        commissioned_at=row["commissioned_at"],
        polled_at=row["polled_at"],
    )


class SqlSiteMeterRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def save(self, meter: SiteMeter) -> None:
        c = site_meters.c
        values = {
            "host": meter.address.host,
            "port": meter.address.port,
            "unit_id": meter.address.unit_id,
            "model_id": meter.address.model.id,
            "model_address": meter.address.model.address,
            "model_length": meter.address.model.length,
            "manufacturer": meter.manufacturer[:100],
            "model": meter.model[:100],
            "serial": meter.serial[:100],
            "commissioned_at": meter.commissioned_at,
            "polled_at": meter.polled_at,
        }
        changed = await self._c.execute(
            update(site_meters)
            .where(
                c.account_id == meter.account_id,
                c.environment == meter.environment.value,
                c.user_id == meter.user_id,
            )
            .values(**values)
        )
        if changed.rowcount == 0:
            await self._c.execute(
                site_meters.insert().values(
                    account_id=meter.account_id,
                    environment=meter.environment.value,
                    user_id=meter.user_id,
                    **values,
                )
            )

    async def for_site(
        self, account_id: str, environment: Environment, user_id: str
    ) -> SiteMeter | None:
        c = site_meters.c
        query = select(site_meters).where(
            c.account_id == account_id, c.environment == environment.value, c.user_id == user_id
        )
        row = (await self._c.execute(query)).first()
        return None if row is None else _meter(row._mapping)

    async def at_address(self, host: str, port: int, unit_id: int) -> SiteMeter | None:
        c = site_meters.c
        query = select(site_meters).where(c.host == host, c.port == port, c.unit_id == unit_id)
        row = (await self._c.execute(query)).first()
        return None if row is None else _meter(row._mapping)

    async def claim_due(
        self, polled_before: datetime, now: datetime, limit: int
    ) -> list[SiteMeter]:
        c = site_meters.c
        query = (
            select(site_meters)
            .where(or_(c.polled_at.is_(None), c.polled_at < polled_before))
            .order_by(c.polled_at.asc().nulls_first(), c.pk)
            .limit(limit)
        )
        if self._c.dialect.name == "postgresql":
            query = query.with_for_update(skip_locked=True)
        rows = [r._mapping for r in await self._c.execute(query)]
        if rows:
            await self._c.execute(
                update(site_meters).where(c.pk.in_([r["pk"] for r in rows])).values(polled_at=now)
            )
        return [_meter(r) for r in rows]

    async def oldest_poll(self) -> tuple[bool, datetime | None]:
        c = site_meters.c
        query = select(c.polled_at).order_by(c.polled_at.asc().nulls_first()).limit(1)
        row = (await self._c.execute(query)).first()
        return (False, None) if row is None else (True, row.polled_at)
