"""Schedules (CONTRACT 7): body parsing, recurrence rules, exclusions, DST, next fire time."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.errors import InvalidRequest
from energyhub.domain.quantities import Quantity
from energyhub.domain.recurrence import format_duration, parse_duration
from energyhub.domain.schedules import (
    AtSlot,
    Occurrence,
    RecurrenceRule,
    ScheduleSpec,
    ScheduleState,
    SlotKind,
    TimeSlot,
    Weekday,
    next_fire_at,
    next_occurrence,
    occurrences,
    parse_schedule,
    recurrence_body,
    schedule_body,
    schedule_state,
    slot_body,
)


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC)


def slot(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"time": "06:00", "duration": "PT2H", "command": "charge"}
    return {**base, **fields}


def at_slot(at: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"at": at, "duration": "PT1H", "command": "discharge"}
    return {**base, **fields}


def schedule(
    *slots: dict[str, Any], timezone: str | None = "Europe/Berlin", **fields: Any
) -> ScheduleSpec:
    body: dict[str, Any] = {"slots": list(slots) or [slot()], **fields}
    if timezone is not None:
        body["timezone"] = timezone
    return parse_schedule(body)


def starts(spec: ScheduleSpec, after: datetime, until: datetime) -> list[datetime]:
    return [o.start for o in occurrences(spec, after, until)]


def problems(body: object) -> list[dict[str, str]]:
    with pytest.raises(InvalidRequest) as caught:
        parse_schedule(body)
    assert caught.value.status == 400
    assert caught.value.code == "INVALID_REQUEST"
    errors: list[dict[str, str]] = caught.value.details["errors"]
    return errors


VALID: dict[str, Any] = {
    "timezone": "Europe/Berlin",
    "recurrence": {"rule": "weekly", "days": ["mon", "thu"]},
    "slots": [
        slot(parameters={"power": {"value": 3, "unit": "kw"}}),
        slot(time="18:30", duration="PT30M", command="discharge"),
    ],
}


def mutated(path: str, value: Any) -> dict[str, Any]:
    """VALID with one field set (dotted path, list indexes as numbers); `...` deletes it."""
    body = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    target: Any = body
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is ...:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return body


# --- body errors: each names the field to fix -----------------------------------------------
@pytest.mark.parametrize(
    ("path", "value", "error_path", "says"),
    [
        ("extra", 1, "body.extra", "unknown field"),
        ("slots", ..., "body.slots", "array of 1 to 100 slots"),
        ("slots", [], "body.slots", "array of 1 to 100 slots"),
        ("slots", {"time": "06:00"}, "body.slots", "array"),
        ("slots", [slot()] * 101, "body.slots", "1 to 100"),
        ("slots.1", "06:00", "body.slots.1", "must be an object"),
        ("slots.1.at", "2026-06-01T06:00:00Z", "body.slots.1", "both at and time"),
        ("slots.1.time", ..., "body.slots.1", "needs at"),
        ("slots.1.colour", "red", "body.slots.1.colour", "unknown field"),
        ("slots.1.time", "24:00", "body.slots.1.time", "HH:mm"),
        ("slots.1.time", "6:30", "body.slots.1.time", "HH:mm"),
        ("slots.1.time", "06:30:00", "body.slots.1.time", "HH:mm"),
        ("slots.1.time", 630, "body.slots.1.time", "HH:mm"),
        ("slots.1.duration", ..., "body.slots.1.duration", "required"),
        ("slots.1.duration", 3600, "body.slots.1.duration", "ISO 8601 duration"),
        ("slots.1.duration", "PT0S", "body.slots.1.duration", "longer than zero"),
        ("slots.1.duration", "P0D", "body.slots.1.duration", "longer than zero"),
        ("slots.1.duration", "P1M", "body.slots.1.duration", "no fixed length"),
        ("slots.1.duration", "P1Y", "body.slots.1.duration", "no fixed length"),
        ("slots.1.duration", "P8D", "body.slots.1.duration", "at most P7D"),
        ("slots.1.duration", "PT1.5H", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.duration", "2h", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.duration", "P", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.duration", "PT", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.duration", "P1H", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.duration", "pt2h", "body.slots.1.duration", "not an ISO 8601"),
        ("slots.1.command", ..., "body.slots.1.command", "command name"),
        ("slots.1.command", "", "body.slots.1.command", "command name"),
        ("slots.1.command", "x" * 61, "body.slots.1.command", "command name"),
        ("slots.1.command", ["charge"], "body.slots.1.command", "command name"),
        ("slots.0.parameters", [], "body.slots.0.parameters", "parameter names"),
        ("slots.0.parameters.power", 3, "body.slots.0.parameters.power", "quantity"),
        ("slots.0.parameters.power.value", True, "body.slots.0.parameters.power.value", "number"),
        ("slots.0.parameters.power.value", "3", "body.slots.0.parameters.power.value", "number"),
        ("slots.0.parameters.power.value", float("nan"), "body.slots.0.parameters.power.value", ""),
        ("slots.0.parameters.power.value", 10**400, "body.slots.0.parameters.power.value", ""),
        ("slots.0.parameters.power.unit", ..., "body.slots.0.parameters.power.unit", "unit"),
        ("slots.0.parameters.power.unit", "", "body.slots.0.parameters.power.unit", "unit"),
        ("slots.0.parameters.power.min", 1, "body.slots.0.parameters.power.min", "unknown"),
        ("timezone", ..., "body.timezone", "required with time slots"),
        ("timezone", "Mars/Olympus", "body.timezone", "IANA"),
        ("timezone", "europe/berlin", "body.timezone", "IANA"),
        ("timezone", "localtime", "body.timezone", "IANA"),
        ("timezone", 1, "body.timezone", "IANA"),
        ("recurrence", "daily", "body.recurrence", "must be an object"),
        ("recurrence.every", 2, "body.recurrence.every", "unknown field"),
        ("recurrence.rule", "monthly", "body.recurrence.rule", "daily, weekly, weekdays"),
        ("recurrence.rule", ["daily"], "body.recurrence.rule", "must be one of"),
        ("recurrence.days", ..., "body.recurrence.days", "required with rule weekly"),
        ("recurrence.days", [], "body.recurrence.days", "non-empty array"),
        ("recurrence.days", ["monday"], "body.recurrence.days", "mon, tue"),
        ("recurrence.days", "mon", "body.recurrence.days", "non-empty array"),
        ("recurrence.days", ["mon", "thu", "mon"], "body.recurrence.days", "repeat"),
        ("recurrence.rule", "daily", "body.recurrence.days", "only rule weekly takes days"),
        ("recurrence.exclusions", {"from": "2026-01-01"}, "body.recurrence.exclusions", "array"),
        ("recurrence.exclusions", [{}] * 101, "body.recurrence.exclusions", "at most 100"),
        ("recurrence.exclusions", ["2026-01-01"], "body.recurrence.exclusions.0", "from"),
        (
            "recurrence.exclusions",
            [
                {"from": "2026-01-01", "to": "2026-01-02"},
                {"from": "2026-02-30", "to": "2026-03-01"},
            ],
            "body.recurrence.exclusions.1.from",
            "calendar date",
        ),
        (
            "recurrence.exclusions",
            [{"from": "2026-01-01", "to": "2026-1-2"}],
            "body.recurrence.exclusions.0.to",
            "YYYY-MM-DD",
        ),
        (
            "recurrence.exclusions",
            [{"from": "2026-01-01"}],
            "body.recurrence.exclusions.0.to",
            "required",
        ),
        (
            "recurrence.exclusions",
            [{"from": "2026-01-05", "to": "2026-01-04"}],
            "body.recurrence.exclusions.0",
            "from must not be after to",
        ),
        (
            "recurrence.exclusions",
            [{"from": "2026-01-01", "to": "2026-01-02", "reason": "holiday"}],
            "body.recurrence.exclusions.0.reason",
            "unknown field",
        ),
    ],
)
def test_body_error_names_the_field(path: str, value: Any, error_path: str, says: str) -> None:
    found = problems(mutated(path, value))
    assert [e["path"] for e in found] == [error_path]
    assert says in found[0]["message"]


def test_body_that_is_not_an_object_is_refused() -> None:
    assert problems([slot()]) == [{"path": "body", "message": "must be a JSON object with slots"}]


def test_mixed_slot_variants_are_refused() -> None:
    body = {"timezone": "UTC", "slots": [slot(), at_slot("2026-06-01T06:00:00Z")]}
    assert [e["path"] for e in problems(body)] == ["body.slots"]


@pytest.mark.parametrize("at", ["2026-06-01T06:00:00", "tomorrow", "2026-06-01", 1780000000])
def test_at_needs_an_absolute_timestamp(at: Any) -> None:
    found = problems({"slots": [at_slot("2026-06-01T06:00:00Z"), at_slot(at)]})
    assert [e["path"] for e in found] == ["body.slots.1.at"]
    assert "offset or Z" in found[0]["message"]


def test_at_slots_refuse_a_rule_they_would_ignore() -> None:
    body = {"slots": [at_slot("2026-06-01T06:00:00Z")], "recurrence": {"rule": "daily"}}
    found = problems(body)
    assert [e["path"] for e in found] == ["body.recurrence.rule"]
    assert "fire once" in found[0]["message"]


def test_every_problem_is_reported_at_once_and_the_first_is_in_the_message() -> None:
    body = {
        "slots": [slot(duration="P1M"), slot(time="25:00", command="")],
        "recurrence": {"rule": "fortnightly"},
        "owner": "me",
    }
    with pytest.raises(InvalidRequest) as caught:
        parse_schedule(body)
    paths = [e["path"] for e in caught.value.details["errors"]]
    assert paths == [
        "body.owner",
        "body.slots.0.duration",
        "body.slots.1.time",
        "body.slots.1.command",
        "body.recurrence.rule",
        "body.timezone",
    ]
    assert caught.value.message.startswith("Invalid schedule: body.owner: unknown field")
    assert "(and 5 more)" in caught.value.message


# --- parsing: what a valid body becomes ----------------------------------------------------
def test_valid_body_becomes_a_spec() -> None:
    spec = parse_schedule(VALID)
    assert spec.kind is SlotKind.TIME
    assert spec.timezone is not None
    assert spec.timezone.key == "Europe/Berlin"
    assert spec.recurrence.rule is RecurrenceRule.WEEKLY
    assert spec.recurrence.days == (Weekday.MON, Weekday.THU)
    assert spec.slots == (
        TimeSlot(time(6, 0), timedelta(hours=2), "charge", {"power": Quantity(3.0, "kw")}),
        TimeSlot(time(18, 30), timedelta(minutes=30), "discharge", {}),
    )


def test_time_slots_default_to_daily_and_nulls_count_as_absent() -> None:
    spec = parse_schedule({"timezone": "UTC", "recurrence": None, "slots": [slot(parameters=None)]})
    assert spec.recurrence.rule is RecurrenceRule.DAILY
    assert recurrence_body(spec.recurrence) == {"rule": "daily"}
    assert (
        parse_schedule(
            {"timezone": "UTC", "recurrence": {"rule": None, "days": None}, "slots": [slot()]}
        )
        == spec
    )


def test_at_is_normalised_to_utc_milliseconds() -> None:
    spec = schedule(at_slot("2026-06-01T08:00:00.123456+02:00"), timezone=None)
    assert spec.kind is SlotKind.AT
    assert spec.recurrence.rule is None
    first = spec.slots[0]
    assert isinstance(first, AtSlot)
    assert first.at == utc(2026, 6, 1, 6, 0, 0, 123000)
    assert slot_body(first) == {
        "at": "2026-06-01T06:00:00.123Z",
        "duration": "PT1H",
        "command": "discharge",
        "parameters": {},
    }
    assert recurrence_body(spec.recurrence) is None


def test_days_are_put_in_week_order() -> None:
    spec = schedule(recurrence={"rule": "weekly", "days": ["sun", "wed", "mon"]})
    assert recurrence_body(spec.recurrence) == {"rule": "weekly", "days": ["mon", "wed", "sun"]}


@pytest.mark.parametrize(
    "body",
    [
        VALID,
        {
            "timezone": "America/New_York",
            "recurrence": {
                "rule": "weekends",
                "exclusions": [{"from": "2026-12-24", "to": "2027-01-01"}],
            },
            "slots": [slot(time="23:15", duration="PT90M")],
        },
        {
            "timezone": None,
            "slots": [at_slot("2026-06-01T06:00:00Z"), at_slot("2026-06-02T06:00:00Z")],
        },
        {
            "timezone": "Europe/Berlin",
            "recurrence": {"exclusions": [{"from": "2026-06-01", "to": "2026-06-01"}]},
            "slots": [
                at_slot(
                    "2026-06-01T06:00:00Z", parameters={"target": {"value": 80, "unit": "percent"}}
                )
            ],
        },
    ],
)
def test_rendered_schedule_parses_back_to_the_same_spec(body: dict[str, Any]) -> None:
    spec = parse_schedule(body)
    assert parse_schedule(schedule_body(spec)) == spec


def test_rendered_body_is_normalised() -> None:
    spec = schedule(slot(duration="PT90M", parameters={"power": {"value": 3, "unit": "kw"}}))
    assert schedule_body(spec) == {
        "timezone": "Europe/Berlin",
        "recurrence": {"rule": "daily"},
        "slots": [
            {
                "time": "06:00",
                "duration": "PT1H30M",
                "command": "charge",
                "parameters": {"power": {"value": 3.0, "unit": "kw"}},
            }
        ],
    }


@pytest.mark.parametrize(
    ("text", "length", "canonical"),
    [
        ("PT2H", timedelta(hours=2), "PT2H"),
        ("PT30M", timedelta(minutes=30), "PT30M"),
        ("PT1H30M", timedelta(minutes=90), "PT1H30M"),
        ("PT90M", timedelta(minutes=90), "PT1H30M"),
        ("PT45S", timedelta(seconds=45), "PT45S"),
        ("P1D", timedelta(days=1), "P1D"),
        ("PT24H", timedelta(days=1), "P1D"),
        ("P1DT2H", timedelta(hours=26), "P1DT2H"),
        ("P1W", timedelta(days=7), "P7D"),
    ],
)
def test_durations(text: str, length: timedelta, canonical: str) -> None:
    assert parse_duration(text) == length
    assert format_duration(length) == canonical


# --- rules ----------------------------------------------------------------------------------
def test_daily_fires_every_day_at_the_wall_time() -> None:
    spec = schedule(slot(time="06:00"))  # CEST: 04:00 UTC
    assert starts(spec, utc(2026, 6, 1), utc(2026, 6, 4)) == [
        utc(2026, 6, 1, 4),
        utc(2026, 6, 2, 4),
        utc(2026, 6, 3, 4),
    ]
    # [after, until): an occurrence at `after` is in, one at `until` is out.
    assert starts(spec, utc(2026, 6, 1, 4), utc(2026, 6, 3, 4)) == [
        utc(2026, 6, 1, 4),
        utc(2026, 6, 2, 4),
    ]


def test_weekly_fires_on_its_days_only() -> None:
    spec = schedule(recurrence={"rule": "weekly", "days": ["thu", "mon"]})
    # 2026-06-01 is a Monday.
    assert starts(spec, utc(2026, 6, 1), utc(2026, 6, 15)) == [
        utc(2026, 6, 1, 4),
        utc(2026, 6, 4, 4),
        utc(2026, 6, 8, 4),
        utc(2026, 6, 11, 4),
    ]


def test_weekdays_fire_monday_to_friday() -> None:
    spec = schedule(recurrence={"rule": "weekdays"})
    found = starts(spec, utc(2026, 6, 1), utc(2026, 6, 15))
    assert [d.day for d in found] == [1, 2, 3, 4, 5, 8, 9, 10, 11, 12]


def test_weekends_fire_saturday_and_sunday() -> None:
    spec = schedule(recurrence={"rule": "weekends"})
    found = starts(spec, utc(2026, 6, 1), utc(2026, 6, 15))
    assert found == [
        utc(2026, 6, 6, 4),
        utc(2026, 6, 7, 4),
        utc(2026, 6, 13, 4),
        utc(2026, 6, 14, 4),
    ]


def test_weekday_is_the_local_day_not_the_utc_day() -> None:
    # Monday 00:30 in Berlin is Sunday 22:30 UTC.
    spec = schedule(slot(time="00:30"), recurrence={"rule": "weekly", "days": ["mon"]})
    assert starts(spec, utc(2026, 6, 1), utc(2026, 6, 9)) == [utc(2026, 6, 7, 22, 30)]


# --- exclusions -----------------------------------------------------------------------------
def test_exclusions_skip_whole_local_dates_inclusive() -> None:
    spec = schedule(
        recurrence={
            "exclusions": [
                {"from": "2026-06-02", "to": "2026-06-03"},
                {"from": "2026-06-05", "to": "2026-06-05"},
            ]
        }
    )
    found = starts(spec, utc(2026, 6, 1), utc(2026, 6, 7))
    assert [d.day for d in found] == [1, 4, 6]


def test_exclusion_uses_the_local_date() -> None:
    # 00:30 Berlin on June 2nd is 22:30 UTC on June 1st: excluding June 2nd skips it.
    spec = schedule(
        slot(time="00:30"), recurrence={"exclusions": [{"from": "2026-06-02", "to": "2026-06-02"}]}
    )
    assert starts(spec, utc(2026, 5, 31), utc(2026, 6, 3)) == [
        utc(2026, 5, 31, 22, 30),
        utc(2026, 6, 2, 22, 30),
    ]


def test_next_fire_at_jumps_over_an_exclusion() -> None:
    spec = schedule(
        recurrence={"rule": "weekdays", "exclusions": [{"from": "2026-06-02", "to": "2026-08-31"}]}
    )
    assert next_fire_at(spec, utc(2026, 6, 1, 12)) == utc(2026, 9, 1, 4)


def test_exclusion_to_the_end_of_time_completes_a_repeating_schedule() -> None:
    spec = schedule(recurrence={"exclusions": [{"from": "2026-06-03", "to": "9999-12-31"}]})
    now = utc(2026, 6, 2, 5)
    assert next_fire_at(spec, utc(2026, 6, 1, 5)) == utc(2026, 6, 2, 4)
    assert next_fire_at(spec, now) is None
    assert schedule_state(spec, now) is ScheduleState.COMPLETED


def test_at_slot_exclusion_uses_the_schedule_timezone_or_utc() -> None:
    late = at_slot("2026-06-01T23:30:00Z")  # June 2nd in Berlin, June 1st in UTC
    exclusions = {"exclusions": [{"from": "2026-06-02", "to": "2026-06-02"}]}
    in_berlin = schedule(late, timezone="Europe/Berlin", recurrence=exclusions)
    in_utc = schedule(late, timezone=None, recurrence=exclusions)
    assert next_fire_at(in_berlin, utc(2026, 6, 1)) is None
    assert next_fire_at(in_utc, utc(2026, 6, 1)) == utc(2026, 6, 1, 23, 30)


# --- at slots and next_fire_at --------------------------------------------------------------
def test_at_slots_fire_once_then_the_schedule_is_completed() -> None:
    clock = FakeClock(utc(2026, 6, 1, 5))
    spec = schedule(
        at_slot("2026-06-01T06:00:00Z"), at_slot("2026-06-03T06:00:00+02:00"), timezone=None
    )
    assert next_fire_at(spec, clock.now()) == utc(2026, 6, 1, 6)
    assert schedule_state(spec, clock.now()) is ScheduleState.ACTIVE
    clock.set(utc(2026, 6, 1, 6))  # an occurrence starting exactly now is still next
    assert next_occurrence(spec, clock.now()) == Occurrence(
        utc(2026, 6, 1, 6), utc(2026, 6, 1, 7), 0
    )
    clock.advance(1)
    assert next_fire_at(spec, clock.now()) == utc(2026, 6, 3, 4)
    clock.advance(timedelta(days=3))
    assert next_fire_at(spec, clock.now()) is None
    assert schedule_state(spec, clock.now()) is ScheduleState.COMPLETED
    assert starts(spec, utc(2026, 1, 1), utc(2027, 1, 1)) == [
        utc(2026, 6, 1, 6),
        utc(2026, 6, 3, 4),
    ]


def test_next_fire_at_counts_an_occurrence_starting_now() -> None:
    spec = schedule(slot(time="06:00"))
    assert next_fire_at(spec, utc(2026, 6, 1, 3, 59)) == utc(2026, 6, 1, 4)
    assert next_fire_at(spec, utc(2026, 6, 1, 4)) == utc(2026, 6, 1, 4)
    assert next_fire_at(spec, utc(2026, 6, 1, 4, 0, 1)) == utc(2026, 6, 2, 4)


def test_multiple_slots_interleave_in_time_order() -> None:
    spec = schedule(slot(time="22:00"), slot(time="06:00"), slot(time="12:00", duration="PT15M"))
    found = occurrences(spec, utc(2026, 6, 1), utc(2026, 6, 2, 12))
    assert [(o.start, o.slot) for o in found] == [
        (utc(2026, 6, 1, 4), 1),
        (utc(2026, 6, 1, 10), 2),
        (utc(2026, 6, 1, 20), 0),
        (utc(2026, 6, 2, 4), 1),
        (utc(2026, 6, 2, 10), 2),
    ]
    assert found[1].end == utc(2026, 6, 1, 10, 15)
    assert next_occurrence(spec, utc(2026, 6, 1, 11)) == Occurrence(
        utc(2026, 6, 1, 20), utc(2026, 6, 1, 22), 0
    )


def test_consecutive_windows_see_each_occurrence_once() -> None:
    """A dispatcher moving its cursor window by window neither misses nor repeats one,
    not even two slots due at the same instant."""
    spec = schedule(slot(time="06:00"), slot(time="06:00", command="idle"), slot(time="06:07"))
    cursor, seen = utc(2026, 6, 1), list[tuple[datetime, int]]()
    for _ in range(48):  # half-hour windows: one ends exactly at 04:00 UTC
        later = cursor + timedelta(minutes=30)
        seen.extend((o.start, o.slot) for o in occurrences(spec, cursor, later))
        cursor = later
    assert seen == [(utc(2026, 6, 1, 4), 0), (utc(2026, 6, 1, 4), 1), (utc(2026, 6, 1, 4, 7), 2)]
    assert next_occurrence(spec, utc(2026, 6, 1, 4)) == Occurrence(
        utc(2026, 6, 1, 4), utc(2026, 6, 1, 6), 0
    )


def test_slot_crossing_midnight_belongs_to_its_start_day() -> None:
    spec = schedule(
        slot(time="23:00", duration="PT3H"),
        recurrence={
            "rule": "weekly",
            "days": ["mon"],
            "exclusions": [{"from": "2026-06-02", "to": "2026-06-02"}],
        },
    )
    # Monday 23:00 CEST to Tuesday 02:00 CEST; Tuesday's exclusion does not touch it.
    assert occurrences(spec, utc(2026, 6, 1), utc(2026, 6, 3)) == [
        Occurrence(utc(2026, 6, 1, 21), utc(2026, 6, 2, 0), 0)
    ]
    # Asked from inside the running slot: it already started, so it is not in the window.
    assert occurrences(spec, utc(2026, 6, 1, 22), utc(2026, 6, 3)) == []


# --- DST ------------------------------------------------------------------------------------
def test_berlin_spring_forward_gap_time_fires_shifted_by_the_gap() -> None:
    # 2026-03-29: 02:00 CET -> 03:00 CEST. 02:30 does not exist; it fires at 03:30 CEST.
    spec = schedule(slot(time="02:30"), timezone="Europe/Berlin")
    assert starts(spec, utc(2026, 3, 28), utc(2026, 3, 31)) == [
        utc(2026, 3, 28, 1, 30),  # 02:30 CET
        utc(2026, 3, 29, 1, 30),  # 03:30 CEST
        utc(2026, 3, 30, 0, 30),  # 02:30 CEST
    ]
    assert next_fire_at(spec, utc(2026, 3, 28, 12)) == utc(2026, 3, 29, 1, 30)


def test_new_york_spring_forward_gap_time_fires_shifted_by_the_gap() -> None:
    # 2026-03-08: 02:00 EST -> 03:00 EDT. 02:30 fires at 03:30 EDT.
    spec = schedule(slot(time="02:30"), timezone="America/New_York")
    assert starts(spec, utc(2026, 3, 7), utc(2026, 3, 10)) == [
        utc(2026, 3, 7, 7, 30),  # 02:30 EST
        utc(2026, 3, 8, 7, 30),  # 03:30 EDT
        utc(2026, 3, 9, 6, 30),  # 02:30 EDT
    ]


def test_gap_slots_stay_apart_and_in_order() -> None:
    spec = schedule(slot(time="02:15"), slot(time="02:45"), timezone="Europe/Berlin")
    assert [
        (o.start, o.slot) for o in occurrences(spec, utc(2026, 3, 29), utc(2026, 3, 29, 12))
    ] == [
        (utc(2026, 3, 29, 1, 15), 0),
        (utc(2026, 3, 29, 1, 45), 1),
    ]


def test_berlin_fall_back_repeated_time_fires_once_at_the_first() -> None:
    # 2026-10-25: 03:00 CEST -> 02:00 CET, so 02:30 happens at 00:30 and at 01:30 UTC.
    spec = schedule(slot(time="02:30"), timezone="Europe/Berlin")
    assert starts(spec, utc(2026, 10, 24, 12), utc(2026, 10, 26, 12)) == [
        utc(2026, 10, 25, 0, 30),
        utc(2026, 10, 26, 1, 30),
    ]
    assert next_fire_at(spec, utc(2026, 10, 25, 0, 31)) == utc(2026, 10, 26, 1, 30)


def test_new_york_fall_back_repeated_time_fires_once_at_the_first() -> None:
    # 2026-11-01: 02:00 EDT -> 01:00 EST, so 01:30 happens at 05:30 and at 06:30 UTC.
    spec = schedule(slot(time="01:30"), timezone="America/New_York")
    assert starts(spec, utc(2026, 10, 31, 12), utc(2026, 11, 2, 12)) == [
        utc(2026, 11, 1, 5, 30),
        utc(2026, 11, 2, 6, 30),
    ]
    assert next_fire_at(spec, utc(2026, 11, 1, 5, 31)) == utc(2026, 11, 2, 6, 30)


def test_duration_is_elapsed_time_across_spring_forward() -> None:
    # 01:30 CET + 2 real hours = 04:30 CEST (the wall clock shows 3 hours).
    spec = schedule(slot(time="01:30", duration="PT2H"), timezone="Europe/Berlin")
    assert occurrences(spec, utc(2026, 3, 29), utc(2026, 3, 29, 12)) == [
        Occurrence(utc(2026, 3, 29, 0, 30), utc(2026, 3, 29, 2, 30), 0)
    ]


def test_duration_is_elapsed_time_across_fall_back() -> None:
    # 00:30 EDT + 2 real hours = 01:30 EST (the wall clock shows 1 hour).
    spec = schedule(slot(time="00:30", duration="PT2H"), timezone="America/New_York")
    assert occurrences(spec, utc(2026, 11, 1), utc(2026, 11, 1, 12)) == [
        Occurrence(utc(2026, 11, 1, 4, 30), utc(2026, 11, 1, 6, 30), 0)
    ]


def test_daily_one_day_slot_is_24_hours_not_a_calendar_day() -> None:
    spec = schedule(slot(time="12:00", duration="P1D"), timezone="Europe/Berlin")
    (found,) = occurrences(spec, utc(2026, 3, 28, 11), utc(2026, 3, 28, 12))
    assert found.end - found.start == timedelta(hours=24)
    assert found.end == utc(2026, 3, 29, 11)  # 13:00 CEST on the wall clock


def test_exclusions_render_as_iso_dates() -> None:
    spec = schedule(
        recurrence={"rule": "weekdays", "exclusions": [{"from": "2026-12-24", "to": "2026-12-26"}]}
    )
    assert spec.recurrence.exclusions[0].first == date(2026, 12, 24)
    assert recurrence_body(spec.recurrence) == {
        "rule": "weekdays",
        "exclusions": [{"from": "2026-12-24", "to": "2026-12-26"}],
    }
