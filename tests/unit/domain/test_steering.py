"""The schedule a strategy sends: a plan's slots as limit steps, the surplus floor on top,
and when two schedules ask the same of a charger."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.planning.slots import Slot
from energyhub.domain.planning.steering import (
    ChargingSchedule,
    PowerStep,
    constant_schedule,
    schedule_for,
)
from energyhub.domain.strategy_runs import (
    STEER_RETRY,
    StrategyRun,
    inputs_key,
    needs_plan,
    needs_steer_again,
    same_limits,
    with_surplus,
)

T0 = datetime(2026, 3, 29, 0, 0, tzinfo=UTC)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def test_slots_become_steps_with_pauses_between_them() -> None:
    slots = [Slot(at(1), at(2), 7.4, "grid", 0.1), Slot(at(3), at(5), 11.0, "grid", 0.1)]
    schedule = schedule_for(slots, at(0.5))
    assert schedule.steps == (
        PowerStep(at(0.5), 0.0),
        PowerStep(at(1), 7.4),
        PowerStep(at(2), 0.0),
        PowerStep(at(3), 11.0),
        PowerStep(at(5), 0.0),
    )
    assert (schedule.start, schedule.end) == (at(0.5), at(48.5))
    assert [schedule.limit_at(at(h)) for h in (0, 1.5, 2.5, 4, 6, 49)] == [0, 7.4, 0, 11, 0, 0]
    assert schedule.energy_kwh(at(0), at(10)) == pytest.approx(7.4 + 22.0)
    assert schedule.energy_kwh(at(1.5), at(3.5)) == pytest.approx(3.7 + 5.5)
    assert schedule.energy_kwh(at(10), at(9)) == 0.0


def test_a_slot_under_way_starts_the_schedule_and_adjacent_slots_merge_steps() -> None:
    slots = [Slot(at(0), at(2), 7.4, "grid", 0.1), Slot(at(2), at(3), 7.4, "surplus", 0.0)]
    schedule = schedule_for(slots, at(1))
    assert schedule.steps == (PowerStep(at(1), 7.4), PowerStep(at(3), 0.0))


def test_nothing_left_is_one_paused_step_and_json_round_trips() -> None:
    schedule = schedule_for([Slot(at(0), at(1), 7.4, "grid", 0.1)], at(2))
    assert schedule.steps == (PowerStep(at(2), 0.0),)
    constant = constant_schedule(4.14, at(0), timedelta(minutes=15))
    assert ChargingSchedule.from_json(constant.to_json()) == constant
    assert ChargingSchedule.from_json({"start": at(0).isoformat(), "end": at(1).isoformat()}) == (
        ChargingSchedule(at(0), at(1), ())
    )


def test_the_surplus_limit_is_a_floor_for_a_while_then_the_plan_alone() -> None:
    planned = schedule_for([Slot(at(0.1), at(0.2), 11.0, "grid", 0.1)], at(0))
    schedule = with_surplus(planned, at(0), 4.14, timedelta(minutes=15))
    assert [schedule.limit_at(at(h)) for h in (0, 0.15, 0.24, 0.25, 0.5)] == [
        4.14,
        11.0,
        4.14,
        0.0,
        0.0,
    ]
    later = with_surplus(schedule_for([Slot(at(1), at(2), 11.0, "grid", 0.1)], at(0)), at(0), 0.0)
    assert later.steps == (PowerStep(at(0), 0.0), PowerStep(at(1), 11.0), PowerStep(at(2), 0.0))


def test_schedules_that_differ_only_in_when_they_were_made_ask_the_same() -> None:
    slots = [Slot(at(1), at(2), 7.4, "grid", 0.1)]
    first = schedule_for(slots, at(0))
    again = schedule_for(slots, at(0) + timedelta(seconds=10))
    assert same_limits(first, again, at(0) + timedelta(seconds=10))
    assert not same_limits(None, again, at(0))
    assert not same_limits(first, constant_schedule(7.4, at(0)), at(0))
    assert not same_limits(first, schedule_for(slots, at(1)), at(1))  # ends an hour apart


def test_a_plan_is_made_again_when_an_input_changes_or_it_is_due() -> None:
    key = inputs_key(
        strategy="auto.charge_tariff",
        plugged_in=True,
        goal={"readyAt": "x", "energy": {"value": 10, "unit": "kwh"}},
        site='["UTC", null, {}]',
        delivered_kwh=1.2,
    )
    run = StrategyRun("c", "auto.charge_tariff", key, {}, None, None, at(1), at(0))
    assert not needs_plan(run, "auto.charge_tariff", key, at(0.5))
    assert needs_plan(run, "auto.charge_tariff", key, at(1))
    assert needs_plan(run, "auto.charge_surplus_first", key, at(0.5))
    assert needs_plan(None, "auto.charge_tariff", key, at(0.5))
    moved = inputs_key(
        strategy="auto.charge_tariff",
        plugged_in=True,
        goal={"readyAt": "x", "energy": {"value": 10, "unit": "kwh"}},
        site='["UTC", null, {}]',
        delivered_kwh=1.6,  # the next half kWh
    )
    assert needs_plan(run, "auto.charge_tariff", moved, at(0.5))
    same = inputs_key(
        strategy="auto.charge_tariff",
        plugged_in=True,
        goal={"readyAt": "x", "energy": {"value": 10, "unit": "kwh"}},
        site='["UTC", null, {}]',
        delivered_kwh=1.4,
    )
    assert same == key
    assert (
        inputs_key(
            strategy="auto.charge_tariff",
            plugged_in=False,
            goal=None,
            site=None,
            delivered_kwh=0,
        )
        != key
    )


def test_a_schedule_that_did_not_reach_the_charger_is_sent_again_after_the_retry() -> None:
    refused = {"state": "refused", "message": "Rejected", "at": "2026-03-29T00:00:00Z"}
    assert not needs_steer_again(refused, T0 + STEER_RETRY - timedelta(seconds=1))
    assert needs_steer_again(refused, T0 + STEER_RETRY)
    assert needs_steer_again({**refused, "state": "unreachable"}, T0 + STEER_RETRY)
    assert not needs_steer_again({**refused, "state": "applied"}, T0 + STEER_RETRY * 10)
    assert not needs_steer_again(None, T0 + STEER_RETRY)
