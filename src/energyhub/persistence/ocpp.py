"""Charge points and the sessions their transactions become, in SQL (`ChargePointStore`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from energyhub.domain.devices import Device
from energyhub.domain.sessions import ChargingSession, SessionStatus
from energyhub.persistence.actions import update_many
from energyhub.persistence.devices import SqlDeviceRepository
from energyhub.persistence.tables import charging_sessions, devices, ocpp_charge_points
from energyhub.ports.ocpp import ChargePointRecord, OpenTransaction

_C = ocpp_charge_points.c
LOOKUPS_AT_ONCE = 4  # handshakes reading their charger's record at the same time
_SESSION_UPDATED = ("status", "ended_at", "energy_kwh", "measurement", "end_reason", "updated_at")


def record_from_row(row: Mapping[Any, Any]) -> ChargePointRecord:
    tx = row["open_transaction"]
    return ChargePointRecord(
        charge_point_id=row["charge_point_id"],
        device_id=row["device_id"],
        password_hash=row["password_hash"],
        protocol=row["protocol"],
        last_seen_at=row["last_seen_at"],
        next_transaction_id=row["next_transaction_id"],
        transaction=None if tx is None else OpenTransaction.from_json(tx),
        snapshot=dict(row["snapshot"] or {}),
        control=dict(row["control"] or {}),
    )


def _record_values(record: ChargePointRecord) -> dict[str, Any]:
    return {
        "protocol": record.protocol,
        "last_seen_at": record.last_seen_at,
        "next_transaction_id": record.next_transaction_id,
        "open_transaction": None if record.transaction is None else record.transaction.to_json(),
        "snapshot": record.snapshot,
        "control": record.control,
    }


async def upsert_sessions(
    connection: AsyncConnection, sessions: Sequence[ChargingSession], now: datetime
) -> None:
    """Writes sessions into `charging_sessions` by id: new ones are inserted; a stored one
    is updated only while it is still active (a completed session never changes again,
    whatever order two writers commit in)."""
    if not sessions:
        return
    dialect_insert: Any = (
        postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
    )
    statement = dialect_insert(charging_sessions)
    statement = statement.on_conflict_do_update(
        index_elements=["id"],
        set_={name: statement.excluded[name] for name in _SESSION_UPDATED},
        where=charging_sessions.c.status == SessionStatus.ACTIVE.value,
    )
    rows = [
        {
            "id": s.id,
            "device_id": s.device_id,
            "status": s.status.value,
            "started_at": s.started_at,
            "ended_at": s.ended_at,
            "energy_kwh": s.energy_kwh,
            "measurement": s.measurement.value,
            "end_reason": None if s.end_reason is None else s.end_reason.value,
            "updated_at": now,
        }
        for s in sessions
    ]
    await connection.execute(statement, rows)


class SqlChargePointRepository:
    """Charge points inside a unit of work (`ChargePointRepository`)."""

    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def get(self, charge_point_id: str) -> ChargePointRecord | None:
        query = select(ocpp_charge_points).where(_C.charge_point_id == charge_point_id)
        row = (await self._c.execute(query)).first()
        return None if row is None else record_from_row(row._mapping)

    async def add(self, record: ChargePointRecord, now: datetime) -> None:
        await self._c.execute(
            ocpp_charge_points.insert().values(
                charge_point_id=record.charge_point_id,
                device_id=record.device_id,
                password_hash=record.password_hash,
                created_at=now,
                updated_at=now,
                **_record_values(record),
            )
        )


class SqlChargePointStore:
    def __init__(self, engine: AsyncEngine, lookups_at_once: int = LOOKUPS_AT_ONCE) -> None:
        self._engine = engine
        # A reconnect storm asks for every charger's record at once. A read waiting for a
        # pooled connection holds a greenlet and a connection checkout (KBs; on SQLite all
        # but one wait), and the allocator keeps that peak long after; here it waits as a
        # future.
        self._lookups = asyncio.Semaphore(lookups_at_once)

    async def by_charge_point_id(self, charge_point_id: str) -> ChargePointRecord | None:
        async with self._lookups, self._engine.connect() as connection:
            row = (
                await connection.execute(
                    select(ocpp_charge_points).where(_C.charge_point_id == charge_point_id)
                )
            ).first()
        return None if row is None else record_from_row(row._mapping)

    async def device(self, device_id: str) -> Device | None:
        async with self._engine.connect() as connection:
            return await SqlDeviceRepository(connection).get_device_by_id(device_id)

    async def replace_password_hash(self, charge_point_id: str, stored: str, new: str) -> None:
        """The same password's hash in a new form (a proof added), unless it changed since
        it was read."""
        async with self._engine.begin() as connection:
            await connection.execute(
                update(ocpp_charge_points)
                .where(_C.charge_point_id == charge_point_id, _C.password_hash == stored)
                .values(password_hash=new)
            )

    async def merge_settings(
        self, device_id: str, values: Mapping[str, Any], now: datetime
    ) -> dict[str, Any]:
        async with self._engine.begin() as connection:
            query = select(devices.c.settings, devices.c.disconnected_at).where(
                devices.c.id == device_id
            )
            if values and connection.dialect.name == "postgresql":
                query = query.with_for_update()
            row = (await connection.execute(query)).first()
            if row is None:
                return {}
            settings = dict(row.settings or {})
            changed = {k: v for k, v in values.items() if settings.get(k) != v}
            if changed and row.disconnected_at is None:
                settings.update(changed)
                await connection.execute(
                    update(devices)
                    .where(devices.c.id == device_id)
                    .values(settings=settings, updated_at=now)
                )
        return settings

    async def save(
        self,
        records: Sequence[ChargePointRecord],
        device_changes: Sequence[tuple[str, dict[str, Any]]],
        sessions: Sequence[ChargingSession],
        now: datetime,
    ) -> None:
        async with self._engine.begin() as connection:
            if records:
                statement = (
                    update(ocpp_charge_points)
                    .where(_C.charge_point_id == bindparam("cp_id"))
                    .values(
                        {
                            name: bindparam(f"v_{name}", type_=_C[name].type)
                            for name in (*_record_values(records[0]), "updated_at")
                        }
                    )
                )
                await connection.execute(
                    statement,
                    [
                        {
                            "cp_id": r.charge_point_id,
                            "v_updated_at": now,
                            **{f"v_{k}": v for k, v in _record_values(r).items()},
                        }
                        for r in records
                    ],
                )
            if device_changes:
                revoked = set(
                    (
                        await connection.execute(
                            select(devices.c.id).where(
                                devices.c.id.in_([d for d, _ in device_changes]),
                                devices.c.disconnected_at.is_not(None),
                            )
                        )
                    ).scalars()
                )
                if revoked:  # a revoked link keeps its last state, unavailable (see driver)
                    device_changes = [c for c in device_changes if c[0] not in revoked]
                await update_many(connection, devices, device_changes)
            await upsert_sessions(connection, sessions, now)
