"""Storage controls: the mode tables of `mapping.py` as ordered register writes, and the
commands map and settings a device's registers allow (what is not implemented is not
declared).

Two families: model 124 (basic storage controls) and model 704 (DER AC controls, with model
802 for the battery's nameplate). Every mode but the battery's own (`auto.balance`) is held
by the service under a reversion timeout: if the service stops renewing it, the battery
falls back to its own mode.

A plan writes, in order: the reversion timer, the SoC limits (floor and ceiling, from the
command or else the stored settings) and grid charging, the setpoints, and last the
register that activates them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from energyhub.domain.capabilities import (
    ALL_EXECUTION,
    BATTERY_PARAMETERS,
    BOTH_STRATEGIES,
    NOT_WINDOWED,
    Capabilities,
    CommandSpec,
    ParameterSpec,
    SettingSpec,
)
from energyhub.drivers.sunspec.mapping import (
    CEILING_SOURCES,
    DER_MODES,
    FLOOR_SOURCES,
    SETTING_SOURCES,
    STORAGE_MODES,
    UNKNOWN,
    WSET_DISABLED,
    WSET_ENABLED,
    WSET_MOD_WATTS,
    Blocks,
    Rate,
    Source,
    der_mode_of,
    first_writable,
    storage_mode_of,
)
from energyhub.drivers.sunspec.registers import decode, encode

WINDOWED_COMMANDS = ("charge", "discharge")


class Role(StrEnum):
    TIMER = "timer"
    LIMIT = "limit"
    SETPOINT = "setpoint"
    ENABLE = "enable"


HOLD_ROLES = (Role.TIMER, Role.SETPOINT, Role.ENABLE)  # what renewing a held mode rewrites
MODE_ROLES = (Role.SETPOINT, Role.ENABLE)  # what says the mode is still the one written


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    model_id: int
    point: str
    raw: int
    role: Role

    def to_json(self) -> list[Any]:
        return [self.model_id, self.point, self.raw, self.role.value]

    @classmethod
    def from_json(cls, body: list[Any]) -> PlannedWrite:
        return cls(int(body[0]), str(body[1]), int(body[2]), Role(body[3]))


class Control(Protocol):
    """One family of storage controls."""

    models: tuple[int, ...]  # the blocks a plan needs

    def commands(self, blocks: Blocks) -> dict[str, CommandSpec]: ...
    def plan(
        self,
        command: str,
        parameters: Mapping[str, float],
        blocks: Blocks,
        settings: Mapping[str, Any],
        reversion_s: int,
    ) -> list[PlannedWrite]: ...
    def held(self, command: str) -> bool: ...
    def mode_of(self, blocks: Blocks) -> str: ...


def control_for(model_ids: set[int]) -> Control | None:
    if 124 in model_ids:
        return StorageControl()
    if {704, 802} <= model_ids:
        return DerControl()
    return None


def current_mode(control: Control | None, blocks: Blocks) -> str:
    return UNKNOWN if control is None else control.mode_of(blocks)


def still_written(writes: list[PlannedWrite], blocks: Blocks) -> bool:
    """Whether the registers still hold the mode these writes set (nobody changed it)."""
    for w in writes:
        if w.role not in MODE_ROLES:
            continue
        block = blocks.get(w.model_id)
        if block is None:
            return False
        point = block.point(w.point)
        if block.raw(w.point) != decode(point, encode(point, w.raw)):
            return False
    return bool(writes)


# --- shared by both families ----------------------------------------------------------------
def _limit_writes(
    command: str, parameters: Mapping[str, float], blocks: Blocks, settings: Mapping[str, Any]
) -> list[PlannedWrite]:
    """The SoC floor and ceiling in effect: the command's own, else the stored settings."""
    floor: float | None = settings.get("discharge_floor")
    if command == "discharge" and ("target" in parameters or "reserve" in parameters):
        floor = max(parameters.get("target", 0.0), parameters.get("reserve", 0.0))
    elif command == "charge" and "reserve" in parameters:
        floor = parameters["reserve"]
    ceiling: float | None = settings.get("charge_ceiling")
    if command == "charge" and "target" in parameters:
        ceiling = parameters["target"]
    writes = []
    for sources, value in ((FLOOR_SOURCES, floor), (CEILING_SOURCES, ceiling)):
        source = first_writable(blocks, sources)
        if source is not None and isinstance(value, int | float):
            writes.append(_write(blocks, source, float(value), Role.LIMIT))
    return writes


def _write(blocks: Blocks, source: Source, value: float, role: Role) -> PlannedWrite:
    block = blocks[source.model_id]
    return PlannedWrite(
        source.model_id, source.point, block.to_raw(source.point, value / source.factor), role
    )


def _implemented(blocks: Blocks, model_id: int, *points: str) -> bool:
    block = blocks.get(model_id)
    return block is not None and all(block.implemented(p) for p in points)


def _battery_parameters(
    command: str, blocks: Blocks, power_max_kw: float | None
) -> dict[str, ParameterSpec]:
    """The parameters the registers can honour: `power` with a known maximum, `target` where
    its limit register exists (ceiling on charge, floor on discharge), `reserve` with a
    floor register."""
    params: dict[str, ParameterSpec] = {}
    if command not in WINDOWED_COMMANDS:
        return params
    floor = first_writable(blocks, FLOOR_SOURCES) is not None
    ceiling = first_writable(blocks, CEILING_SOURCES) is not None
    if ceiling if command == "charge" else floor:
        params["target"] = BATTERY_PARAMETERS["target"]
    if power_max_kw is not None and power_max_kw > 0:
        params["power"] = ParameterSpec("kw", 0, round(power_max_kw, 3))
    if floor:
        params["reserve"] = BATTERY_PARAMETERS["reserve"]
    return params


def _command_spec(command: str, params: dict[str, ParameterSpec]) -> CommandSpec:
    return CommandSpec(params, ALL_EXECUTION if command in WINDOWED_COMMANDS else NOT_WINDOWED)


# --- model 124 ------------------------------------------------------------------------------
class StorageControl:
    models: tuple[int, ...] = (124, 802)

    def held(self, command: str) -> bool:
        return STORAGE_MODES[command].held

    def commands(self, blocks: Blocks) -> dict[str, CommandSpec]:
        if not _implemented(blocks, 124, "StorCtl_Mod", "InWRte", "OutWRte"):
            return {}
        timer = _implemented(blocks, 124, "InOutWRte_RvrtTms")
        wcha_max = blocks[124].value("WChaMax")
        power_max = None if wcha_max is None else wcha_max / 1000
        return {
            name: _command_spec(name, _battery_parameters(name, blocks, power_max))
            for name, mode in STORAGE_MODES.items()
            if timer or not mode.held
        }

    def plan(
        self,
        command: str,
        parameters: Mapping[str, float],
        blocks: Blocks,
        settings: Mapping[str, Any],
        reversion_s: int,
    ) -> list[PlannedWrite]:
        mode = STORAGE_MODES[command]
        block = blocks[124]
        wcha_max = block.value("WChaMax")
        percent = 100.0
        if "power" in parameters and wcha_max:
            percent = min(100.0, parameters["power"] * 1000 / wcha_max * 100)
        rates = {Rate.P: percent, Rate.MINUS_P: -percent, Rate.ZERO: 0.0, Rate.FULL: 100.0}
        writes = []
        if block.implemented("InOutWRte_RvrtTms"):
            timeout = reversion_s if mode.held else 0
            writes.append(PlannedWrite(124, "InOutWRte_RvrtTms", timeout, Role.TIMER))
        writes.extend(_limit_writes(command, parameters, blocks, settings))
        if block.implemented("ChaGriSet"):
            writes.append(PlannedWrite(124, "ChaGriSet", mode.grid, Role.LIMIT))
        out_rate = block.to_raw("OutWRte", rates[mode.out_rate])
        in_rate = block.to_raw("InWRte", rates[mode.in_rate])
        writes += [
            PlannedWrite(124, "OutWRte", out_rate, Role.SETPOINT),
            PlannedWrite(124, "InWRte", in_rate, Role.SETPOINT),
            PlannedWrite(124, "StorCtl_Mod", mode.storctl, Role.ENABLE),
        ]
        return writes

    def mode_of(self, blocks: Blocks) -> str:
        return storage_mode_of(blocks)


# --- model 704 with 802 ---------------------------------------------------------------------
_NAMEPLATE = {"charge": "WChaRteMax", "discharge": "WDisChaRteMax"}


class DerControl:
    models: tuple[int, ...] = (704, 802)

    def held(self, command: str) -> bool:
        return DER_MODES[command].held

    def commands(self, blocks: Blocks) -> dict[str, CommandSpec]:
        if not _implemented(blocks, 704, "WSetEna", "WSet"):
            return {}
        timer = _implemented(blocks, 704, "WSetRvrtTms")
        found: dict[str, CommandSpec] = {}
        for name, mode in DER_MODES.items():
            if mode.held and not timer:
                continue
            nameplate = _NAMEPLATE.get(name)
            power_max = None if nameplate is None else blocks[802].value(nameplate)
            if nameplate is not None and not power_max:
                continue  # no known power to charge or discharge at
            kw = None if power_max is None else power_max / 1000
            found[name] = _command_spec(name, _battery_parameters(name, blocks, kw))
        return found

    def plan(
        self,
        command: str,
        parameters: Mapping[str, float],
        blocks: Blocks,
        settings: Mapping[str, Any],
        reversion_s: int,
    ) -> list[PlannedWrite]:
        mode = DER_MODES[command]
        block = blocks[704]
        nameplate = _NAMEPLATE.get(command)
        watts = 0.0  # without a `power`, charge and discharge go at the nameplate rate
        if "power" in parameters:
            watts = parameters["power"] * 1000
        elif nameplate is not None:
            watts = blocks[802].value(nameplate) or 0.0
        writes = []
        if block.implemented("WSetRvrt"):
            writes.append(PlannedWrite(704, "WSetRvrt", 0, Role.TIMER))
        if block.implemented("WSetEnaRvrt"):
            writes.append(PlannedWrite(704, "WSetEnaRvrt", WSET_DISABLED, Role.TIMER))
        if block.implemented("WSetRvrtTms"):
            timeout = reversion_s if mode.held else 0
            writes.append(PlannedWrite(704, "WSetRvrtTms", timeout, Role.TIMER))
        writes.extend(_limit_writes(command, parameters, blocks, settings))
        if block.implemented("WSetMod"):
            writes.append(PlannedWrite(704, "WSetMod", WSET_MOD_WATTS, Role.SETPOINT))
        setpoint = block.to_raw("WSet", mode.setpoint.value * watts)
        enabled = WSET_ENABLED if mode.enabled else WSET_DISABLED
        writes += [
            PlannedWrite(704, "WSet", setpoint, Role.SETPOINT),
            PlannedWrite(704, "WSetEna", enabled, Role.ENABLE),
        ]
        return writes

    def mode_of(self, blocks: Blocks) -> str:
        return der_mode_of(blocks)


# --- capabilities and settings --------------------------------------------------------------
def setting_specs(blocks: Blocks) -> tuple[dict[str, SettingSpec], dict[str, float | bool]]:
    """The settings a device's writable registers hold, with their values now."""
    specs: dict[str, SettingSpec] = {}
    values: dict[str, float | bool] = {}
    for setting in SETTING_SOURCES:
        source = first_writable(blocks, setting.sources)
        value = None if source is None else source.value(blocks)
        if value is None:
            continue
        if setting.unit == "percent":
            specs[setting.key] = SettingSpec("percent", round(value, 1), 0, 100)
        else:  # max_charge_rate, kW: up to the nameplate rate where the device tells it
            nameplate = blocks[802].value("WChaRteMax") if 802 in blocks else None
            ceiling = max(value, (nameplate or 0.0) / 1000)
            specs[setting.key] = SettingSpec(setting.unit, round(value, 3), 0, round(ceiling, 3))
        values[setting.key] = specs[setting.key].default
    specs["scheduler_enabled"] = SettingSpec(None, False, read_only=True)
    values["scheduler_enabled"] = False
    return specs, values


def setting_write(key: str, value: float, blocks: Blocks) -> PlannedWrite | None:
    """The write for one setting, or None when no register holds it."""
    setting = next((s for s in SETTING_SOURCES if s.key == key), None)
    source = None if setting is None else first_writable(blocks, setting.sources)
    return None if source is None else _write(blocks, source, value, Role.LIMIT)


def capabilities_for(
    control: Control | None, blocks: Blocks
) -> tuple[Capabilities, dict[str, float | bool]]:
    commands = {} if control is None else control.commands(blocks)
    settings, values = setting_specs(blocks)
    return Capabilities(commands, settings, BOTH_STRATEGIES if commands else None), values
