"""Sandbox controls: a simulated car plugged in or out, its state of charge or a battery's
level set by hand, and held so until a reset.

A hold pauses the device's daily time pattern at the moment it is set: what the pattern
would have moved stays as it was (or as the request set it). Commands still run: `charge`,
`discharge` and `idle` start from the held level, and a charger's car held unplugged takes
no energy. The simulator applies the hold on every read; this module only parses the
request and words the hold the simulator keeps with its state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import ensure_utc
from energyhub.domain.errors import ParameterOutOfRange, UnsupportedParameter
from energyhub.domain.sites import Problems

FIELDS = ("pluggedIn", "vehicleSoc", "level", "reset")
_PERCENT = ("vehicleSoc", "level")


@dataclass(frozen=True, slots=True)
class SimulateRequest:
    """What `POST /sandbox/devices/{id}/simulate` asks for (None: leave as it is)."""

    reset: bool = False
    plugged_in: bool | None = None
    vehicle_soc: float | None = None
    level: float | None = None


def parse_simulate(body: object, device_type: DeviceType, reads_vehicle: bool) -> SimulateRequest:
    """The body, checked in the order pushes are: its shape (400 with every problem), then
    a field the device cannot take (422 UNSUPPORTED_PARAMETER), then a value outside
    0-100 % (422 PARAMETER_OUT_OF_RANGE)."""
    problems = Problems("simulation")
    raw = problems.object(body, "body", FIELDS) or {}
    if isinstance(body, dict) and not body:
        problems.add("body", "send at least one of pluggedIn, vehicleSoc, level, or reset")
    if "reset" in raw:
        if raw["reset"] is not True:
            problems.add("body.reset", "must be true (send it alone to end the hold)")
        elif len(raw) > 1:
            problems.add("body.reset", "send reset alone: it ends every hold")
    if "pluggedIn" in raw and not isinstance(raw["pluggedIn"], bool):
        problems.add("body.pluggedIn", "must be true or false")
    for key in _PERCENT:
        value = raw.get(key)
        if key in raw and (isinstance(value, bool) or not isinstance(value, int | float)):
            problems.add(f"body.{key}", "must be a number of percent, such as 80")
    problems.check()
    if raw.get("reset") is True:
        return SimulateRequest(reset=True)
    _refuse_unsupported(raw, device_type, reads_vehicle)
    for key in _PERCENT:
        if key in raw and not 0 <= float(raw[key]) <= 100:
            raise ParameterOutOfRange(
                f"{key} must be between 0 and 100 (percent).", parameter=key, min=0, max=100
            )
    return SimulateRequest(
        plugged_in=raw.get("pluggedIn"),
        vehicle_soc=None if "vehicleSoc" not in raw else float(raw["vehicleSoc"]),
        level=None if "level" not in raw else float(raw["level"]),
    )


def _refuse_unsupported(
    raw: Mapping[str, Any], device_type: DeviceType, reads_vehicle: bool
) -> None:
    if device_type is DeviceType.BATTERY:
        for key in ("pluggedIn", "vehicleSoc"):
            if key in raw:
                raise UnsupportedParameter(
                    f"A battery has no car: {key} is for EV chargers; set a battery's "
                    "charge with level.",
                    parameter=key,
                )
        return
    if "level" in raw:
        raise UnsupportedParameter(
            "level is a battery's: set the car's state of charge with vehicleSoc.",
            parameter="level",
        )
    if "vehicleSoc" in raw and not reads_vehicle:
        raise UnsupportedParameter(
            "This charger cannot read the car's state of charge, so vehicleSoc cannot be "
            "set: use a profile with a vehicle, or send pluggedIn only.",
            parameter="vehicleSoc",
        )


@dataclass(frozen=True, slots=True)
class SandboxHold:
    """The device as held from `at`: a battery's or the car's level (None: the car's level
    is not known to the service, the simulator's own stands), the car plugged in or not,
    and the session energy at `at`."""

    at: datetime
    level: float | None
    plugged_in: bool | None = None
    energy_kwh: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "at": ensure_utc(self.at).isoformat(),
            "level": self.level,
            "pluggedIn": self.plugged_in,
            "energyKwh": self.energy_kwh,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> SandboxHold:
        level, plugged = body.get("level"), body.get("pluggedIn")
        return cls(
            at=ensure_utc(datetime.fromisoformat(str(body["at"]))),
            level=None if level is None else float(level),
            plugged_in=None if plugged is None else bool(plugged),
            energy_kwh=float(body.get("energyKwh", 0.0)),
        )


def hold_from(
    request: SimulateRequest, state: Mapping[str, Any], vehicle_soc: float | None, now: datetime
) -> SandboxHold:
    """The hold from now on: the device's state as last read, with the request's values
    over it. A car plugged in after being away starts a new session."""
    if "level" in state and "isConnected" not in state:  # a battery
        level = request.level if request.level is not None else float(state["level"])
        return SandboxHold(now, level)
    was_plugged = state.get("isConnected") is not False
    plugged = was_plugged if request.plugged_in is None else request.plugged_in
    soc = request.vehicle_soc if request.vehicle_soc is not None else vehicle_soc
    energy = float(state.get("sessionEnergy") or 0.0) if was_plugged and plugged else 0.0
    return SandboxHold(now, soc, plugged, energy)


HOLD_KEY = "hold"


def hold_in(sim: Mapping[str, Any] | None) -> SandboxHold | None:
    """The hold kept in a sandbox device's simulator state, if any."""
    held = (sim or {}).get(HOLD_KEY)
    return None if not held else SandboxHold.from_json(held)


def with_hold(sim: Mapping[str, Any] | None, hold: SandboxHold | None) -> dict[str, Any] | None:
    """The simulator state with `hold` kept in it (None: the hold removed)."""
    kept = {k: v for k, v in (sim or {}).items() if k != HOLD_KEY}
    if hold is not None:
        kept[HOLD_KEY] = hold.to_json()
    return kept or None
