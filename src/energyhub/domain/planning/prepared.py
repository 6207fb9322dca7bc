"""A tariff's prices expanded once for many plans.

Re-planning a fleet after a price update plans thousands of chargers against a handful of
tariffs. Expanding a tariff (cutting dynamic periods to the horizon, or turning a
time-of-use day into UTC periods across DST) is the same work for every charger on it, so
it is done once per tariff and horizon and each plan takes its window by bisection. The
result is the same list of periods `PriceSchedule.over` gives for that window."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import pairwise
from zoneinfo import ZoneInfo

from energyhub.domain.clock import ensure_utc
from energyhub.domain.planning.blocks import Window
from energyhub.domain.planning.intervals import Interval
from energyhub.domain.planning.model import ChargerLimits, PriceSchedule, Site, Tariff
from energyhub.domain.planning.prices import PricePeriod


@dataclass(frozen=True, slots=True)
class ExpandedPrices:
    """One side of a tariff as UTC periods in time order over [start, end)."""

    periods: tuple[PricePeriod, ...]
    ends: tuple[datetime, ...]
    """The periods' ends, for bisection; empty when they are not in order (periods that
    overlap, which a valid tariff has not), and then every period is looked at."""

    @classmethod
    def of(
        cls, schedule: PriceSchedule, tz: ZoneInfo, start: datetime, end: datetime
    ) -> ExpandedPrices:
        periods = tuple(schedule.over(start, end, tz))
        ends = tuple(p.end for p in periods)
        in_order = all(a <= b for a, b in pairwise(ends))
        return cls(periods, ends if in_order else ())

    def any_over(self, start: datetime, end: datetime) -> bool:
        """Whether `over(start, end)` has a period, without making it."""
        first = bisect_right(self.ends, start) if self.ends else 0
        for index in range(first, len(self.periods)):
            period = self.periods[index]
            if period.end <= start:
                continue
            return period.start < end
        return False

    def over(self, start: datetime, end: datetime) -> list[PricePeriod]:
        """The periods cut to [start, end), which lies within the expanded span."""
        first = bisect_right(self.ends, start) if self.ends else 0
        found: list[PricePeriod] = []
        for period in self.periods[first:]:
            if period.end <= start:
                continue
            if period.start >= end:
                break
            if period.start >= start and period.end <= end:
                found.append(period)
            else:
                found.append(
                    PricePeriod(max(period.start, start), min(period.end, end), period.price)
                )
        return found


@dataclass(frozen=True, slots=True)
class PreparedPrices:
    """A tariff's import (and export) prices expanded over [start, end) in one timezone;
    `prepare_prices` makes it, `plan_charging(prices=...)` uses it where it covers the
    plan's window (and expands the tariff itself elsewhere)."""

    tariff: Tariff
    timezone: ZoneInfo
    start: datetime
    end: datetime
    import_prices: ExpandedPrices
    export_prices: ExpandedPrices | None
    _built: dict[tuple[int, float | None, float, float], _Built] = field(
        default_factory=dict, compare=False, repr=False
    )

    def window(
        self,
        site: Site,
        charger: ChargerLimits,
        start: datetime,
        end: datetime,
        build: Callable[[], list[Interval]],
        part: tuple[str, Callable[[list[Interval]], Window]] | None = None,
    ) -> Window:
        """The planning intervals over [start, end) for this site and charger: built once
        over the whole span by `build` (for every charger with the same limits at the same
        site) and cut to the window. The cut gives the intervals a build over the window
        gives: each is split at the same price, export and forecast edges. `part`: a name
        and what to keep of the window (the same for every plan over it). A window is kept
        for the next plan over it (chargers with the same limits and ready-by time)."""
        limit = site.grid_limit_kw
        if not site.forecast and limit is not None and limit >= charger.ceiling_kw:
            limit = None  # a limit the charger alone never reaches gives the same intervals
        key = (id(site.forecast), limit, charger.ceiling_kw, charger.minimum_kw)
        built = self._built.get(key)
        if built is None:
            whole = build()
            built = _Built(site.forecast, whole, tuple(iv.end for iv in whole), {})
            self._built[key] = built  # keeps the forecast, so its id stays its own
        kept = (start, end, None if part is None else part[0])
        found = built.windows.get(kept)
        if found is None:
            cut = built.over(start, end)
            found = Window.of(cut) if part is None else part[1](cut)
            if len(built.windows) < _WINDOWS_KEPT:
                built.windows[kept] = found
        return found

    def covers(self, tariff: Tariff, tz: ZoneInfo, start: datetime, end: datetime) -> bool:
        return (
            (tariff is self.tariff or tariff == self.tariff)
            and tz == self.timezone
            and self.start <= start
            and end <= self.end
        )


_WINDOWS_KEPT = 64
"""Windows kept per site and charger limits (a fleet re-planned at one `now` has one per
ready-by time)."""


@dataclass(frozen=True, slots=True)
class _Built:
    forecast: object
    intervals: list[Interval]
    ends: tuple[datetime, ...]
    windows: dict[tuple[datetime, datetime, str | None], Window]

    def over(self, start: datetime, end: datetime) -> list[Interval]:
        found: list[Interval] = []
        for interval in self.intervals[bisect_right(self.ends, start) :]:
            if interval.start >= end:
                break
            if interval.start >= start and interval.end <= end:
                found.append(interval)
                continue
            lo, hi = max(interval.start, start), min(interval.end, end)
            hours = (hi - lo).total_seconds() / 3600
            found.append(replace(interval, start=lo, end=hi, hours=hours))
        return found


def prepare_prices(tariff: Tariff, tz: ZoneInfo, start: datetime, end: datetime) -> PreparedPrices:
    """The tariff's prices expanded once over [start, end), for every plan on it."""
    start, end = ensure_utc(start), ensure_utc(end)
    export = tariff.export_prices
    return PreparedPrices(
        tariff,
        tz,
        start,
        end,
        ExpandedPrices.of(tariff.import_prices, tz, start, end),
        None if export is None else ExpandedPrices.of(export, tz, start, end),
    )


def import_over(
    tariff: Tariff,
    tz: ZoneInfo,
    start: datetime,
    end: datetime,
    prepared: PreparedPrices | None,
) -> list[PricePeriod]:
    """The import periods over [start, end): from `prepared` where it covers them."""
    if prepared is not None and prepared.covers(tariff, tz, start, end):
        return prepared.import_prices.over(start, end)
    return tariff.import_prices.over(start, end, tz)


def export_over(
    tariff: Tariff,
    tz: ZoneInfo,
    start: datetime,
    end: datetime,
    prepared: PreparedPrices | None,
) -> list[PricePeriod] | None:
    """The export periods over [start, end), None without an export tariff."""
    if tariff.export_prices is None:
        return None
    expanded = None if prepared is None else prepared.export_prices
    if prepared is not None and expanded is not None and prepared.covers(tariff, tz, start, end):
        return expanded.over(start, end)
    return tariff.export_prices.over(start, end, tz)
