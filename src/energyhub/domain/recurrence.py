"""When a schedule fires: the schedule model (slots, recurrence, exclusions, durations) and
its expansion into UTC occurrences. Pure: no I/O. Parsing and rendering of the API body
are in `energyhub.domain.schedules`, which re-exports the names callers need.

Expansion runs on naive wall-clock `dateutil.rrule`s (so "every day at 02:30" means the
wall clock, whatever the offset), then each wall time goes to UTC through `wall_to_utc`:

- Spring forward (the wall time does not exist, e.g. 02:30 on 2026-03-29 in Berlin): the
  occurrence still fires, shifted forward by the length of the gap, i.e. 03:30 local.
  This is RFC 5545 3.3.5 (iCalendar reads a missing time with the offset before the gap),
  Java's `ZonedDateTime.of`, Temporal's `compatible`, glibc `mktime` and PEP 495 fold=0
  arithmetic. Unlike clamping to 03:00 it keeps slots inside the gap apart and in order.
  Like cron and systemd, the occurrence is never skipped.
- Fall back (the wall time occurs twice, e.g. 01:30 on 2026-11-01 in New York): it fires
  once, at the first occurrence (fold=0, still on summer time), as `clock.local_to_utc`.
- Durations are elapsed time: a slot's end is its UTC start plus the duration, so a 2 h
  slot across a DST change lasts 2 real hours and `P1D` is 24 hours.
- Weekday rules and exclusions test the wall-clock date of the occurrence (the date the
  rrule produced), which a gap shift never changes. An `at` slot fires once; exclusions
  test its date in the schedule's timezone, or its UTC date without one.
- An occurrence belongs to the interval holding its start, and one starting exactly at
  `now` is still next: a dispatcher that asks `occurrences(spec, cursor, now)` and then
  moves its cursor to `now` sees every occurrence exactly once, even two at one instant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from dateutil.rrule import DAILY, rrule

from energyhub.domain.clock import ensure_utc
from energyhub.domain.quantities import Quantity

MAX_DURATION = timedelta(days=7)
_DAY = timedelta(days=1)


class RecurrenceRule(StrEnum):
    DAILY = "daily"
    WEEKLY = "weekly"
    WEEKDAYS = "weekdays"
    WEEKENDS = "weekends"


class Weekday(StrEnum):
    """Declared Monday first, so `number` matches `date.weekday()` and dateutil."""

    MON = "mon"
    TUE = "tue"
    WED = "wed"
    THU = "thu"
    FRI = "fri"
    SAT = "sat"
    SUN = "sun"

    @property
    def number(self) -> int:
        return list(Weekday).index(self)


_RULE_DAYS: dict[RecurrenceRule, tuple[Weekday, ...]] = {
    RecurrenceRule.DAILY: tuple(Weekday),
    RecurrenceRule.WEEKDAYS: tuple(Weekday)[:5],
    RecurrenceRule.WEEKENDS: tuple(Weekday)[5:],
}


@dataclass(frozen=True, slots=True)
class DateRange:
    """An exclusion: local dates `first` to `last`, both inclusive (`from`/`to` in JSON)."""

    first: date
    last: date

    def __contains__(self, day: date) -> bool:
        return self.first <= day <= self.last


@dataclass(frozen=True, slots=True)
class Recurrence:
    """When `time` slots repeat; `rule` is None for `at` slots, which fire once."""

    rule: RecurrenceRule | None
    days: tuple[Weekday, ...] = ()
    """Only for `weekly`, Monday first, no duplicates."""
    exclusions: tuple[DateRange, ...] = ()

    @property
    def weekdays(self) -> tuple[Weekday, ...]:
        """The days the rule fires on."""
        if self.rule is None or self.rule is RecurrenceRule.WEEKLY:
            return self.days
        return _RULE_DAYS[self.rule]

    def exclusion_for(self, day: date) -> DateRange | None:
        """The exclusion covering `day`, the one ending last, so callers can jump past it."""
        covering = [r for r in self.exclusions if day in r]
        return max(covering, key=lambda r: r.last) if covering else None


class SlotKind(StrEnum):
    AT = "at"
    TIME = "time"


@dataclass(frozen=True, slots=True)
class AtSlot:
    at: datetime
    """Aware UTC, millisecond precision."""
    duration: timedelta
    command: str
    parameters: Mapping[str, Quantity] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class TimeSlot:
    local_time: time
    """Wall clock in the schedule's timezone (`time` in JSON)."""
    duration: timedelta
    command: str
    parameters: Mapping[str, Quantity] = field(default_factory=dict, hash=False)


Slot = AtSlot | TimeSlot


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    """A valid schedule body; slots are all of one `kind`, in the order sent."""

    kind: SlotKind
    slots: tuple[Slot, ...]
    timezone: ZoneInfo | None
    recurrence: Recurrence

    def __post_init__(self) -> None:
        if self.kind is SlotKind.TIME and self.timezone is None:
            raise ValueError("time slots need a timezone")


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One firing of slot number `slot`, in UTC; `end` is `start` plus the duration."""

    start: datetime
    end: datetime
    slot: int


# --- durations ------------------------------------------------------------------------------
_DURATION = re.compile(
    r"P(?!$)(?:(?P<years>\d{1,9})Y)?(?:(?P<months>\d{1,9})M)?(?:(?P<weeks>\d{1,9})W)?"
    r"(?:(?P<days>\d{1,9})D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d{1,9})H)?(?:(?P<minutes>\d{1,9})M)?(?:(?P<seconds>\d{1,9})S)?)?"
)
_SECONDS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


def parse_duration(text: str) -> timedelta:
    """ISO 8601 duration of fixed length, 0 < d <= P7D; the ValueError says what to send."""
    found = _DURATION.fullmatch(text)
    if found is None:
        raise ValueError(
            f"{text!r} is not an ISO 8601 duration: use whole numbers like PT30M, PT2H, "
            "PT1H30M or P1D"
        )
    parts = {name: int(value) for name, value in found.groupdict().items() if value is not None}
    if "years" in parts or "months" in parts:
        raise ValueError("years and months have no fixed length: use days (P7D) or hours")
    seconds = sum(_SECONDS[name] * value for name, value in parts.items())
    if seconds == 0:
        raise ValueError("duration must be longer than zero")
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"duration must be at most {format_duration(MAX_DURATION)}")
    return timedelta(seconds=seconds)


def format_duration(duration: timedelta) -> str:
    """The canonical ISO 8601 text: `PT90M` comes back as `PT1H30M`, `PT24H` as `P1D`."""
    days, rest = divmod(int(duration.total_seconds()), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n)
    return "P" + (f"{days}D" if days else "") + (f"T{clock}" if clock else "")


# --- wall clock to UTC ----------------------------------------------------------------------
def wall_to_utc(naive: datetime, tz: ZoneInfo) -> datetime:
    """The DST policy of the module docstring: a gap shifts forward by its length, a fold
    takes its first occurrence. Never raises, unlike `clock.local_to_utc` for pushes."""
    return naive.replace(tzinfo=tz, fold=0).astimezone(UTC)


def _rule(
    recurrence: Recurrence,
    at: time,
    first_day: date,
    until: datetime | None = None,
    count: int | None = None,
) -> rrule:
    days = [day.number for day in recurrence.weekdays]
    start = datetime.combine(first_day, at)
    return rrule(DAILY, dtstart=start, byweekday=days, until=until, count=count)


def _wall_times(
    recurrence: Recurrence, at: time, first_day: date, last_day: date
) -> Iterator[datetime]:
    """Naive wall-clock occurrences of `at` on `first_day`..`last_day`, exclusions skipped."""
    if first_day > last_day or not recurrence.weekdays:
        return
    until = datetime.combine(last_day, at)
    for wall in _rule(recurrence, at, first_day, until=until):
        if recurrence.exclusion_for(wall.date()) is None:
            yield wall


def _next_wall_time(recurrence: Recurrence, at: time, day: date) -> datetime | None:
    """The first non-excluded wall-clock occurrence of `at` on or after `day`; None when
    exclusions cover every remaining date. Jumps past exclusions instead of walking them."""
    if not recurrence.weekdays:
        return None
    while True:
        wall = next(iter(_rule(recurrence, at, day, count=1)), None)
        if wall is None:
            return None
        excluded = recurrence.exclusion_for(wall.date())
        if excluded is None:
            return wall
        if excluded.last >= date.max - timedelta(days=7):
            return None
        day = excluded.last + _DAY


# --- occurrences ----------------------------------------------------------------------------
def occurrences(spec: ScheduleSpec, after: datetime, until: datetime) -> list[Occurrence]:
    """Occurrences starting in [after, until), by start then slot index."""
    after, until = ensure_utc(after), ensure_utc(until)
    found = [
        Occurrence(start, start + slot.duration, index)
        for index, slot in enumerate(spec.slots)
        for start in _starts(spec, slot, after, until)
        if after <= start < until
    ]
    return sorted(found, key=lambda o: (o.start, o.slot))


def next_occurrence(spec: ScheduleSpec, now: datetime) -> Occurrence | None:
    """The first occurrence starting at or after `now` (lowest slot index on a tie)."""
    now = ensure_utc(now)
    best: Occurrence | None = None
    for index, slot in enumerate(spec.slots):
        start = _next_start(spec, slot, now)
        if start is not None and (best is None or start < best.start):
            best = Occurrence(start, start + slot.duration, index)
    return best


def next_fire_at(spec: ScheduleSpec, now: datetime) -> datetime | None:
    """The record's `nextFireAt`: UTC start of the next occurrence; None once all fired."""
    found = next_occurrence(spec, now)
    return found.start if found is not None else None


def _starts(spec: ScheduleSpec, slot: Slot, after: datetime, until: datetime) -> Iterator[datetime]:
    if isinstance(slot, AtSlot):
        if not _at_excluded(spec, slot):
            yield slot.at
        return
    tz = _zone(spec)
    # A day of margin each side: the UTC bounds decide, the local dates only narrow the scan.
    first = max(after.astimezone(tz).date(), date.min + _DAY) - _DAY
    last = min(until.astimezone(tz).date(), date.max - _DAY) + _DAY
    for wall in _wall_times(spec.recurrence, slot.local_time, first, last):
        yield wall_to_utc(wall, tz)


def _next_start(spec: ScheduleSpec, slot: Slot, now: datetime) -> datetime | None:
    if isinstance(slot, AtSlot):
        return slot.at if slot.at >= now and not _at_excluded(spec, slot) else None
    tz = _zone(spec)
    day = max(now.astimezone(tz).date(), date.min + _DAY) - _DAY
    while (wall := _next_wall_time(spec.recurrence, slot.local_time, day)) is not None:
        start = wall_to_utc(wall, tz)
        if start >= now:
            return start
        if wall.date() >= date.max - _DAY:
            return None
        day = wall.date() + _DAY
    return None


def _at_excluded(spec: ScheduleSpec, slot: AtSlot) -> bool:
    day = slot.at.astimezone(spec.timezone).date() if spec.timezone is not None else slot.at.date()
    return spec.recurrence.exclusion_for(day) is not None


def _zone(spec: ScheduleSpec) -> ZoneInfo:
    if spec.timezone is None:  # ruled out by ScheduleSpec.__post_init__
        raise ValueError("time slots need a timezone")
    return spec.timezone
