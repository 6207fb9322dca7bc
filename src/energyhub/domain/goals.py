"""A charger's charging goal (ready by a wall-clock time with an amount of energy or a
target state of charge) and what the planner needs of the charger: the energy the goal
still needs, its power limits, its strategy and whether the car is plugged in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.clock import isoformat_utc
from energyhub.domain.devices import Device, Vehicle
from energyhub.domain.errors import UnsupportedParameter
from energyhub.domain.planning import ChargerLimits
from energyhub.domain.planning.prices import wall_clock_to_utc
from energyhub.domain.quantities import Quantity, convert
from energyhub.domain.sites import WALL_FROM, Problems

STRATEGIES = ("auto.charge_tariff", "auto.charge_surplus_only", "auto.charge_surplus_first")
MAX_GOAL_KWH = 200.0
DEFAULT_CEILING_KW = 22.0
DEFAULT_MINIMUM_KW = 1.4


@dataclass(frozen=True, slots=True)
class GoalRequest:
    ready_by: str
    energy_kwh: float | None
    target_percent: float | None


def parse_goal(body: object, device: Device) -> GoalRequest:
    """The PUT body; 400 for its shape (every problem at once), then 422
    UNSUPPORTED_PARAMETER for a `target` the charger does not declare."""
    problems = Problems("goal")
    raw = problems.object(body, "body", ("readyBy", "energy", "target"))
    ready_by, energy, target = "", None, None
    if raw is not None:
        ready = raw.get("readyBy")
        if not isinstance(ready, str) or not WALL_FROM.match(ready):
            problems.add("body.readyBy", "required: a wall-clock time HH:MM such as 07:00")
        else:
            ready_by = ready
        if ("energy" in raw) == ("target" in raw):
            problems.add("body", "send exactly one of energy (kwh) and target (percent)")
        elif "energy" in raw:
            energy = _quantity(raw["energy"], "body.energy", ("kwh",), "kwh", problems)
            if energy is not None and not 0 < energy <= MAX_GOAL_KWH:
                problems.add("body.energy.value", f"must be above 0 and at most {MAX_GOAL_KWH:g}")
        else:
            target = _quantity(raw["target"], "body.target", ("percent",), "percent", problems)
            if target is not None and not 0 < target <= 100:
                problems.add("body.target.value", "must be above 0 and at most 100")
    problems.check()
    if target is not None and not declares_target(device):
        raise UnsupportedParameter(
            "This charger cannot read the car's state of charge, so a target cannot be "
            "followed: send the goal as energy (kwh) instead.",
            parameter="target",
        )
    return GoalRequest(ready_by, energy, target)


def _quantity(
    raw: object, path: str, units: tuple[str, ...], unit: str, problems: Problems
) -> float | None:
    item = problems.object(raw, path, ("value", "unit"))
    if item is None:
        return None
    value, given = item.get("value"), item.get("unit")
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        problems.add(f"{path}.value", "must be a number")
        return None
    if given not in units:
        problems.add(f"{path}.unit", f"must be {' or '.join(units)}")
        return None
    converted = convert(Quantity(float(value), str(given)), unit)
    assert converted is not None
    return converted.value


def declares_target(device: Device) -> bool:
    charge = device.capabilities.commands.get("charge")
    return charge is not None and "target" in charge.parameters


def ready_at(ready_by: str, tz: ZoneInfo, now: datetime) -> datetime:
    """The next time after `now` the site's clock shows `ready_by` (a time in a DST gap
    is the moment the clock jumps)."""
    hours, minutes = ready_by.split(":")
    total = int(hours) * 60 + int(minutes)
    today: date = now.astimezone(tz).date()
    for offset in range(3):
        candidate = wall_clock_to_utc(today + timedelta(days=offset), total, tz)
        if candidate > now:
            return candidate
    raise AssertionError("a wall-clock time recurs within two days")


def goal_body(
    request: GoalRequest, tz: ZoneInfo, now: datetime, delivered_kwh: float
) -> dict[str, Any]:
    """The goal as stored on the charger and shown in its body."""
    return {
        "readyBy": request.ready_by,
        "readyAt": isoformat_utc(ready_at(request.ready_by, tz, now)),
        "timezone": tz.key,
        "energy": None
        if request.energy_kwh is None
        else {"value": request.energy_kwh, "unit": "kwh"},
        "target": None
        if request.target_percent is None
        else {"value": request.target_percent, "unit": "percent"},
        "setAt": isoformat_utc(now),
        "sessionEnergyAtSet": delivered_kwh,
    }


def public_goal(stored: dict[str, Any]) -> dict[str, Any]:
    """A charging goal as clients read it (without the service's own bookkeeping)."""
    return {k: v for k, v in stored.items() if k != "sessionEnergyAtSet"}


def session_energy(device: Device) -> float:
    value = device.state.get("sessionEnergy")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def energy_needed(goal: dict[str, Any], device: Device, vehicle: Vehicle | None) -> float | None:
    """What the goal still needs: its energy less what the session has delivered since it
    was set, or the way from the car's state of charge to the target. None when the car's
    state of charge or capacity is unknown."""
    if goal.get("energy") is not None:
        now_kwh, at_set = session_energy(device), float(goal.get("sessionEnergyAtSet", 0.0))
        delivered = now_kwh - at_set if now_kwh >= at_set else now_kwh  # a new session
        return max(0.0, float(goal["energy"]["value"]) - delivered)
    if vehicle is None or vehicle.state_of_charge is None or not vehicle.battery_capacity_kwh:
        return None
    share = (float(goal["target"]["value"]) - vehicle.state_of_charge) / 100
    return max(0.0, share * vehicle.battery_capacity_kwh)


def charger_limits(device: Device) -> ChargerLimits:
    """The ceiling is the charger's `max_charge_rate` setting (else its `charge` power
    range, else 22 kW); the minimum its lowest charging power (else 1.4 kW)."""
    charge = device.capabilities.commands.get("charge")
    power = None if charge is None else charge.parameters.get("power")
    minimum = DEFAULT_MINIMUM_KW if power is None or power.min is None else float(power.min)
    ceiling = DEFAULT_CEILING_KW if power is None or power.max is None else float(power.max)
    spec = device.capabilities.settings.get("max_charge_rate")
    if spec is not None:
        value = device.settings.get("max_charge_rate", spec.default)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            ceiling = float(value)
    return ChargerLimits(ceiling, min(minimum, ceiling))


def strategy_of(device: Device) -> str | None:
    """The strategy in force: the command of the charger's last completed push, when it
    is one of the three."""
    return device.mode_command if device.mode_command in STRATEGIES else None


def is_plugged_in(device: Device) -> bool:
    return device.state.get("isConnected") is not False
