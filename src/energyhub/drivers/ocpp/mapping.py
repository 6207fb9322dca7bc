"""OCPP to the service and back, as explicit tables (DESIGN "Drivers hide protocols").

Every table has an `unknown` fallback: a value a charger sends that no row names maps to a
safe row, never to an exception. Nothing here does I/O; `docs/hardware.md` prints the same
tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from energyhub.domain.capabilities import (
    ALL_EXECUTION,
    BOTH_STRATEGIES,
    CHARGER_COMMANDS,
    NOT_WINDOWED,
    Capabilities,
    CommandSpec,
    ParameterSpec,
    SettingSpec,
)
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.sessions import EndReason
from energyhub.drivers.ocpp.meters import DEFAULT_MEASURAND, Reading
from energyhub.drivers.ocpp.meters import MEASURANDS as MEASURANDS  # one import for tables
from energyhub.drivers.ocpp.meters import parse_meter_values as parse_meter_values
from energyhub.drivers.ocpp.meters import register_wh as register_wh

OCPP16 = "ocpp1.6"
OCPP201 = "ocpp2.0.1"
SUBPROTOCOLS = (OCPP201, OCPP16)  # preferred first when a charger offers both


# --- connector and charging states -> state fields (spec 2.5) -------------------------------
@dataclass(frozen=True, slots=True)
class StatusRow:
    status: str
    is_connected: bool
    is_charging: bool
    not_charging_reason: str | None  # None: the key is absent (the charger said nothing)


UNKNOWN_STATUS = StatusRow("error", False, False, "unknown")

# OCPP 1.6 ChargePointStatus (StatusNotification.status)
STATUS_16: Mapping[str, StatusRow] = {
    "Available": StatusRow("available", False, False, None),
    "Preparing": StatusRow("available", True, False, "authorization"),
    "Charging": StatusRow("charging", True, True, None),
    "SuspendedEVSE": StatusRow("available", True, False, "charger"),
    "SuspendedEV": StatusRow("available", True, False, "vehicle"),
    "Finishing": StatusRow("available", True, False, "unknown"),
    "Reserved": StatusRow("available", False, False, "authorization"),
    "Unavailable": StatusRow("error", False, False, "charger"),
    "Faulted": StatusRow("error", False, False, "charger"),
}

# OCPP 2.0.1 ConnectorStatusEnumType (StatusNotification.connectorStatus)
CONNECTOR_201: Mapping[str, StatusRow] = {
    "Available": StatusRow("available", False, False, None),
    "Occupied": StatusRow("available", True, False, "unknown"),
    "Reserved": StatusRow("available", False, False, "authorization"),
    "Unavailable": StatusRow("error", False, False, "charger"),
    "Faulted": StatusRow("error", False, False, "charger"),
}

# OCPP 2.0.1 ChargingStateEnumType (TransactionEvent.transactionInfo.chargingState); it
# refines an `Occupied` (or `Available`) connector while a transaction runs.
CHARGING_STATE_201: Mapping[str, StatusRow] = {
    "Charging": StatusRow("charging", True, True, None),
    "EVConnected": StatusRow("available", True, False, "unknown"),
    "SuspendedEV": StatusRow("available", True, False, "vehicle"),
    "SuspendedEVSE": StatusRow("available", True, False, "charger"),
    "Idle": StatusRow("available", False, False, None),
}

OFFLINE = StatusRow("offline", False, False, None)


def status_row(
    protocol: str, connector_status: str | None, charging_state: str | None
) -> StatusRow:
    """The row for what the charger last said; 2.0.1's charging state wins over a connector
    that is merely `Occupied`/`Available`, never over `Faulted`/`Unavailable`."""
    if protocol == OCPP16:
        if connector_status is None:
            return StatusRow("available", False, False, None)
        return STATUS_16.get(connector_status, UNKNOWN_STATUS)
    connector = (
        StatusRow("available", False, False, None)
        if connector_status is None
        else CONNECTOR_201.get(connector_status, UNKNOWN_STATUS)
    )
    if charging_state is not None and connector.status != "error":
        return CHARGING_STATE_201.get(charging_state, UNKNOWN_STATUS)
    return connector


# --- stop reasons -> endReason (spec 2.6) -----------------------------------------------------
REASON_16: Mapping[str, EndReason] = {
    "EVDisconnected": EndReason.UNPLUGGED,
    "Local": EndReason.STOPPED,
    "Remote": EndReason.STOPPED,
    "DeAuthorized": EndReason.STOPPED,
    "EmergencyStop": EndReason.STOPPED,
    "UnlockCommand": EndReason.STOPPED,
    "HardReset": EndReason.STOPPED,
    "SoftReset": EndReason.STOPPED,
    "Reboot": EndReason.STOPPED,
    "PowerLoss": EndReason.POWER_LOST,
    "Other": EndReason.UNKNOWN,
}
REASON_201: Mapping[str, EndReason] = {
    "EVDisconnected": EndReason.UNPLUGGED,
    "StoppedByEV": EndReason.VEHICLE_FINISHED,
    "SOCLimitReached": EndReason.VEHICLE_FINISHED,
    "Local": EndReason.STOPPED,
    "Remote": EndReason.STOPPED,
    "DeAuthorized": EndReason.STOPPED,
    "EmergencyStop": EndReason.STOPPED,
    "EnergyLimitReached": EndReason.STOPPED,
    "TimeLimitReached": EndReason.STOPPED,
    "LocalOutOfCredit": EndReason.STOPPED,
    "MasterPass": EndReason.STOPPED,
    "ImmediateReset": EndReason.STOPPED,
    "Reboot": EndReason.STOPPED,
    "PowerLoss": EndReason.POWER_LOST,
    "GroundFault": EndReason.FAULT,
    "OvercurrentFault": EndReason.FAULT,
    "PowerQuality": EndReason.FAULT,
    "Timeout": EndReason.UNKNOWN,
    "Other": EndReason.UNKNOWN,
}


def end_reason(protocol: str, reason: str | None) -> EndReason:
    """Both protocols say an omitted reason means `Local` (the user stopped at the charger)."""
    table = REASON_16 if protocol == OCPP16 else REASON_201
    return table.get(reason or "Local", EndReason.UNKNOWN)


# --- a restart with a transaction open -> the endReason of the transaction it lost -----------
# OCPP 2.0.1 BootReasonEnumType; a row of None is no restart (the transaction stays open).
BOOT_REASON_201: Mapping[str, EndReason | None] = {
    "PowerUp": EndReason.POWER_LOST,
    "Triggered": None,  # a BootNotification the service asked for (TriggerMessage)
}


def boot_end_reason(protocol: str, reason: str | None) -> EndReason | None:
    """A BootNotification while a transaction is open: the charger restarted and lost it
    (a charger ends its transactions before a planned restart). 1.6 does not say why
    (`unknown`); 2.0.1 does, and any reason no row names is `unknown`."""
    if protocol == OCPP16:
        return EndReason.UNKNOWN
    return BOOT_REASON_201.get(reason or "Unknown", EndReason.UNKNOWN)


# --- what the charger declares -> the capabilities it gets ------------------------------------
@dataclass(frozen=True, slots=True)
class Declaration:
    """What the charger told us it can do (GetConfiguration / GetVariables). Defaults are
    what a charger that says nothing is assumed to do: smart charging in both units, the
    energy register (OCPP's default measurand), no vehicle state of charge, no cable lock,
    schedules of any length (`max_periods` None)."""

    smart_charging: bool = True
    rate_units: frozenset[str] = frozenset({"W", "A"})
    soc: bool = False
    energy_register: bool = True
    cable_lock: bool = False
    max_periods: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "smartCharging": self.smart_charging,
            "rateUnits": sorted(self.rate_units),
            "soc": self.soc,
            "energyRegister": self.energy_register,
            "cableLock": self.cable_lock,
            "maxPeriods": self.max_periods,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any] | None) -> Declaration:
        if not body:
            return cls()
        return cls(
            smart_charging=bool(body.get("smartCharging", True)),
            rate_units=frozenset(body.get("rateUnits", ("W", "A"))),
            soc=bool(body.get("soc", False)),
            energy_register=bool(body.get("energyRegister", True)),
            cable_lock=bool(body.get("cableLock", False)),
            max_periods=_positive(body.get("maxPeriods")),
        )


RATE_UNITS_16 = {"Current": "A", "Power": "W"}  # ChargingScheduleAllowedChargingRateUnit
RATE_UNITS_201 = {"A": "A", "W": "W"}  # SmartChargingCtrlr.RateUnit


def declaration_from_config(
    config: Mapping[str, str],
    *,
    protocol: str,
    writable: frozenset[str] = frozenset(),
) -> Declaration:
    """The declaration from configuration values by their 1.6 key names (2.0.1 variables are
    given under the same names by the 2.0.1 link); a key the charger does not report keeps
    the default. `writable`: the keys reported as writable."""
    base = Declaration()
    profiles = config.get("SupportedFeatureProfiles")
    smart = base.smart_charging if profiles is None else "SmartCharging" in _csv(profiles)
    if "SmartChargingEnabled" in config:
        smart = config["SmartChargingEnabled"].strip().lower() == "true"
    units_table = RATE_UNITS_16 if protocol == OCPP16 else RATE_UNITS_201
    raw_units = config.get("ChargingScheduleAllowedChargingRateUnit")
    units = (
        base.rate_units
        if raw_units is None
        else frozenset(units_table[u] for u in _csv(raw_units) if u in units_table)
    )
    sampled = config.get("MeterValuesSampledData")
    measurands = None if sampled is None else _csv(sampled)
    return Declaration(
        smart_charging=smart and bool(units),
        rate_units=units,
        soc=measurands is not None and "SoC" in measurands,
        energy_register=measurands is None or DEFAULT_MEASURAND in measurands,
        cable_lock="UnlockConnectorOnEVSideDisconnect" in writable,
        max_periods=_positive(config.get("ChargingScheduleMaxPeriods")),
    )


@dataclass(frozen=True, slots=True)
class Discovery:
    """What a charger tells at boot: its declaration, the values it reports for the
    service's settings, and whether it holds its maximum profile (None: it cannot say)."""

    declaration: Declaration
    settings: Mapping[str, float | bool] = field(default_factory=dict)
    max_profile: bool | None = None


def reported_settings(
    config: Mapping[str, str], declaration: Declaration
) -> dict[str, float | bool]:
    """The settings a charger's configuration values (by 1.6 key name) give: `cable_lock` is
    `UnlockConnectorOnEVSideDisconnect` false."""
    reported: dict[str, float | bool] = {}
    unlock = config.get("UnlockConnectorOnEVSideDisconnect", "").strip().lower()
    if declaration.cable_lock and unlock in ("true", "false"):
        reported["cable_lock"] = unlock == "false"
    return reported


def ceiling_settings(limit: Limit) -> dict[str, float]:
    """The setting a charger's maximum profile shows: `max_charge_rate` (kW) for a limit in
    W, `max_charge_current` (A) for one in A."""
    if limit.unit == "W":
        return {"max_charge_rate": round(limit.value / 1000, 3)}
    return {"max_charge_current": round(limit.value, 1)}


def _csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _positive(value: Any) -> int | None:
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number > 0 else None


CHARGE_BOUNDS: Mapping[str, ParameterSpec] = {
    "power": ParameterSpec("kw", 1.4, 22),
    "current": ParameterSpec("a", 6, 32),
    "target": ParameterSpec("percent", 10, 100),
    "energy": ParameterSpec("kwh", 0.1, 100),
}


def capabilities_for(declaration: Declaration) -> Capabilities:
    """The commands map and settings a charger gets from its declaration. A charger that
    takes charging profiles gets the `auto.*` strategies: the service plans them and sends
    each plan as a schedule (`profiles.py`)."""
    smart = declaration.smart_charging
    parameters: dict[str, ParameterSpec] = {}
    if smart and "W" in declaration.rate_units:
        parameters["power"] = CHARGE_BOUNDS["power"]
    if smart and "A" in declaration.rate_units:
        parameters["current"] = CHARGE_BOUNDS["current"]
    if declaration.soc:
        parameters["target"] = CHARGE_BOUNDS["target"]
    if declaration.energy_register:
        parameters["energy"] = CHARGE_BOUNDS["energy"]
    commands: dict[str, CommandSpec] = {"charge": CommandSpec(parameters, ALL_EXECUTION)}
    if smart:
        commands["idle"] = CommandSpec({}, NOT_WINDOWED)
        commands.update({name: CHARGER_COMMANDS[name] for name in STRATEGIES})
    settings: dict[str, SettingSpec] = {}
    if smart and "W" in declaration.rate_units:
        settings["max_charge_rate"] = SettingSpec("kw", 22, 1.4, 22)
    if smart and "A" in declaration.rate_units:
        settings["max_charge_current"] = SettingSpec("a", 32, 6, 32)
    if declaration.cable_lock:
        settings["cable_lock"] = SettingSpec(None, False)
    settings["scheduler_enabled"] = SettingSpec(None, False, read_only=True)
    return Capabilities(commands, settings, BOTH_STRATEGIES, sessions=True)


# --- commands -> charging limits ---------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Limit:
    """One charging schedule limit in the unit the charger takes (`W` or `A`)."""

    value: float
    unit: str


@dataclass(frozen=True, slots=True)
class CommandPlan:
    """What a command does at the charger: the limit profile it sets, whether it starts a
    transaction when none runs, and the stop conditions the service enforces."""

    limit: Limit | None
    start: bool
    stop_at_kwh: float | None = None
    target_soc: float | None = None


def ceiling(settings: Mapping[str, Any], declaration: Declaration) -> Limit:
    """The charger's ceiling from its settings, in a unit it takes: `charge` without a rate
    charges at this."""
    if "W" in declaration.rate_units:
        return Limit(round(float(settings.get("max_charge_rate", 22)) * 1000, 1), "W")
    return Limit(round(float(settings.get("max_charge_current", 32)), 1), "A")


def plan_command(
    command: str,
    parameters: Mapping[str, float],
    settings: Mapping[str, Any],
    declaration: Declaration,
) -> CommandPlan:
    """`charge`: a profile at `power` (W) or `current` (A), else the ceiling, and a start;
    `idle`: a 0 limit that keeps the session; a strategy: a 0 limit under its schedule (the
    charger pauses where no schedule is in force). Raises KeyError for a command OCPP
    cannot do (the commands map never declares one)."""
    if command == "idle" or command in STRATEGIES:
        unit = "W" if "W" in declaration.rate_units else "A"
        return CommandPlan(Limit(0.0, unit), start=False)
    if command != "charge":
        raise KeyError(command)
    limit: Limit | None = None
    if "power" in parameters:
        limit = Limit(round(parameters["power"] * 1000, 1), "W")
    elif "current" in parameters:
        limit = Limit(round(parameters["current"], 1), "A")
    elif declaration.smart_charging:
        limit = ceiling(settings, declaration)
    return CommandPlan(
        limit,
        start=True,
        stop_at_kwh=parameters.get("energy"),
        target_soc=parameters.get("target"),
    )


# --- settings -> configuration writes -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ConfigWrite:
    """A configuration value for ChangeConfiguration (1.6 key) or SetVariables (2.0.1
    component and variable)."""

    key_16: str
    component_201: str
    variable_201: str
    value: str


def cable_lock_write(locked: bool) -> ConfigWrite:
    """`cable_lock` true: the cable stays locked when the car side is unplugged."""
    return ConfigWrite(
        "UnlockConnectorOnEVSideDisconnect",
        "OCPPCommCtrlr",
        "UnlockOnEVSideDisconnect",
        "false" if locked else "true",
    )


def setting_limit(key: str, value: float) -> Limit:
    """`max_charge_rate` (kW) / `max_charge_current` (A): the charger-wide maximum profile."""
    if key == "max_charge_rate":
        return Limit(round(value * 1000, 1), "W")
    if key == "max_charge_current":
        return Limit(round(value, 1), "A")
    raise KeyError(key)


# --- state body ---------------------------------------------------------------------------------
def state_body(
    row: StatusRow,
    telemetry: Mapping[str, Any],
    session_energy_kwh: float | None,
    active_mode: str | None,
) -> dict[str, Any]:
    """The spec 2.5 `state`: presence-based keys only when the charger reported them. An
    exporting charger is `discharging`, with negative power and `isCharging` false."""
    state: dict[str, Any] = {
        "status": row.status,
        "isConnected": row.is_connected,
        "isCharging": row.is_charging,
    }
    power_w = telemetry.get(Reading.POWER_W.value)
    if power_w is not None:
        state["currentPower"] = round(power_w / 1000, 3)
        if power_w < 0 and row.status not in ("error", "offline"):
            state["status"] = "discharging"
            state["isCharging"] = False
    if Reading.OFFERED_A.value in telemetry:
        state["maxCurrent"] = round(telemetry[Reading.OFFERED_A.value], 1)
    if Reading.OFFERED_W.value in telemetry:
        state["powerRateLimit"] = round(telemetry[Reading.OFFERED_W.value] / 1000, 3)
    if session_energy_kwh is not None:
        state["sessionEnergy"] = round(session_energy_kwh, 3)
    phases = telemetry.get("phases")
    if phases:
        state["phases"] = int(phases)
    if Reading.VOLTAGE_V.value in telemetry:
        state["voltage"] = round(telemetry[Reading.VOLTAGE_V.value], 1)
    if row.not_charging_reason is not None and not state["isCharging"]:
        state["notChargingReason"] = row.not_charging_reason
    if active_mode is not None:
        state["activeControlMode"] = active_mode
    return state
