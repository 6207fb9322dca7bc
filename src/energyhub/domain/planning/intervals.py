"""The planning horizon cut into intervals with one import price, one export price and one
site forecast each, and what charging in each costs.

The cost of charging `e` kWh in an interval is convex and piecewise linear with two tiers:
- tier 1, up to `tier1_kw` x hours: what the charger can take while the site exports, at
  the export price (what that energy would have earned), blended with the import price
  when the surplus is below the charger's minimum (the charger then draws its minimum, part
  from the grid). Tier-1 energy may run for part of the interval.
- tier 2, up to the interval's capacity: grid energy at the import price. Taking it means
  charging through the whole interval (otherwise surplus would go unused), so an interval
  that uses tier 2 is covered from its start to its end.
Without surplus there is one tier, and any energy up to the capacity may run for part of
the interval."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from energyhub.domain.planning.prices import PricePeriod, Timeline

EPSILON_KW = 1e-9


@dataclass(frozen=True, slots=True)
class Interval:
    start: datetime
    end: datetime
    import_price: float
    capacity_kw: float
    """What the charger may draw: its ceiling, within the site's import limit less the
    forecast load; 0 when that is below the charger's minimum."""
    surplus_kw: float
    """Forecast surplus the charger can take (at most its capacity)."""
    tier1_kw: float
    tier1_price: float
    hours: float

    @property
    def tier2_kw(self) -> float:
        return self.capacity_kw - self.tier1_kw

    @property
    def capacity_kwh(self) -> float:
        return self.capacity_kw * self.hours

    def cost(self, energy: float) -> float:
        """The cheapest cost of `energy` kWh in this interval."""
        first = min(energy, self.tier1_kw * self.hours)
        return first * self.tier1_price + (energy - first) * self.import_price

    def surplus_energy(self, energy: float) -> float:
        """How much of `energy` comes from the site's surplus."""
        if self.tier1_kw <= 0:
            return 0.0
        first = min(energy, self.tier1_kw * self.hours)
        return first * self.surplus_kw / self.tier1_kw


def headroom(
    ceiling_kw: float, minimum_kw: float, grid_limit_kw: float | None, load_kw: float
) -> float:
    """The power the charger may draw given the site's import limit and its other load;
    0 when that is below the charger's minimum."""
    capacity = ceiling_kw if grid_limit_kw is None else min(ceiling_kw, grid_limit_kw - load_kw)
    return capacity if capacity >= minimum_kw - EPSILON_KW and capacity > 0 else 0.0


def build_intervals(
    prices: Sequence[PricePeriod],
    *,
    export: Timeline | None,
    load: Timeline | None,
    ceiling_kw: float,
    minimum_kw: float,
    grid_limit_kw: float | None,
) -> list[Interval]:
    """Intervals over the given import periods (already cut to the horizon), split wherever
    the export price or the forecast changes. Time without an import price is left out."""
    cuts: set[datetime] = set()
    for timeline in (export, load):
        if timeline is not None:
            cuts |= timeline.boundaries()
    ordered = sorted(cuts)
    intervals: list[Interval] = []
    for period in prices:  # the cuts strictly inside the period, in order
        inner = ordered[bisect_right(ordered, period.start) : bisect_left(ordered, period.end)]
        edges = [period.start, *inner, period.end]
        for start, end in pairwise(edges):
            forecast = (load.at(start) if load is not None else None) or 0.0
            earns = (export.at(start) if export is not None else None) or 0.0
            intervals.append(
                _interval(
                    start, end, period.price, forecast, earns, ceiling_kw, minimum_kw, grid_limit_kw
                )
            )
    return intervals


def _interval(
    start: datetime,
    end: datetime,
    price: float,
    load_kw: float,
    export_price: float,
    ceiling_kw: float,
    minimum_kw: float,
    grid_limit_kw: float | None,
) -> Interval:
    hours = (end - start).total_seconds() / 3600
    capacity = headroom(ceiling_kw, minimum_kw, grid_limit_kw, load_kw)
    surplus = min(max(0.0, -load_kw), capacity)
    # Surplus is worth what exporting it would earn, never more than importing costs.
    surplus_price = min(export_price, price)
    if surplus <= 0 or surplus_price >= price:
        return Interval(start, end, price, capacity, surplus, capacity, price, hours)
    tier1 = min(max(surplus, minimum_kw), capacity)
    blended = (surplus_price * surplus + price * (tier1 - surplus)) / tier1
    return Interval(start, end, price, capacity, surplus, tier1, blended, hours)
