"""The six sandbox profiles declare what CONTRACT 10 says, and nothing else."""

from __future__ import annotations

import pytest

from energyhub.domain.capabilities import (
    BATTERY_MODES,
    BATTERY_SETTINGS,
    ConflictStrategy,
    DeviceType,
    Execution,
)
from energyhub.domain.sandbox_profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    SandboxProfile,
    profile_for,
    profile_names,
)

CHARGER_MODES = {
    "charge",
    "idle",
    "auto.charge_tariff",
    "auto.charge_surplus_only",
    "auto.charge_surplus_first",
}


def test_exactly_six_profiles() -> None:
    assert set(PROFILES) == {
        "battery",
        "battery-minimal",
        "battery-auto-schedule",
        "ev-charger",
        "ev-charger-basic",
        "ev-charger-bidirectional",
    }
    assert all(name == p.name for name, p in PROFILES.items())


def test_battery() -> None:
    p = PROFILES["battery"]
    caps = p.capabilities
    assert p.device_type is DeviceType.BATTERY
    assert p.vendor == "sandbox-volta"
    assert p.capacity_kwh == 13.5
    assert set(caps.commands) == set(BATTERY_MODES)
    charge = caps.commands["charge"].to_json()["parameters"]
    assert charge == {
        "target": {"unit": "percent", "min": 10, "max": 100},
        "power": {"unit": "kw", "min": 0, "max": 5},
        "reserve": {"unit": "percent", "min": 0, "max": 100},
    }
    assert Execution.WINDOWED in caps.commands["discharge"].execution
    assert caps.conflict_strategies == (
        ConflictStrategy.CANCEL_AND_REPLACE,
        ConflictStrategy.QUEUE_AFTER,
    )
    assert set(caps.settings) == set(BATTERY_SETTINGS)


def test_battery_minimal() -> None:
    caps = PROFILES["battery-minimal"].capabilities
    assert set(caps.commands) == {"charge", "idle", "auto.balance"}
    assert set(caps.commands["charge"].parameters) == {"target", "power"}
    for spec in caps.commands.values():
        assert spec.execution == (Execution.IMMEDIATE, Execution.SCHEDULED)
    assert caps.conflict_strategies is None
    assert caps.to_json()["conflictStrategies"] is None
    assert dict(caps.settings) == {}


def test_battery_auto_schedule() -> None:
    caps = PROFILES["battery-auto-schedule"].capabilities
    assert set(caps.commands) == {*BATTERY_MODES, "auto.schedule"}
    schedule = caps.commands["auto.schedule"]
    assert dict(schedule.parameters) == {}
    assert schedule.execution == (Execution.IMMEDIATE, Execution.SCHEDULED)
    # the shared standard table is not mutated
    assert "auto.schedule" not in PROFILES["battery"].capabilities.commands


def test_ev_charger() -> None:
    p = PROFILES["ev-charger"]
    caps = p.capabilities
    assert p.device_type is DeviceType.EV_CHARGER
    assert p.vendor == "sandbox-ampere"
    assert set(caps.commands) == CHARGER_MODES
    assert caps.commands["charge"].to_json()["parameters"] == {
        "power": {"unit": "kw", "min": 1.4, "max": 22},
        "current": {"unit": "a", "min": 6, "max": 32},
        "target": {"unit": "percent", "min": 10, "max": 100},
        "energy": {"unit": "kwh", "min": 0.1, "max": 100},
    }
    assert set(caps.settings) == {
        "max_charge_rate",
        "max_charge_current",
        "cable_lock",
        "scheduler_enabled",
    }
    assert caps.sessions is True
    assert caps.conflict_strategies is not None
    assert len(caps.conflict_strategies) == 2
    assert p.has_vehicle
    assert not p.bidirectional


def test_ev_charger_basic() -> None:
    p = PROFILES["ev-charger-basic"]
    caps = p.capabilities
    assert set(caps.commands) == CHARGER_MODES
    assert set(caps.commands["charge"].parameters) == {"power", "current", "energy"}
    assert Execution.WINDOWED in caps.commands["charge"].execution
    assert caps.sessions is False
    assert caps.conflict_strategies == (ConflictStrategy.CANCEL_AND_REPLACE,)
    assert not p.has_vehicle
    # the standard charger still declares target
    assert "target" in PROFILES["ev-charger"].capabilities.commands["charge"].parameters


def test_ev_charger_bidirectional() -> None:
    p = PROFILES["ev-charger-bidirectional"]
    assert p.bidirectional
    assert p.has_vehicle
    assert p.capabilities == PROFILES["ev-charger"].capabilities


def test_profiles_are_frozen() -> None:
    with pytest.raises(AttributeError):
        PROFILES["battery"].name = "other"  # type: ignore[misc]


def test_defaults() -> None:
    assert DEFAULT_PROFILE == {DeviceType.BATTERY: "battery", DeviceType.EV_CHARGER: "ev-charger"}
    assert profile_for(DeviceType.BATTERY, None) is PROFILES["battery"]
    assert profile_for(DeviceType.EV_CHARGER, None) is PROFILES["ev-charger"]
    assert profile_for(DeviceType.EV_CHARGER, "ev-charger-basic") is PROFILES["ev-charger-basic"]
    assert profile_names(DeviceType.BATTERY)[0] == "battery"
    assert len(profile_names(DeviceType.EV_CHARGER)) == 3


@pytest.mark.parametrize(
    ("device_type", "name"),
    [
        (DeviceType.BATTERY, "nope"),
        (DeviceType.BATTERY, "ev-charger"),
        (DeviceType.EV_CHARGER, "battery-minimal"),
        (DeviceType.VEHICLE, None),
    ],
)
def test_unknown_profile(device_type: DeviceType, name: str | None) -> None:
    with pytest.raises(KeyError) as info:
        profile_for(device_type, name)
    message = str(info.value)
    assert "sandbox profile" in message
    assert not message.startswith("'")  # a readable message, not a quoted repr


def test_unknown_profile_lists_choices() -> None:
    with pytest.raises(KeyError, match="battery-minimal"):
        profile_for(DeviceType.BATTERY, "ev-charger")


def test_capabilities_round_trip_json() -> None:
    from energyhub.domain.capabilities import capabilities_from_json

    for p in PROFILES.values():
        assert isinstance(p, SandboxProfile)
        assert capabilities_from_json(p.capabilities.to_json()) == p.capabilities
