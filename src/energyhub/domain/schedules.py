"""Recurring schedules as the API sees them (CONTRACT 7): a PUT body parsed into a
`ScheduleSpec`, the spec rendered back into the record's pieces, and the schedule's state.
Pure: no I/O. The model and its expansion (`next_fire_at`, the DST policy) live in
`energyhub.domain.recurrence`; the names callers need are re-exported here.

Choices the spec leaves open, decided here:

- Body errors are collected, not first-wins: one 400 `INVALID_REQUEST` lists every problem
  in `details.errors` as `{path, message}`, paths spelled like the API's other body errors
  (pydantic's `loc` joined with dots): `body.slots.1.duration`. Unknown keys are refused.
- `at` slots fire once. A `recurrence.rule` (or `days`) with `at` slots is refused rather
  than ignored: a client sending `daily` expects a repeat it would not get. `exclusions`
  are allowed; they test the date of `at` in `timezone`, or its UTC date without one.
- Durations: ISO 8601 `PnW`/`PnDTnHnMnS`, whole numbers, 0 < d <= P7D; years and months
  are refused (no fixed length).
- `null` counts as absent for optional fields, so `schedule_body` parses back to the spec.
- `at` is kept to the millisecond, the precision of every time in a response. A past `at`
  is not a body error: it has simply fired (the service layer may refuse it).
- DST for `time` slots: a wall time in a spring-forward gap fires shifted forward by the
  gap (02:30 -> 03:30 local, as RFC 5545); one that occurs twice fires once, at its first
  occurrence; durations are elapsed time (a 2 h slot across a change lasts 2 real hours).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from energyhub.domain.clock import RANGE_TEXT, isoformat_utc, to_utc_in_range
from energyhub.domain.errors import InvalidRequest
from energyhub.domain.quantities import Quantity
from energyhub.domain.recurrence import (
    AtSlot,
    DateRange,
    Occurrence,
    Recurrence,
    RecurrenceRule,
    ScheduleSpec,
    Slot,
    SlotKind,
    TimeSlot,
    Weekday,
    format_duration,
    next_fire_at,
    next_occurrence,
    occurrences,
    parse_duration,
)

__all__ = [
    "AtSlot",
    "DateRange",
    "Occurrence",
    "Recurrence",
    "RecurrenceRule",
    "ScheduleSpec",
    "ScheduleState",
    "Slot",
    "SlotKind",
    "TimeSlot",
    "Weekday",
    "next_fire_at",
    "next_occurrence",
    "occurrences",
    "parse_schedule",
    "recurrence_body",
    "schedule_body",
    "schedule_state",
    "slot_body",
]

MAX_SLOTS = 100
MAX_EXCLUSIONS = 100
MAX_COMMAND_LENGTH = 60
MAX_UNIT_LENGTH = 20


class ScheduleState(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    DELETED = "deleted"


def schedule_state(spec: ScheduleSpec, now: datetime) -> ScheduleState:
    """`active` while an occurrence is ahead, else `completed` (`deleted` is the caller's)."""
    return ScheduleState.ACTIVE if next_occurrence(spec, now) else ScheduleState.COMPLETED


# --- rendering ------------------------------------------------------------------------------
def slot_body(slot: Slot) -> dict[str, Any]:
    """A slot as the record shows it: the client's fields, normalised."""
    head = (
        {"at": isoformat_utc(slot.at)}
        if isinstance(slot, AtSlot)
        else {"time": slot.local_time.strftime("%H:%M")}
    )
    return {
        **head,
        "duration": format_duration(slot.duration),
        "command": slot.command,
        "parameters": {name: q.to_json() for name, q in slot.parameters.items()},
    }


def recurrence_body(recurrence: Recurrence) -> dict[str, Any] | None:
    """The record's `recurrence`; None for `at` slots without exclusions."""
    body: dict[str, Any] = {}
    if recurrence.rule is not None:
        body["rule"] = recurrence.rule.value
    if recurrence.rule is RecurrenceRule.WEEKLY:
        body["days"] = [day.value for day in recurrence.days]
    if recurrence.exclusions:
        body["exclusions"] = [
            {"from": r.first.isoformat(), "to": r.last.isoformat()} for r in recurrence.exclusions
        ]
    return body or None


def schedule_body(spec: ScheduleSpec) -> dict[str, Any]:
    """`timezone`, `recurrence` and `slots` for the record; `parse_schedule` reads it back."""
    return {
        "timezone": spec.timezone.key if spec.timezone is not None else None,
        "recurrence": recurrence_body(spec.recurrence),
        "slots": [slot_body(slot) for slot in spec.slots],
    }


# --- parsing --------------------------------------------------------------------------------
_WALL_TIME = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class _Problems:
    """Collects `{path, message}` so one response names everything to fix."""

    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "message": message})

    def unknown_keys(self, raw: Mapping[str, Any], known: tuple[str, ...], path: str) -> None:
        for key in raw:
            if key not in known:
                self.add(f"{path}.{key}", f"unknown field: use only {', '.join(known)}")

    def check(self) -> None:
        if self.errors:
            raise _invalid(self.errors)


def _invalid(errors: list[dict[str, str]]) -> InvalidRequest:
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return InvalidRequest(
        f"Invalid schedule: {first['path']}: {first['message']}{more}; see details.errors.",
        errors=errors,
    )


def parse_schedule(body: object) -> ScheduleSpec:
    """A decoded PUT body to a spec; every problem found goes into one 400 `INVALID_REQUEST`."""
    if not isinstance(body, dict):
        raise _invalid([{"path": "body", "message": "must be a JSON object with slots"}])
    problems = _Problems()
    problems.unknown_keys(body, ("slots", "timezone", "recurrence"), "body")
    tz = _timezone(body.get("timezone"), problems)
    kind, slots = _slots(body.get("slots"), problems)
    recurrence = _recurrence(body.get("recurrence"), kind, problems)
    if kind is SlotKind.TIME and body.get("timezone") is None:
        problems.add(
            "body.timezone", "required with time slots: send an IANA name such as Europe/Berlin"
        )
    problems.check()
    assert kind is not None  # every way to leave it None added a problem
    return ScheduleSpec(kind, tuple(slots), tz, recurrence)


@cache
def _timezone_names() -> frozenset[str]:
    """IANA names; `localtime` is the host's zone, not a name a client can mean."""
    return frozenset(available_timezones() - {"localtime"})


def _timezone(raw: object, problems: _Problems) -> ZoneInfo | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or raw not in _timezone_names():
        problems.add("body.timezone", "must be an IANA timezone name such as Europe/Berlin")
        return None
    return ZoneInfo(raw)


def _slots(raw: object, problems: _Problems) -> tuple[SlotKind | None, list[Slot]]:
    path = "body.slots"
    if not isinstance(raw, list) or not raw or len(raw) > MAX_SLOTS:
        problems.add(path, f"required: send an array of 1 to {MAX_SLOTS} slots")
        return None, []
    kinds: set[SlotKind] = set()
    slots: list[Slot] = []
    for index, item in enumerate(raw):
        kind, slot = _slot(item, f"{path}.{index}", problems)
        if kind is not None:
            kinds.add(kind)
        if slot is not None:
            slots.append(slot)
    if len(kinds) > 1:
        problems.add(path, "mixes at and time slots: send every slot with at, or all with time")
        return None, slots
    return (kinds.pop() if kinds else None), slots


def _slot(raw: object, path: str, problems: _Problems) -> tuple[SlotKind | None, Slot | None]:
    if not isinstance(raw, dict):
        problems.add(path, "must be an object with at or time, duration and command")
        return None, None
    before = len(problems.errors)
    problems.unknown_keys(raw, ("at", "time", "duration", "command", "parameters"), path)
    at, wall = raw.get("at"), raw.get("time")
    kind = SlotKind.AT if at is not None else SlotKind.TIME if wall is not None else None
    if at is not None and wall is not None:
        problems.add(path, "has both at and time: send one of them")
        kind = None
    elif kind is None:
        problems.add(path, "needs at (ISO 8601 timestamp with offset) or time (HH:mm)")
    instant = _instant(at, f"{path}.at", problems) if kind is SlotKind.AT else None
    local = _wall_time(wall, f"{path}.time", problems) if kind is SlotKind.TIME else None
    duration = _duration(raw.get("duration"), f"{path}.duration", problems)
    command = _command(raw.get("command"), f"{path}.command", problems)
    parameters = _parameters(raw.get("parameters"), f"{path}.parameters", problems)
    if len(problems.errors) > before or duration is None or command is None:
        return kind, None
    if instant is not None:
        return kind, AtSlot(instant, duration, command, parameters)
    if local is not None:
        return kind, TimeSlot(local, duration, command, parameters)
    return kind, None


def _instant(raw: object, path: str, problems: _Problems) -> datetime | None:
    try:
        if not isinstance(raw, str):
            raise ValueError
        parsed = datetime.fromisoformat(raw)
        if parsed.tzinfo is None:
            raise ValueError
    except ValueError:
        problems.add(path, "must be an ISO 8601 timestamp with offset or Z: 2026-12-01T06:00Z")
        return None
    utc = to_utc_in_range(parsed)
    if utc is None:
        problems.add(path, f"must lie {RANGE_TEXT}")
        return None
    return utc.replace(microsecond=utc.microsecond // 1000 * 1000)


def _wall_time(raw: object, path: str, problems: _Problems) -> time | None:
    found = _WALL_TIME.fullmatch(raw) if isinstance(raw, str) else None
    if found is None:
        problems.add(path, "must be a wall-clock time HH:mm from 00:00 to 23:59, e.g. 06:30")
        return None
    return time(int(found[1]), int(found[2]))


def _duration(raw: object, path: str, problems: _Problems) -> timedelta | None:
    if not isinstance(raw, str):
        problems.add(path, "required: an ISO 8601 duration such as PT2H or PT30M")
        return None
    try:
        return parse_duration(raw)
    except ValueError as exc:
        problems.add(path, str(exc))
        return None


def _command(raw: object, path: str, problems: _Problems) -> str | None:
    if not isinstance(raw, str) or not 1 <= len(raw) <= MAX_COMMAND_LENGTH:
        problems.add(path, f"required: a command name of 1 to {MAX_COMMAND_LENGTH} characters")
        return None
    return raw


def _parameters(raw: object, path: str, problems: _Problems) -> dict[str, Quantity]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.add(path, 'must map parameter names to {"value": number, "unit": string}')
        return {}
    found: dict[str, Quantity] = {}
    for name, value in raw.items():
        quantity = _quantity(value, f"{path}.{name}", problems)
        if quantity is not None:
            found[name] = quantity
    return found


def _quantity(raw: object, path: str, problems: _Problems) -> Quantity | None:
    if not isinstance(raw, dict):
        problems.add(path, 'must be a quantity {"value": number, "unit": string}')
        return None
    problems.unknown_keys(raw, ("value", "unit"), path)
    value, unit = _number(raw.get("value")), raw.get("unit")
    if value is None:
        problems.add(f"{path}.value", "required: a finite number")
    if not isinstance(unit, str) or not 1 <= len(unit) <= MAX_UNIT_LENGTH:
        problems.add(f"{path}.unit", f"required: a unit of 1 to {MAX_UNIT_LENGTH} characters")
        return None
    return Quantity(value, unit) if value is not None else None


def _number(raw: object) -> float | None:
    """A JSON number as a finite float; booleans and numbers beyond float are refused."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    try:
        value = float(raw)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _recurrence(raw: object, kind: SlotKind | None, problems: _Problems) -> Recurrence:
    path = "body.recurrence"
    default_rule = RecurrenceRule.DAILY if kind is SlotKind.TIME else None
    if raw is None:
        return Recurrence(default_rule)
    if not isinstance(raw, dict):
        problems.add(path, 'must be an object such as {"rule": "daily"}')
        return Recurrence(default_rule)
    problems.unknown_keys(raw, ("rule", "days", "exclusions"), path)
    rule, rule_ok = default_rule, True
    names = ", ".join(r.value for r in RecurrenceRule)
    if raw.get("rule") is None:
        pass
    elif kind is SlotKind.AT:
        problems.add(f"{path}.rule", "at slots fire once: drop the rule, or repeat time slots")
        rule_ok = False
    elif raw["rule"] not in [r.value for r in RecurrenceRule]:
        problems.add(f"{path}.rule", f"must be one of {names}")
        rule_ok = False
    else:
        rule = RecurrenceRule(raw["rule"])
    days = _days(raw.get("days"), rule, rule_ok, f"{path}.days", problems)
    return Recurrence(rule, days, _exclusions(raw.get("exclusions"), path, problems))


def _days(
    raw: object, rule: RecurrenceRule | None, rule_ok: bool, path: str, problems: _Problems
) -> tuple[Weekday, ...]:
    if raw is None:
        if rule is RecurrenceRule.WEEKLY:
            problems.add(path, 'required with rule weekly: e.g. ["mon", "thu"]')
        return ()
    if rule is not RecurrenceRule.WEEKLY:
        if rule_ok:
            problems.add(path, "only rule weekly takes days: drop days or use weekly")
        return ()
    names = [d.value for d in Weekday]
    if not isinstance(raw, list) or not raw or any(d not in names for d in raw):
        problems.add(path, f"must be a non-empty array of {', '.join(names)}")
        return ()
    if len(set(raw)) != len(raw):
        problems.add(path, "must not repeat a day")
        return ()
    return tuple(sorted((Weekday(d) for d in raw), key=lambda d: d.number))


def _exclusions(raw: object, parent: str, problems: _Problems) -> tuple[DateRange, ...]:
    path = f"{parent}.exclusions"
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_EXCLUSIONS:
        problems.add(path, f'must be an array of at most {MAX_EXCLUSIONS} {{"from", "to"}} dates')
        return ()
    found: list[DateRange] = []
    for index, item in enumerate(raw):
        item_path = f"{path}.{index}"
        if not isinstance(item, dict):
            problems.add(item_path, 'must be {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}')
            continue
        problems.unknown_keys(item, ("from", "to"), item_path)
        first = _date(item.get("from"), f"{item_path}.from", problems)
        last = _date(item.get("to"), f"{item_path}.to", problems)
        if first is not None and last is not None:
            if first > last:
                problems.add(item_path, "from must not be after to (both dates are inclusive)")
            else:
                found.append(DateRange(first, last))
    return tuple(found)


def _date(raw: object, path: str, problems: _Problems) -> date | None:
    try:
        if not isinstance(raw, str) or not _DATE.fullmatch(raw):
            raise ValueError
        return date.fromisoformat(raw)
    except ValueError:
        problems.add(path, "required: a calendar date YYYY-MM-DD")
        return None
