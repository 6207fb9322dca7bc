"""Commissioned SunSpec batteries in SQL (`sunspec_devices`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from energyhub.persistence.tables import sunspec_devices
from energyhub.ports.sunspec import ModelLocation, SunspecEndpoint


def _endpoint(row: Mapping[Any, Any]) -> SunspecEndpoint:
    return SunspecEndpoint(
        device_id=row["device_id"],
        host=row["host"],
        port=row["port"],
        unit_id=row["unit_id"],
        base_address=row["base_address"],
        models=tuple(ModelLocation.from_json(m) for m in row["models"]),
        manufacturer=row["manufacturer"],
        model=row["model"],
        serial=row["serial"],
        commissioned_at=row["commissioned_at"],
    )


class SqlSunspecRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def add(self, endpoint: SunspecEndpoint) -> None:
        await self._c.execute(
            sunspec_devices.insert().values(
                device_id=endpoint.device_id,
                host=endpoint.host,
                port=endpoint.port,
                unit_id=endpoint.unit_id,
                base_address=endpoint.base_address,
                models=[m.to_json() for m in endpoint.models],
                manufacturer=endpoint.manufacturer[:100],
                model=endpoint.model[:100],
                serial=endpoint.serial[:100],
                commissioned_at=endpoint.commissioned_at,
            )
        )

    async def get(self, device_id: str) -> SunspecEndpoint | None:
        query = select(sunspec_devices).where(sunspec_devices.c.device_id == device_id)
        row = (await self._c.execute(query)).first()
        return None if row is None else _endpoint(row._mapping)

    async def find(self, host: str, port: int, unit_id: int) -> SunspecEndpoint | None:
        c = sunspec_devices.c
        query = select(sunspec_devices).where(c.host == host, c.port == port, c.unit_id == unit_id)
        row = (await self._c.execute(query)).first()
        return None if row is None else _endpoint(row._mapping)


class SqlSunspecEndpoints:
    """The driver's lookup, outside any unit of work: one short read per call."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def get(self, device_id: str) -> SunspecEndpoint | None:
        async with self._engine.connect() as connection:
            return await SqlSunspecRepository(connection).get(device_id)
