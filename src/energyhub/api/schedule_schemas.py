"""OpenAPI models of schedules and charging sessions (spec 2.6, 2.8, CONTRACT 6, 7).

The PUT body is parsed by `domain.schedules.parse_schedule`, which words every error; the
models here describe it (and the responses) for the docs and for schemathesis."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from energyhub.api.schemas import YEAR_IN_RANGE, Pagination, QuantityIn, TimezoneName
from energyhub.domain.clock import RANGE_TEXT
from energyhub.domain.schedules import MAX_COMMAND_LENGTH, MAX_EXCLUSIONS, MAX_SLOTS

# At least one component, not all zero (`P`, `PT` and `P0D` are refused); the P7D ceiling is
# in the description, as no pattern can add up the components.
DURATION_PATTERN = (
    r"^P(?=\d|T\d)(?=.*[1-9])(?:\d{1,9}W)?(?:\d{1,9}D)?"
    r"(?:T(?=\d)(?:\d{1,9}H)?(?:\d{1,9}M)?(?:\d{1,9}S)?)?$"
)
WALL_TIME_PATTERN = r"^([01]\d|2[0-3]):[0-5]\d$"
WeekdayName = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WeekDays = Annotated[
    list[WeekdayName],
    Field(min_length=1, max_length=7, json_schema_extra={"uniqueItems": True}),
]
"""Each day at most once (the service refuses a repeated day)."""
RuleName = Literal["daily", "weekly", "weekdays", "weekends"]

_DURATION = Field(
    pattern=DURATION_PATTERN,
    description="ISO 8601 duration of fixed length, over zero and at most P7D: PT30M, PT2H, "
    "P1D. A window's length for commands that allow `windowed`.",
    examples=["PT2H"],
)
_COMMAND = Field(
    min_length=1,
    max_length=MAX_COMMAND_LENGTH,
    description="A command of the device's `commands` map.",
)


class _SlotFields(BaseModel):
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")  # look-aheads

    duration: str = _DURATION
    command: str = _COMMAND
    parameters: dict[str, QuantityIn] | None = Field(
        default=None, description="Quantities, checked as a push's parameters."
    )


class AtSlotIn(_SlotFields):
    """Fires once, at an absolute time."""

    at: AwareDatetime = Field(
        description="ISO 8601 with offset or Z, " + RANGE_TEXT + ".",
        json_schema_extra={"pattern": YEAR_IN_RANGE},
    )


class TimeSlotIn(_SlotFields):
    """Fires at a wall-clock time in the schedule's `timezone`, by its recurrence."""

    time: str = Field(pattern=WALL_TIME_PATTERN, description="HH:mm", examples=["06:30"])


class ExclusionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: date = Field(alias="from", description="First excluded local date (inclusive).")
    to: date = Field(description="Last excluded local date (inclusive).")


class RecurrenceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: RuleName | None = Field(
        default=None, description="For time slots; default daily. At slots take no rule."
    )
    days: WeekDays | None = Field(default=None, description="Only with rule weekly; each day once.")
    exclusions: list[ExclusionIn] | None = Field(
        default=None,
        max_length=MAX_EXCLUSIONS,
        description="Local date ranges skipped silently.",
    )


class AtRecurrenceIn(BaseModel):
    """At slots fire once: no rule, only dates to skip."""

    model_config = ConfigDict(extra="forbid")

    exclusions: list[ExclusionIn] | None = Field(
        default=None,
        max_length=MAX_EXCLUSIONS,
        description="Local date ranges skipped silently.",
    )


class AtScheduleBody(BaseModel):
    """Slots that each fire once, at an absolute time."""

    model_config = ConfigDict(extra="forbid")

    slots: list[AtSlotIn] = Field(min_length=1, max_length=MAX_SLOTS)
    timezone: TimezoneName | None = Field(
        default=None, description="IANA timezone in which `exclusions` dates are read (else UTC)."
    )
    recurrence: AtRecurrenceIn | None = None


class TimeScheduleBody(BaseModel):
    """Slots at a wall-clock time, repeated by `recurrence` (daily by default)."""

    model_config = ConfigDict(extra="forbid")

    slots: list[TimeSlotIn] = Field(min_length=1, max_length=MAX_SLOTS)
    timezone: TimezoneName = Field(description="IANA timezone of the slots' `time`.")
    recurrence: RecurrenceIn | None = None


ScheduleBody = AtScheduleBody | TimeScheduleBody
"""Slots are all `at` or all `time`, never mixed; `time` slots need `timezone`."""


class QuantityOut(BaseModel):
    value: float
    unit: str


class AtSlotOut(BaseModel):
    at: str
    duration: str
    command: str
    parameters: dict[str, QuantityOut]


class TimeSlotOut(BaseModel):
    time: str
    duration: str
    command: str
    parameters: dict[str, QuantityOut]


class ExclusionOut(BaseModel):
    from_: str = Field(alias="from")
    to: str


class RecurrenceOut(BaseModel):
    rule: RuleName | None = None
    days: list[WeekdayName] | None = None
    exclusions: list[ExclusionOut] | None = None


class SkippedOccurrence(BaseModel):
    """An occurrence that could not be placed as an action; the schedule carried on."""

    slot: int = Field(description="Index of the slot in `slots`.")
    start: str
    end: str
    errorCode: str
    errorMessage: str
    details: dict[str, Any] | None


class ScheduleRecord(BaseModel):
    id: str
    deviceId: str
    deviceType: Literal["battery", "ev_charger"]
    state: Literal["active", "completed", "deleted"]
    timezone: str | None
    recurrence: RecurrenceOut | None
    slots: list[AtSlotOut | TimeSlotOut]
    createdAt: str
    updatedAt: str
    nextFireAt: str | None = Field(description="UTC start of the next occurrence; null once done.")
    skipped: list[SkippedOccurrence] = Field(
        description="Occurrences that could not be placed (newest 100)."
    )


class SessionCost(BaseModel):
    value: float
    currency: str


class ChargingSession(BaseModel):
    """`endedAt` and `endReason` are absent while active (and `endReason` when
    the charger gave none)."""

    id: str
    status: Literal["active", "completed"]
    startedAt: str
    endedAt: str | None = None
    energyDelivered: QuantityOut
    measurement: Literal["metered", "oem_reported", "inferred"]
    endReason: (
        Literal["unplugged", "vehicle_finished", "stopped", "power_lost", "fault", "unknown"] | None
    ) = None
    cost: SessionCost | None = Field(
        default=None,
        description="What the session cost while a charging strategy ran: grid energy at "
        "the import price in force, surplus energy at the export price (what exporting it "
        "would have earned). null when no strategy ran, or the site has no tariff.",
    )
    energyFromSurplus: QuantityOut | None = Field(
        default=None,
        description="The part of the energy charged while a strategy ran that came from "
        "the site's surplus; null when no strategy ran.",
    )


class SessionWindowOut(BaseModel):
    from_: str = Field(alias="from")
    to: str = Field(description="Send this as `to` on later pages.")


class SessionsPage(BaseModel):
    items: list[ChargingSession]
    pagination: Pagination
    window: SessionWindowOut
