"""Sandbox holds, pure: the simulate request parsed and refused as the API words it, the
hold made from the device as last read, and the simulator applying it on every read (the
daily pattern stands still, commands run from the held level, a car held away takes
nothing), in sessions and history too."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.errors import InvalidRequest, ParameterOutOfRange, UnsupportedParameter
from energyhub.domain.sandbox_controls import (
    SandboxHold,
    SimulateRequest,
    hold_from,
    hold_in,
    parse_simulate,
    with_hold,
)
from energyhub.domain.sandbox_profiles import PROFILES, new_sandbox_device
from energyhub.domain.sessions import EndReason, SessionStatus
from energyhub.drivers.sandbox.history import sandbox_history
from energyhub.drivers.sandbox.sessions import SandboxCharger, active_session, sessions_between
from energyhub.drivers.sandbox.simulator import SimAnchor, accept, read, read_sim, rebased

DAY = datetime(2025, 3, 10, tzinfo=UTC)
BATTERY = PROFILES["battery"]
CHARGER = PROFILES["ev-charger"]
BIDIRECTIONAL = PROFILES["ev-charger-bidirectional"]


def at(hour: float) -> datetime:
    return DAY + timedelta(hours=hour)


# --- the request ------------------------------------------------------------------------------


def test_a_charger_request_is_parsed() -> None:
    body = {"pluggedIn": True, "vehicleSoc": 20}
    assert parse_simulate(body, DeviceType.EV_CHARGER, True) == SimulateRequest(
        plugged_in=True, vehicle_soc=20.0
    )
    assert parse_simulate({"level": 0}, DeviceType.BATTERY, False) == SimulateRequest(level=0.0)
    assert parse_simulate({"reset": True}, DeviceType.BATTERY, False).reset


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        ({}, ["body"]),
        ("level", ["body"]),
        ({"x": 1, "level": "1"}, ["body.x", "body.level"]),
        ({"pluggedIn": 1}, ["body.pluggedIn"]),
        ({"reset": "true"}, ["body.reset"]),
        ({"reset": True, "level": 5}, ["body.reset"]),
    ],
)
def test_every_problem_of_a_malformed_body_is_named(body: Any, paths: list[str]) -> None:
    with pytest.raises(InvalidRequest) as raised:
        parse_simulate(body, DeviceType.BATTERY, False)
    assert [e["path"] for e in raised.value.details["errors"]] == paths


@pytest.mark.parametrize(
    ("body", "device_type", "reads_vehicle", "parameter"),
    [
        ({"pluggedIn": False}, DeviceType.BATTERY, False, "pluggedIn"),
        ({"vehicleSoc": 5}, DeviceType.BATTERY, False, "vehicleSoc"),
        ({"level": 5}, DeviceType.EV_CHARGER, True, "level"),
        ({"vehicleSoc": 5}, DeviceType.EV_CHARGER, False, "vehicleSoc"),
    ],
)
def test_a_field_the_device_cannot_take_is_refused(
    body: dict[str, Any], device_type: DeviceType, reads_vehicle: bool, parameter: str
) -> None:
    with pytest.raises(UnsupportedParameter) as raised:
        parse_simulate(body, device_type, reads_vehicle)
    assert raised.value.details == {"parameter": parameter}


@pytest.mark.parametrize("value", [-0.1, 100.5])
def test_a_percent_outside_0_to_100_is_out_of_range(value: float) -> None:
    with pytest.raises(ParameterOutOfRange) as raised:
        parse_simulate({"vehicleSoc": value}, DeviceType.EV_CHARGER, True)
    assert raised.value.details == {"parameter": "vehicleSoc", "min": 0, "max": 100}


# --- the hold ---------------------------------------------------------------------------------


def test_a_hold_starts_from_the_state_read_with_the_request_over_it() -> None:
    now = at(12)
    battery = {"status": "charging", "level": 33.3, "chargeRate": 2.0}
    assert hold_from(SimulateRequest(), battery, None, now) == SandboxHold(now, 33.3)
    assert hold_from(SimulateRequest(level=80), battery, None, now).level == 80
    charging = {"isConnected": True, "sessionEnergy": 4.5}
    kept = hold_from(SimulateRequest(vehicle_soc=50), charging, 40.0, now)
    assert kept == SandboxHold(now, 50.0, True, 4.5)
    away = hold_from(SimulateRequest(plugged_in=False), charging, 40.0, now)
    assert away == SandboxHold(now, 40.0, False, 0.0)
    home = hold_from(SimulateRequest(plugged_in=True), {"isConnected": False}, None, now)
    assert home == SandboxHold(now, None, True, 0.0)  # a new session


def test_a_hold_is_kept_beside_the_anchor_and_removed() -> None:
    anchor = SimAnchor("charge", {}, at(1), 30.0).to_json()
    hold = SandboxHold(at(2), 40.0, True, 1.5)
    sim = with_hold(anchor, hold)
    assert sim is not None
    assert hold_in(sim) == hold
    assert SimAnchor.of(sim) == SimAnchor.from_json(anchor)
    assert with_hold(sim, None) == anchor
    assert with_hold({"hold": hold.to_json()}, None) is None
    assert SimAnchor.of(with_hold(None, hold)) is None
    assert hold_in(None) is None


# --- the simulator under a hold ---------------------------------------------------------------


def test_a_held_battery_stands_still_under_its_pattern() -> None:
    hold = SandboxHold(at(11), 75.0)
    for hour in (11, 12.5, 19, 30):
        state = read(BATTERY, None, at(hour), hold=hold).state
        assert (state["level"], state["chargeRate"], state["status"]) == (75.0, 0.0, "idle")
    assert read(BATTERY, None, at(12)).state["chargeRate"] > 0  # unheld: solar charging


def test_a_command_under_a_hold_runs_from_the_held_level() -> None:
    hold = SandboxHold(at(11), 50.0)
    anchor = accept(BATTERY, None, "charge", {"power": 2.7}, at(12), hold)
    assert anchor.level == 50.0
    state = read(BATTERY, anchor, at(13), hold=hold).state
    assert state["level"] == pytest.approx(50.0 + 2.7 / BATTERY.capacity_kwh * 100, abs=0.1)
    assert state["chargeRate"] == 2.7


def test_a_command_older_than_the_hold_runs_on_from_the_hold() -> None:
    anchor = SimAnchor("charge", {"power": 2.7}, at(8), 20.0)
    hold = SandboxHold(at(10), 60.0)
    assert rebased(BATTERY, anchor, hold) == SimAnchor("charge", {"power": 2.7}, at(10), 60.0)
    assert rebased(BATTERY, SimAnchor("idle", {}, at(11), 5.0), hold).at == at(11)
    assert read(BATTERY, anchor, at(10), hold=hold).state["level"] == 60.0


def test_a_held_car_stands_still_plugged_in_at_its_level() -> None:
    hold = SandboxHold(at(12), 20.0, True, 0.0)
    for hour in (12, 19, 20):  # the pattern charges 18-22
        reading = read(CHARGER, None, at(hour), hold=hold)
        assert reading.state["isConnected"] is True
        assert reading.state["currentPower"] == 0.0
        assert reading.state["notChargingReason"] == "schedule"
        assert reading.vehicle is not None
        assert reading.vehicle.state_of_charge == 20.0


def test_a_car_held_away_takes_nothing_even_under_charge() -> None:
    hold = SandboxHold(at(12), 45.0, False, 0.0)
    anchor = SimAnchor("charge", {}, at(10), 30.0)
    for hour in (12, 14):
        reading = read(CHARGER, anchor, at(hour), hold=hold)
        assert reading.state["isConnected"] is False
        assert reading.state["currentPower"] == 0.0
        assert reading.state["sessionEnergy"] == 0.0
        assert reading.vehicle is not None
        assert reading.vehicle.state_of_charge == 45.0
    paused = read(CHARGER, None, at(20), hold=hold).state
    assert paused["isConnected"] is False
    assert "notChargingReason" not in paused


def test_a_hold_without_the_cars_level_keeps_the_simulators_own() -> None:
    """A charger that cannot read the car: the level the pattern had at the hold stands."""
    hold = SandboxHold(at(19), None, True, 5.0)
    base = read(CHARGER, None, at(19)).vehicle
    held = read(CHARGER, None, at(21), hold=hold).vehicle
    assert base is not None
    assert held is not None
    assert held.state_of_charge == base.state_of_charge
    anchor = SimAnchor("charge", {"power": 7.5}, at(18), 30.0)
    start = rebased(CHARGER, anchor, hold)
    assert start.at == at(19)
    assert start.energy_kwh == 5.0
    assert start.level == pytest.approx(30.0 + 7.5 / 75 * 100)
    bidirectional = read(BIDIRECTIONAL, None, at(3), hold=SandboxHold(at(1), 60.0, True)).state
    assert bidirectional["currentPower"] == 0.0


def test_read_sim_reads_the_anchor_and_the_hold_from_the_stored_state() -> None:
    sim = with_hold(None, SandboxHold(at(11), 80.0))
    assert read_sim(BATTERY, sim, at(12)).state["level"] == 80.0
    assert read_sim(BATTERY, None, at(12)).state == read(BATTERY, None, at(12)).state


# --- sessions and history under a hold --------------------------------------------------------


def _charger(hold: SandboxHold | None, anchor: SimAnchor | None = None) -> SandboxCharger:
    return SandboxCharger("dev-1", CHARGER, at(-24), anchor, hold)


def test_unplugging_ends_the_running_session_as_unplugged() -> None:
    hold = SandboxHold(at(19), 40.0, False, 0.0)
    assert active_session(_charger(None), at(19.5)) is not None
    assert active_session(_charger(hold), at(19.5)) is None
    found = sessions_between(_charger(hold), at(17), at(23), at(23))
    assert [(s.started_at, s.ended_at, s.end_reason) for s in found] == [
        (at(18), at(19), EndReason.UNPLUGGED)
    ]
    later = sessions_between(_charger(hold), at(30), at(48), at(48))
    assert later == []  # the pattern stands still: no more sessions


def test_a_charge_under_the_hold_is_a_session_of_its_own() -> None:
    hold = SandboxHold(at(12), 20.0, True, 0.0)
    anchor = accept(CHARGER, None, "charge", {"power": 7.5}, at(13), hold)
    charger = _charger(hold, anchor)
    running = active_session(charger, at(14))
    assert running is not None
    assert running.status is SessionStatus.ACTIVE
    assert running.started_at == at(13)
    assert running.energy_kwh == pytest.approx(7.5)
    away = _charger(SandboxHold(at(15), None, False, 0.0), anchor)
    assert active_session(away, at(16)) is None


def test_history_follows_the_hold_from_its_start() -> None:
    device = new_sandbox_device(
        BATTERY,
        device_id="b-1",
        account_id="acc",
        environment=Environment.SANDBOX,
        user_id="u",
        timezone="UTC",
        now=at(0),
    )
    held = replace(device, sim=with_hold(None, SandboxHold(at(11), 70.0)))
    samples = sandbox_history(held, at(10), at(13), timedelta(hours=1))
    levels = [s.level for s in samples]
    assert levels[1:] == [70.0, 70.0, 70.0]
    assert levels[0] != 70.0
