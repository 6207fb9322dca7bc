"""The six sandbox profiles of CONTRACT 10, composed from the capability tables so a sandbox
device declares exactly what a real device of that shape would (spec 2.3-2.5)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import (
    BATTERY_PARAMETERS,
    CHARGER_COMMANDS,
    NOT_WINDOWED,
    STANDARD_BATTERY,
    STANDARD_CHARGER,
    Capabilities,
    CommandSpec,
    ConflictStrategy,
    DeviceType,
    with_command,
)
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName

BATTERY_VENDOR = "sandbox-volta"
CHARGER_VENDOR = "sandbox-ampere"


@dataclass(frozen=True, slots=True)
class SandboxProfile:
    """What a sandbox device is: its capabilities plus the few facts the simulator needs."""

    name: str
    device_type: DeviceType
    vendor: str
    model: str
    capabilities: Capabilities
    capacity_kwh: float = 0.0  # batteries only
    has_vehicle: bool = False  # chargers that can read the car
    bidirectional: bool = False  # chargers that export (V2G)


_MINIMAL_BATTERY = Capabilities(
    commands={
        "charge": CommandSpec(
            {k: BATTERY_PARAMETERS[k] for k in ("target", "power")}, NOT_WINDOWED
        ),
        "idle": CommandSpec({}, NOT_WINDOWED),
        "auto.balance": CommandSpec({}, NOT_WINDOWED),
    },
    settings={},
    conflict_strategies=None,
)

_BASIC_CHARGE = CHARGER_COMMANDS["charge"]
_BASIC_CHARGER = replace(
    with_command(
        STANDARD_CHARGER,
        "charge",
        replace(
            _BASIC_CHARGE,
            parameters={k: v for k, v in _BASIC_CHARGE.parameters.items() if k != "target"},
        ),
    ),
    sessions=False,
    conflict_strategies=(ConflictStrategy.CANCEL_AND_REPLACE,),
)


def _battery(name: str, model: str, caps: Capabilities) -> SandboxProfile:
    return SandboxProfile(name, DeviceType.BATTERY, BATTERY_VENDOR, model, caps, capacity_kwh=13.5)


def _charger(
    name: str, model: str, caps: Capabilities, *, vehicle: bool, bidirectional: bool = False
) -> SandboxProfile:
    return SandboxProfile(
        name,
        DeviceType.EV_CHARGER,
        CHARGER_VENDOR,
        model,
        caps,
        has_vehicle=vehicle,
        bidirectional=bidirectional,
    )


PROFILES: dict[str, SandboxProfile] = {
    p.name: p
    for p in (
        _battery("battery", "Volta Home 13.5", STANDARD_BATTERY),
        _battery("battery-minimal", "Volta Lite 13.5", _MINIMAL_BATTERY),
        _battery(
            "battery-auto-schedule",
            "Volta Home 13.5 Scheduler",
            with_command(STANDARD_BATTERY, "auto.schedule", CommandSpec({}, NOT_WINDOWED)),
        ),
        _charger("ev-charger", "Ampere Wallbox 22", STANDARD_CHARGER, vehicle=True),
        _charger("ev-charger-basic", "Ampere Basic 22", _BASIC_CHARGER, vehicle=False),
        _charger(
            "ev-charger-bidirectional",
            "Ampere Bidi 22",
            STANDARD_CHARGER,
            vehicle=True,
            bidirectional=True,
        ),
    )
}


class UnknownProfile(KeyError):
    """A profile name that does not exist for the device type; `str()` is the plain message
    (a bare KeyError would quote it)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


DEFAULT_PROFILE: dict[DeviceType, str] = {
    DeviceType.BATTERY: "battery",
    DeviceType.EV_CHARGER: "ev-charger",
}


def profile_names(device_type: DeviceType) -> list[str]:
    """The profile names a device of this type may be created with (default first)."""
    default = DEFAULT_PROFILE.get(device_type)
    names = [n for n, p in PROFILES.items() if p.device_type == device_type]
    return sorted(names, key=lambda n: (n != default, n))


def profile_for(device_type: DeviceType, name: str | None) -> SandboxProfile:
    """The named profile, or the type's default when `name` is None.

    Raises UnknownProfile (a KeyError) naming the valid choices, for the API to echo."""
    if device_type not in DEFAULT_PROFILE:
        raise UnknownProfile(f"no sandbox profiles for device type {device_type.value!r}")
    key = DEFAULT_PROFILE[device_type] if name is None else name
    profile = PROFILES.get(key)
    if profile is None or profile.device_type != device_type:
        choices = ", ".join(profile_names(device_type))
        raise UnknownProfile(
            f"unknown sandbox profile {key!r} for {device_type.value}; expected one of: {choices}"
        )
    return profile


def new_sandbox_device(
    profile: SandboxProfile,
    *,
    device_id: str,
    account_id: str,
    environment: Environment,
    user_id: str,
    timezone: str,
    now: datetime,
    vendor: str | None = None,
    model: str | None = None,
) -> Device:
    """Not yet read: the caller stores it, then pulls it once. `vendor` and `model` name a
    simulated vendor's device (default: the profile's)."""
    return Device(
        id=device_id,
        account_id=account_id,
        environment=environment,
        user_id=user_id,
        type=profile.device_type,
        vendor=vendor or profile.vendor,
        model=model or profile.model,
        driver=DriverName.SANDBOX,
        profile=profile.name,
        timezone=timezone,
        capabilities=profile.capabilities,
        settings=profile.capabilities.default_settings(),
        state={},
        sim=None,
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=str(uuid.uuid4()) if profile.has_vehicle else None,
        created_at=now,
        updated_at=now,
    )
