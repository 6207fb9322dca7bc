"""The sandbox simulator: deterministic, periodic, and consistent (CONTRACT 10)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.planning.slots import Slot
from energyhub.domain.planning.steering import constant_schedule, schedule_for
from energyhub.domain.sandbox_profiles import PROFILES, SandboxProfile
from energyhub.drivers.sandbox.simulator import (
    SimAnchor,
    Steered,
    accept,
    battery_state,
    charger_state,
    read,
    steered_sim,
    vehicle_state,
)

DAY = datetime(2025, 3, 10, tzinfo=UTC)
BATTERY = PROFILES["battery"]
CHARGER = PROFILES["ev-charger"]
BATTERIES = [p for p in PROFILES.values() if p.device_type is DeviceType.BATTERY]
CHARGERS = [p for p in PROFILES.values() if p.device_type is DeviceType.EV_CHARGER]

seconds_of_day = st.integers(min_value=0, max_value=86_399)
any_profile = st.sampled_from(list(PROFILES.values()))


def at(hour: float, day: datetime = DAY) -> datetime:
    return day + timedelta(hours=hour)


def check_consistent(profile: SandboxProfile, anchor: SimAnchor | None, now: datetime) -> None:
    reading = read(profile, anchor, now)
    state = reading.state
    assert reading.available is True
    if profile.device_type is DeviceType.BATTERY:
        rate = state["chargeRate"]
        expected = "charging" if rate > 0 else "discharging" if rate < 0 else "idle"
        assert state["status"] == expected
        assert 0.0 <= state["level"] <= 100.0
        assert state["capacity"] == profile.capacity_kwh
        assert state["currentMode"] == (anchor.command if anchor else "auto.balance")
        return
    power = state["currentPower"]
    expected = "charging" if power > 0 else "discharging" if power < 0 else "available"
    assert state["status"] == expected
    assert state["isCharging"] is (power > 0)
    assert state["sessionEnergy"] >= 0
    if not state["isConnected"]:
        assert power == 0
        assert "notChargingReason" not in state
    if power != 0:
        assert "notChargingReason" not in state
    if reading.vehicle is not None:
        soc = reading.vehicle.state_of_charge
        assert soc is not None
        assert 0.0 <= soc <= 100.0


# --- determinism and periodicity --------------------------------------------------------------


@given(profile=any_profile, second=seconds_of_day)
def test_deterministic(profile: SandboxProfile, second: int) -> None:
    now = DAY + timedelta(seconds=second)
    assert read(profile, None, now) == read(profile, None, now)
    command = next(iter(profile.capabilities.commands))
    a1 = accept(profile, None, command, {}, DAY)
    a2 = accept(profile, None, command, {}, DAY)
    assert a1 == a2
    assert read(profile, a1, now) == read(profile, a2, now)


@given(profile=any_profile, second=seconds_of_day, days=st.integers(1, 4000))
def test_no_anchor_pattern_is_daily(profile: SandboxProfile, second: int, days: int) -> None:
    now = DAY + timedelta(seconds=second)
    later = now + timedelta(days=days)
    assert read(profile, None, now).state == read(profile, None, later).state
    assert read(profile, None, now).vehicle == read(profile, None, later).vehicle


@given(profile=any_profile, second=seconds_of_day, data=st.data())
def test_auto_modes_are_daily(profile: SandboxProfile, second: int, data: st.DataObject) -> None:
    autos = [c for c in profile.capabilities.commands if c.startswith("auto.")]
    command = data.draw(st.sampled_from(autos))
    anchor = accept(profile, None, command, {}, at(3))
    now = DAY + timedelta(days=1, seconds=second)
    assert read(profile, anchor, now).state == read(profile, anchor, now + timedelta(days=1)).state


def test_non_utc_input_is_the_same_instant() -> None:
    from zoneinfo import ZoneInfo

    local = at(12).astimezone(ZoneInfo("Europe/Berlin"))
    assert read(BATTERY, None, local).state == read(BATTERY, None, at(12)).state


# --- consistency across the whole day, for every profile and mode -----------------------------


@given(profile=any_profile, second=seconds_of_day)
def test_no_anchor_consistent_all_day(profile: SandboxProfile, second: int) -> None:
    check_consistent(profile, None, DAY + timedelta(seconds=second))


@given(
    profile=any_profile,
    start=seconds_of_day,
    elapsed=st.integers(min_value=0, max_value=3 * 86_400),
    data=st.data(),
)
def test_any_command_consistent(
    profile: SandboxProfile, start: int, elapsed: int, data: st.DataObject
) -> None:
    command = data.draw(st.sampled_from(sorted(profile.capabilities.commands)))
    spec = profile.capabilities.commands[command]
    params: dict[str, float] = {}
    for name, p in spec.parameters.items():
        if data.draw(st.booleans()):
            lo = p.min if p.min is not None else 0.0
            hi = p.max if p.max is not None else 100.0
            params[name] = data.draw(st.floats(lo, hi, allow_nan=False))
    t0 = DAY + timedelta(seconds=start)
    anchor = accept(profile, None, command, params, t0)
    assert 0.0 <= anchor.level <= 100.0
    now = t0 + timedelta(seconds=elapsed)
    check_consistent(profile, anchor, now)
    # a second command on top of the first carries on from a valid state too
    follow = accept(profile, anchor, "idle", {}, now)
    assert 0.0 <= follow.level <= 100.0
    check_consistent(profile, follow, now + timedelta(hours=1))


def test_sampled_day_with_fake_clock() -> None:
    clock = FakeClock(DAY)
    seen: set[str] = set()
    while clock.now() < DAY + timedelta(days=1):
        state = battery_state(BATTERY, None, clock.now())
        seen.add(state["status"])
        clock.advance(timedelta(minutes=15))
    assert seen == {"idle", "charging", "discharging"}


# --- batteries --------------------------------------------------------------------------------


def test_battery_daily_pattern_shape() -> None:
    night, noon, evening = (battery_state(BATTERY, None, at(h)) for h in (3, 12, 19))
    assert night["status"] == "idle"
    assert night["chargeRate"] == 0.0
    assert noon["status"] == "charging"
    assert noon["chargeRate"] == pytest.approx(2.5)
    assert evening["status"] == "discharging"
    assert evening["chargeRate"] < 0
    assert noon["level"] > night["level"]
    assert battery_state(BATTERY, None, at(23.5))["level"] == pytest.approx(night["level"])
    assert night == {
        "status": "idle",
        "capacity": 13.5,
        "level": 20.0,
        "chargeRate": 0.0,
        "dischargeLimit": 10.0,
        "currentMode": "auto.balance",
    }


def test_auto_reserve_holds_a_higher_floor() -> None:
    anchor = accept(BATTERY, None, "auto.reserve", {}, at(0))
    levels = [battery_state(BATTERY, anchor, at(h / 4))["level"] for h in range(96)]
    assert min(levels) >= 50.0
    assert battery_state(BATTERY, anchor, at(12))["currentMode"] == "auto.reserve"


def test_auto_schedule_runs_its_own_program() -> None:
    profile = PROFILES["battery-auto-schedule"]
    anchor = accept(profile, None, "auto.schedule", {}, at(0))
    state = battery_state(profile, anchor, at(3))
    assert state["status"] == "charging"
    assert state["currentMode"] == "auto.schedule"


def test_charge_reaches_target_then_idles() -> None:
    anchor = accept(BATTERY, None, "charge", {"target": 50.0, "power": 5.0}, at(3))
    assert anchor.level == pytest.approx(20.0)
    # 30 % of 13.5 kWh at 5 kW takes 0.81 h
    half = battery_state(BATTERY, anchor, at(3.5))
    assert half["status"] == "charging"
    assert half["chargeRate"] == 5.0
    assert half["level"] == pytest.approx(20 + 5 * 0.5 / 13.5 * 100, abs=0.05)
    assert half["currentMode"] == "charge"
    for hours in (3.81, 4, 12, 48):
        done = battery_state(BATTERY, anchor, at(hours))
        assert done["status"] == "idle"
        assert done["chargeRate"] == 0.0
        assert done["level"] == 50.0


def test_charge_defaults_to_full_at_max_power() -> None:
    anchor = accept(BATTERY, None, "charge", {}, at(3))
    assert battery_state(BATTERY, anchor, at(4))["chargeRate"] == 5.0
    assert battery_state(BATTERY, anchor, at(10))["level"] == 100.0


@pytest.mark.parametrize(
    ("target", "reserve", "floor"), [(20.0, 40.0, 40.0), (35.0, 5.0, 35.0), (10.0, None, 10.0)]
)
def test_discharge_stops_at_max_of_target_and_reserve(
    target: float, reserve: float | None, floor: float
) -> None:
    params = {"target": target, "power": 2.7}
    if reserve is not None:
        params["reserve"] = reserve
    anchor = SimAnchor("discharge", params, at(1), level=90.0)
    running = battery_state(BATTERY, anchor, at(2))
    assert running["status"] == "discharging"
    assert running["chargeRate"] == -2.7
    assert running["level"] == pytest.approx(70.0)
    stopped = battery_state(BATTERY, anchor, at(20))
    assert stopped == {**stopped, "status": "idle", "chargeRate": 0.0, "level": floor}


def test_idle_holds_the_level() -> None:
    anchor = accept(BATTERY, None, "idle", {}, at(12))
    level = battery_state(BATTERY, None, at(12))["level"]
    for hours in (12, 13, 19, 40, 24 * 30):
        state = battery_state(BATTERY, anchor, at(hours))
        assert state["status"] == "idle"
        assert state["chargeRate"] == 0.0
        assert state["level"] == level


def test_accept_carries_the_level_across_commands() -> None:
    first = accept(BATTERY, None, "charge", {"power": 2.0}, at(2))
    level_at_3 = battery_state(BATTERY, first, at(3))["level"]
    second = accept(BATTERY, first, "idle", {}, at(3))
    assert round(second.level, 1) == level_at_3
    assert battery_state(BATTERY, second, at(10))["level"] == level_at_3
    third = accept(BATTERY, second, "discharge", {"power": 1.0}, at(10))
    assert third.level == second.level
    assert battery_state(BATTERY, third, at(11))["level"] == pytest.approx(
        level_at_3 - 100 / 13.5, abs=0.1
    )


def test_accept_rejects_undeclared_commands() -> None:
    with pytest.raises(ValueError, match=r"auto\.schedule"):
        accept(BATTERY, None, "auto.schedule", {}, at(1))
    with pytest.raises(ValueError, match="discharge"):
        accept(PROFILES["battery-minimal"], None, "discharge", {}, at(1))
    with pytest.raises(ValueError, match="discharge"):
        accept(CHARGER, None, "discharge", {}, at(1))


def test_anchor_json_round_trip() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 7.4, "energy": 10.0}, at(19))
    body = json.loads(json.dumps(anchor.to_json()))
    assert SimAnchor.from_json(body) == anchor
    assert isinstance(body["at"], str)


# --- chargers ---------------------------------------------------------------------------------


def test_charger_daily_pattern() -> None:
    away = charger_state(CHARGER, None, at(12))
    assert away["status"] == "available"
    assert away["isConnected"] is False
    assert away["isCharging"] is False
    assert away["currentPower"] == 0.0
    assert "notChargingReason" not in away
    evening = charger_state(CHARGER, None, at(19))
    assert evening["status"] == "charging"
    assert evening["currentPower"] == 7.4
    assert evening["isConnected"] is True
    assert evening["isCharging"] is True
    assert evening["phases"] == 3
    assert evening["voltage"] == 230
    assert evening["activeControlMode"] == "auto.charge_surplus_first"
    late = charger_state(CHARGER, None, at(23))
    assert late["status"] == "available"
    assert late["isConnected"] is True
    assert late["notChargingReason"] == "schedule"
    assert late["sessionEnergy"] == pytest.approx(29.6)


def test_session_energy_resets_on_plug_in() -> None:
    assert charger_state(CHARGER, None, at(6.99))["sessionEnergy"] == pytest.approx(29.6)
    assert charger_state(CHARGER, None, at(16.99))["sessionEnergy"] == 0.0
    assert charger_state(CHARGER, None, at(17))["isConnected"] is True
    assert charger_state(CHARGER, None, at(17.5))["sessionEnergy"] == 0.0
    assert charger_state(CHARGER, None, at(18.5))["sessionEnergy"] == pytest.approx(3.7)


def test_vehicle_soc_follows_charging() -> None:
    socs = [vehicle_state(CHARGER, None, at(h)) for h in (18, 20, 22)]
    values = [v.state_of_charge for v in socs if v is not None and v.state_of_charge is not None]
    assert len(values) == 3
    assert values[0] < values[1] < values[2]
    vehicle = socs[0]
    assert vehicle is not None
    assert vehicle.battery_capacity_kwh == 75.0
    assert vehicle.vin is not None
    assert len(vehicle.vin) == 17
    assert not set(vehicle.vin) & set("IOQ")
    assert vehicle == vehicle_state(CHARGER, None, at(18, DAY + timedelta(days=9)))


def test_charge_with_current_converts_to_kw() -> None:
    anchor = accept(CHARGER, None, "charge", {"current": 16.0}, at(19))
    state = charger_state(CHARGER, anchor, at(19.5))
    assert state["currentPower"] == pytest.approx(16 * 230 * 3 / 1000)
    assert state["maxCurrent"] == 16.0
    assert state["activeControlMode"] == "charge"


def test_charge_power_is_capped_by_the_profile() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 50.0, "current": 40.0}, at(19))
    assert charger_state(CHARGER, anchor, at(19.1))["currentPower"] == 22.0
    default = accept(CHARGER, None, "charge", {}, at(19))
    assert charger_state(CHARGER, default, at(19.1))["currentPower"] == 11.0


def test_charge_while_away_plugs_the_car_in() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 10.0, "energy": 5.0}, at(12))
    assert anchor.energy_kwh == 0.0  # a new session
    running = charger_state(CHARGER, anchor, at(12.25))
    assert running["isConnected"] is True
    assert running["status"] == "charging"
    assert running["sessionEnergy"] == pytest.approx(2.5)


def test_energy_stop_condition() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 10.0, "energy": 5.0}, at(12))
    done = charger_state(CHARGER, anchor, at(13))
    assert done["sessionEnergy"] == pytest.approx(5.0)
    assert done["status"] == "available"
    assert done["isCharging"] is False
    assert done["isConnected"] is True
    assert done["currentPower"] == 0.0
    assert done["notChargingReason"] == "charger"
    assert charger_state(CHARGER, anchor, at(48))["sessionEnergy"] == pytest.approx(5.0)


def test_target_stop_condition() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 11.0, "target": 90.0}, at(22))
    start = anchor.level
    assert start == pytest.approx(40 + 29.6 / 75 * 100)
    vehicle = vehicle_state(CHARGER, anchor, at(30))
    assert vehicle is not None
    assert vehicle.state_of_charge == 90.0
    assert charger_state(CHARGER, anchor, at(30))["notChargingReason"] == "charger"


def test_charge_stops_when_the_car_is_full() -> None:
    anchor = accept(CHARGER, None, "charge", {"power": 22.0}, at(19))
    state = charger_state(CHARGER, anchor, at(30))
    assert state["notChargingReason"] == "vehicle"
    vehicle = vehicle_state(CHARGER, anchor, at(30))
    assert vehicle is not None
    assert vehicle.state_of_charge == 100.0


def test_charger_idle_holds_the_session() -> None:
    anchor = accept(CHARGER, None, "idle", {}, at(20))
    state = charger_state(CHARGER, anchor, at(21))
    assert state["currentPower"] == 0.0
    assert state["isCharging"] is False
    assert state["isConnected"] is True
    assert state["notChargingReason"] == "charger"
    assert state["sessionEnergy"] == pytest.approx(14.8)
    assert state["activeControlMode"] == "idle"


@pytest.mark.parametrize(
    "mode", ["auto.charge_tariff", "auto.charge_surplus_only", "auto.charge_surplus_first"]
)
def test_a_strategy_waits_plugged_in_for_its_schedule(mode: str) -> None:
    anchor = accept(CHARGER, None, mode, {}, at(8))
    state = charger_state(CHARGER, anchor, at(12, DAY + timedelta(days=1)))
    assert (state["isConnected"], state["currentPower"], state["activeControlMode"]) == (
        True,
        0.0,
        mode,
    )
    assert state["notChargingReason"] == "schedule"


def test_a_strategy_follows_its_schedule_and_fills_the_car() -> None:
    anchor = SimAnchor("auto.charge_tariff", {}, at(8), 20.0)
    slots = [Slot(at(10), at(12), 7.4, "grid", 0.1), Slot(at(14), at(15), 11.0, "grid", 0.1)]
    sim = steered_sim(CHARGER, anchor.to_json(), schedule_for(slots, at(9)), at(9))
    steered = Steered.of(sim)
    assert steered is not None

    def state(hour: float) -> dict[str, Any]:
        return charger_state(CHARGER, anchor, at(hour), None, steered)

    assert (state(9.5)["currentPower"], state(9.5)["sessionEnergy"]) == (0.0, 0.0)
    assert (state(11)["currentPower"], state(11)["sessionEnergy"]) == (7.4, 7.4)
    assert (state(13)["currentPower"], state(13)["sessionEnergy"]) == (0.0, 14.8)
    assert (state(16)["currentPower"], state(16)["sessionEnergy"]) == (0.0, 25.8)
    level = state(16)
    assert level["notChargingReason"] == "schedule"
    car = vehicle_state(CHARGER, anchor, at(16), None, steered)
    start = vehicle_state(CHARGER, anchor, at(9), None, steered)
    assert car is not None
    assert start is not None
    assert car.state_of_charge == pytest.approx(start.state_of_charge + 25.8 / 75 * 100, abs=0.1)


def test_a_full_car_stops_taking_the_schedule() -> None:
    anchor = SimAnchor("auto.charge_tariff", {}, at(8), 95.0)
    sim = steered_sim(CHARGER, anchor.to_json(), constant_schedule(11.0, at(9)), at(9))
    steered = Steered.of(sim)
    state = charger_state(CHARGER, anchor, at(12), None, steered)
    assert (state["currentPower"], state["sessionEnergy"]) == (0.0, 3.75)  # 5 % of 75 kWh
    assert state["notChargingReason"] == "vehicle"


def test_a_newer_command_ends_the_schedule() -> None:
    anchor = accept(CHARGER, None, "auto.charge_tariff", {}, at(8))
    steered = Steered.of(
        steered_sim(CHARGER, anchor.to_json(), constant_schedule(7.4, at(9)), at(9))
    )
    idle = accept(CHARGER, anchor, "idle", {}, at(10), None, steered)
    assert idle.energy_kwh == pytest.approx(7.4)
    state = charger_state(CHARGER, idle, at(12), None, steered)
    assert (state["currentPower"], state["activeControlMode"]) == (0.0, "idle")


def test_surplus_only_waits_outside_the_sun() -> None:
    anchor = accept(CHARGER, None, "auto.charge_surplus_only", {}, at(8))
    state = charger_state(CHARGER, anchor, at(20))
    assert state["isConnected"] is True
    assert state["currentPower"] == 0.0
    assert state["notChargingReason"] == "schedule"


@given(second=seconds_of_day)
def test_bidirectional_exports_at_any_time(second: int) -> None:
    profile = PROFILES["ev-charger-bidirectional"]
    state = charger_state(profile, None, DAY + timedelta(seconds=second))
    assert state["status"] == "discharging"
    assert state["currentPower"] < 0
    assert state["isCharging"] is False
    assert state["isConnected"] is True


def test_bidirectional_can_still_be_told_to_charge() -> None:
    profile = PROFILES["ev-charger-bidirectional"]
    anchor = accept(profile, None, "charge", {"power": 7.4}, at(9))
    assert charger_state(profile, anchor, at(10))["status"] == "charging"


def test_basic_profile_has_no_vehicle() -> None:
    basic = PROFILES["ev-charger-basic"]
    assert vehicle_state(basic, None, at(19)) is None
    assert read(basic, None, at(19)).vehicle is None
    assert read(CHARGER, None, at(19)).vehicle is not None
    assert read(BATTERY, None, at(19)).vehicle is None


def test_read_stamps_pulled_at() -> None:
    for profile in CHARGERS + BATTERIES:
        assert read(profile, None, at(5)).pulled_at == at(5)
