"""How the device page shows a device, laid out here so the templates only draw: times in
the device's own timezone with the zone named, state keys with their units, one form per
command built from the device's commands map, and that form read back as a push."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.capabilities import CommandSpec, ConflictStrategy, Execution
from energyhub.domain.devices import Device
from energyhub.domain.pushes import PushRequest
from energyhub.domain.quantities import Quantity

# What each state key of a battery or a charger is measured in (the API's state bodies carry
# bare numbers; these are their units as the API reference states them).
STATE_UNITS = {
    "capacity": "kWh",
    "level": "%",
    "chargeRate": "kW",
    "dischargeLimit": "%",
    "currentPower": "kW",
    "maxCurrent": "A",
    "powerRateLimit": "kW",
    "sessionEnergy": "kWh",
    "voltage": "V",
}
NOTHING = "\N{EN DASH}"  # a time or an amount there is none of
VPP_LOCK_MINUTES = 60  # how long the sandbox's "VPP lock" button locks a device
# Units as the commands map spells them (lower case) and as people read them.
UNIT_LABELS = {"kw": "kW", "kwh": "kWh", "a": "A", "percent": "%", "w": "W", "wh": "Wh"}


@dataclass(frozen=True, slots=True)
class LocalTime:
    """Datetimes shown on the wall clock of one timezone, with the zone's abbreviation."""

    zone: ZoneInfo

    @classmethod
    def of(cls, device: Device) -> LocalTime:
        return cls(ZoneInfo(device.timezone))

    @property
    def name(self) -> str:
        return self.zone.key

    def __call__(self, value: datetime | str | None, seconds: bool = False) -> str:
        if value is None:
            return NOTHING
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        local = value.astimezone(self.zone)
        return local.strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")

    def input_value(self, value: datetime) -> str:
        """A `datetime-local` input's value (the wall clock, to the minute)."""
        return value.astimezone(self.zone).strftime("%Y-%m-%dT%H:%M")


@dataclass(frozen=True, slots=True)
class StateRow:
    key: str
    unit: str | None
    value: str


def state_rows(state: Mapping[str, Any]) -> list[StateRow]:
    rows = []
    for key, value in state.items():
        unit = STATE_UNITS.get(key)
        if isinstance(value, dict):  # a Quantity: its own unit
            unit = UNIT_LABELS.get(str(value.get("unit")), value.get("unit"))
            shown = str(value.get("value"))
        elif isinstance(value, bool) or value is None:
            shown = json.dumps(value)
        else:
            shown = str(value)
        rows.append(StateRow(key, unit, shown))
    return rows


def quantity_text(body: Mapping[str, Any] | None) -> str:
    """A `{value, unit}` body as people read it ("7.4 kW")."""
    if not body:
        return NOTHING
    unit = UNIT_LABELS.get(str(body.get("unit")), str(body.get("unit", "")))
    return f"{body.get('value')} {unit}".strip()


@dataclass(frozen=True, slots=True)
class ParameterField:
    name: str
    unit: str  # as the commands map spells it
    unit_label: str
    min: float | None
    max: float | None

    @property
    def bounds(self) -> str:
        if self.min is not None and self.max is not None:
            return f"{_number(self.min)} to {_number(self.max)} {self.unit_label}"
        if self.min is not None:
            return f"at least {_number(self.min)} {self.unit_label}"
        if self.max is not None:
            return f"at most {_number(self.max)} {self.unit_label}"
        return self.unit_label


@dataclass(frozen=True, slots=True)
class CommandForm:
    """One command of the device's commands map as a form."""

    command: str
    parameters: tuple[ParameterField, ...]
    scheduled: bool  # may take a start
    windowed: bool  # may take an end
    conflict_strategies: tuple[str, ...]

    @property
    def slug(self) -> str:
        return self.command.replace(".", "-").replace("_", "-")


def command_forms(device: Device) -> list[CommandForm]:
    caps = device.capabilities
    strategies = tuple(s.value for s in caps.conflict_strategies or ())
    return [_command_form(name, spec, strategies) for name, spec in caps.commands.items()]


def _command_form(name: str, spec: CommandSpec, strategies: tuple[str, ...]) -> CommandForm:
    return CommandForm(
        command=name,
        parameters=tuple(
            ParameterField(p, s.unit, UNIT_LABELS.get(s.unit, s.unit), s.min, s.max)
            for p, s in spec.parameters.items()
        ),
        scheduled=Execution.SCHEDULED in spec.execution,
        windowed=Execution.WINDOWED in spec.execution,
        conflict_strategies=strategies,
    )


class FormProblem(Exception):
    """A field the page cannot turn into a push; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def push_of(form: CommandForm, fields: Mapping[str, str]) -> PushRequest:
    """The form's fields as the push the API would take: empty fields are left out, numbers
    go in the command's own units, start and end are the device's wall-clock time."""
    parameters: dict[str, Quantity] = {}
    for parameter in form.parameters:
        raw = fields.get(f"p.{parameter.name}", "").strip()
        if not raw:
            continue
        try:
            value = float(raw.replace(",", "."))
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise FormProblem(
                parameter.name,
                f"{parameter.name} must be a number of {parameter.unit_label}, such as "
                f"{_number(parameter.max if parameter.max is not None else 1)}.",
            )
        parameters[parameter.name] = Quantity(value, parameter.unit)
    on_conflict = fields.get("onConflict", "").strip()
    if on_conflict and on_conflict not in {s.value for s in ConflictStrategy}:
        raise FormProblem("onConflict", "Choose one of the listed conflict strategies.")
    return PushRequest(
        command=form.command,
        parameters=parameters,
        start=_wall_clock(fields.get("start", "")),
        end=_wall_clock(fields.get("end", "")),
        on_conflict=on_conflict or None,
    )


def error_details(details: Mapping[str, Any]) -> tuple[str, ...]:
    """An error's details as lines a person reads (the API's `details`, which its message
    may point to): `errors` as "path: message", other values as "name: value"."""
    lines: list[str] = []
    for name, value in details.items():
        if name == "errors" and isinstance(value, list):
            lines.extend(
                f"{e.get('path')}: {e.get('message')}" if isinstance(e, dict) else str(e)
                for e in value
            )
        elif isinstance(value, list | tuple):
            lines.append(f"{name}: {', '.join(str(v) for v in value) or 'none'}")
        elif isinstance(value, dict):
            lines.append(f"{name}: {json.dumps(value)}")
        else:
            lines.append(f"{name}: {value}")
    return tuple(lines)


def _wall_clock(raw: str) -> str | None:
    """A `datetime-local` value (`YYYY-MM-DDTHH:MM`, seconds optional) as a push's
    `YYYY-MM-DDTHH:MM:SS`; anything else goes on unchanged for the push's own check."""
    raw = raw.strip()
    if not raw:
        return None
    return f"{raw}:00" if len(raw) == len("YYYY-MM-DDTHH:MM") else raw


def _number(value: float) -> str:
    return f"{value:g}"
