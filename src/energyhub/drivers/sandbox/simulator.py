"""Sandbox device simulator: state = f(UTC time of day, last accepted command).

Pure and closed-form (no I/O, no clock reads, no stepping), so any process can serve the
same state for the same inputs and a sandbox device needs only its `SimAnchor` stored.

Daily UTC programs (used with no anchor and under the battery's `auto.*` modes; they depend
on the time of day only, so switching into one jumps to its level, and each nets to zero
energy per day so it is periodic):

battery (13.5 kWh; half-sine solar charge, flat evening discharge sized to net zero)
  auto.balance (also no anchor)  base 20 %, solar 09-15 peak 2.5 kW, discharge 17-23
  auto.reserve   base 50 % (the reserve is held), solar 09-15 peak 1.5 kW, discharge 18-22
  auto.export    base 10 %, solar 09-15 peak 3.0 kW, discharge 16-20 (about 2.9 kW)
  auto.schedule  base 25 %, stored program: grid 2 kW 01-05, discharge 17-21
charger
  no anchor      reports auto.charge_surplus_first: the car is away 07-17 while the sun
                 shines, so only the grid top-up runs: plugged 17-07, 7.4 kW 18-22
  bidirectional, no anchor   plugged all day exporting 3.7 kW (the car's 60 % is topped
                             up off-stage: a V2G demo, not an energy balance)
Under a pushed strategy (`auto.charge_*`) a charger has no program: the service's strategy
runner plans and sends it a schedule of limits (`Steered`), which it follows with the car
plugged in; until the first schedule arrives it waits, plugged in.
The car (75 kWh) gains what the charger delivers and loses it linearly while away.

Commands run from the anchor's level: battery `charge`/`discharge` move at `power` kW to
`target` (discharge: max(target, reserve)), then idle; `idle` holds. Charger `charge` and
`idle` keep the car plugged in from the command on (a new session if it was away);
`charge` stops at the session `energy`, the car's `target`, or a full car.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import ensure_utc
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import DeviceReading, VehicleReading
from energyhub.domain.sandbox_controls import SandboxHold, hold_in
from energyhub.domain.sandbox_profiles import SandboxProfile

DISCHARGE_LIMIT = 10.0  # percent; the battery's reported floor (discharge_floor default)
VEHICLE_KWH = 75.0
VOLTS = 230.0
PHASES = 3
DEFAULT_CHARGE_KW = 11.0
EXPORT_KW = -3.7
EXPORT_SOC = 60.0
CHARGER_DEFAULT_MODE = "auto.charge_surplus_first"


@dataclass(frozen=True, slots=True)
class SimAnchor:
    """The last command a sandbox device accepted and what it started from.

    `parameters` are in the declared units; `level` is the battery's (or the car's) state of
    charge at `at`, `energy_kwh` the charger's session energy at `at`."""

    command: str
    parameters: dict[str, float]
    at: datetime
    level: float
    energy_kwh: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "parameters": dict(self.parameters),
            "at": ensure_utc(self.at).isoformat(),
            "level": self.level,
            "energyKwh": self.energy_kwh,
        }

    @classmethod
    def of(cls, sim: Mapping[str, Any] | None) -> SimAnchor | None:
        """The anchor kept in a device's simulator state (None before its first command)."""
        return None if not sim or "command" not in sim else cls.from_json(sim)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> SimAnchor:
        return cls(
            command=str(body["command"]),
            parameters={str(k): float(v) for k, v in body.get("parameters", {}).items()},
            at=ensure_utc(datetime.fromisoformat(str(body["at"]))),
            level=float(body["level"]),
            energy_kwh=float(body.get("energyKwh", 0.0)),
        )


STEERING_KEY = "steering"


@dataclass(frozen=True, slots=True)
class Steered:
    """A strategy's schedule the simulated charger follows (the service's strategy runner
    sends it), and the car as it was when the schedule arrived: under a running strategy
    the car stays plugged in and charges at the schedule's limits until it is full."""

    schedule: ChargingSchedule
    at: datetime
    level: float
    energy_kwh: float

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule.to_json(),
            "at": ensure_utc(self.at).isoformat(),
            "level": self.level,
            "energyKwh": self.energy_kwh,
        }

    @classmethod
    def of(cls, sim: Mapping[str, Any] | None) -> Steered | None:
        body = (sim or {}).get(STEERING_KEY)
        if not body:
            return None
        return cls(
            ChargingSchedule.from_json(body["schedule"]),
            ensure_utc(datetime.fromisoformat(str(body["at"]))),
            float(body["level"]),
            float(body.get("energyKwh", 0.0)),
        )


@dataclass(frozen=True, slots=True)
class _Now:
    """The simulated instant: SoC (battery or car), power, and the charger's session facts."""

    level: float
    power: float
    connected: bool = True
    session_kwh: float = 0.0
    reason: str | None = None
    rate_limit: float | None = None
    max_current: float | None = None


@dataclass(frozen=True, slots=True)
class _Segment:
    """Power over [start, end) hours after a program's origin: flat, or a half-sine."""

    start: float
    end: float
    kw: float
    sine: bool = False

    def power(self, u: float) -> float:
        if not self.start <= u < self.end:
            return 0.0
        if not self.sine:
            return self.kw
        return self.kw * math.sin(math.pi * (u - self.start) / (self.end - self.start))

    def energy(self, u: float) -> float:
        """kWh from the segment's start up to `u` (closed form)."""
        x = min(max(u, self.start), self.end) - self.start
        if not self.sine:
            return self.kw * x
        span = self.end - self.start
        return self.kw * span / math.pi * (1.0 - math.cos(math.pi * x / span))


@dataclass(frozen=True, slots=True)
class _Program:
    """A daily pattern: `u` counts hours from the clock hour `origin` (a charger's plug-in)."""

    origin: float
    base: float  # state of charge at the origin, percent
    segments: tuple[_Segment, ...]
    plugged_h: float = 24.0

    def u(self, now: datetime) -> float:
        t = ensure_utc(now)
        hour = t.hour + t.minute / 60 + (t.second + t.microsecond / 1e6) / 3600
        return (hour - self.origin) % 24.0

    def power(self, u: float) -> float:
        return sum(s.power(u) for s in self.segments)

    def energy(self, u: float) -> float:
        return sum(s.energy(u) for s in self.segments)


def _seg(origin: float, start: float, end: float, kw: float, sine: bool = False) -> _Segment:
    """A segment given in clock hours, shifted to hours after `origin`."""
    u0 = (start - origin) % 24.0
    return _Segment(u0, u0 + (end - start) % 24.0, kw, sine)


def _battery_program(base: float, charge: _Segment, discharge: tuple[float, float]) -> _Program:
    """A battery day: the charge segment, then a flat discharge that nets it to zero."""
    start, end = discharge
    total = charge.energy(charge.end)
    return _Program(0.0, base, (charge, _Segment(start, end, -total / (end - start))))


_BATTERY_PROGRAMS: dict[str, _Program] = {
    "auto.balance": _battery_program(20.0, _Segment(9, 15, 2.5, sine=True), (17, 23)),
    "auto.reserve": _battery_program(50.0, _Segment(9, 15, 1.5, sine=True), (18, 22)),
    "auto.export": _battery_program(10.0, _Segment(9, 15, 3.0, sine=True), (16, 20)),
    "auto.schedule": _battery_program(25.0, _Segment(1, 5, 2.0), (17, 21)),
}
_CHARGER_PROGRAMS: dict[str, _Program] = {
    "": _Program(17, 40.0, (_seg(17, 18, 22, 7.4),), plugged_h=14),
}


def _hours(anchor: SimAnchor, now: datetime) -> float:
    return max(0.0, (ensure_utc(now) - ensure_utc(anchor.at)).total_seconds() / 3600)


def _bound(profile: SandboxProfile, command: str, param: str, end: str, default: float) -> float:
    spec = profile.capabilities.commands.get(command)
    p = spec.parameters.get(param) if spec else None
    value = None if p is None else (p.max if end == "max" else p.min)
    return default if value is None else float(value)


# --- batteries -------------------------------------------------------------------------------


def _battery_now(profile: SandboxProfile, anchor: SimAnchor | None, now: datetime) -> _Now:
    """Level and power now, unrounded."""
    cap = profile.capacity_kwh
    command = anchor.command if anchor else "auto.balance"
    if anchor is None or command not in ("charge", "discharge", "idle"):
        prog = _BATTERY_PROGRAMS.get(command, _BATTERY_PROGRAMS["auto.balance"])
        u = prog.u(now)
        return _Now(level=prog.base + prog.energy(u) / cap * 100, power=prog.power(u))
    if command == "idle":
        return _Now(level=anchor.level, power=0.0)
    params = anchor.parameters
    kw_max = _bound(profile, command, "power", "max", 5.0)
    kw = min(max(params.get("power", kw_max), 0.0), kw_max)
    if command == "charge":
        limit, sign = min(params.get("target", 100.0), 100.0), 1.0
    else:
        limit, sign = max(params.get("target", 10.0), params.get("reserve", 0.0), 0.0), -1.0
    room = max(0.0, sign * (limit - anchor.level))  # percent still to move
    moved = kw * _hours(anchor, now) / cap * 100
    if moved >= room:
        return _Now(level=anchor.level + sign * room, power=0.0)
    return _Now(level=anchor.level + sign * moved, power=sign * kw)


def battery_state(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    now: datetime,
    settings: Mapping[str, Any] | None = None,
    hold: SandboxHold | None = None,
) -> dict[str, Any]:
    """The spec 2.2 `state` body of a sandbox battery; `dischargeLimit` reports its
    `discharge_floor` setting."""
    n = _battery_held(profile, anchor, hold, now)
    rate = round(n.power, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    status = "charging" if rate > 0 else "discharging" if rate < 0 else "idle"
    return {
        "status": status,
        "capacity": profile.capacity_kwh,
        "level": round(min(max(n.level, 0.0), 100.0), 1),
        "chargeRate": rate,
        "dischargeLimit": float((settings or {}).get("discharge_floor", DISCHARGE_LIMIT)),
        "currentMode": anchor.command if anchor else "auto.balance",
    }


# --- chargers --------------------------------------------------------------------------------


def _charge_kw(profile: SandboxProfile, params: Mapping[str, float]) -> float:
    """The commanded rate: `power`, or `current` at 230 V on 3 phases, within the bounds."""
    caps = [params["power"]] if "power" in params else []
    if "current" in params:
        caps.append(params["current"] * VOLTS * PHASES / 1000)
    kw = min(caps) if caps else DEFAULT_CHARGE_KW
    lo = _bound(profile, "charge", "power", "min", 1.4)
    return min(max(kw, lo), _bound(profile, "charge", "power", "max", 22.0))


def _charging(profile: SandboxProfile, anchor: SimAnchor, now: datetime, a_max: float) -> _Now:
    """Under `charge`: the car is plugged in and fills until the first stop condition."""
    params = anchor.parameters
    kw = _charge_kw(profile, params)
    budgets = [((100.0 - anchor.level) / 100 * VEHICLE_KWH, "vehicle")]
    if "target" in params and "target" in profile.capabilities.commands["charge"].parameters:
        budgets.append(((params["target"] - anchor.level) / 100 * VEHICLE_KWH, "charger"))
    if "energy" in params:
        budgets.append((params["energy"] - anchor.energy_kwh, "charger"))
    budget, reason = min(budgets, key=lambda b: b[0])
    budget = max(budget, 0.0)
    delivered = min(kw * _hours(anchor, now), budget)
    return _Now(
        level=anchor.level + delivered / VEHICLE_KWH * 100,
        power=kw if delivered < budget else 0.0,
        session_kwh=anchor.energy_kwh + delivered,
        reason=reason,
        rate_limit=kw,
        max_current=params.get("current", a_max),
    )


def _following(steered: Steered, now: datetime, kw_max: float, a_max: float) -> _Now:
    """Under a strategy's schedule: the car fills at the schedule's limits."""
    room = max(0.0, (100.0 - steered.level) / 100 * VEHICLE_KWH)
    delivered = min(steered.schedule.energy_kwh(steered.at, max(now, steered.at)), room)
    limit = min(steered.schedule.limit_at(now), kw_max)
    full = delivered >= room - 1e-9
    return _Now(
        level=steered.level + delivered / VEHICLE_KWH * 100,
        power=0.0 if full else limit,
        session_kwh=steered.energy_kwh + delivered,
        reason="vehicle" if full else "schedule",
        rate_limit=limit,
        max_current=a_max,
    )


def _steering(anchor: SimAnchor | None, steered: Steered | None) -> Steered | None:
    """The schedule in force: one sent under the strategy that is the last command."""
    if anchor is None or steered is None or anchor.command not in STRATEGIES:
        return None
    return steered if steered.at >= anchor.at else None


def _charger_now(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    now: datetime,
    steered: Steered | None = None,
) -> _Now:
    kw_max = _bound(profile, "charge", "power", "max", 22.0)
    a_max = _bound(profile, "charge", "current", "max", 32.0)
    following = _steering(anchor, steered)
    if following is not None:
        return _following(following, now, kw_max, a_max)
    if anchor is not None and anchor.command in STRATEGIES:  # the runner's schedule is due
        return _Now(anchor.level, 0.0, True, anchor.energy_kwh, "schedule", kw_max, a_max)
    if anchor is None and profile.bidirectional:
        return _Now(EXPORT_SOC, EXPORT_KW, rate_limit=kw_max, max_current=a_max)
    if anchor is not None and anchor.command == "charge":
        return _charging(profile, anchor, now, a_max)
    if anchor is not None and anchor.command == "idle":
        return _Now(anchor.level, 0.0, True, anchor.energy_kwh, "charger", kw_max, a_max)
    prog = _CHARGER_PROGRAMS.get(anchor.command if anchor else "", _CHARGER_PROGRAMS[""])
    u = prog.u(now)
    if u >= prog.plugged_h:  # away: the car drives off what the session gave it
        full = prog.base + prog.energy(prog.plugged_h) / VEHICLE_KWH * 100
        soc = full + (prog.base - full) * (u - prog.plugged_h) / (24.0 - prog.plugged_h)
        return _Now(soc, 0.0, False, 0.0, None, kw_max, a_max)
    session = prog.energy(u)
    soc = prog.base + session / VEHICLE_KWH * 100
    return _Now(soc, prog.power(u), True, session, "schedule", kw_max, a_max)


# --- holds (POST /sandbox/devices/{id}/simulate) ---------------------------------------------

_STEPS = ("charge", "discharge", "idle")


def rebased(profile: SandboxProfile, anchor: SimAnchor, hold: SandboxHold) -> SimAnchor:
    """A step command older than the hold runs on from the hold's values; a newer one
    started from them already (it was accepted under the hold)."""
    if anchor.at >= hold.at:
        return anchor
    level = hold.level
    if level is None:  # a car the service cannot read: the simulator's own level then
        charger = profile.device_type is not DeviceType.BATTERY
        now = _charger_now(profile, anchor, hold.at) if charger else None
        level = anchor.level if now is None else min(max(now.level, 0.0), 100.0)
    return SimAnchor(anchor.command, anchor.parameters, hold.at, level, hold.energy_kwh)


def _battery_held(
    profile: SandboxProfile, anchor: SimAnchor | None, hold: SandboxHold | None, now: datetime
) -> _Now:
    """Under a hold the daily pattern stands still at the held level; commands move it."""
    if hold is None:
        return _battery_now(profile, anchor, now)
    if anchor is not None and anchor.command in _STEPS:
        return _battery_now(profile, rebased(profile, anchor, hold), now)
    level = hold.level if hold.level is not None else _battery_now(profile, anchor, hold.at).level
    return _Now(level=level, power=0.0)


def _charger_held(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    hold: SandboxHold | None,
    now: datetime,
    steered: Steered | None = None,
) -> _Now:
    """Under a hold the daily pattern stands still (the car as held, nothing charging);
    `charge`, `idle` and a strategy's schedule run from the held level, and a car held
    unplugged takes nothing."""
    if hold is None:
        return _charger_now(profile, anchor, now, steered)
    kw_max = _bound(profile, "charge", "power", "max", 22.0)
    a_max = _bound(profile, "charge", "current", "max", 32.0)
    following = _steering(anchor, steered)
    if following is not None:
        if hold.plugged_in is False:
            return _Now(following.level, 0.0, False, 0.0, None, kw_max, a_max)
        if following.at < hold.at:  # the schedule runs on from the held values
            held = following.level if hold.level is None else hold.level
            following = Steered(following.schedule, hold.at, held, hold.energy_kwh)
        return _following(following, now, kw_max, a_max)
    if anchor is not None and anchor.command in _STEPS:
        start = rebased(profile, anchor, hold)
        if hold.plugged_in is False:
            return _Now(start.level, 0.0, False, 0.0, None, kw_max, a_max)
        return _charger_now(profile, start, now)
    level = hold.level
    if level is None:
        level = _charger_now(profile, anchor, hold.at).level
    if hold.plugged_in is False:
        return _Now(level, 0.0, False, 0.0, None, kw_max, a_max)
    return _Now(level, 0.0, True, hold.energy_kwh, "schedule", kw_max, a_max)


def charger_state(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    now: datetime,
    hold: SandboxHold | None = None,
    steered: Steered | None = None,
) -> dict[str, Any]:
    """The spec 2.5 `state` body of a sandbox charger (presence-based keys it knows)."""
    n = _charger_held(profile, anchor, hold, now, steered)
    power = round(n.power, 3) + 0.0
    status = "charging" if power > 0 else "discharging" if power < 0 else "available"
    state: dict[str, Any] = {
        "status": status,
        "isConnected": n.connected,
        "isCharging": power > 0,
        "currentPower": power,
        "maxCurrent": n.max_current,
        "powerRateLimit": n.rate_limit,
        "sessionEnergy": round(n.session_kwh, 3) + 0.0,
        "phases": PHASES,
        "voltage": VOLTS,
        "activeControlMode": anchor.command if anchor else CHARGER_DEFAULT_MODE,
    }
    if n.connected and power == 0 and n.reason is not None:
        state["notChargingReason"] = n.reason
    return state


def vehicle_state(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    now: datetime,
    hold: SandboxHold | None = None,
    steered: Steered | None = None,
) -> VehicleReading | None:
    """The car behind the charger, or None when the profile cannot read it."""
    if not profile.has_vehicle:
        return None
    soc = _charger_held(profile, anchor, hold, now, steered).level
    digest = hashlib.sha256(profile.name.encode()).hexdigest().upper()
    return VehicleReading(
        vendor="sandbox-motors",
        model="Sandbox EV 75 V2G" if profile.bidirectional else "Sandbox EV 75",
        vin="SBX" + digest[:14],  # hex has no I, O or Q, as a VIN requires
        battery_capacity_kwh=VEHICLE_KWH,
        state_of_charge=round(min(max(soc, 0.0), 100.0), 1),
    )


# --- the driver's view -----------------------------------------------------------------------


def steered_sim(
    profile: SandboxProfile,
    sim: Mapping[str, Any] | None,
    schedule: ChargingSchedule,
    now: datetime,
) -> dict[str, Any]:
    """The simulator state once a strategy's schedule arrives at `now`: the car's level and
    the session's energy then, and the schedule from then on."""
    anchor, hold = SimAnchor.of(sim), hold_in(sim)
    n = _charger_held(profile, anchor, hold, now, Steered.of(sim))
    level = min(max(n.level, 0.0), 100.0)
    steered = Steered(schedule, ensure_utc(now), level, n.session_kwh if n.connected else 0.0)
    return {**(sim or {}), STEERING_KEY: steered.to_json()}


def read(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    now: datetime,
    settings: Mapping[str, Any] | None = None,
    hold: SandboxHold | None = None,
    steered: Steered | None = None,
) -> DeviceReading:
    """One pull of a sandbox device with these stored `settings`, under its hold and its
    strategy's schedule if any."""
    now = ensure_utc(now)
    if profile.device_type == DeviceType.BATTERY:
        state = battery_state(profile, anchor, now, settings, hold)
        return DeviceReading(state=state, pulled_at=now)
    return DeviceReading(
        state=charger_state(profile, anchor, now, hold, steered),
        vehicle=vehicle_state(profile, anchor, now, hold, steered),
        pulled_at=now,
    )


def read_sim(
    profile: SandboxProfile,
    sim: Mapping[str, Any] | None,
    now: datetime,
    settings: Mapping[str, Any] | None = None,
) -> DeviceReading:
    """One pull from the stored simulator state (the last command, any hold, and the
    strategy's schedule)."""
    return read(profile, SimAnchor.of(sim), now, settings, hold_in(sim), Steered.of(sim))


def accept(
    profile: SandboxProfile,
    anchor: SimAnchor | None,
    command: str,
    parameters: Mapping[str, float],
    at: datetime,
    hold: SandboxHold | None = None,
    steered: Steered | None = None,
) -> SimAnchor:
    """The anchor after the device accepts `command` at `at`, starting from its state then
    (under its hold and its strategy's schedule, if any)."""
    if command not in profile.capabilities.commands:
        raise ValueError(f"{profile.name} does not support command {command!r}")
    at = ensure_utc(at)
    if profile.device_type == DeviceType.BATTERY:
        level = min(max(_battery_held(profile, anchor, hold, at).level, 0.0), 100.0)
        return SimAnchor(command, dict(parameters), at, level)
    n = _charger_held(profile, anchor, hold, at, steered)
    energy = n.session_kwh if n.connected else 0.0  # away: the push starts a new session
    return SimAnchor(command, dict(parameters), at, min(max(n.level, 0.0), 100.0), energy)
