"""The charging planner: tariffs over DST days, goals met at the least cost in the fewest
blocks, negative prices, unmeetable goals, re-planning, and the sentence a person reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.planning import (
    ChargerLimits,
    Goal,
    LoadPeriod,
    Plan,
    PlanStatus,
    PricePeriod,
    PriceSchedule,
    Site,
    Tariff,
    TimeOfUsePeriod,
    blocks_of,
    plan_charging,
)
from energyhub.domain.planning.explanation import money
from energyhub.domain.planning.prices import OrderedPeriods, Timeline, expand_time_of_use

BERLIN = ZoneInfo("Europe/Berlin")
CHARGER = ChargerLimits(11.0, 1.4)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def hourly(start: datetime, prices: list[float]) -> PriceSchedule:
    return PriceSchedule(
        periods=tuple(
            PricePeriod(start + timedelta(hours=i), start + timedelta(hours=i + 1), p)
            for i, p in enumerate(prices)
        )
    )


def tou(*periods: tuple[str, str, float]) -> PriceSchedule:
    return PriceSchedule(time_of_use=tuple(TimeOfUsePeriod(*p) for p in periods))


def site(prices: PriceSchedule | None, **kwargs: object) -> Site:
    tariff = None if prices is None else Tariff("EUR", prices)
    return Site(BERLIN, tariff=tariff, **kwargs)  # type: ignore[arg-type]


def spans(plan: Plan) -> list[tuple[datetime, datetime, float]]:
    return [(s.start, s.end, round(s.power_kw, 6)) for s in plan.slots]


# --- time-of-use days ---------------------------------------------------------------------


def test_spring_forward_day_has_23_hours_and_a_period_in_the_gap_starts_at_the_jump() -> None:
    schedule = tou(("00:00", "02:30", 0.10), ("02:30", "06:00", 0.20), ("06:00", "24:00", 0.30))
    start, end = utc(2026, 3, 28, 23), utc(2026, 3, 29, 22)  # local midnight to midnight
    periods = expand_time_of_use(schedule.time_of_use, BERLIN, start, end)
    assert [(p.start, p.end, p.price) for p in periods] == [
        (utc(2026, 3, 28, 23), utc(2026, 3, 29, 1), 0.10),  # 00:00-03:00 CEST: 2 h
        (utc(2026, 3, 29, 1), utc(2026, 3, 29, 4), 0.20),  # 03:00-06:00 CEST
        (utc(2026, 3, 29, 4), utc(2026, 3, 29, 22), 0.30),
    ]
    assert sum((p.end - p.start for p in periods), timedelta()) == timedelta(hours=23)


def test_fall_back_day_has_25_hours_and_the_repeated_hour_belongs_to_one_period() -> None:
    schedule = tou(("01:00", "05:00", 0.09), ("05:00", "01:00", 0.30))
    start, end = utc(2026, 10, 24, 22), utc(2026, 10, 25, 23)
    periods = expand_time_of_use(schedule.time_of_use, BERLIN, start, end)
    cheap = [p for p in periods if p.price == 0.09]
    assert [(p.start, p.end) for p in cheap] == [(utc(2026, 10, 24, 23), utc(2026, 10, 25, 4))]
    assert sum((p.end - p.start for p in periods), timedelta()) == timedelta(hours=25)
    assert all(a.end == b.start for a, b in pairwise(periods))


def test_a_plan_on_the_fall_back_night_uses_all_five_hours_of_the_cheap_period() -> None:
    now = utc(2026, 10, 24, 18)  # 20:00 CEST
    schedule = tou(("01:00", "05:00", 0.09), ("05:00", "01:00", 0.30))
    goal = Goal(11.2, utc(2026, 10, 25, 6))  # 07:00 CET
    plan = plan_charging(now=now, site=site(schedule), charger=ChargerLimits(2.24, 1.4), goal=goal)
    # 11.2 kWh at 2.24 kW is 5 h: the 01:00-05:00 wall-clock period lasts 5 h this night.
    assert spans(plan) == [(utc(2026, 10, 24, 23), utc(2026, 10, 25, 4), 2.24)]
    assert plan.explanation == (
        "Waiting for the 01:00-05:00 period at 0.09 EUR/kWh; 11.2 kWh needed by 07:00."
    )
    assert plan.expected_cost == pytest.approx(11.2 * 0.09)


def test_a_plan_on_the_spring_forward_night_fits_the_shorter_cheap_period() -> None:
    now = utc(2026, 3, 28, 20)
    schedule = tou(("01:00", "05:00", 0.09), ("05:00", "01:00", 0.30))
    goal = Goal(11.2, utc(2026, 3, 29, 5))  # 07:00 CEST
    plan = plan_charging(now=now, site=site(schedule), charger=ChargerLimits(2.8, 1.4), goal=goal)
    # The 01:00-05:00 period lasts 3 h tonight (00:00-03:00 UTC): 8.4 kWh in it, the other
    # 2.8 kWh at 0.30 right before or after it, in the same block.
    assert len(blocks_of(plan.slots)) == 1
    assert plan.power_at(utc(2026, 3, 29, 0)) == pytest.approx(2.8)
    assert plan.power_at(utc(2026, 3, 29, 2, 59)) == pytest.approx(2.8)
    assert plan.expected_energy_kwh == pytest.approx(11.2)
    assert plan.expected_cost == pytest.approx(8.4 * 0.09 + 2.8 * 0.30)


def test_time_of_use_periods_wrap_over_midnight_and_24_00_is_midnight() -> None:
    schedule = tou(("22:00", "06:00", 0.1), ("06:00", "22:00", 0.3))
    periods = expand_time_of_use(
        schedule.time_of_use, BERLIN, utc(2026, 1, 10, 12), utc(2026, 1, 11, 12)
    )
    assert [(p.start, p.end, p.price) for p in periods] == [
        (utc(2026, 1, 10, 12), utc(2026, 1, 10, 21), 0.3),
        (utc(2026, 1, 10, 21), utc(2026, 1, 11, 5), 0.1),
        (utc(2026, 1, 11, 5), utc(2026, 1, 11, 12), 0.3),
    ]
    whole = expand_time_of_use(
        tou(("00:00", "24:00", 0.2)).time_of_use, BERLIN, utc(2026, 1, 10, 23), utc(2026, 1, 11, 23)
    )
    assert [(p.start, p.end) for p in whole] == [(utc(2026, 1, 10, 23), utc(2026, 1, 11, 23))]


def test_dynamic_periods_are_cut_to_the_horizon_and_a_later_one_replaces_the_same_start() -> None:
    first = PricePeriod(utc(2026, 1, 1, 0), utc(2026, 1, 1, 1), 0.5)
    replaced = PricePeriod(utc(2026, 1, 1, 0), utc(2026, 1, 1, 1), 0.2)
    later = PricePeriod(utc(2026, 1, 1, 1), utc(2026, 1, 1, 2), 0.3)
    cut = OrderedPeriods.of([later, first, replaced]).over(
        utc(2026, 1, 1, 0, 30), utc(2026, 1, 1, 1, 30)
    )
    assert [(p.start, p.end, p.price) for p in cut] == [
        (utc(2026, 1, 1, 0, 30), utc(2026, 1, 1, 1), 0.2),
        (utc(2026, 1, 1, 1), utc(2026, 1, 1, 1, 30), 0.3),
    ]
    timeline = Timeline([(first.start, first.end, 1.0)])
    assert timeline.at(utc(2025, 12, 31)) is None
    assert timeline.at(utc(2026, 1, 1, 1)) is None
    assert timeline.at(utc(2026, 1, 1, 0, 59)) == 1.0


# --- goals: cost, blocks, limits --------------------------------------------------------


def test_a_winter_night_with_dynamic_prices_charges_in_the_cheapest_hours() -> None:
    now = utc(2026, 1, 14, 17)  # 18:00 local
    prices = [0.32, 0.30, 0.28, 0.25, 0.22, 0.18, 0.12, 0.09, 0.09, 0.08, 0.10, 0.11, 0.15]
    plan = plan_charging(
        now=now,
        site=site(hourly(now, prices)),
        charger=CHARGER,
        goal=Goal(33.0, utc(2026, 1, 15, 6)),
    )
    # Three hours at 11 kW: 0.09, 0.09, 0.08 (00:00-03:00 UTC).
    assert spans(plan) == [
        (utc(2026, 1, 15, 0), utc(2026, 1, 15, 2), 11.0),
        (utc(2026, 1, 15, 2), utc(2026, 1, 15, 3), 11.0),
    ]
    assert plan.status is PlanStatus.WAITING
    assert plan.expected_cost == pytest.approx(11 * (0.09 + 0.09 + 0.08))
    assert plan.explanation == (
        "Waiting for the 01:00-04:00 period at an average of 0.09 EUR/kWh; "
        "33.0 kWh needed by 07:00."
    )


def test_equal_prices_are_chosen_so_that_no_block_is_added() -> None:
    now = utc(2026, 2, 1, 0)
    # 0.10 twice apart and twice together: two hours go to the pair, not to 00:00 and 02:00.
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.10, 0.20, 0.10, 0.10, 0.30])),
        charger=CHARGER,
        goal=Goal(22.0, utc(2026, 2, 1, 5)),
    )
    assert spans(plan) == [(utc(2026, 2, 1, 2), utc(2026, 2, 1, 4), 11.0)]


def test_a_partial_period_is_placed_against_the_full_one() -> None:
    now = utc(2026, 2, 1, 0)
    # 0.10 is full (11 kWh); 5.5 kWh more at 0.15 go right before or right after it.
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.15, 0.10, 0.15])),
        charger=CHARGER,
        goal=Goal(16.5, utc(2026, 2, 1, 3)),
    )
    assert len(blocks_of(plan.slots)) == 1
    assert plan.expected_cost == pytest.approx(11 * 0.10 + 5.5 * 0.15)
    # Before it, the half hour's energy runs over the whole hour at half power: the same
    # cost and block, charged sooner.
    assert spans(plan) == [
        (utc(2026, 2, 1, 0), utc(2026, 2, 1, 1), 5.5),
        (utc(2026, 2, 1, 1), utc(2026, 2, 1, 2), 11.0),
    ]


def test_a_leftover_below_the_minimum_runs_at_full_power_for_part_of_the_period() -> None:
    now = utc(2026, 2, 1, 0)
    charger = ChargerLimits(11.0, 4.14)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.2, 0.1])),
        charger=charger,
        goal=Goal(0.5, utc(2026, 2, 1, 2)),
    )
    [slot] = plan.slots
    assert slot.power_kw == 11.0  # not 0.5 kW for the hour: below the 4.14 kW minimum
    assert slot.energy_kwh == pytest.approx(0.5)
    assert slot.start == utc(2026, 2, 1, 1) or slot.end == utc(2026, 2, 1, 2)


def test_a_leftover_below_the_minimum_next_to_a_full_period_runs_against_it() -> None:
    now = utc(2026, 2, 1, 0)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.15, 0.10, 0.3])),
        charger=ChargerLimits(11.0, 4.14),
        goal=Goal(11.5, utc(2026, 2, 1, 3)),
    )
    first, full = plan.slots
    assert first.end == full.start == utc(2026, 2, 1, 1)  # one block
    assert first.power_kw == 11.0
    assert first.energy_kwh == pytest.approx(0.5)
    after = plan_charging(
        now=now,
        site=site(hourly(now, [0.3, 0.10, 0.15])),
        charger=ChargerLimits(11.0, 4.14),
        goal=Goal(11.5, utc(2026, 2, 1, 3)),
    )
    full, last = after.slots
    assert full.end == last.start == utc(2026, 2, 1, 2)
    assert last.power_kw == 11.0
    assert last.energy_kwh == pytest.approx(0.5)


def test_energy_above_the_minimum_spreads_over_the_whole_period_when_it_joins_blocks() -> None:
    now = utc(2026, 2, 1, 0)
    charger = ChargerLimits(11.0, 1.4)
    # 0.1 / 0.2 / 0.1: the middle hour's 2 kWh joins both cheap hours into one block.
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.1, 0.2, 0.1])),
        charger=charger,
        goal=Goal(24.0, utc(2026, 2, 1, 3)),
    )
    assert len(blocks_of(plan.slots)) == 1
    assert plan.power_at(utc(2026, 2, 1, 1, 30)) == pytest.approx(2.0)


def test_the_site_limit_and_its_forecast_load_cap_the_charger() -> None:
    now = utc(2026, 2, 1, 0)
    forecast = (LoadPeriod(utc(2026, 2, 1, 0), utc(2026, 2, 1, 2), 9.0),)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.1, 0.1, 0.3]), grid_limit_kw=12.0, forecast=forecast),
        charger=CHARGER,
        goal=Goal(10.0, utc(2026, 2, 1, 3)),
    )
    # 3 kW of headroom for two hours (6 kWh at 0.1), the rest at 11 kW in the dear hour.
    assert plan.power_at(utc(2026, 2, 1, 0, 30)) == pytest.approx(3.0)
    assert plan.expected_cost == pytest.approx(6 * 0.1 + 4 * 0.3)
    busy = (LoadPeriod(now, utc(2026, 2, 1, 3), 11.0),)
    blocked = plan_charging(
        now=now,
        site=site(hourly(now, [0.1, 0.1, 0.3]), grid_limit_kw=12.0, forecast=busy),
        charger=CHARGER,
        goal=Goal(10.0, utc(2026, 2, 1, 3)),
    )
    assert blocked.slots == ()  # 1 kW of headroom is below the 1.4 kW minimum
    assert blocked.explanation == ("The goal cannot be met: no charging is possible before 04:00.")


def test_forecast_surplus_is_taken_first_at_the_export_price() -> None:
    now = utc(2026, 6, 1, 9)
    forecast = (LoadPeriod(utc(2026, 6, 1, 10), utc(2026, 6, 1, 12), -5.0),)
    tariff = Tariff("EUR", hourly(now, [0.3] * 6), hourly(now, [0.08] * 6))
    plan = plan_charging(
        now=now,
        site=Site(BERLIN, 16.0, tariff, forecast),
        charger=CHARGER,
        goal=Goal(10.0, utc(2026, 6, 1, 15)),
    )
    assert [s.source for s in plan.slots] == ["surplus"]
    assert plan.surplus_energy_kwh == pytest.approx(10.0)
    assert plan.expected_cost == pytest.approx(0.8)
    assert "at solar surplus" in plan.explanation


def test_negative_prices_are_used_first_but_only_for_the_energy_the_goal_needs() -> None:
    now = utc(2026, 5, 10, 8)
    prices = [0.2, -0.05, -0.05, -0.01, 0.1, 0.3]
    plan = plan_charging(
        now=now,
        site=site(hourly(now, prices)),
        charger=CHARGER,
        goal=Goal(16.5, utc(2026, 5, 10, 14)),
    )
    assert plan.expected_energy_kwh == pytest.approx(16.5)
    assert plan.expected_cost == pytest.approx(-16.5 * 0.05)
    assert all(s.price < 0 for s in plan.slots)
    assert plan.explanation == (
        "Waiting for the 11:00-13:00 period at -0.05 EUR/kWh; 16.5 kWh needed by 16:00."
    )


def test_a_goal_that_cannot_be_met_takes_every_period_and_says_so() -> None:
    now = utc(2026, 1, 20, 21)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.3, 0.1, 0.2])),
        charger=CHARGER,
        goal=Goal(50.0, utc(2026, 1, 21, 0)),
    )
    assert spans(plan) == [
        (utc(2026, 1, 20, 21), utc(2026, 1, 20, 22), 11.0),
        (utc(2026, 1, 20, 22), utc(2026, 1, 20, 23), 11.0),
        (utc(2026, 1, 20, 23), utc(2026, 1, 21, 0), 11.0),
    ]
    assert plan.shortfall_kwh == pytest.approx(17.0)
    assert plan.status is PlanStatus.CHARGING
    assert plan.explanation == (
        "The goal cannot be met: only 33.0 kWh of the 50.0 kWh needed by 01:00 can be charged, "
        "so every possible period is used; charging now until 01:00 at an average of "
        "0.20 EUR/kWh."
    )


def test_a_plan_crosses_midnight() -> None:
    now = utc(2026, 1, 5, 20)  # 21:00 local
    prices = [0.3, 0.2, 0.1, 0.1, 0.2, 0.3]  # 21:00 ... 02:00 local
    plan = plan_charging(
        now=now,
        site=site(hourly(now, prices)),
        charger=CHARGER,
        goal=Goal(22.0, utc(2026, 1, 6, 2)),
    )
    assert spans(plan) == [(utc(2026, 1, 5, 22), utc(2026, 1, 6, 0), 11.0)]
    assert plan.explanation.startswith("Waiting for the 23:00-01:00 period at 0.10 EUR/kWh")


def test_several_blocks_are_named_in_the_sentence() -> None:
    now = utc(2026, 1, 5, 0)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.3, 0.1, 0.3, 0.1, 0.3, 0.1])),
        charger=CHARGER,
        goal=Goal(33.0, utc(2026, 1, 5, 6)),
    )
    assert len(blocks_of(plan.slots)) == 3
    assert "(then 2 more periods)" in plan.explanation


# --- re-planning --------------------------------------------------------------------------


def test_replanning_mid_plan_with_the_energy_delivered_gives_the_rest_of_the_plan() -> None:
    clock = FakeClock(utc(2026, 1, 14, 17))
    schedule = hourly(clock.now(), [0.3, 0.25, 0.1, 0.12, 0.1, 0.2, 0.3])
    goal = Goal(30.0, utc(2026, 1, 15, 0))
    first = plan_charging(now=clock.now(), site=site(schedule), charger=CHARGER, goal=goal)
    clock.advance(timedelta(hours=3, minutes=20))  # inside the second hour of the plan
    delivered = sum(
        s.power_kw * max(0.0, (min(s.end, clock.now()) - s.start).total_seconds() / 3600)
        for s in first.slots
    )
    again = plan_charging(
        now=clock.now(),
        site=site(schedule),
        charger=CHARGER,
        goal=Goal(goal.energy_kwh - delivered, goal.ready_by),
    )
    rest_cost = sum(
        s.price * s.power_kw * (s.end - max(s.start, clock.now())).total_seconds() / 3600
        for s in first.slots
        if s.end > clock.now()
    )
    assert again.expected_cost == pytest.approx(rest_cost)
    assert again.slots[-1].end == first.slots[-1].end
    assert again.status is PlanStatus.CHARGING


def test_a_price_update_mid_plan_moves_the_rest_to_the_new_cheap_hour() -> None:
    clock = FakeClock(utc(2026, 1, 14, 17))
    start = clock.now()
    schedule = hourly(start, [0.1, 0.3, 0.3, 0.2])
    goal = Goal(22.0, utc(2026, 1, 14, 21))
    first = plan_charging(now=start, site=site(schedule), charger=CHARGER, goal=goal)
    assert first.status is PlanStatus.CHARGING
    clock.advance(timedelta(hours=1))  # 11 kWh delivered; hour 3 becomes the cheapest
    updated = hourly(start, [0.1, 0.3, 0.3, 0.05])
    again = plan_charging(
        now=clock.now(), site=site(updated), charger=CHARGER, goal=Goal(11.0, goal.ready_by)
    )
    assert spans(again) == [(utc(2026, 1, 14, 20), utc(2026, 1, 14, 21), 11.0)]


# --- no goal, no tariff, done, no prices ------------------------------------------------


def test_no_goal_charges_at_full_power_in_the_cheapest_third_of_the_day() -> None:
    now = utc(2026, 1, 10, 13)  # 14:00 local
    schedule = tou(("22:00", "24:00", 0.1), ("00:00", "06:00", 0.1), ("06:00", "22:00", 0.3))
    plan = plan_charging(now=now, site=site(schedule), charger=CHARGER, goal=None)
    assert plan.status is PlanStatus.NO_GOAL
    assert spans(plan) == [(utc(2026, 1, 10, 21), utc(2026, 1, 11, 5), 11.0)]
    assert plan.expected_energy_kwh == pytest.approx(88.0)
    assert plan.explanation == (
        "No goal set, so charging at full power in the cheapest third of the next 24 hours; "
        "waiting for the 22:00-06:00 period at 0.10 EUR/kWh."
    )


def test_no_goal_prefers_the_equal_price_period_next_to_one_already_chosen() -> None:
    now = utc(2026, 1, 10, 0)
    prices = [0.2] * 24
    prices[3] = prices[4] = prices[5] = prices[6] = prices[7] = prices[8] = prices[9] = 0.1
    prices[20] = 0.1  # the same price, far away: the eighth hour joins the block instead
    prices[10] = prices[2] = 0.15
    plan = plan_charging(now=now, site=site(hourly(now, prices)), charger=CHARGER, goal=None)
    assert len(blocks_of(plan.slots)) == 2
    assert sum(s.hours for s in plan.slots) == pytest.approx(8.0)
    no_prices = plan_charging(now=now, site=site(PriceSchedule()), charger=CHARGER, goal=None)
    assert no_prices.slots == ()
    assert no_prices.explanation.startswith("No goal set, and no prices are known")


def test_no_tariff_charges_now_and_says_why() -> None:
    now = utc(2026, 1, 10, 8, 0, 30)
    forecast = (LoadPeriod(now, now + timedelta(minutes=30), 8.0),)
    plan = plan_charging(
        now=now,
        site=site(None, grid_limit_kw=12.0, forecast=forecast),
        charger=CHARGER,
        goal=Goal(10.0, utc(2026, 1, 10, 20)),
    )
    assert plan.status is PlanStatus.CHARGING
    assert plan.slots[0].start == now
    assert plan.slots[0].power_kw == pytest.approx(4.0)
    assert plan.expected_energy_kwh == pytest.approx(10.0)
    assert plan.currency is None
    assert plan.explanation == (
        "No tariff is set, so charging now at full power until 10.0 kWh are charged."
    )
    open_ended = plan_charging(now=now, site=site(None), charger=CHARGER, goal=None)
    assert spans(open_ended) == [(now, now + timedelta(hours=24), 11.0)]
    assert open_ended.explanation == "No tariff is set, so charging now at full power."


def test_no_prices_before_the_ready_by_time_or_a_past_one_charges_now() -> None:
    now = utc(2026, 1, 10, 8)
    later = hourly(utc(2026, 1, 11, 0), [0.1, 0.2])
    plan = plan_charging(
        now=now, site=site(later), charger=CHARGER, goal=Goal(5.5, utc(2026, 1, 10, 12))
    )
    assert spans(plan) == [(now, now + timedelta(minutes=30), 11.0)]
    assert plan.explanation.startswith("No prices are known before 13:00, so charging now")
    late = plan_charging(
        now=now, site=site(later), charger=CHARGER, goal=Goal(5.5, utc(2026, 1, 10, 7))
    )
    assert late.explanation.startswith("The ready-by time 08:00 has passed")
    assert late.expected_cost == 0.0  # no price known for the time it charges


def test_charging_now_is_priced_by_the_tariff_where_it_is_known() -> None:
    now = utc(2026, 1, 10, 8)
    plan = plan_charging(
        now=now,
        site=site(hourly(now, [0.2, 0.2, 0.3])),
        charger=CHARGER,
        goal=Goal(38.5, utc(2026, 1, 10, 7)),
    )
    assert spans(plan) == [
        (now, now + timedelta(hours=2), 11.0),
        (now + timedelta(hours=2), now + timedelta(hours=3), 11.0),
        (now + timedelta(hours=3), now + timedelta(hours=3, minutes=30), 11.0),
    ]
    assert [s.price for s in plan.slots] == [0.2, 0.3, 0.0]  # no price known after 3 h
    assert plan.expected_cost == pytest.approx(22 * 0.2 + 11 * 0.3)


def test_a_goal_already_met_is_done() -> None:
    now = utc(2026, 1, 10, 8)
    plan = plan_charging(
        now=now, site=site(hourly(now, [0.1])), charger=CHARGER, goal=Goal(0.0, utc(2026, 1, 10, 9))
    )
    assert plan.status is PlanStatus.DONE
    assert plan.slots == ()
    assert plan.expected_cost == 0.0
    assert plan.explanation == "Done: nothing more is needed by 10:00."
    assert plan.power_at(now) == 0.0


def test_money_shows_small_prices_with_three_decimals() -> None:
    assert money(0.094) == "0.09"
    assert money(0.004) == "0.004"
    assert money(-0.001) == "-0.001"
    assert money(-0.0001) == "0.000" or money(-0.0001) == "-0.000"
    assert money(0.0) == "0.00"
