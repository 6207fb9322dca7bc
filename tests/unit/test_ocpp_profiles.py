"""A strategy's schedule as an OCPP absolute schedule, pure: whole seconds, the charger's
unit, the strategies in the commands map of a charger with smart charging only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from energyhub.domain.goals import STRATEGIES
from energyhub.domain.planning.slots import Slot
from energyhub.domain.planning.steering import ChargingSchedule, PowerStep, schedule_for
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.mapping import Declaration
from energyhub.drivers.ocpp.profiles import phases_of, profile_schedule, rate_unit

NOW = datetime(2026, 3, 29, 0, 10, 0, 250_000, tzinfo=UTC)  # the night Berlin moves to CEST


def at(minutes: float) -> datetime:
    return NOW.replace(microsecond=0) + timedelta(minutes=minutes)


def slot(start: float, end: float, kw: float) -> Slot:
    return Slot(at(start), at(end), kw, "grid", 0.1)


SLOTS = [slot(-10, 5, 3.7), slot(15, 45, 7.4), slot(60, 90, 11.0)]


def test_periods_count_whole_seconds_from_the_start_with_pauses_between_slots() -> None:
    profile = profile_schedule(schedule_for(SLOTS, NOW), "W")
    assert profile.start == NOW.replace(microsecond=0)
    assert profile.duration_s == 48 * 3600
    assert profile.periods == (
        (0, 3700.0),
        (300, 0.0),
        (900, 7400.0),
        (2700, 0.0),
        (3600, 11000.0),
        (5400, 0.0),
    )


def test_amps_are_per_phase_at_230_v_on_the_phases_the_car_uses() -> None:
    schedule = schedule_for(SLOTS, NOW)
    three = profile_schedule(schedule, "A")
    # 3.7 kW on three phases is 5.4 A: below what a car can take, so a pause
    assert [limit for _, limit in three.periods] == [0.0, 10.7, 0.0, 15.9, 0.0]
    one = profile_schedule(schedule, "A", phases_of({"phases": 1}))
    assert [limit for _, limit in one.periods] == [16.1, 0.0, 32.2, 0.0, 47.8, 0.0]
    assert phases_of({}) == 3
    assert phases_of({"phases": 7}) == 3


def test_a_current_below_6_a_is_a_pause_and_6_a_is_sent_as_it_is() -> None:
    schedule = ChargingSchedule(
        NOW, NOW + timedelta(hours=1), (PowerStep(NOW, 4.1), PowerStep(at(30), 4.14))
    )
    assert [limit for _, limit in profile_schedule(schedule, "A").periods] == [0.0, 6.0]
    assert [limit for _, limit in profile_schedule(schedule, "W").periods] == [4100.0, 4140.0]


def test_a_schedule_that_starts_paused_and_steps_within_a_second_merge() -> None:
    start = at(0)
    steps = (
        PowerStep(start + timedelta(seconds=10), 2.0),
        PowerStep(start + timedelta(seconds=10, milliseconds=200), 3.0),
        PowerStep(start + timedelta(seconds=30), 3.0),
        PowerStep(start + timedelta(hours=3), 5.0),  # past the end: left out
    )
    profile = profile_schedule(ChargingSchedule(start, start + timedelta(hours=2), steps), "W")
    assert profile.periods == ((0, 0.0), (10, 3000.0))
    assert profile.duration_s == 7200


def test_a_charger_with_few_periods_gets_the_first_ones_up_to_where_the_rest_begins() -> None:
    profile = profile_schedule(schedule_for(SLOTS, NOW), "W", max_periods=3)
    assert profile.periods == ((0, 3700.0), (300, 0.0), (900, 7400.0))
    assert profile.duration_s == 2700


def test_the_unit_is_w_where_the_charger_takes_it() -> None:
    assert rate_unit(Declaration()) == "W"
    assert rate_unit(Declaration(rate_units=frozenset({"A"}))) == "A"


def test_chargers_with_smart_charging_declare_the_strategies_and_others_do_not() -> None:
    smart = mapping.capabilities_for(Declaration())
    assert set(STRATEGIES) <= set(smart.commands)
    for name in STRATEGIES:
        assert smart.commands[name].parameters == {}
    plain = mapping.capabilities_for(Declaration(smart_charging=False))
    assert not set(STRATEGIES) & set(plain.commands)


def test_a_strategy_pauses_under_its_schedule_and_starts_nothing_itself() -> None:
    plan = mapping.plan_command("auto.charge_tariff", {}, {}, Declaration())
    assert plan.limit == mapping.Limit(0.0, "W")
    assert plan.start is False


def test_the_periods_a_charger_keeps_are_read_from_its_configuration() -> None:
    config = {"ChargingScheduleMaxPeriods": "24"}
    declared = mapping.declaration_from_config(config, protocol=mapping.OCPP16)
    assert declared.max_periods == 24
    assert Declaration.from_json(declared.to_json()) == declared
    bad = {"ChargingScheduleMaxPeriods": "many"}
    assert mapping.declaration_from_config(bad, protocol=mapping.OCPP16).max_periods is None
