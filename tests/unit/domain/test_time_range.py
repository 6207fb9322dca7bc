"""The service's time range (issue 12, defects 3 and 4): wall-clock times near year 1 or
9999 are refused before a conversion that overflowed, in any zone, and stored times are
clamped away from `datetime.max`/`min` (PostgreSQL's +-infinity)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain import errors
from energyhub.domain.clock import EARLIEST, LATEST, clamp_to_range, to_utc_in_range
from energyhub.domain.validation import MAX_WINDOW, check_window_order, resolve_window

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
ZONES = [ZoneInfo("Pacific/Pago_Pago"), ZoneInfo("UTC"), ZoneInfo("Pacific/Kiritimati")]
FIRST = datetime(1, 1, 1)
LAST = datetime(9999, 12, 31, 23, 59, 59)


@pytest.mark.parametrize("tz", ZONES)
def test_a_start_at_either_end_of_the_calendar_is_out_of_range(tz: ZoneInfo) -> None:
    for start, reason in [(FIRST, "start_in_past"), (LAST, "start_too_far_ahead")]:
        with pytest.raises(errors.StartOutOfRange) as caught:
            resolve_window(start, None, tz, NOW)
        assert caught.value.details["reason"] == reason


@pytest.mark.parametrize("tz", ZONES)
def test_an_end_at_either_end_of_the_calendar_is_refused_unconverted(tz: ZoneInfo) -> None:
    with pytest.raises(errors.InvalidRequest):
        check_window_order(None, FIRST, tz, NOW)
    check_window_order(None, LAST, tz, NOW)  # after now: the window's length decides
    with pytest.raises(errors.WindowTooLong):
        resolve_window(None, LAST, tz, NOW)
    with pytest.raises(errors.InvalidRequest):
        resolve_window(None, FIRST, tz, NOW)


def test_a_window_lasts_at_most_seven_days() -> None:
    tz = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 11, 21, 1)
    assert resolve_window(start, start + MAX_WINDOW, tz, NOW).end is not None
    with pytest.raises(errors.WindowTooLong) as caught:
        resolve_window(start, start + MAX_WINDOW + timedelta(seconds=1), tz, NOW)
    assert caught.value.status == 422
    assert caught.value.details == {"maxDuration": "P7D", "field": "end"}


def test_instants_outside_the_range_are_none_even_when_the_offset_overflows() -> None:
    far_west = timezone(timedelta(hours=-5))
    assert to_utc_in_range(datetime(9999, 12, 31, 23, tzinfo=far_west)) is None
    assert to_utc_in_range(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))) is None
    assert to_utc_in_range(EARLIEST - timedelta(microseconds=1)) is None
    assert to_utc_in_range(LATEST) is None
    assert to_utc_in_range(datetime(2026, 1, 1, 1, tzinfo=far_west)) == datetime(
        2026, 1, 1, 6, tzinfo=UTC
    )
    assert to_utc_in_range(datetime(2026, 1, 1)) == datetime(2026, 1, 1, tzinfo=UTC)


def test_clamping_keeps_stored_times_off_datetime_max_and_min() -> None:
    assert clamp_to_range(datetime.max.replace(tzinfo=UTC)) < LATEST
    assert clamp_to_range(datetime.min.replace(tzinfo=UTC)) == EARLIEST
    assert clamp_to_range(NOW) == NOW
