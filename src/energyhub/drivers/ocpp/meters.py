"""MeterValues to telemetry, as an explicit table: measurands the service keeps, their units,
phases. A measurand or unit no row names is ignored, never guessed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Reading(StrEnum):
    """The quantities the service keeps from meter values."""

    POWER_W = "powerW"  # signed: import positive, export negative
    REGISTER_WH = "registerWh"  # Energy.Active.Import.Register
    VOLTAGE_V = "voltageV"
    SOC = "soc"
    OFFERED_A = "offeredA"
    OFFERED_W = "offeredW"


@dataclass(frozen=True, slots=True)
class MeasurandRow:
    reading: Reading | None  # None: recognised, not kept (phases come from Current.Import)
    sign: float = 1.0


# Measurand -> what it feeds. Absent measurand: OCPP's default, Energy.Active.Import.Register.
MEASURANDS: Mapping[str, MeasurandRow] = {
    "Energy.Active.Import.Register": MeasurandRow(Reading.REGISTER_WH),
    "Power.Active.Import": MeasurandRow(Reading.POWER_W),
    "Power.Active.Export": MeasurandRow(Reading.POWER_W, -1.0),
    "Voltage": MeasurandRow(Reading.VOLTAGE_V),
    "SoC": MeasurandRow(Reading.SOC),
    "Current.Offered": MeasurandRow(Reading.OFFERED_A),
    "Power.Offered": MeasurandRow(Reading.OFFERED_W),
    "Current.Import": MeasurandRow(None),
}
DEFAULT_MEASURAND = "Energy.Active.Import.Register"

# unit -> factor to the base unit of its reading (Wh, W, V, A, percent); unknown units are
# ignored rather than guessed.
UNIT_FACTORS: Mapping[str, float] = {
    "Wh": 1.0,
    "kWh": 1000.0,
    "W": 1.0,
    "kW": 1000.0,
    "V": 1.0,
    "A": 1.0,
    "Percent": 1.0,
}
DEFAULT_UNITS: Mapping[Reading, str] = {
    Reading.REGISTER_WH: "Wh",
    Reading.POWER_W: "W",
    Reading.VOLTAGE_V: "V",
    Reading.SOC: "Percent",
    Reading.OFFERED_A: "A",
    Reading.OFFERED_W: "W",
}
PHASE_CURRENT_MIN_A = 0.5  # a phase carrying less than this is not in use
# Line-to-neutral phases only: a line-to-line value (`L1-L2`, ~400 V) or the neutral (`N`)
# is not one phase's share and is ignored.
PHASES = {"L1": 1, "L2": 2, "L3": 3, "L1-N": 1, "L2-N": 2, "L3-N": 3}


@dataclass(slots=True)
class Telemetry:
    """The kept quantities of one MeterValues message (snake_case sampled values, as the
    `ocpp` package hands them to handlers; 1.6 values are strings, 2.0.1 numbers)."""

    values: dict[Reading, float] = field(default_factory=dict)
    phases: int | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {r.value: v for r, v in self.values.items()}
        if self.phases is not None:
            body["phases"] = self.phases
        return body


@dataclass(slots=True)
class _Measured:
    """One measurand in one sample: its unphased total and its per-phase values."""

    total: float | None = None
    phases: dict[int, float] = field(default_factory=dict)

    def value(self, reading: Reading) -> float | None:
        """A meter that sends a total and per-phase values sends the same quantity twice:
        the total wins, phases are summed only without one. Voltage is a phase's: the
        average of the line-to-neutral phases (the unphased value only without them); so is
        the offered current (the total, else the phases' average)."""
        phases = list(self.phases.values())
        average = sum(phases) / len(phases) if phases else None
        if reading is Reading.VOLTAGE_V:
            return average if average is not None else self.total
        if self.total is not None:
            return self.total
        if reading is Reading.OFFERED_A:
            return average
        return sum(phases) if phases else None


def parse_meter_values(meter_value: Iterable[Mapping[str, Any]]) -> Telemetry:
    """The newest value of each kept quantity (a later sample wins over an earlier one);
    `phases` counts the phases whose import current is in use."""
    telemetry = Telemetry()
    phase_currents: dict[int, float] = {}
    for sample in meter_value:
        measured: dict[str, _Measured] = {}
        for sampled in sample.get("sampled_value", []):
            measurand = sampled.get("measurand") or DEFAULT_MEASURAND
            row = MEASURANDS.get(measurand)
            value = _number(sampled.get("value"))
            if row is None or value is None:
                continue
            raw_phase = sampled.get("phase")
            phase = PHASES.get(raw_phase or "")
            if raw_phase and phase is None:
                continue  # line-to-line or neutral
            if row.reading is None:  # Current.Import: phases in use
                if phase is not None:
                    phase_currents[phase] = value
                continue
            factor = UNIT_FACTORS.get(_unit(sampled, row.reading))
            if factor is None:
                continue
            scaled = value * factor * _multiplier(sampled) * row.sign
            entry = measured.setdefault(measurand, _Measured())
            if phase is None:
                entry.total = scaled
            else:
                entry.phases[phase] = scaled
        telemetry.values.update(_sample_values(measured))
    if phase_currents:
        telemetry.phases = sum(1 for a in phase_currents.values() if a >= PHASE_CURRENT_MIN_A)
    return telemetry


# What describes a running session only: unknown again once none runs.
_SESSION_ONLY = (Reading.VOLTAGE_V.value, Reading.SOC.value, "phases")


def without_session(kept: Mapping[str, Any]) -> dict[str, Any]:
    """The kept telemetry once no session runs (it ended, or the connector is available,
    faulted or unavailable): power reads 0 where the charger reports power (nothing flows);
    voltage, phases and the vehicle's state of charge are absent until the next reading."""
    left = {key: value for key, value in kept.items() if key not in _SESSION_ONLY}
    if Reading.POWER_W.value in left:
        left[Reading.POWER_W.value] = 0.0
    return left


def _sample_values(measured: Mapping[str, _Measured]) -> dict[Reading, float]:
    """One sample's readings; import and export power add up to one signed power."""
    values: dict[Reading, float] = {}
    for measurand, entry in measured.items():
        reading = MEASURANDS[measurand].reading
        value = None if reading is None else entry.value(reading)
        if reading is not None and value is not None:
            values[reading] = values.get(reading, 0.0) + value
    return values


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _unit(sampled: Mapping[str, Any], reading: Reading) -> str:
    if "unit_of_measure" in sampled:  # 2.0.1
        return str((sampled["unit_of_measure"] or {}).get("unit") or DEFAULT_UNITS[reading])
    return str(sampled.get("unit") or DEFAULT_UNITS[reading])


def _multiplier(sampled: Mapping[str, Any]) -> float:
    measure = sampled.get("unit_of_measure")
    if not measure or measure.get("multiplier") is None:
        return 1.0
    return float(10 ** int(measure["multiplier"]))


def register_wh(meter_value: Sequence[Mapping[str, Any]] | None) -> float | None:
    """The energy register in a transaction's meter values, if any."""
    if not meter_value:
        return None
    return parse_meter_values(meter_value).values.get(Reading.REGISTER_WH)
