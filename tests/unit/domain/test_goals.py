"""A charger's charging goal (`domain/goals.py`): the PUT body checked, the wall-clock
deadline found in the site's timezone (DST included), the goal as stored and shown, and
what the planner reads of the charger (energy still needed, power limits, strategy)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import Capabilities, DeviceType
from energyhub.domain.devices import Device, Vehicle
from energyhub.domain.errors import InvalidRequest, UnsupportedParameter
from energyhub.domain.goals import (
    DEFAULT_CEILING_KW,
    DEFAULT_MINIMUM_KW,
    GoalRequest,
    charger_limits,
    energy_needed,
    goal_body,
    is_plugged_in,
    parse_goal,
    public_goal,
    ready_at,
    strategy_of,
)
from energyhub.domain.planning import ChargerLimits
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)  # 21:00 in Berlin


def charger(**changes: object) -> Device:
    device = new_sandbox_device(
        profile_for(DeviceType.EV_CHARGER, None),
        device_id="chg_1",
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="user_1",
        timezone="Europe/Berlin",
        now=NOW - timedelta(days=1),
    )
    return replace(device, **changes)  # type: ignore[arg-type]


def vehicle(soc: float | None, capacity: float | None) -> Vehicle:
    return Vehicle("veh_1", "user_1", "chg_1", "Volt", "One", None, capacity, soc)


def refused_paths(body: object, device: Device | None = None) -> list[str]:
    with pytest.raises(InvalidRequest) as refused:
        parse_goal(body, device or charger())
    return [e["path"] for e in refused.value.details["errors"]]


def test_a_goal_is_energy_or_a_target_by_a_wall_clock_time() -> None:
    by_energy = parse_goal({"readyBy": "07:00", "energy": {"value": 20, "unit": "kwh"}}, charger())
    assert by_energy == GoalRequest("07:00", 20.0, None)
    by_target = parse_goal(
        {"readyBy": "06:30", "target": {"value": 80, "unit": "percent"}}, charger()
    )
    assert by_target == GoalRequest("06:30", None, 80.0)


def test_every_problem_of_a_goal_is_named() -> None:
    assert refused_paths([]) == ["body"]
    assert refused_paths({"readyBy": "7am"}) == ["body.readyBy", "body"]
    both = {"readyBy": "07:00", "energy": {}, "target": {}}
    assert refused_paths(both) == ["body"]
    assert refused_paths({"readyBy": "07:00", "energy": {"value": 0, "unit": "kwh"}}) == [
        "body.energy.value"
    ]
    assert refused_paths({"readyBy": "07:00", "energy": {"value": True, "unit": "kwh"}}) == [
        "body.energy.value"
    ]
    assert refused_paths({"readyBy": "07:00", "energy": {"value": 5, "unit": "wh"}}) == [
        "body.energy.unit"
    ]
    assert refused_paths({"readyBy": "07:00", "energy": 5}) == ["body.energy"]
    assert refused_paths({"readyBy": "07:00", "target": {"value": 120, "unit": "percent"}}) == [
        "body.target.value"
    ]


def test_a_target_needs_a_charger_that_reads_the_cars_charge() -> None:
    plain = charger()
    commands = dict(plain.capabilities.commands)
    charge = commands["charge"]
    commands["charge"] = replace(
        charge, parameters={k: v for k, v in charge.parameters.items() if k != "target"}
    )
    blind = replace(plain, capabilities=replace(plain.capabilities, commands=commands))
    with pytest.raises(UnsupportedParameter):
        parse_goal({"readyBy": "07:00", "target": {"value": 80, "unit": "percent"}}, blind)
    assert parse_goal({"readyBy": "07:00", "energy": {"value": 5, "unit": "kwh"}}, blind)


def test_the_deadline_is_the_next_time_the_site_clock_shows_it() -> None:
    assert ready_at("07:00", BERLIN, NOW) == datetime(2026, 11, 21, 6, 0, tzinfo=UTC)
    assert ready_at("22:00", BERLIN, NOW) == datetime(2026, 11, 20, 21, 0, tzinfo=UTC)
    assert ready_at("21:00", BERLIN, NOW) == datetime(2026, 11, 21, 20, 0, tzinfo=UTC)
    before_spring = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    # 02:30 does not exist on 29 March in Berlin: the moment the clock jumps
    assert ready_at("02:30", BERLIN, before_spring) == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)


def test_a_goal_is_stored_with_its_deadline_and_shown_without_bookkeeping() -> None:
    stored = goal_body(GoalRequest("07:00", 20.0, None), BERLIN, NOW, 3.5)
    assert stored == {
        "readyBy": "07:00",
        "readyAt": "2026-11-21T06:00:00.000Z",
        "timezone": "Europe/Berlin",
        "energy": {"value": 20.0, "unit": "kwh"},
        "target": None,
        "setAt": "2026-11-20T20:00:00.000Z",
        "sessionEnergyAtSet": 3.5,
    }
    assert "sessionEnergyAtSet" not in public_goal(stored)
    by_target = goal_body(GoalRequest("07:00", None, 80.0), BERLIN, NOW, 0.0)
    assert (by_target["energy"], by_target["target"]) == (None, {"value": 80.0, "unit": "percent"})


def test_the_energy_still_needed() -> None:
    goal = {"energy": {"value": 20.0, "unit": "kwh"}, "sessionEnergyAtSet": 5.0}
    assert energy_needed(goal, charger(state={"sessionEnergy": 12.0}), None) == 13.0
    assert energy_needed(goal, charger(state={"sessionEnergy": 2.0}), None) == 18.0, "new session"
    assert energy_needed(goal, charger(state={"sessionEnergy": 40.0}), None) == 0.0
    assert energy_needed(goal, charger(state={"sessionEnergy": True}), None) == 20.0
    target = {"energy": None, "target": {"value": 80, "unit": "percent"}}
    assert energy_needed(target, charger(), vehicle(30, 60)) == pytest.approx(30.0)
    assert energy_needed(target, charger(), vehicle(90, 60)) == 0.0
    assert energy_needed(target, charger(), vehicle(None, 60)) is None
    assert energy_needed(target, charger(), vehicle(30, None)) is None
    assert energy_needed(target, charger(), None) is None


def test_a_chargers_limits_come_from_its_setting_then_its_power_range() -> None:
    device = charger()
    assert charger_limits(device) == ChargerLimits(22.0, 1.4)
    assert charger_limits(replace(device, settings={"max_charge_rate": 11})) == ChargerLimits(
        11.0, 1.4
    )
    assert charger_limits(replace(device, settings={"max_charge_rate": 1})) == ChargerLimits(
        1.0, 1.0
    )
    assert charger_limits(replace(device, settings={"max_charge_rate": False})).ceiling_kw == 22.0
    bare = replace(
        device, capabilities=Capabilities(commands={}, settings={}, conflict_strategies=None)
    )
    assert charger_limits(bare) == ChargerLimits(DEFAULT_CEILING_KW, DEFAULT_MINIMUM_KW)


def test_the_strategy_and_the_plug() -> None:
    assert strategy_of(charger(mode_command="auto.charge_tariff")) == "auto.charge_tariff"
    assert strategy_of(charger(mode_command="charge")) is None
    assert is_plugged_in(charger(state={"isConnected": True}))
    assert is_plugged_in(charger(state={}))
    assert not is_plugged_in(charger(state={"isConnected": False}))
