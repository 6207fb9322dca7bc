"""Prices prepared once per tariff (`prepare_prices`) give every plan exactly the plan made
without them: dynamic prices at 15 and 60 minutes, time-of-use days over DST, export
tariffs and forecasts, site limits, goals, no goal, and windows the preparation does not
cover."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.planning import (
    ChargerLimits,
    Goal,
    LoadPeriod,
    PricePeriod,
    PriceSchedule,
    Site,
    Tariff,
    TimeOfUsePeriod,
    plan_charging,
    prepare_prices,
)
from energyhub.domain.planning.prepared import ExpandedPrices
from energyhub.domain.planning.prices import OrderedPeriods

BERLIN = ZoneInfo("Europe/Berlin")


def dynamic(start: datetime, minutes: int, hours: int, rng: random.Random) -> PriceSchedule:
    step = timedelta(minutes=minutes)
    count = hours * 60 // minutes
    return PriceSchedule(
        periods=tuple(
            PricePeriod(start + i * step, start + (i + 1) * step, round(rng.uniform(-0.05, 0.4), 3))
            for i in range(count)
        )
    )


TIME_OF_USE = PriceSchedule(
    time_of_use=(
        TimeOfUsePeriod("00:00", "02:30", 0.11),
        TimeOfUsePeriod("02:30", "06:00", 0.09),
        TimeOfUsePeriod("06:00", "22:00", 0.31),
        TimeOfUsePeriod("22:00", "24:00", 0.2),
    )
)


def forecast(start: datetime) -> tuple[LoadPeriod, ...]:
    return tuple(
        LoadPeriod(
            start + timedelta(hours=h),
            start + timedelta(hours=h + 1),
            0.5 - 6 * (10 <= h % 24 < 15),
        )
        for h in range(48)
    )


@pytest.mark.parametrize(
    "day",
    [
        datetime(2026, 11, 25, tzinfo=UTC),
        datetime(2026, 3, 28, tzinfo=UTC),  # the next night springs forward
        datetime(2026, 10, 24, tzinfo=UTC),  # the next night falls back
    ],
)
@pytest.mark.parametrize("kind", ["hourly", "quarter", "time_of_use"])
def test_a_plan_on_prepared_prices_is_the_plan_without(day: datetime, kind: str) -> None:
    rng = random.Random(f"{day}{kind}")
    if kind == "time_of_use":
        schedule = TIME_OF_USE
    else:
        schedule = dynamic(day, 60 if kind == "hourly" else 15, 48, rng)
    export = PriceSchedule(periods=(PricePeriod(day, day + timedelta(days=2), 0.07),))
    tariffs = [Tariff("EUR", schedule), Tariff("EUR", schedule, export)]
    now = day + timedelta(hours=13, minutes=7)
    prepared = {id(t): prepare_prices(t, BERLIN, now, now + timedelta(hours=24)) for t in tariffs}
    for case in range(60):
        tariff = tariffs[case % 2]
        site = Site(
            BERLIN,
            grid_limit_kw=rng.choice([None, 9.0, 17.0]),
            tariff=tariff,
            forecast=forecast(day) if case % 3 == 0 else (),
        )
        charger = ChargerLimits(rng.choice([3.7, 7.4, 11.0, 22.0]), rng.choice([1.4, 4.2]))
        ready = now + timedelta(minutes=rng.randrange(-60, 30 * 60, 5))  # some past or beyond
        goal = None if case % 7 == 0 else Goal(round(rng.uniform(0, 70), 2), ready)
        at = now + timedelta(minutes=rng.choice([0, 0, 20]))
        expected = plan_charging(now=at, site=site, charger=charger, goal=goal)
        shared = plan_charging(
            now=at, site=site, charger=charger, goal=goal, prices=prepared[id(tariff)]
        )
        assert shared == expected, (case, site.grid_limit_kw, charger, goal)


def test_prepared_prices_of_another_tariff_or_timezone_are_not_used() -> None:
    rng = random.Random(3)
    day = datetime(2026, 11, 25, tzinfo=UTC)
    mine, other = Tariff("EUR", dynamic(day, 60, 48, rng)), Tariff("EUR", TIME_OF_USE)
    now = day + timedelta(hours=12)
    prepared = prepare_prices(other, BERLIN, now, now + timedelta(hours=24))
    goal = Goal(20.0, now + timedelta(hours=18))
    charger = ChargerLimits(11.0)
    for site in (Site(BERLIN, tariff=mine), Site(ZoneInfo("UTC"), tariff=other)):
        expected = plan_charging(now=now, site=site, charger=charger, goal=goal)
        assert plan_charging(now=now, site=site, charger=charger, goal=goal, prices=prepared) == (
            expected
        )
    equal = Tariff("EUR", TIME_OF_USE)  # another object with the same prices: used
    assert prepared.covers(equal, BERLIN, now, now + timedelta(hours=1))
    assert not prepared.covers(equal, BERLIN, now - timedelta(minutes=1), now)


def test_expanded_prices_cut_to_a_window_as_over_does() -> None:
    day = datetime(2026, 11, 25, tzinfo=UTC)
    schedule = dynamic(day, 15, 24, random.Random(5))
    expanded = ExpandedPrices.of(schedule, BERLIN, day, day + timedelta(hours=24))
    start, end = day + timedelta(hours=3, minutes=7), day + timedelta(hours=9, minutes=50)
    assert expanded.over(start, end) == schedule.over(start, end, BERLIN)
    overlapping = PriceSchedule(
        periods=(
            PricePeriod(day, day + timedelta(hours=5), 0.2),
            PricePeriod(day + timedelta(hours=1), day + timedelta(hours=2), 0.1),
        )
    )
    odd = ExpandedPrices.of(overlapping, BERLIN, day, day + timedelta(hours=5))
    assert odd.ends == ()
    window = (day + timedelta(hours=1, minutes=30), day + timedelta(hours=4))
    assert odd.over(*window) == overlapping.over(*window, BERLIN)


def _clip(periods: list[PricePeriod], start: datetime, end: datetime) -> list[PricePeriod]:
    """The plain reading of a window: every period (a later one replacing an earlier one of
    the same start) in start order, cut to [start, end)."""
    by_start = {p.start: p for p in periods}
    clipped = []
    for key in sorted(by_start):
        p = by_start[key]
        lo, hi = max(key, start), min(p.end, end)
        if lo < hi:
            clipped.append(PricePeriod(lo, hi, p.price))
    return clipped


def test_a_dynamic_schedule_finds_a_window_s_periods_as_clip_does() -> None:
    """The bisected lookup (`OrderedPeriods`) against `_clip` on random periods: overlapping,
    with repeated starts, gaps, and windows given in another timezone or outside them all."""
    rng = random.Random(11)
    base = datetime(2026, 10, 25, 0, 0, tzinfo=UTC)
    berlin = ZoneInfo("Europe/Berlin")
    for _ in range(300):
        periods = []
        for _ in range(rng.randint(0, 40)):
            start = base + timedelta(minutes=15 * rng.randint(0, 200))
            length = timedelta(minutes=15 * rng.randint(1, 12))
            periods.append(PricePeriod(start, start + length, round(rng.uniform(-0.1, 0.5), 3)))
        ordered = OrderedPeriods.of(periods)
        for _ in range(10):
            start = base + timedelta(seconds=rng.randint(-3600, 60 * 60 * 55))
            end = start + timedelta(seconds=rng.choice([10, 900, 3600, 86400]))
            if rng.random() < 0.3:
                start, end = start.astimezone(berlin), end.astimezone(berlin)
            assert ordered.over(start, end) == _clip(periods, start, end)
