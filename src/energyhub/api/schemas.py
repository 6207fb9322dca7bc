"""Pydantic models that document requests and responses in the OpenAPI document.

Responses are serialised by hand (orjson) for speed; these models describe them, and the
schemathesis run checks every response against them."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Generic, Literal, TypeVar
from zoneinfo import available_timezones

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from energyhub.api.goal_schema import ChargingGoal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import RANGE_TEXT, to_utc_in_range
from energyhub.domain.errors import DeviceFailure, all_error_classes
from energyhub.domain.sandbox_profiles import profile_names

T = TypeVar("T")


class Meta(BaseModel):
    requestId: str
    environment: Literal["sandbox", "live"]
    timestamp: str
    latencyMs: float


class ErrorMeta(BaseModel):
    requestId: str
    timestamp: str
    path: str
    latencyMs: float


class ErrorBody(BaseModel):
    code: str = Field(description="Stable error code; clients branch on this.")
    message: str = Field(description="What went wrong and what to do next.")
    details: dict[str, Any] | None = None


class ErrorEnvelope(BaseModel):
    success: Literal[False]
    error: ErrorBody
    meta: ErrorMeta


class Envelope(BaseModel, Generic[T]):
    success: Literal[True]
    data: T
    meta: Meta


class Quantity(BaseModel):
    value: float
    unit: str


class ParameterSpec(BaseModel):
    unit: str
    min: float | None = None
    max: float | None = None


class CommandSpec(BaseModel):
    parameters: dict[str, ParameterSpec]
    execution: list[Literal["immediate", "scheduled", "windowed"]]


class SettingValue(BaseModel):
    value: float | bool
    unit: str | None = None
    min: float | None = None
    max: float | None = None


class Sync(BaseModel):
    available: bool
    lastPulledAt: str | None


class DeviceMetadata(BaseModel):
    model: str
    timezone: str = Field(description="The plant's IANA timezone; push start/end use it.")
    source: Literal["cache", "live"]
    cacheType: Literal["normal", "expedite"] | None = Field(
        default=None, description="Present on single-device reads."
    )


class Links(BaseModel):
    self: str


class LastAction(BaseModel):
    id: str
    command: str
    state: str
    createdAt: str
    updatedAt: str
    links: Links


class BatteryState(BaseModel):
    status: Literal["idle", "charging", "discharging"]
    capacity: float = Field(description="Usable capacity, kWh.")
    level: float = Field(description="State of charge, percent 0-100.")
    chargeRate: float = Field(description="kW; positive charging, negative discharging.")
    dischargeLimit: float = Field(description="Lowest state of charge in normal use, percent.")
    currentMode: str


class EvChargerState(BaseModel):
    """Presence-based: a key is absent when the charger does not report it."""

    status: Literal["available", "charging", "discharging", "scheduled", "error", "offline"]
    isConnected: bool
    isCharging: bool
    currentPower: float | None = None
    maxCurrent: float | None = None
    powerRateLimit: float | None = None
    sessionEnergy: float | None = None
    phases: int | None = Field(default=None, ge=1, le=3)
    voltage: float | None = None
    notChargingReason: (
        Literal["vehicle", "charger", "authorization", "schedule", "unknown"] | None
    ) = None
    activeControlMode: str | None = None


class VehicleRef(BaseModel):
    id: str
    links: Links


class DeviceBase(BaseModel):
    id: str
    userId: str
    vendor: str
    sync: Sync
    metadata: DeviceMetadata
    conflictStrategies: list[Literal["cancel_and_replace", "queue_after"]] | None = Field(
        default=None, description="Absent on a minimally registered device."
    )
    commands: dict[str, CommandSpec]
    settings: dict[str, SettingValue]
    lastAction: LastAction | None = None
    currentSchedule: dict[str, Any] | None


class BatteryDevice(DeviceBase):
    type: Literal["battery"]
    state: BatteryState


class EvChargerDevice(DeviceBase):
    type: Literal["ev-charger"]
    state: EvChargerState
    sessions: bool
    vehicle: VehicleRef | None
    goal: ChargingGoal | None = Field(description="The charging goal; null when none is set.")


class Vehicle(BaseModel):
    id: str
    vendor: str | None
    model: str | None
    vin: str | None
    batteryCapacity: Quantity | None
    stateOfCharge: float | None
    chargerId: str | None
    links: Links


class Pagination(BaseModel):
    limit: int = Field(description="The most items a page holds.")
    offset: int = Field(description="How many items come before this page.")
    total: int = Field(
        description="How many items match. Counting stops 1,000 items past this page: when "
        "at most 1,000 follow it, `total` is exact; when more follow, `total` is `offset` + "
        "the items on this page + 1,000, a lower bound (more items match). A page past the "
        "end (no items) carries the exact number."
    )
    hasMore: bool = Field(
        description="Whether items follow this page; always exact (`offset + limit < total`)."
    )


class Page(BaseModel, Generic[T]):
    items: list[T]
    pagination: Pagination


class DeviceSummary(BaseModel):
    id: str
    vendor: str | None
    type: Literal["battery", "hvac", "ev-charger", "solar-inverter", "vehicle"]
    model: str | None
    available: bool


class UserDevices(BaseModel):
    devices: list[DeviceSummary]
    pagination: Pagination


def _member_of(names: list[str], what: str, hint: str | None = None) -> AfterValidator:
    """Refuses a name not in `names`, saying which are (or `hint`, for long lists)."""
    choices = hint or "one of " + ", ".join(names)

    def check(value: str) -> str:
        if value not in names:
            raise ValueError(f"unknown {what} {value!r}: use {choices}")
        return value

    return AfterValidator(check)


def _enum_schema(names: list[str]) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "enum": names})


# `localtime` is the host's zone, not a name a client can mean (schedules refuse it too)
_TIMEZONES = sorted(available_timezones() - {"localtime"})
_BATTERY_PROFILES = profile_names(DeviceType.BATTERY)
_CHARGER_PROFILES = profile_names(DeviceType.EV_CHARGER)
TIMEZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$"
"""The shape of every IANA name (Europe/Berlin, America/Argentina/Buenos_Aires, Etc/GMT+1,
UTC); which names exist is checked by the service, whose message says what to send."""
# A plain string in the document, not an enum of the ~600 names: generated clients get a
# `str`, and the check stays in the service.
TimezoneName = Annotated[
    str,
    _member_of(_TIMEZONES, "IANA timezone", "an IANA timezone name such as Europe/Berlin"),
    WithJsonSchema(
        {
            "type": "string",
            "format": "iana-timezone",
            "pattern": TIMEZONE_PATTERN,
            "maxLength": 64,
            "description": "An IANA timezone name, such as Europe/Berlin or UTC.",
            "examples": ["Europe/Berlin"],
        }
    ),
]
# Strings checked against a list that the OpenAPI schema shows as an enum.
BatteryProfile = Annotated[
    str, _member_of(_BATTERY_PROFILES, "battery profile"), _enum_schema(_BATTERY_PROFILES)
]
EvChargerProfile = Annotated[
    str, _member_of(_CHARGER_PROFILES, "ev-charger profile"), _enum_schema(_CHARGER_PROFILES)
]


# Spelled out, not `\s`: the validator's regex engine, JSON Schema's (ECMA-262) and Python's
# each take `\s` for a different set of characters, so the schema and the check disagreed.
_NOT_IN_EMAIL = r"@\x00-\x20\x7f-\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
EMAIL_PATTERN = rf"^[^{_NOT_IN_EMAIL}]+@[^{_NOT_IN_EMAIL}]+$"
"""One `@` between two runs of anything but `@`, spaces and control characters."""


def _iso_8601_text(value: object) -> object:
    """Date-times come as ISO 8601 text only: pydantic would take a number as Unix time."""
    if isinstance(value, datetime) or (isinstance(value, str) and _ISO_START.match(value)):
        return value
    raise PydanticCustomError(
        "datetime_type",
        "must be an ISO 8601 date-time such as 2026-12-01T06:00:00Z (a string, not a number)",
    )


def _in_time_range(value: datetime) -> datetime:
    if to_utc_in_range(value) is None:
        raise PydanticCustomError("datetime_range", f"must lie {RANGE_TEXT}")
    return value


_ISO_START = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
YEAR_IN_RANGE = r"^(19[7-9]\d|[2-8]\d{3}|9[0-8]\d{2}|99[0-8]\d|999[0-8])-"
"""The schema's word for the time range: years 1970 to 9998 (the bound in UTC is checked)."""
_IN_RANGE_SCHEMA = WithJsonSchema(
    {"type": "string", "format": "date-time", "pattern": YEAR_IN_RANGE}
)
IsoDateTime = Annotated[
    datetime, BeforeValidator(_iso_8601_text), AfterValidator(_in_time_range), _IN_RANGE_SCHEMA
]
"""A date-time parameter: ISO 8601 text within the service's time range (naive is UTC)."""
IsoAwareDateTime = Annotated[
    AwareDatetime,
    BeforeValidator(_iso_8601_text),
    AfterValidator(_in_time_range),
    _IN_RANGE_SCHEMA,
]

DEVICE_ERROR_CODES = sorted(
    cls.code for cls in all_error_classes() if issubclass(cls, DeviceFailure)
)


def _device_error_code(value: str) -> str:
    if value not in DEVICE_ERROR_CODES:
        raise PydanticCustomError(
            "enum",
            "'{given}' is not a device error code: send one of {allowed}",
            {"given": value, "allowed": ", ".join(DEVICE_ERROR_CODES)},
        )
    return value


DeviceErrorCode = Annotated[
    str, AfterValidator(_device_error_code), _enum_schema(DEVICE_ERROR_CODES)
]


class _SandboxDeviceFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    userId: str = Field(min_length=1, max_length=200)
    email: str | None = Field(default=None, max_length=320, pattern=EMAIL_PATTERN)
    timezone: TimezoneName | None = Field(
        default=None, description="IANA timezone of the plant; default Europe/Berlin."
    )


class SandboxBatteryRequest(_SandboxDeviceFields):
    type: Literal["battery"]
    profile: BatteryProfile | None = Field(default=None, description="Default: battery.")


class SandboxEvChargerRequest(_SandboxDeviceFields):
    type: Literal["ev-charger"]
    profile: EvChargerProfile | None = Field(default=None, description="Default: ev-charger.")


SandboxDeviceRequest = Annotated[
    SandboxBatteryRequest | SandboxEvChargerRequest, Field(discriminator="type")
]


# a wall clock time: year 0001-9999, month 01-12, day 01-31, hour 00-23, minute and second
# 00-59; a day past the end of its month (02-30) is a 400 a pattern cannot know
LOCAL_TIME_PATTERN = (
    r"^([1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
    r"T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$"
)
ConflictStrategyName = Literal["cancel_and_replace", "queue_after"]


class QuantityIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: float = Field(allow_inf_nan=False)
    unit: str = Field(min_length=1, max_length=20)


class PushCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, max_length=60, description="A mode of `commands`.")
    parameters: dict[str, QuantityIn] = Field(default_factory=dict)


class SandboxFailure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    result: Literal["failed"]
    errorCode: DeviceErrorCode = Field(description="The device error to simulate.")


class PushBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: PushCommand
    start: str | None = Field(
        default=None,
        pattern=LOCAL_TIME_PATTERN,
        description="Plant-local wall clock YYYY-MM-DDTHH:MM:SS (no offset).",
    )
    end: str | None = Field(
        default=None,
        pattern=LOCAL_TIME_PATTERN,
        description="Plant-local end of a window; without start the window starts now.",
    )
    onConflict: ConflictStrategyName | None = None
    sandbox: SandboxFailure | None = Field(
        default=None, description="Sandbox only: make the push fail with this code."
    )


class SettingIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: float | bool
    unit: str | None = Field(default=None, max_length=20)


class ActionRecord(BaseModel):
    id: str
    deviceId: str
    type: Literal["battery:set_operation_mode", "ev_charger:set_operation_mode"]
    state: Literal["acknowledged", "scheduled", "deferred", "cancelled", "completed", "failed"]
    command: str
    parameters: dict[str, Quantity]
    start: str
    end: str | None
    onConflict: ConflictStrategyName | None
    result: dict[str, Any] | None
    createdAt: str
    updatedAt: str
    deferredUntil: str | None
    errorCode: str | None
    errorMessage: str | None
    acknowledgedAt: str | None
    completedAt: str | None
    links: Links


class SettingsData(BaseModel):
    settings: dict[str, SettingValue]


class VppLockBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    until: IsoAwareDateTime = Field(
        description="When the lock ends: ISO 8601 with offset or Z, " + RANGE_TEXT + "."
    )


class VppLock(BaseModel):
    deviceId: str
    vppLockedUntil: str


class SandboxConnection(BaseModel):
    deviceId: str
    connected: bool
    disconnectedAt: str | None


class SimulateHoldBody(BaseModel):
    """Set a simulated device's state and hold it (its daily time pattern stops moving it;
    commands still run from it) until a reset."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"minProperties": 1, "examples": [{"pluggedIn": True, "vehicleSoc": 20}]},
    )

    pluggedIn: bool | SkipJsonSchema[None] = Field(
        default=None, description="EV chargers: the simulated car plugged in (true) or away."
    )
    vehicleSoc: float | SkipJsonSchema[None] = Field(
        default=None,
        ge=0,
        le=100,
        description="EV chargers that read the car: its state of charge, percent.",
    )
    level: float | SkipJsonSchema[None] = Field(
        default=None, ge=0, le=100, description="Batteries: the level, percent."
    )


class SimulateResetBody(BaseModel):
    """End the hold: the device follows its time pattern again."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"reset": True}]})

    reset: Literal[True]


SimulateBody = SimulateHoldBody | SimulateResetBody
