"""Prices and site forecasts over time: dynamic price periods as given, time-of-use periods
expanded from the site's wall clock to UTC (correct on DST days), and lookups by instant."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from energyhub.domain.clock import ensure_utc


@dataclass(frozen=True, slots=True)
class PricePeriod:
    """A price per kWh from `start` to `end` (UTC, end exclusive)."""

    start: datetime
    end: datetime
    price: float


@dataclass(frozen=True, slots=True)
class TimeOfUsePeriod:
    """A price per kWh between two wall-clock times of the site ("HH:MM", "24:00" allowed);
    `to` at or before `from` runs over midnight."""

    start: str
    end: str
    price: float


@dataclass(frozen=True, slots=True)
class LoadPeriod:
    """The site's forecast power without the charger from `start` to `end`: positive is
    import (house load), negative is export (solar surplus)."""

    start: datetime
    end: datetime
    power_kw: float


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def wall_clock_to_utc(day: date, minutes: int, tz: ZoneInfo) -> datetime:
    """The instant the site's clock shows `minutes` after midnight of `day`. A time in the
    spring-forward gap maps to the end of the gap (the moment the clock jumps), and a time
    in the autumn fold to its first occurrence: both keep consecutive periods contiguous."""
    naive = datetime.combine(day, time()) + timedelta(minutes=minutes)
    first = ensure_utc(naive.replace(tzinfo=tz, fold=0))
    if first.astimezone(tz).replace(tzinfo=None) == naive:
        return first
    # In the gap: fold=0 reads the time with the offset before the jump, which lands after
    # the jump; step back to the jump itself (transitions fall on whole minutes).
    jump_offset = first.astimezone(tz).utcoffset()
    while (first - timedelta(minutes=1)).astimezone(tz).utcoffset() == jump_offset:
        first -= timedelta(minutes=1)
    return first


def expand_time_of_use(
    periods: Sequence[TimeOfUsePeriod], tz: ZoneInfo, start: datetime, end: datetime
) -> list[PricePeriod]:
    """The time-of-use periods as UTC price periods covering [start, end), cut to it."""
    start, end = ensure_utc(start), ensure_utc(end)
    first_day = start.astimezone(tz).date() - timedelta(days=1)
    last_day = end.astimezone(tz).date() + timedelta(days=1)
    expanded: list[PricePeriod] = []
    day = first_day
    while day <= last_day:
        for period in periods:
            begin, finish = _minutes(period.start), _minutes(period.end)
            if finish <= begin:
                finish += 24 * 60
            lo = max(wall_clock_to_utc(day, begin, tz), start)
            hi = min(wall_clock_to_utc(day, finish, tz), end)
            if lo < hi:
                expanded.append(PricePeriod(lo, hi, period.price))
        day += timedelta(days=1)
    expanded.sort(key=lambda p: p.start)
    return expanded


@dataclass(frozen=True, slots=True)
class OrderedPeriods:
    """Dynamic periods in time order (a later period replaces an earlier one of the same
    start), ordered once, so that a short window (a ledger's 10 s) finds its few periods by
    bisection instead of sorting them all again. `reach[i]`: the latest end among the
    first i + 1 periods (periods may overlap, so ends alone are not ordered)."""

    periods: tuple[PricePeriod, ...]
    starts: tuple[datetime, ...]
    reach: tuple[datetime, ...]

    @classmethod
    def of(cls, periods: Sequence[PricePeriod]) -> OrderedPeriods:
        by_start = {ensure_utc(p.start): p for p in periods}
        ordered = [(start, ensure_utc(p.end), p.price) for start, p in sorted(by_start.items())]
        reach: list[datetime] = []
        for _, end, _ in ordered:
            reach.append(end if not reach else max(reach[-1], end))
        return cls(
            tuple(PricePeriod(start, end, price) for start, end, price in ordered),
            tuple(start for start, _, _ in ordered),
            tuple(reach),
        )

    def over(self, start: datetime, end: datetime) -> list[PricePeriod]:
        """The periods cut to [start, end), in time order."""
        first = bisect_right(self.reach, start)  # every period before ends by `start`
        last = bisect_left(self.starts, end)  # every period from here starts at `end` or later
        clipped = []
        for p in self.periods[first:last]:
            lo, hi = max(p.start, start), min(p.end, end)
            if lo < hi:
                clipped.append(PricePeriod(lo, hi, p.price))
        return clipped


class Timeline:
    """A step function over time from non-overlapping periods: the value at an instant, or
    None where no period covers it."""

    def __init__(self, periods: Sequence[tuple[datetime, datetime, float]]) -> None:
        ordered = sorted(periods, key=lambda p: p[0])
        self._starts = [p[0] for p in ordered]
        self._periods = ordered

    def at(self, instant: datetime) -> float | None:
        index = bisect_right(self._starts, instant) - 1
        if index < 0:
            return None
        start, end, value = self._periods[index]
        return value if start <= instant < end else None

    def boundaries(self) -> set[datetime]:
        return {p[0] for p in self._periods} | {p[1] for p in self._periods}
