"""What the planner takes and gives: the site (timezone, import limit, tariff, forecast),
the charger's limits, the goal, and the plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from zoneinfo import ZoneInfo

from energyhub.domain.planning.prices import (
    LoadPeriod,
    OrderedPeriods,
    PricePeriod,
    TimeOfUsePeriod,
    expand_time_of_use,
)
from energyhub.domain.planning.slots import Slot


class PlanStatus(Enum):
    """What a plan says about now. The other statuses a charger's plan shows (not_running,
    paused, unplugged) are the service's: the planner only ever plans for a plugged-in car
    under a running strategy."""

    WAITING = "waiting"
    CHARGING = "charging"
    DONE = "done"
    NO_GOAL = "no_goal"


@dataclass(frozen=True, slots=True)
class PriceSchedule:
    """Either dynamic periods (UTC) or a time-of-use day (the site's wall clock)."""

    periods: tuple[PricePeriod, ...] = ()
    time_of_use: tuple[TimeOfUsePeriod, ...] = ()
    _ordered: OrderedPeriods | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.periods and not self.time_of_use:
            object.__setattr__(self, "_ordered", OrderedPeriods.of(self.periods))

    def over(self, start: datetime, end: datetime, tz: ZoneInfo) -> list[PricePeriod]:
        if self.time_of_use:
            return expand_time_of_use(self.time_of_use, tz, start, end)
        if self._ordered is None:
            return []
        return self._ordered.over(start, end)


@dataclass(frozen=True, slots=True)
class Tariff:
    currency: str
    import_prices: PriceSchedule
    export_prices: PriceSchedule | None = None


@dataclass(frozen=True, slots=True)
class Site:
    timezone: ZoneInfo
    grid_limit_kw: float | None = None
    tariff: Tariff | None = None
    forecast: tuple[LoadPeriod, ...] = ()
    """The site's power without the charger (positive import, negative export); where it
    says nothing the site is taken to draw nothing."""


@dataclass(frozen=True, slots=True)
class ChargerLimits:
    ceiling_kw: float
    minimum_kw: float = 1.4


@dataclass(frozen=True, slots=True)
class Goal:
    energy_kwh: float
    """Energy still needed (the delivered part already taken off)."""
    ready_by: datetime


@dataclass(frozen=True, slots=True)
class Plan:
    status: PlanStatus
    slots: tuple[Slot, ...]
    expected_energy_kwh: float
    expected_cost: float
    currency: str | None
    explanation: str
    shortfall_kwh: float = 0.0
    """Energy the goal needs that no plan can deliver in time (the explanation mentions it
    from 50 Wh on)."""
    surplus_energy_kwh: float = 0.0
    """Planned energy that comes from the site's forecast surplus."""

    def power_at(self, instant: datetime) -> float:
        """The planned power at an instant (0 outside every slot)."""
        for slot in self.slots:
            if slot.start <= instant < slot.end:
                return slot.power_kw
        return 0.0
