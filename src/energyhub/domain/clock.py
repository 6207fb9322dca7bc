"""Time: a Clock protocol so the domain never reads the wall clock itself, and
plant-local wall-clock conversions with explicit DST rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo


class Clock(Protocol):
    """Source of the current instant (aware, UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime) -> None:
        self._now = ensure_utc(start)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        self._now += delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        return self._now

    def set(self, instant: datetime) -> None:
        self._now = ensure_utc(instant)


class NonexistentLocalTime(ValueError):
    """A wall-clock time that falls in a DST gap of the plant's timezone."""


DEFAULT_TIMEZONE = "Europe/Berlin"
"""A device's timezone when whoever makes it names none (IANA)."""

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 1, 1, tzinfo=UTC)
"""The instants the service takes from clients and stores, [EARLIEST, LATEST): inside them
a window's or a zone's span added to a time stays within `datetime`, and nothing becomes
PostgreSQL's +-infinity (which `datetime.max`/`min` are stored as)."""
RANGE_TEXT = "between 1970-01-01 and 9998-12-31 (UTC)"


def to_utc_in_range(value: datetime) -> datetime | None:
    """Aware UTC when the instant lies in [EARLIEST, LATEST), else None (also for an offset
    that takes it past year 1 or 9999)."""
    try:
        utc = ensure_utc(value)
    except OverflowError:
        return None
    return utc if EARLIEST <= utc < LATEST else None


_LAST_STORED = LATEST - timedelta(milliseconds=1)


def clamp_to_range(value: datetime) -> datetime:
    """An aware instant moved into [EARLIEST, LATEST) (the last millisecond before LATEST)."""
    if value < EARLIEST:
        return EARLIEST
    return _LAST_STORED if value > _LAST_STORED else value


def ensure_utc(value: datetime) -> datetime:
    """Aware UTC for any datetime; naive values are taken as UTC (SQLite returns those)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def local_to_utc(naive: datetime, tz: ZoneInfo) -> datetime:
    """Plant-local wall clock to UTC: a DST gap is refused, a fold takes its first occurrence."""
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() != second.utcoffset():
        round_trip = first.astimezone(UTC).astimezone(tz).replace(tzinfo=None)
        if round_trip != naive:
            raise NonexistentLocalTime(f"{naive.isoformat()} does not exist in {tz.key}")
    return first.astimezone(UTC)


_last_formatted: tuple[datetime, str] = (datetime.min.replace(tzinfo=UTC), "")


def isoformat_utc(value: datetime) -> str:
    """ISO 8601 UTC with a `Z`, millisecond precision: the one format of every response.
    The last millisecond's text is kept: under load most requests share it."""
    global _last_formatted
    u = ensure_utc(value).replace(microsecond=value.microsecond // 1000 * 1000)
    if _last_formatted[0] == u:
        return _last_formatted[1]
    text = (
        f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}"
        f".{u.microsecond // 1000:03d}Z"
    )
    _last_formatted = (u, text)
    return text
