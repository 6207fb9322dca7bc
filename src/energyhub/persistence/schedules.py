"""Schedules in SQL, and the scheduler's due work: rows claimed by moving `due_at` forward
(a lease: a crashed planner's schedule comes due again when it runs out)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.schedules import ScheduleState
from energyhub.persistence.leases import claim_due
from energyhub.persistence.tables import actions, schedules
from energyhub.persistence.types import UTCDateTime
from energyhub.ports.storage import StoredSchedule

_C = schedules.c
_CURRENT = (ScheduleState.ACTIVE.value, ScheduleState.COMPLETED.value)


def schedule_from_row(row: Mapping[Any, Any]) -> StoredSchedule:
    return StoredSchedule(
        id=row["id"],
        device_id=row["device_id"],
        account_id=row["account_id"],
        environment=row["environment"],
        state=ScheduleState(row["state"]),
        spec=dict(row["spec"]),
        planned_until=row["planned_until"],
        skipped=list(row["skipped"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        due_at=row["due_at"],
    )


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v.value if isinstance(v, ScheduleState) else v for k, v in values.items()}


class SqlScheduleRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection
        self._postgres = connection.dialect.name == "postgresql"

    async def add(self, schedule: StoredSchedule) -> None:
        await self._c.execute(
            schedules.insert().values(
                id=schedule.id,
                device_id=schedule.device_id,
                account_id=schedule.account_id,
                environment=schedule.environment,
                state=schedule.state.value,
                spec=schedule.spec,
                planned_until=schedule.planned_until,
                skipped=schedule.skipped,
                created_at=schedule.created_at,
                updated_at=schedule.updated_at,
                due_at=schedule.due_at,
            )
        )

    async def current(self, device_id: str) -> StoredSchedule | None:
        """The device's schedule that is set (active or completed), the newest if several."""
        row = (
            await self._c.execute(
                select(schedules)
                .where(_C.device_id == device_id, _C.state.in_(_CURRENT))
                .order_by(_C.pk.desc())
                .limit(1)
            )
        ).first()
        return None if row is None else schedule_from_row(row._mapping)

    async def update(
        self, schedule_id: str, expected: Mapping[str, Any] | None = None, **values: Any
    ) -> bool:
        """Changes a schedule; with `expected`, only while those columns hold those values."""
        statement = update(schedules).where(_C.id == schedule_id)
        params: dict[str, Any] = {}
        for column, value in _plain(expected or {}).items():
            statement = statement.where(
                _C[column] == bindparam(f"expected_{column}", type_=_C[column].type)
            )
            params[f"expected_{column}"] = value
        statement = statement.values({c: bindparam(f"v_{c}", type_=_C[c].type) for c in values})
        params.update({f"v_{c}": v for c, v in _plain(values).items()})
        result = await self._c.execute(statement, params)
        return bool(result.rowcount)

    async def claim_due(
        self, now: datetime, lease_until: datetime, limit: int
    ) -> Sequence[StoredSchedule]:
        """Active schedules due by `now`, leased until `lease_until` (their new `due_at`)."""
        rows = await claim_due(
            self._c,
            schedules,
            [_C.due_at <= now, _C.state == ScheduleState.ACTIVE.value],
            {"due_at": lease_until},
            limit,
            order_by="pk",
        )
        return [schedule_from_row(r._mapping) for r in rows]

    async def next_due_at(self) -> datetime | None:
        due: datetime | None = (
            await self._c.execute(
                select(type_coerce(func.min(_C.due_at), UTCDateTime())).where(
                    _C.state == ScheduleState.ACTIVE.value
                )
            )
        ).scalar_one()
        return due

    async def occurrence_starts(
        self, schedule_id: str, start: datetime, end: datetime
    ) -> Sequence[datetime]:
        """Starts of the schedule's actions in [start, end), whatever their state: an
        occurrence already made into an action (or cancelled by the client) is not made
        again when a schedule is planned twice (a crash, a lost lease)."""
        rows = await self._c.execute(
            select(actions.c.start).where(
                actions.c.schedule_id == schedule_id,
                actions.c.start >= start,
                actions.c.start < end,
            )
        )
        return [r.start for r in rows]
