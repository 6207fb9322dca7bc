"""Charging sessions in SQL: upserted by id as chargers report them, listed by the rule of
`domain.sessions.select_sessions` (overlap, status, newest first, limit/offset)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.sessions import (
    ChargingSession,
    EndReason,
    Measurement,
    SessionPage,
    SessionQuery,
    SessionStatus,
)
from energyhub.persistence.paging import page_of
from energyhub.persistence.tables import charging_sessions

_S = charging_sessions.c


def session_from_row(row: Mapping[Any, Any]) -> ChargingSession:
    return ChargingSession(
        id=row["id"],
        device_id=row["device_id"],
        status=SessionStatus(row["status"]),
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        energy_kwh=row["energy_kwh"],
        measurement=Measurement(row["measurement"]),
        end_reason=None if row["end_reason"] is None else EndReason(row["end_reason"]),
    )


def _values(session: ChargingSession, now: datetime) -> dict[str, Any]:
    return {
        "id": session.id,
        "device_id": session.device_id,
        "status": session.status.value,
        "started_at": session.started_at,
        "ended_at": session.ended_at,
        "energy_kwh": session.energy_kwh,
        "measurement": session.measurement.value,
        "end_reason": None if session.end_reason is None else session.end_reason.value,
        "updated_at": now,
    }


_UPDATED = ("status", "ended_at", "energy_kwh", "measurement", "end_reason", "updated_at")


class SqlSessionRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def get_many(self, session_ids: Sequence[str]) -> dict[str, ChargingSession]:
        if not session_ids:
            return {}
        rows = await self._c.execute(select(charging_sessions).where(_S.id.in_(list(session_ids))))
        return {r.id: session_from_row(r._mapping) for r in rows}

    async def active(self, device_id: str) -> Sequence[ChargingSession]:
        """The device's sessions stored as still running."""
        rows = await self._c.execute(
            select(charging_sessions).where(
                _S.device_id == device_id, _S.status == SessionStatus.ACTIVE.value
            )
        )
        return [session_from_row(r._mapping) for r in rows]

    async def upsert(self, sessions: Sequence[ChargingSession], now: datetime) -> None:
        """Inserts new sessions and updates known ones by id (ON CONFLICT on both databases,
        so two requests storing the same new session at once do not collide)."""
        if not sessions:
            return
        dialect_insert: Any = (
            postgresql_insert if self._c.dialect.name == "postgresql" else sqlite_insert
        )
        statement = dialect_insert(charging_sessions)
        statement = statement.on_conflict_do_update(
            index_elements=["id"], set_={name: statement.excluded[name] for name in _UPDATED}
        )
        await self._c.execute(statement, [_values(s, now) for s in sessions])

    async def page(self, device_id: str, query: SessionQuery) -> SessionPage:
        """`select_sessions` in SQL: overlap with the window, the status, `ORDER BY
        started_at DESC, id DESC` (the `(device_id, started_at)` index), and the total."""
        where = [
            _S.device_id == device_id,
            _S.started_at < query.window.end,
            or_(_S.ended_at.is_(None), _S.ended_at > query.window.start),
        ]
        if query.status is not None:
            where.append(_S.status == query.status.value)
        rows, total = await page_of(
            self._c,
            charging_sessions,
            where,
            [_S.started_at.desc(), _S.id.desc()],
            query.offset,
            query.limit,
        )
        return SessionPage([session_from_row(r) for r in rows], total)
