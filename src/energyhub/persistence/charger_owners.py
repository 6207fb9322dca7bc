"""Which process holds each live charger's connection (`ChargerOwners`), on the charge point
rows: one statement per claim, per renewal of a process's leases, per release."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from energyhub.persistence.tables import ocpp_charge_points
from energyhub.ports.charger_owners import ChargerOwner

_C = ocpp_charge_points.c


class SqlChargerOwners:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def claim(self, charge_point_id: str, process: str, lease_until: datetime) -> int:
        async with self._engine.begin() as connection:
            generation = await connection.scalar(
                update(ocpp_charge_points)
                .where(_C.charge_point_id == charge_point_id)
                .values(
                    owner=process,
                    owner_generation=_C.owner_generation + 1,
                    owner_lease_until=lease_until,
                )
                .returning(_C.owner_generation)
            )
        return int(generation or 0)

    async def renew(self, process: str, lease_until: datetime) -> dict[str, int]:
        async with self._engine.begin() as connection:
            rows = await connection.execute(
                update(ocpp_charge_points)
                .where(_C.owner == process)
                .values(owner_lease_until=lease_until)
                .returning(_C.charge_point_id, _C.owner_generation)
            )
            return {row.charge_point_id: row.owner_generation for row in rows}

    async def release(self, charge_point_id: str, process: str, generation: int) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                update(ocpp_charge_points)
                .where(
                    _C.charge_point_id == charge_point_id,
                    _C.owner == process,
                    _C.owner_generation == generation,
                )
                .values(owner=None, owner_lease_until=None)
            )

    async def release_all(self, process: str) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                update(ocpp_charge_points)
                .where(_C.owner == process)
                .values(owner=None, owner_lease_until=None)
            )

    async def owner_of(self, device_id: str, now: datetime) -> ChargerOwner | None:
        async with self._engine.connect() as connection:
            row = (
                await connection.execute(
                    select(_C.charge_point_id, _C.owner, _C.owner_generation).where(
                        _C.device_id == device_id,
                        _C.owner.is_not(None),
                        _C.owner_lease_until > now,
                    )
                )
            ).first()
        if row is None:
            return None
        return ChargerOwner(row.charge_point_id, row.owner, row.owner_generation)
