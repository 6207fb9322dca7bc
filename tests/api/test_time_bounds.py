"""Times at the edges of the calendar (issue 12, defects 3 and 4, and 7's numbers taken as
date-times), over HTTP on SQLite and PostgreSQL: a time near year 1 or 9999 is refused
with its code before a timezone conversion can overflow (it was a 500), a push window is
at most 7 days, and a VPP lock at `datetime.max`/`min` (PostgreSQL's +-infinity) no
longer breaks every later push to its device."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from energyhub.domain.accounts import Environment, Principal
from tests.support import Api, Caller

# the fake clock's now is 2026-11-20T12:00Z; a zone far west and one far east of UTC
WEST, EAST = "Pacific/Pago_Pago", "Pacific/Kiritimati"  # UTC-11, UTC+14


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


async def devices_in_far_zones(api: Api, caller: Caller) -> list[dict[str, Any]]:
    return [await api.sandbox_device(caller, timezone=zone) for zone in (WEST, EAST)]


@pytest.mark.parametrize(
    ("start", "reason"),
    [
        ("0001-01-01T00:00:00", "start_in_past"),
        ("0001-01-01T11:00:00", "start_in_past"),
        ("9999-12-31T23:59:59", "start_too_far_ahead"),
        ("9999-12-31T10:00:00", "start_too_far_ahead"),
    ],
)
async def test_a_push_start_near_year_1_or_9999_is_out_of_range(
    api: Api, start: str, reason: str
) -> None:
    caller = await api.caller()
    for device in await devices_in_far_zones(api, caller):
        response = await api.push(caller, device, "charge", start=start)
        assert error_of(response, 422, "START_OUT_OF_RANGE")["details"]["reason"] == reason


async def test_a_push_end_near_year_1_or_9999_is_refused_before_converting_it(
    api: Api,
) -> None:
    caller = await api.caller()
    for device in await devices_in_far_zones(api, caller):
        late = await api.push(caller, device, "charge", end="9999-12-31T23:59:59")
        assert error_of(late, 422, "WINDOW_TOO_LONG")["details"]["maxDuration"] == "P7D"
        early = await api.push(caller, device, "charge", end="0001-01-01T00:00:00")
        assert error_of(early, 400, "INVALID_REQUEST")["details"]["errors"][0]["path"] == "end"
        late_window = await api.push(
            caller, device, "charge", start="2026-11-25T00:00:00", end="9999-12-31T23:59:59"
        )
        error_of(late_window, 422, "WINDOW_TOO_LONG")


async def test_a_push_window_lasts_at_most_7_days(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, timezone="Europe/Berlin")
    too_long = await api.push(
        caller, device, "charge", start="2026-11-21T00:00:00", end="2026-11-28T00:00:01"
    )
    error = error_of(too_long, 422, "WINDOW_TOO_LONG")
    assert "7 days" in error["message"]
    assert error["details"] == {"maxDuration": "P7D", "field": "end"}
    # a window that starts now: end alone
    assert (await api.push(caller, device, "charge", end="2026-11-28T13:00:01")).status_code == 422
    week = await api.push(
        caller, device, "charge", start="2026-11-21T00:00:00", end="2026-11-28T00:00:00"
    )
    assert week.status_code == 202, week.text


@pytest.mark.parametrize(
    "at", ["9999-12-31T23:00:00Z", "9999-12-31T00:00:00+14:00", "0001-01-01T00:00:00+05:00"]
)
async def test_a_schedule_at_slot_near_year_1_or_9999_is_refused(api: Api, at: str) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.client.put(
        f"/battery/{device['id']}/schedule",
        json={"slots": [{"at": at, "duration": "PT1H", "command": "charge"}]},
        headers=caller.headers,
    )
    error = error_of(response, 400, "INVALID_REQUEST")
    assert error["details"]["errors"] == [
        {"path": "body.slots.0.at", "message": "must lie between 1970-01-01 and 9998-12-31 (UTC)"}
    ]


@pytest.mark.parametrize(
    "until", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "9999-06-01T00:00:00Z"]
)
async def test_a_vpp_lock_with_a_far_offset_is_refused(api: Api, until: str) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.client.post(
        f"/sandbox/devices/{device['id']}/vpp-lock", json={"until": until}, headers=caller.headers
    )
    error = error_of(response, 400, "INVALID_REQUEST")
    assert error["details"]["errors"][0]["path"] == "body.until"


@pytest.mark.parametrize("until", [0, 1_800_000_000, "1800000000", True])
async def test_a_number_is_not_a_date_time_in_a_body(api: Api, until: Any) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    response = await api.client.post(
        f"/sandbox/devices/{device['id']}/vpp-lock", json={"until": until}, headers=caller.headers
    )
    [problem] = error_of(response, 400, "INVALID_REQUEST")["details"]["errors"]
    assert problem["path"] == "body.until"
    assert "ISO 8601" in problem["message"]
    assert "2026-12-01T06:00:00Z" in problem["message"]


@pytest.mark.parametrize("value", ["0.5", "0", "1800000000", "-1", "now"])
async def test_a_number_is_not_a_date_time_in_a_query(api: Api, value: str) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    for name in ("to", "from"):
        response = await api.get(caller, f"/ev-charger/{charger['id']}/sessions", **{name: value})
        [problem] = error_of(response, 400, "INVALID_REQUEST")["details"]["errors"]
        assert problem["path"] == f"query.{name}"
        assert "ISO 8601" in problem["message"]
    fine = await api.get(caller, f"/ev-charger/{charger['id']}/sessions", to="2026-11-20T12:00:00Z")
    assert fine.status_code == 200, fine.text


# --- defect 4: a lock at datetime.max/min ----------------------------------------------------


@pytest.mark.parametrize(
    ("until", "status"),
    [(datetime.max.replace(tzinfo=UTC), 423), (datetime.min.replace(tzinfo=UTC), 200)],
)
async def test_a_lock_at_the_ends_of_time_leaves_pushes_working(
    api: Api, until: datetime, status: int
) -> None:
    """Written by the service itself (the API refuses such times now): PostgreSQL stored
    them as +-infinity, which the asyncpg push path read back naive: every push was a 500."""
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    principal = Principal(caller.account_id, Environment.SANDBOX, caller.key_id)
    await api.container.services.actions.lock_for_vpp(principal, device["id"], until)
    for command in ("charge", "idle"):
        response = await api.push(caller, device, command)
        assert response.status_code == status, response.text
        await api.run_due(5)  # the sandbox completes the first: the second is no conflict
    read = await api.get(caller, f"/battery/{device['id']}")
    assert read.status_code == 200, read.text


@pytest.mark.parametrize(("stored", "status"), [("infinity", 423), ("-infinity", 200)])
async def test_an_infinite_lock_already_stored_reads_as_an_aware_time(
    api: Api, stored: str, status: int
) -> None:
    """Rows written before the clamp: read aware on the asyncpg path as on SQLAlchemy's."""
    if api.container.settings.is_sqlite:
        pytest.skip("PostgreSQL's +-infinity; SQLite has none")
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    async with api.container.engine.begin() as connection:
        await connection.execute(
            text(f"UPDATE devices SET vpp_locked_until = '{stored}' WHERE id = :id"),
            {"id": device["id"]},
        )
    for command in ("charge", "idle"):
        response = await api.push(caller, device, command)
        assert response.status_code == status, response.text
        await api.run_due(5)  # the sandbox completes the first: the second is no conflict
