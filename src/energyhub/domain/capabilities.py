"""What a device can do, as data: commands map (spec 2.3), settings catalogue (2.4, 2.5),
conflict strategies. Profiles and drivers compose these tables; nothing branches on vendor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class DeviceType(StrEnum):
    BATTERY = "battery"
    EV_CHARGER = "ev-charger"
    VEHICLE = "vehicle"

    @property
    def event_name(self) -> str:
        """The spelling used in events and schedules (`ev_charger`)."""
        return self.value.replace("-", "_")


class Execution(StrEnum):
    IMMEDIATE = "immediate"
    SCHEDULED = "scheduled"
    WINDOWED = "windowed"


class ConflictStrategy(StrEnum):
    CANCEL_AND_REPLACE = "cancel_and_replace"
    QUEUE_AFTER = "queue_after"


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    unit: str
    min: float | None = None
    max: float | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"unit": self.unit}
        if self.min is not None:
            body["min"] = self.min
        if self.max is not None:
            body["max"] = self.max
        return body


@dataclass(frozen=True, slots=True)
class CommandSpec:
    parameters: Mapping[str, ParameterSpec] = field(default_factory=dict)
    execution: tuple[Execution, ...] = (Execution.IMMEDIATE, Execution.SCHEDULED)

    def to_json(self) -> dict[str, Any]:
        return {
            "parameters": {name: p.to_json() for name, p in self.parameters.items()},
            "execution": [e.value for e in self.execution],
        }


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One persistent setting. `unit` None means a boolean."""

    unit: str | None
    default: float | bool
    min: float | None = None
    max: float | None = None
    read_only: bool = False

    def to_json(self, value: float | bool) -> dict[str, Any]:
        body: dict[str, Any] = {"value": value}
        if self.unit is not None:
            body["unit"] = self.unit
        if self.min is not None:
            body["min"] = self.min
        if self.max is not None:
            body["max"] = self.max
        return body


@dataclass(frozen=True, slots=True)
class Capabilities:
    commands: Mapping[str, CommandSpec]
    settings: Mapping[str, SettingSpec]
    conflict_strategies: tuple[ConflictStrategy, ...] | None
    sessions: bool | None = None  # chargers only

    def commands_json(self) -> dict[str, Any]:
        return {name: spec.to_json() for name, spec in self.commands.items()}

    def settings_json(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return {
            key: spec.to_json(values.get(key, spec.default)) for key, spec in self.settings.items()
        }

    def default_settings(self) -> dict[str, float | bool]:
        return {key: spec.default for key, spec in self.settings.items()}

    def to_json(self) -> dict[str, Any]:
        """Stored form; `capabilities_from_json` reads it back."""
        return {
            "commands": self.commands_json(),
            "settings": {
                k: {**s.to_json(s.default), "readOnly": s.read_only}
                for k, s in self.settings.items()
            },
            "conflictStrategies": (
                None
                if self.conflict_strategies is None
                else [s.value for s in self.conflict_strategies]
            ),
            "sessions": self.sessions,
        }


def capabilities_from_json(body: Mapping[str, Any]) -> Capabilities:
    commands = {
        name: CommandSpec(
            parameters={
                p: ParameterSpec(unit=v["unit"], min=v.get("min"), max=v.get("max"))
                for p, v in spec["parameters"].items()
            },
            execution=tuple(Execution(e) for e in spec["execution"]),
        )
        for name, spec in body["commands"].items()
    }
    settings = {
        key: SettingSpec(
            unit=v.get("unit"),
            default=v["value"],
            min=v.get("min"),
            max=v.get("max"),
            read_only=bool(v.get("readOnly", False)),
        )
        for key, v in body["settings"].items()
    }
    strategies = body.get("conflictStrategies")
    return Capabilities(
        commands=commands,
        settings=settings,
        conflict_strategies=(
            None if strategies is None else tuple(ConflictStrategy(s) for s in strategies)
        ),
        sessions=body.get("sessions"),
    )


ALL_EXECUTION = (Execution.IMMEDIATE, Execution.SCHEDULED, Execution.WINDOWED)
NOT_WINDOWED = (Execution.IMMEDIATE, Execution.SCHEDULED)
BOTH_STRATEGIES = (ConflictStrategy.CANCEL_AND_REPLACE, ConflictStrategy.QUEUE_AFTER)

# --- batteries (spec 2.3, 2.4) ---------------------------------------------------------------
BATTERY_PARAMETERS = {
    "target": ParameterSpec("percent", 10, 100),
    "power": ParameterSpec("kw", 0, 5),
    "reserve": ParameterSpec("percent", 0, 100),
}
BATTERY_MODES = ("charge", "discharge", "idle", "auto.balance", "auto.reserve", "auto.export")
BATTERY_COMMANDS: dict[str, CommandSpec] = {
    "charge": CommandSpec(BATTERY_PARAMETERS, ALL_EXECUTION),
    "discharge": CommandSpec(BATTERY_PARAMETERS, ALL_EXECUTION),
    "idle": CommandSpec({}, NOT_WINDOWED),
    "auto.balance": CommandSpec({}, NOT_WINDOWED),
    "auto.reserve": CommandSpec({}, NOT_WINDOWED),
    "auto.export": CommandSpec({}, NOT_WINDOWED),
}
BATTERY_SETTINGS: dict[str, SettingSpec] = {
    "safety_reserve": SettingSpec("percent", 5, 0, 100),
    "discharge_floor": SettingSpec("percent", 10, 0, 100),
    "charge_ceiling": SettingSpec("percent", 100, 0, 100),
    "export_limit": SettingSpec("w", 5000, 0, 10000),
    "max_charge_rate": SettingSpec("kw", 5, 0, 5),
    "max_discharge_rate": SettingSpec("kw", 5, 0, 5),
    "scheduler_enabled": SettingSpec(None, False, read_only=True),
}

# --- EV chargers (spec 2.5) -------------------------------------------------------------------
CHARGER_PARAMETERS = {
    "power": ParameterSpec("kw", 1.4, 22),
    "current": ParameterSpec("a", 6, 32),
    "target": ParameterSpec("percent", 10, 100),
    "energy": ParameterSpec("kwh", 0.1, 100),
}
CHARGER_COMMANDS: dict[str, CommandSpec] = {
    "charge": CommandSpec(CHARGER_PARAMETERS, ALL_EXECUTION),
    "idle": CommandSpec({}, NOT_WINDOWED),
    "auto.charge_tariff": CommandSpec({}, NOT_WINDOWED),
    "auto.charge_surplus_only": CommandSpec({}, NOT_WINDOWED),
    "auto.charge_surplus_first": CommandSpec({}, NOT_WINDOWED),
}
CHARGER_SETTINGS: dict[str, SettingSpec] = {
    "max_charge_rate": SettingSpec("kw", 22, 1.4, 22),
    "max_charge_current": SettingSpec("a", 32, 6, 32),
    "cable_lock": SettingSpec(None, False),
    "scheduler_enabled": SettingSpec(None, False, read_only=True),
}

STANDARD_BATTERY = Capabilities(BATTERY_COMMANDS, BATTERY_SETTINGS, BOTH_STRATEGIES)
STANDARD_CHARGER = Capabilities(CHARGER_COMMANDS, CHARGER_SETTINGS, BOTH_STRATEGIES, sessions=True)


def with_command(caps: Capabilities, name: str, spec: CommandSpec) -> Capabilities:
    return replace(caps, commands={**caps.commands, name: spec})
