"""Charging sessions: the model, the query window and the listing rules (spec 2.6, 4.8;
CONTRACT 6)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.errors import InvalidRequest
from energyhub.domain.sessions import (
    ChargingSession,
    EndReason,
    Measurement,
    SessionQuery,
    SessionStatus,
    SessionWindow,
    overlaps,
    select_sessions,
    session_body,
)

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
H = timedelta(hours=1)


def completed(
    start: datetime,
    end: datetime,
    *,
    id: str = "ses_1",
    energy: float = 10.0,
    reason: EndReason | None = EndReason.UNPLUGGED,
) -> ChargingSession:
    return ChargingSession(
        id, "dev", SessionStatus.COMPLETED, start, end, energy, Measurement.METERED, reason
    )


def active(start: datetime, *, id: str = "ses_a", energy: float = 1.0) -> ChargingSession:
    return ChargingSession(
        id, "dev", SessionStatus.ACTIVE, start, None, energy, Measurement.INFERRED
    )


def error_path(exc: pytest.ExceptionInfo[InvalidRequest]) -> str:
    assert exc.value.code == "INVALID_REQUEST"
    assert exc.value.status == 400
    [entry] = exc.value.details["errors"]
    return str(entry["path"])


# --- the model ------------------------------------------------------------------------------


def test_naive_times_are_taken_as_utc() -> None:
    s = completed(datetime(2026, 6, 1, 8), datetime(2026, 6, 1, 9))
    assert s.started_at == datetime(2026, 6, 1, 8, tzinfo=UTC)
    assert s.ended_at == datetime(2026, 6, 1, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    "build",
    [
        lambda: ChargingSession(
            "s", "d", SessionStatus.ACTIVE, NOW, NOW + H, 1.0, Measurement.METERED
        ),
        lambda: ChargingSession(
            "s", "d", SessionStatus.ACTIVE, NOW, None, 1.0, Measurement.METERED, EndReason.FAULT
        ),
        lambda: ChargingSession(
            "s", "d", SessionStatus.COMPLETED, NOW, None, 1.0, Measurement.METERED
        ),
        lambda: completed(NOW, NOW - H),
        lambda: completed(NOW, NOW + H, energy=-0.1),
        lambda: completed(NOW, NOW + H, energy=float("nan")),
        lambda: completed(NOW, NOW + H, energy=float("inf")),
    ],
    ids=[
        "active-with-end",
        "active-with-reason",
        "completed-without-end",
        "ends-before-start",
        "negative-energy",
        "nan-energy",
        "infinite-energy",
    ],
)
def test_impossible_sessions_are_refused(build: Callable[[], object]) -> None:
    with pytest.raises(ValueError, match=r"session|energy"):
        build()


def test_a_completed_session_may_have_no_reason_and_zero_length() -> None:
    s = completed(NOW, NOW, energy=0.0, reason=None)
    assert s.end_reason is None
    assert s.energy_kwh == 0.0


# --- the window and the query ---------------------------------------------------------------


def test_window_defaults_to_the_last_30_days_from_the_clock() -> None:
    window = SessionWindow.resolve(FakeClock(NOW))
    assert (window.start, window.end) == (NOW - timedelta(days=30), NOW)


def test_window_with_only_to_spans_30_days_before_it() -> None:
    """A client paging with the echoed `to` keeps the same window."""
    to = NOW - timedelta(days=3)
    window = SessionWindow.resolve(FakeClock(NOW), end=to)
    assert (window.start, window.end) == (to - timedelta(days=30), to)


def test_window_with_only_from_ends_now() -> None:
    start = NOW - timedelta(days=90)
    window = SessionWindow.resolve(FakeClock(NOW), start=start)
    assert (window.start, window.end) == (start, NOW)


def test_window_converts_offsets_to_utc() -> None:
    plus2 = datetime(2026, 6, 1, 14, 0, tzinfo=UTC).astimezone(ZoneInfo("Europe/Berlin"))
    window = SessionWindow.resolve(FakeClock(NOW), start=plus2 - H, end=plus2)
    assert window.end == NOW + 2 * H
    assert window.end.tzinfo is UTC
    assert window.to_json() == {
        "from": "2026-06-01T13:00:00.000Z",
        "to": "2026-06-01T14:00:00.000Z",
    }


def test_from_after_to_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequest) as exc:
        SessionWindow.resolve(FakeClock(NOW), start=NOW + timedelta(seconds=1), end=NOW)
    assert error_path(exc) == "query.from"


def test_from_after_the_default_to_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequest):
        SessionWindow.resolve(FakeClock(NOW), start=NOW + timedelta(milliseconds=1))


def test_from_equal_to_to_is_a_valid_instant() -> None:
    assert SessionWindow(NOW, NOW).start == NOW


@pytest.mark.parametrize(
    ("limit", "offset", "path"),
    [(0, 0, "query.limit"), (51, 0, "query.limit"), (-1, 0, "query.limit"),
     (10, -1, "query.offset"), (10, 1_000_001, "query.offset")],
)  # fmt: skip
def test_bad_limit_or_offset_mirrors_the_api_layer(limit: int, offset: int, path: str) -> None:
    with pytest.raises(InvalidRequest) as exc:
        SessionQuery(SessionWindow(NOW - H, NOW), limit=limit, offset=offset)
    assert error_path(exc) == path


def test_query_defaults_and_bounds() -> None:
    window = SessionWindow(NOW - H, NOW)
    query = SessionQuery(window)
    assert (query.limit, query.offset, query.status) == (10, 0, None)
    assert SessionQuery(window, limit=1).limit == 1
    assert SessionQuery(window, limit=50, offset=1_000_000).limit == 50


# --- overlap --------------------------------------------------------------------------------

WINDOW = SessionWindow(NOW - 10 * H, NOW)


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        (completed(NOW - 12 * H, NOW - 11 * H), False),  # ended before from
        (completed(NOW - 12 * H, NOW - 10 * H), False),  # ended exactly at from
        (completed(NOW - 12 * H, NOW - 9 * H), True),  # ended inside
        (completed(NOW - 5 * H, NOW - 4 * H), True),  # inside
        (completed(NOW - 12 * H, NOW + H), True),  # encloses the window
        (completed(NOW, NOW + H), False),  # started exactly at to
        (active(NOW - 20 * H), True),  # still running, started long before
        (active(NOW - H), True),
        (active(NOW), False),  # starts at to: newer than the window
    ],
)
def test_overlap_rule(session: ChargingSession, expected: bool) -> None:
    assert overlaps(session, WINDOW) is expected


# --- listing --------------------------------------------------------------------------------


def history() -> list[ChargingSession]:
    return [
        completed(NOW - 30 * H, NOW - 29 * H, id="ses_old"),  # outside the window
        completed(NOW - 9 * H, NOW - 8 * H, id="ses_b"),
        completed(NOW - 6 * H, NOW - 5 * H, id="ses_c"),
        completed(NOW - 6 * H, NOW - 4 * H, id="ses_d"),  # ties ses_c on start
        completed(NOW - 11 * H, NOW - 9 * H, id="ses_a"),  # started before from
        active(NOW - 2 * H, id="ses_e"),
    ]


def ids(sessions: list[ChargingSession]) -> list[str]:
    return [s.id for s in sessions]


def test_listing_is_newest_first_with_ties_on_id() -> None:
    page = select_sessions(history(), SessionQuery(WINDOW))
    assert ids(page.items) == ["ses_e", "ses_d", "ses_c", "ses_b", "ses_a"]
    assert page.total == 5


def test_listing_pages_with_offset_and_limit() -> None:
    pages = [select_sessions(history(), SessionQuery(WINDOW, limit=2, offset=o)) for o in (0, 2, 4)]
    assert [ids(p.items) for p in pages] == [["ses_e", "ses_d"], ["ses_c", "ses_b"], ["ses_a"]]
    assert {p.total for p in pages} == {5}
    beyond = select_sessions(history(), SessionQuery(WINDOW, offset=5))
    assert (beyond.items, beyond.total) == ([], 5)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (SessionStatus.ACTIVE, ["ses_e"]),
        (SessionStatus.COMPLETED, ["ses_d", "ses_c", "ses_b", "ses_a"]),
    ],
)
def test_listing_filters_on_status(status: SessionStatus, expected: list[str]) -> None:
    page = select_sessions(history(), SessionQuery(WINDOW, status=status))
    assert (ids(page.items), page.total) == (expected, len(expected))


def test_a_later_page_with_the_echoed_to_ignores_newer_sessions() -> None:
    """Spec 4.8: a new session after `to` does not shift rows of later pages."""
    first = select_sessions(history(), SessionQuery(WINDOW, limit=2))
    newer = [*history(), completed(NOW + H, NOW + 2 * H, id="ses_new")]
    second = select_sessions(newer, SessionQuery(WINDOW, limit=2, offset=2))
    assert ids(first.items) + ids(second.items) == ["ses_e", "ses_d", "ses_c", "ses_b"]


# --- the JSON body --------------------------------------------------------------------------


def test_body_of_an_active_session_has_no_end_keys() -> None:
    body = session_body(active(datetime(2026, 6, 1, 18, 0, 0, 123_456, tzinfo=UTC), energy=3.7))
    assert body == {
        "id": "ses_a",
        "status": "active",
        "startedAt": "2026-06-01T18:00:00.123Z",
        "energyDelivered": {"value": 3.7, "unit": "kwh"},
        "measurement": "inferred",
    }


def test_body_of_a_completed_session() -> None:
    s = completed(NOW - 4 * H, NOW, energy=29.60000001, reason=EndReason.VEHICLE_FINISHED)
    assert session_body(s) == {
        "id": "ses_1",
        "status": "completed",
        "startedAt": "2026-06-01T08:00:00.000Z",
        "endedAt": "2026-06-01T12:00:00.000Z",
        "energyDelivered": {"value": 29.6, "unit": "kwh"},
        "measurement": "metered",
        "endReason": "vehicle_finished",
    }


def test_body_omits_a_reason_the_charger_did_not_give() -> None:
    body = session_body(completed(NOW - H, NOW, reason=None))
    assert "endReason" not in body
    assert body["endedAt"] == "2026-06-01T12:00:00.000Z"


def test_enum_values_are_the_spec_vocabulary() -> None:
    assert [m.value for m in Measurement] == ["metered", "oem_reported", "inferred"]
    assert [r.value for r in EndReason] == [
        "unplugged", "vehicle_finished", "stopped", "power_lost", "fault", "unknown",
    ]  # fmt: skip
    assert [s.value for s in SessionStatus] == ["active", "completed"]
