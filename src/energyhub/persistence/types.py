"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, overload

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from energyhub.domain.clock import clamp_to_range, ensure_utc


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC in and out; SQLite would otherwise hand back naive datetimes."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        # clamped: PostgreSQL would store datetime.max/min as +-infinity, read back naive
        utc = clamp_to_range(ensure_utc(value))
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else ensure_utc(value)


JsonDocument: Any = JSON().with_variant(JSONB(), "postgresql")


@overload
def aware(value: datetime) -> datetime: ...
@overload
def aware(value: None) -> None: ...
def aware(value: datetime | None) -> datetime | None:
    """A stored time as aware UTC on every path: asyncpg reads PostgreSQL's +-infinity
    (rows written before times were clamped) as naive `datetime.max`/`min`."""
    return value if value is None or value.tzinfo is not None else value.replace(tzinfo=UTC)
