"""The sandbox site's simulated meter: solar and a house load by UTC time of day, so a
sandbox charger's surplus strategies have sun to follow without any posted reading.

Solar: a half-sine from 08:00 to 18:00 UTC, peaking at 8 kW. House: 0.5 kW, plus 1.5 kW
from 17:00 to 21:00. The devices' own power (chargers charging, batteries charging or
discharging) adds to what the meter reads."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta

from energyhub.domain.clock import ensure_utc
from energyhub.domain.planning.prices import LoadPeriod

SOLAR_START_H = 8.0
SOLAR_END_H = 18.0
SOLAR_PEAK_KW = 8.0
BASE_LOAD_KW = 0.5
EVENING_LOAD_KW = 1.5
EVENING_H = (17.0, 21.0)
READING_FRESH = timedelta(minutes=5)
"""A sandbox site with no posted reading this recent reads its simulated meter."""


def _hour(instant: datetime) -> float:
    t = ensure_utc(instant)
    return t.hour + t.minute / 60 + t.second / 3600


def solar_kw(instant: datetime) -> float:
    hour = _hour(instant)
    if not SOLAR_START_H <= hour < SOLAR_END_H:
        return 0.0
    span = SOLAR_END_H - SOLAR_START_H
    return SOLAR_PEAK_KW * math.sin(math.pi * (hour - SOLAR_START_H) / span)


def house_kw(instant: datetime) -> float:
    hour = _hour(instant)
    evening = EVENING_H[0] <= hour < EVENING_H[1]
    return BASE_LOAD_KW + (EVENING_LOAD_KW if evening else 0.0)


def grid_power_kw(instant: datetime, devices_kw: Iterable[float] = ()) -> float:
    """What the simulated meter reads: positive importing, negative exporting."""
    return round(house_kw(instant) + sum(devices_kw) - solar_kw(instant), 3)


def forecast(
    start: datetime, end: datetime, step: timedelta = timedelta(minutes=15)
) -> tuple[LoadPeriod, ...]:
    """The site's power without its devices, as the planner's forecast (step averages
    taken at each step's middle)."""
    periods: list[LoadPeriod] = []
    at = ensure_utc(start)
    end = ensure_utc(end)
    while at < end:
        nxt = min(at + step, end)
        middle = at + (nxt - at) / 2
        periods.append(LoadPeriod(at, nxt, round(house_kw(middle) - solar_kw(middle), 3)))
        at = nxt
    return tuple(periods)
