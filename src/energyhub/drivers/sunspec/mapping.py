"""How SunSpec registers become the spec's battery (2.2-2.4) and back: explicit tables, each
with an `unknown` fallback. `controls.py` turns the mode tables into register writes.

Sign conventions. The spec's `chargeRate` is kW, positive while charging. Model 802's `W`
and model 704's `WSet` follow the generator reference of SunSpec DER models: positive while
the battery gives power (discharges), negative while it takes power (charges)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from energyhub.domain.errors import DeviceBusy, DeviceOffline, DeviceRejected
from energyhub.drivers.sunspec.registers import ModelBlock

UNKNOWN = "unknown"
Blocks = Mapping[int, ModelBlock]

# --- Modbus exception codes -> (spec error code, retryable) --------------------------------
MODBUS_EXCEPTIONS: Mapping[int, tuple[str, bool]] = {
    1: (DeviceRejected.code, False),  # illegal function
    2: (DeviceRejected.code, False),  # illegal data address
    3: (DeviceRejected.code, False),  # illegal data value (e.g. a setpoint out of range)
    4: (DeviceRejected.code, False),  # server device failure
    5: (DeviceBusy.code, True),  # acknowledge: a long operation is under way
    6: (DeviceBusy.code, True),  # server busy
    10: (DeviceOffline.code, True),  # gateway path unavailable
    11: (DeviceOffline.code, True),  # gateway target device failed to respond
}
UNKNOWN_MODBUS_EXCEPTION = (DeviceRejected.code, False)


def modbus_failure(exception_code: int) -> tuple[str, bool]:
    return MODBUS_EXCEPTIONS.get(exception_code, UNKNOWN_MODBUS_EXCEPTION)


# --- reading: where each state value comes from ---------------------------------------------
@dataclass(frozen=True, slots=True)
class Source:
    """A point, and the factor from its unit and sign to the spec's."""

    model_id: int
    point: str
    factor: float = 1.0

    def value(self, blocks: Blocks) -> float | None:
        block = blocks.get(self.model_id)
        value = None if block is None else block.value(self.point)
        return None if value is None else value * self.factor

    def writable(self, blocks: Blocks) -> bool:
        block = blocks.get(self.model_id)
        return (
            block is not None and block.point(self.point).writable and block.implemented(self.point)
        )


# First implemented source wins.
LEVEL_SOURCES = (Source(802, "SoC"), Source(124, "ChaState"))  # percent
POWER_SOURCES = (Source(802, "W", -0.001),)  # W, positive discharging -> kW, charging positive
CAPACITY_SOURCES = (Source(802, "WHRtg", 0.001),)  # Wh -> kWh
FLOOR_SOURCES = (Source(124, "MinRsvPct"), Source(802, "SoCRsvMin"))  # percent
CEILING_SOURCES = (Source(802, "SocRsvMax"),)  # percent
STATUS_SOURCES = ((124, "ChaSt"), (802, "ChaSt"))

# ChaSt (the same enumeration in models 124 and 802) -> state.status
CHARGE_STATUS: Mapping[int, str] = {
    1: "idle",  # OFF
    2: "idle",  # EMPTY
    3: "discharging",  # DISCHARGING
    4: "charging",  # CHARGING
    5: "idle",  # FULL
    6: "idle",  # HOLDING
    7: "idle",  # TESTING
}


def first_source(blocks: Blocks, sources: tuple[Source, ...]) -> Source | None:
    """The first source the device implements."""
    return next((s for s in sources if s.value(blocks) is not None), None)


def first_writable(blocks: Blocks, sources: tuple[Source, ...]) -> Source | None:
    return next((s for s in sources if s.writable(blocks)), None)


def first_value(blocks: Blocks, sources: tuple[Source, ...]) -> float | None:
    source = first_source(blocks, sources)
    return None if source is None else source.value(blocks)


def status_of(blocks: Blocks, charge_rate: float | None) -> str:
    """ChaSt through the table; without ChaSt, the sign of the power; else `unknown`."""
    for model_id, point in STATUS_SOURCES:
        block = blocks.get(model_id)
        raw = None if block is None else block.raw(point)
        if raw is not None:
            return CHARGE_STATUS.get(raw, UNKNOWN)
    if charge_rate is None:
        return UNKNOWN
    return "charging" if charge_rate > 0 else "discharging" if charge_rate < 0 else "idle"


# --- commands: what each mode writes ---------------------------------------------------------
class Rate(Enum):
    """A model 124 rate register (InWRte / OutWRte), in percent of WChaMax."""

    P = 1  # the command's rate
    MINUS_P = -1  # the command's rate, reversed: a negative OutWRte forces charging
    ZERO = 0
    FULL = 100


STORCTL_NONE, STORCTL_CHARGE, STORCTL_DISCHARGE, STORCTL_BOTH = 0, 1, 2, 3  # StorCtl_Mod bits
GRID_PV, GRID_ALLOWED = 0, 1  # ChaGriSet


@dataclass(frozen=True, slots=True)
class StorageMode:
    """Model 124: StorCtl_Mod bit 0 enforces InWRte (charge limit), bit 1 OutWRte (discharge
    limit); the battery's power stays within [-OutWRte, InWRte] percent of WChaMax."""

    storctl: int
    in_rate: Rate
    out_rate: Rate
    grid: int
    held: bool  # kept by the service under a reversion timeout; else the battery's own mode


STORAGE_MODES: Mapping[str, StorageMode] = {
    "charge": StorageMode(STORCTL_BOTH, Rate.P, Rate.MINUS_P, GRID_ALLOWED, held=True),
    "discharge": StorageMode(STORCTL_BOTH, Rate.MINUS_P, Rate.P, GRID_PV, held=True),
    "idle": StorageMode(STORCTL_BOTH, Rate.ZERO, Rate.ZERO, GRID_PV, held=True),
    "auto.balance": StorageMode(STORCTL_NONE, Rate.FULL, Rate.FULL, GRID_PV, held=False),
    # no discharge, charging from grid and solar allowed: full and kept for an outage
    "auto.reserve": StorageMode(STORCTL_DISCHARGE, Rate.FULL, Rate.ZERO, GRID_ALLOWED, held=True),
    # no charging: solar goes to the grid, the battery still serves the house
    "auto.export": StorageMode(STORCTL_CHARGE, Rate.ZERO, Rate.FULL, GRID_PV, held=True),
}


class Setpoint(Enum):
    """A model 704 active power setpoint (WSet, W, generator reference)."""

    ABSORB = -1  # minus the command's power: charging
    INJECT = 1  # the command's power: discharging
    ZERO = 0


WSET_DISABLED, WSET_ENABLED = 0, 1
WSET_MOD_WATTS = 1


@dataclass(frozen=True, slots=True)
class DerMode:
    enabled: bool
    setpoint: Setpoint
    held: bool


DER_MODES: Mapping[str, DerMode] = {
    "charge": DerMode(True, Setpoint.ABSORB, held=True),
    "discharge": DerMode(True, Setpoint.INJECT, held=True),
    "idle": DerMode(True, Setpoint.ZERO, held=True),
    "auto.balance": DerMode(False, Setpoint.ZERO, held=False),
}


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def storage_signature(
    storctl: int, in_sign: int, out_sign: int
) -> tuple[int, int | None, int | None]:
    """What distinguishes the modes: the limits StorCtl_Mod enforces, and their signs."""
    storctl &= STORCTL_BOTH
    return (
        storctl,
        in_sign if storctl & STORCTL_CHARGE else None,
        out_sign if storctl & STORCTL_DISCHARGE else None,
    )


def der_signature(enabled: bool, setpoint_sign: int) -> tuple[bool, int | None]:
    return (enabled, setpoint_sign if enabled else None)


# The inverse tables: register signatures -> mode, derived from the mode tables above.
STORAGE_SIGNATURES: Mapping[tuple[int, int | None, int | None], str] = {
    storage_signature(m.storctl, _sign(m.in_rate.value), _sign(m.out_rate.value)): name
    for name, m in STORAGE_MODES.items()
}
DER_SIGNATURES: Mapping[tuple[bool, int | None], str] = {
    der_signature(m.enabled, m.setpoint.value): name for name, m in DER_MODES.items()
}


def storage_mode_of(blocks: Blocks) -> str:
    block = blocks.get(124)
    if block is None:
        return UNKNOWN
    storctl, in_rate, out_rate = (block.raw(p) for p in ("StorCtl_Mod", "InWRte", "OutWRte"))
    if storctl is None or in_rate is None or out_rate is None:
        return UNKNOWN
    signature = storage_signature(storctl, _sign(in_rate), _sign(out_rate))
    return STORAGE_SIGNATURES.get(signature, UNKNOWN)


def der_mode_of(blocks: Blocks) -> str:
    block = blocks.get(704)
    if block is None:
        return UNKNOWN
    enabled, setpoint = block.raw("WSetEna"), block.raw("WSet")
    if enabled not in (WSET_DISABLED, WSET_ENABLED) or setpoint is None:
        return UNKNOWN
    return DER_SIGNATURES.get(der_signature(enabled == WSET_ENABLED, _sign(setpoint)), UNKNOWN)


# --- settings (spec 2.4): declared where a writable register holds them ---------------------
@dataclass(frozen=True, slots=True)
class SettingSource:
    key: str
    unit: str
    sources: tuple[Source, ...]


SETTING_SOURCES: tuple[SettingSource, ...] = (
    SettingSource("discharge_floor", "percent", FLOOR_SOURCES),
    SettingSource("charge_ceiling", "percent", CEILING_SOURCES),
    SettingSource("max_charge_rate", "kw", (Source(124, "WChaMax", 0.001),)),
)


def battery_state(blocks: Blocks, current_mode: str) -> dict[str, object]:
    """The spec 2.2 `state` of a battery; a value the registers do not hold is null."""
    rate = first_value(blocks, POWER_SOURCES)
    level = first_value(blocks, LEVEL_SOURCES)
    capacity = first_value(blocks, CAPACITY_SOURCES)
    floor = first_value(blocks, FLOOR_SOURCES)
    rate = None if rate is None else round(rate, 3) + 0.0  # + 0.0: no -0.0
    return {
        "status": status_of(blocks, rate),
        "capacity": None if capacity is None else round(capacity, 3),
        "level": None if level is None else round(min(max(level, 0.0), 100.0), 1),
        "chargeRate": rate,
        "dischargeLimit": None if floor is None else round(floor, 1),
        "currentMode": current_mode,
    }
