"""Recurring schedules over HTTP: spec 2.8, 4.7; CONTRACT 7 (set, read, delete; slots checked
as pushes; occurrences as actions a day ahead; skipped slots recorded; firing)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any, cast

import httpx
import pytest

from energyhub.api.schedule_schemas import ScheduleRecord
from energyhub.api.schemas import Envelope
from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.clock import FakeClock
from energyhub.services.schedules import SchedulePlanner
from energyhub.workers.scheduler import SchedulerWorker
from tests.support import Api, Caller, open_api

# The fake clock starts on Friday 2026-11-20 at 12:00Z: 13:00 in Berlin, the sandbox
# devices' default timezone.
RECORD_KEYS = {
    "id",
    "deviceId",
    "deviceType",
    "state",
    "timezone",
    "recurrence",
    "slots",
    "createdAt",
    "updatedAt",
    "nextFireAt",
    "skipped",
}
CHARGE_80 = {"target": {"value": 80, "unit": "percent"}}
WEEKDAYS = {
    "timezone": "Europe/Berlin",
    "recurrence": {"rule": "weekdays"},
    "slots": [
        {"time": "14:00", "duration": "PT1H", "command": "charge", "parameters": CHARGE_80},
        {"time": "16:00", "duration": "PT1H", "command": "idle"},
    ],
}


async def _setup(api: Api, type_: str = "battery", **extra: Any) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller()
    device = await api.sandbox_device(caller, type_, **extra)
    return caller, device


def _path(device: dict[str, Any]) -> str:
    return f"/{device['type']}/{device['id']}/schedule"


async def _put(api: Api, caller: Caller, device: dict[str, Any], body: Any) -> httpx.Response:
    return await api.client.put(_path(device), json=body, headers=caller.headers)


async def _set(api: Api, caller: Caller, device: dict[str, Any], body: Any) -> dict[str, Any]:
    response = await _put(api, caller, device, body)
    assert response.status_code == 200, response.text
    Envelope[ScheduleRecord].model_validate(response.json())  # as documented
    record: dict[str, Any] = response.json()["data"]
    return record


async def _schedule(api: Api, caller: Caller, device: dict[str, Any]) -> httpx.Response:
    return await api.get(caller, _path(device))


async def _device(api: Api, caller: Caller, device: dict[str, Any]) -> dict[str, Any]:
    response = await api.get(caller, f"/{device['type']}/{device['id']}")
    assert response.status_code == 200
    data: dict[str, Any] = response.json()["data"]
    return data


async def _actions(
    api: Api, caller: Caller, device: dict[str, Any], state: str | None = None
) -> list[dict[str, Any]]:
    params: dict[str, Any] = {"deviceId": device["id"], "limit": 50}
    if state is not None:
        params["state"] = state
    response = await api.get(caller, "/actions", **params)
    assert response.status_code == 200
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return sorted(items, key=lambda a: a["start"])


async def _plan(api: Api, seconds: float = 0) -> int:
    """Moves the fake clock on and runs the scheduler's due planning once."""
    api.clock.advance(seconds)
    return await api.container.services.schedules.planner.plan_due()


def _spans(actions: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(a["command"], a["start"], a["end"]) for a in actions]


# --- set, read, delete ----------------------------------------------------------------------


async def test_put_and_get_a_weekday_schedule_on_a_battery(api: Api) -> None:
    caller, device = await _setup(api)
    before = await _device(api, caller, device)  # now in the gateway's read cache
    assert before["currentSchedule"] is None
    assert before["settings"]["scheduler_enabled"] == {"value": False}

    record = await _set(api, caller, device, WEEKDAYS)
    assert set(record) == RECORD_KEYS
    assert record["id"].startswith("sch_")
    assert record["deviceId"] == device["id"]
    assert record["deviceType"] == "battery"
    assert record["state"] == "active"
    assert record["timezone"] == "Europe/Berlin"
    assert record["recurrence"] == {"rule": "weekdays"}
    assert record["slots"] == [
        {
            "time": "14:00",
            "duration": "PT1H",
            "command": "charge",
            "parameters": {"target": {"value": 80.0, "unit": "percent"}},
        },
        {"time": "16:00", "duration": "PT1H", "command": "idle", "parameters": {}},
    ]
    assert record["nextFireAt"] == "2026-11-20T13:00:00.000Z"
    assert record["createdAt"] == record["updatedAt"] == "2026-11-20T12:00:00.000Z"
    assert record["skipped"] == []

    fetched = await _schedule(api, caller, device)
    assert fetched.status_code == 200
    assert fetched.json()["data"] == record
    after = await _device(api, caller, device)
    assert after["currentSchedule"] == record
    assert after["settings"]["scheduler_enabled"] == {"value": True}
    listed = (await api.get(caller, "/battery")).json()["data"]["items"][0]
    assert listed["currentSchedule"]["id"] == record["id"]


async def test_at_slots_on_a_charger_become_a_window_and_a_scheduled_push(api: Api) -> None:
    caller, device = await _setup(api, "ev-charger")
    body = {
        "slots": [
            {
                "at": "2026-11-20T14:00:00+01:00",
                "duration": "PT2H",
                "command": "charge",
                "parameters": {"power": {"value": 7.4, "unit": "kw"}},
            },
            {"at": "2026-11-20T16:30:00Z", "duration": "PT30M", "command": "idle"},
        ]
    }
    record = await _set(api, caller, device, body)
    assert record["deviceType"] == "ev_charger"
    assert record["timezone"] is None
    assert record["recurrence"] is None
    assert [s["at"] for s in record["slots"]] == [
        "2026-11-20T13:00:00.000Z",
        "2026-11-20T16:30:00.000Z",
    ]
    actions = await _actions(api, caller, device)
    assert _spans(actions) == [
        ("charge", "2026-11-20T13:00:00.000Z", "2026-11-20T15:00:00.000Z"),
        ("idle", "2026-11-20T16:30:00.000Z", None),
    ]
    assert all(a["state"] == "scheduled" for a in actions)
    assert actions[0]["parameters"] == {"power": {"value": 7.4, "unit": "kw"}}
    charger = await _device(api, caller, device)
    assert charger["currentSchedule"]["id"] == record["id"]
    assert charger["settings"]["scheduler_enabled"] == {"value": True}


@pytest.mark.parametrize("type_", ["battery", "ev-charger"])
async def test_delete_clears_the_schedule_and_cancels_its_actions(api: Api, type_: str) -> None:
    caller, device = await _setup(api, type_)
    record = await _set(api, caller, device, WEEKDAYS)
    assert [a["state"] for a in await _actions(api, caller, device)] == ["scheduled"] * 2

    api.clock.advance(60)
    response = await api.client.delete(_path(device), headers=caller.headers)
    assert response.status_code == 200
    deleted = response.json()["data"]
    assert deleted["id"] == record["id"]
    assert deleted["state"] == "deleted"
    assert deleted["nextFireAt"] is None
    assert deleted["updatedAt"] == "2026-11-20T12:01:00.000Z"
    assert [a["state"] for a in await _actions(api, caller, device)] == ["cancelled"] * 2

    missing = await _schedule(api, caller, device)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "SCHEDULE_NOT_FOUND"
    again = await api.client.delete(_path(device), headers=caller.headers)
    assert again.status_code == 404
    assert again.json()["error"]["code"] == "SCHEDULE_NOT_FOUND"
    body = await _device(api, caller, device)
    assert body["currentSchedule"] is None
    assert body["settings"]["scheduler_enabled"] == {"value": False}
    assert await _plan(api, 3600) == 0, "a deleted schedule is never planned again"
    assert len(await _actions(api, caller, device)) == 2


async def test_replacing_a_schedule_cancels_the_old_ones_actions(api: Api) -> None:
    caller, device = await _setup(api)
    first = await _set(api, caller, device, WEEKDAYS)
    old = await _actions(api, caller, device)
    # the same 14:00 slot again: not skipped, since the old occurrence is cancelled first
    second = await _set(api, caller, device, {**WEEKDAYS, "slots": WEEKDAYS["slots"][:1]})
    assert second["id"] != first["id"]
    assert second["skipped"] == []
    actions = {a["id"]: a for a in await _actions(api, caller, device)}
    assert {actions[a["id"]]["state"] for a in old} == {"cancelled"}
    new = [a for a in actions.values() if a["id"] not in {o["id"] for o in old}]
    assert _spans(new) == [("charge", "2026-11-20T13:00:00.000Z", "2026-11-20T14:00:00.000Z")]
    assert new[0]["state"] == "scheduled"
    assert (await _schedule(api, caller, device)).json()["data"]["id"] == second["id"]
    assert (await _device(api, caller, device))["currentSchedule"]["id"] == second["id"]


async def test_get_without_a_schedule_and_unknown_devices_are_not_found(api: Api) -> None:
    caller, battery = await _setup(api)
    response = await _schedule(api, caller, battery)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "SCHEDULE_NOT_FOUND"
    stranger = await api.caller()
    for who, path in (
        (caller, f"/ev-charger/{battery['id']}/schedule"),
        (stranger, _path(battery)),
        (caller, "/battery/no-such-device/schedule"),
    ):
        for method in ("GET", "PUT", "DELETE"):
            body = WEEKDAYS if method == "PUT" else None
            answer = await api.client.request(method, path, json=body, headers=who.headers)
            assert answer.status_code == 404, (method, path)
            assert answer.json()["error"]["code"] == "DEVICE_NOT_FOUND"
    # the device is looked up first: a bad body for a device that is not there is a 404
    bad = await api.client.put(
        "/battery/no-such-device/schedule", json={"slots": []}, headers=caller.headers
    )
    assert bad.status_code == 404


async def test_scheduler_enabled_stays_read_only_while_a_schedule_is_set(api: Api) -> None:
    caller, device = await _setup(api)
    await _set(api, caller, device, WEEKDAYS)
    response = await api.client.post(
        f"/battery/{device['id']}/settings",
        json={"scheduler_enabled": {"value": False}},
        headers=caller.headers,
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "READ_ONLY_SETTING"
    assert (await _device(api, caller, device))["settings"]["scheduler_enabled"]["value"] is True


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"slots": []}, "body.slots"),
        ({"slots": [{"time": "14:00", "duration": "PT1H", "command": "idle"}]}, "body.timezone"),
        (
            {
                "timezone": "Europe/Berlin",
                "slots": [
                    {"time": "14:00", "duration": "PT1H", "command": "idle"},
                    {"at": "2026-11-21T10:00:00Z", "duration": "PT1H", "command": "idle"},
                ],
            },
            "body.slots",
        ),
        (
            {**WEEKDAYS, "slots": [{**WEEKDAYS["slots"][1], "duration": "P1M"}]},
            "body.slots.0.duration",
        ),
        ({**WEEKDAYS, "recurrence": {"rule": "hourly"}}, "body.recurrence.rule"),
        ({**WEEKDAYS, "deviceId": "x"}, "body.deviceId"),
        (["not", "an", "object"], "body"),
    ],
)
async def test_body_errors_are_invalid_requests(api: Api, body: Any, path: str) -> None:
    caller, device = await _setup(api)
    response = await _put(api, caller, device, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert path in [e["path"] for e in error["details"]["errors"]]


async def test_malformed_json_is_an_invalid_request(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.client.put(
        _path(device),
        content=b'{"slots": [',
        headers={**caller.headers, "content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_REQUEST"


def _slots(*slots: dict[str, Any]) -> dict[str, Any]:
    return {"timezone": "Europe/Berlin", "slots": list(slots)}


IDLE = {"time": "06:00", "duration": "PT1H", "command": "idle"}


@pytest.mark.parametrize(
    ("type_", "profile", "body", "code", "slot"),
    [
        ("battery", None, _slots(IDLE, {**IDLE, "command": "boost"}), "UNSUPPORTED_MODE", 1),
        (
            "battery",
            None,
            _slots(
                {
                    **IDLE,
                    "command": "charge",
                    "parameters": {"target": {"value": 5, "unit": "percent"}},
                }
            ),
            "PARAMETER_OUT_OF_RANGE",
            0,
        ),
        (
            "battery",
            None,
            _slots(IDLE, IDLE, {**IDLE, "parameters": {"power": {"value": 1, "unit": "kw"}}}),
            "UNSUPPORTED_PARAMETER",
            2,
        ),
        (
            "ev-charger",
            None,
            _slots(
                {
                    **IDLE,
                    "command": "charge",
                    "parameters": {
                        "power": {"value": 7, "unit": "kw"},
                        "current": {"value": 16, "unit": "a"},
                    },
                }
            ),
            "UNSUPPORTED_PARAMETER_COMBINATION",
            0,
        ),
        (
            "ev-charger",
            None,
            _slots(
                {**IDLE, "command": "charge", "parameters": {"energy": {"value": 5, "unit": "kw"}}}
            ),
            "UNSUPPORTED_UNIT",
            0,
        ),
        ("ev-charger", None, _slots({**IDLE, "command": "discharge"}), "UNSUPPORTED_MODE", 0),
        (
            "battery",
            None,
            {"slots": [{"at": "2026-11-20T11:58:00Z", "duration": "PT1H", "command": "idle"}]},
            "START_OUT_OF_RANGE",
            0,
        ),
    ],
)
async def test_each_slot_is_checked_as_a_push(
    api: Api, type_: str, profile: str | None, body: dict[str, Any], code: str, slot: int
) -> None:
    caller, device = await _setup(api, type_, profile=profile)
    response = await _put(api, caller, device, body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["details"]["slot"] == slot
    assert error["message"].startswith(f"Slot {slot}: ")
    assert (await _schedule(api, caller, device)).status_code == 404, "nothing was stored"
    assert (await _device(api, caller, device))["settings"]["scheduler_enabled"]["value"] is False
    assert await _actions(api, caller, device) == []


async def test_a_command_without_windows_runs_as_a_scheduled_push(api: Api) -> None:
    caller, device = await _setup(api, profile="battery-minimal")  # charge: no windowed
    await _set(
        api,
        caller,
        device,
        _slots({"time": "15:00", "duration": "PT2H", "command": "charge", "parameters": CHARGE_80}),
    )
    [action] = await _actions(api, caller, device)
    assert _spans([action]) == [("charge", "2026-11-20T14:00:00.000Z", None)]


# --- planning, skipping, firing -------------------------------------------------------------


async def test_occurrences_become_actions_a_day_ahead(api: Api) -> None:
    caller, device = await _setup(api)
    daily = _slots({"time": "14:00", "duration": "PT1H", "command": "idle"})
    record = await _set(api, caller, device, daily)
    starts = [a["start"] for a in await _actions(api, caller, device)]
    assert starts == ["2026-11-20T13:00:00.000Z"], "tomorrow's is beyond the 24 h horizon"

    await _plan(api, 3600 + 0.001)  # 13:00:00.001Z: today's has started
    starts = [a["start"] for a in await _actions(api, caller, device)]
    assert starts == ["2026-11-20T13:00:00.000Z", "2026-11-21T13:00:00.000Z"]
    fetched = (await _schedule(api, caller, device)).json()["data"]
    assert fetched["nextFireAt"] == "2026-11-21T13:00:00.000Z"
    assert (await _device(api, caller, device))["currentSchedule"]["nextFireAt"] == (
        "2026-11-21T13:00:00.000Z"
    )
    assert fetched["updatedAt"] == record["updatedAt"], "planning alone changes nothing"

    await _plan(api, timedelta(days=1).total_seconds())
    starts = [a["start"] for a in await _actions(api, caller, device)]
    assert starts[-1] == "2026-11-22T13:00:00.000Z"

    # the scheduler did not run for two days: what it missed is recorded, not made late
    await _plan(api, timedelta(days=2, hours=1).total_seconds())
    starts = [a["start"] for a in await _actions(api, caller, device)]
    assert starts[-2:] == ["2026-11-22T13:00:00.000Z", "2026-11-24T13:00:00.000Z"]
    skipped = (await _schedule(api, caller, device)).json()["data"]["skipped"]
    assert [(s["start"], s["errorCode"], s["details"]) for s in skipped] == [
        ("2026-11-23T13:00:00.000Z", "START_OUT_OF_RANGE", {"reason": "missed"}),
    ]


async def test_a_conflicting_occurrence_is_skipped_and_recorded(api: Api) -> None:
    caller, device = await _setup(api)
    blocker = await api.push(caller, device, "auto.reserve", start="2026-11-20T16:00:00")
    assert blocker.status_code == 202
    record = await _set(api, caller, device, WEEKDAYS)
    assert record["state"] == "active"
    [skipped] = record["skipped"]
    assert skipped["slot"] == 1
    assert skipped["start"] == "2026-11-20T15:00:00.000Z"
    assert skipped["end"] == "2026-11-20T16:00:00.000Z"
    assert skipped["errorCode"] == "ACTION_CONFLICT"
    assert skipped["errorMessage"]
    assert skipped["details"]["conflictingActionId"] == blocker.json()["data"]["id"]
    fetched = (await _schedule(api, caller, device)).json()["data"]
    assert fetched["skipped"] == [skipped]
    assert (await _device(api, caller, device))["currentSchedule"]["skipped"] == [skipped]
    actions = await _actions(api, caller, device)
    assert _spans(actions) == [
        ("charge", "2026-11-20T13:00:00.000Z", "2026-11-20T14:00:00.000Z"),
        ("auto.reserve", "2026-11-20T15:00:00.000Z", None),
    ]
    assert actions[1]["id"] == blocker.json()["data"]["id"], "the client's push is untouched"


async def test_planning_again_makes_no_duplicates(api: Api) -> None:
    caller, device = await _setup(api)
    blocker = await api.push(caller, device, "auto.reserve", start="2026-11-20T16:00:00")
    assert blocker.status_code == 202
    record = await _set(api, caller, device, WEEKDAYS)
    before = await _actions(api, caller, device)
    # as after a crash: the planning of this schedule comes due again from the start
    async with api.container.uow() as tx:
        await tx.schedules.update(
            record["id"], due_at=api.clock.now(), planned_until=api.clock.now()
        )
    assert await _plan(api) == 1
    assert await _actions(api, caller, device) == before
    assert (await _schedule(api, caller, device)).json()["data"]["skipped"] == record["skipped"]


@pytest.mark.parametrize("type_", ["battery", "ev-charger"])
async def test_an_occurrence_fires_and_the_schedule_completes(api: Api, type_: str) -> None:
    caller, device = await _setup(api, type_)
    body = {
        "slots": [
            {"at": "2026-11-20T12:00:10Z", "duration": "PT1M", "command": "charge"},
            {"at": "2026-11-20T12:05:00Z", "duration": "PT1M", "command": "idle"},
        ]
    }
    record = await _set(api, caller, device, body)
    assert record["nextFireAt"] == "2026-11-20T12:00:10.000Z"
    window, later = await _actions(api, caller, device)
    assert (window["start"], window["end"]) == (
        "2026-11-20T12:00:10.000Z",
        "2026-11-20T12:01:10.000Z",
    )

    assert await api.run_due(9) == 0
    assert await api.run_due(1) == 1, "dispatched at the slot's start"
    await api.run_due(2)
    fired = (await api.get(caller, f"/actions/{window['id']}")).json()["data"]
    assert fired["state"] == "completed"
    mode = "currentMode" if type_ == "battery" else "activeControlMode"
    state = (await api.get(caller, f"/{type_}/{device['id']}", expedite="true")).json()["data"]
    assert state["state"][mode] == "charge"

    assert await _plan(api) == 1  # the scheduler looks again just after each start
    assert (await _schedule(api, caller, device)).json()["data"]["nextFireAt"] == (
        "2026-11-20T12:05:00.000Z"
    )
    await api.run_due(5 * 60)
    await api.run_due(2)
    assert (await api.get(caller, f"/actions/{later['id']}")).json()["data"]["state"] == (
        "completed"
    )
    await _plan(api, 1)
    done = (await _schedule(api, caller, device)).json()["data"]
    assert done["state"] == "completed"
    assert done["nextFireAt"] is None
    body_now = await _device(api, caller, device)
    assert body_now["currentSchedule"]["state"] == "completed"
    assert body_now["settings"]["scheduler_enabled"]["value"] is True, "still set"
    assert await _plan(api, 86400) == 0, "a completed schedule is not looked at again"


async def test_weekly_days_and_exclusions(api: Api) -> None:
    caller, device = await _setup(api)
    body = {
        "timezone": "Europe/Berlin",
        "recurrence": {
            "rule": "weekly",
            "days": ["mon", "fri"],
            "exclusions": [{"from": "2026-11-20", "to": "2026-11-23"}],
        },
        "slots": [{"time": "18:30", "duration": "PT30M", "command": "idle"}],
    }
    record = await _set(api, caller, device, body)
    assert record["recurrence"] == body["recurrence"]
    assert record["nextFireAt"] == "2026-11-27T17:30:00.000Z", "Fri 20 and Mon 23 excluded"
    assert await _actions(api, caller, device) == []


@pytest.mark.parametrize(
    ("now", "timezone", "wall", "start"),
    [
        # spring forward: 02:30 does not exist in Berlin; it fires at 03:30 CEST
        ("2027-03-27T12:00:00Z", "Europe/Berlin", "02:30", "2027-03-28T01:30:00.000Z"),
        ("2027-03-13T12:00:00Z", "America/New_York", "02:30", "2027-03-14T07:30:00.000Z"),
        # fall back: 01:30 happens twice; it fires once, at the first (summer time)
        ("2026-10-24T12:00:00Z", "Europe/Berlin", "02:30", "2026-10-25T00:30:00.000Z"),
        ("2026-10-31T12:00:00Z", "America/New_York", "01:30", "2026-11-01T05:30:00.000Z"),
    ],
)
async def test_dst_changes(api: Api, now: str, timezone: str, wall: str, start: str) -> None:
    api.clock.set(datetime.fromisoformat(now))
    caller, device = await _setup(api, timezone=timezone)
    body = {
        "timezone": timezone,
        "slots": [{"time": wall, "duration": "PT1H", "command": "idle"}],
    }
    record = await _set(api, caller, device, body)
    assert record["nextFireAt"] == start
    [action] = await _actions(api, caller, device)
    assert action["start"] == start
    await _plan(api, (datetime.fromisoformat(start) - api.clock.now()).total_seconds() + 1)
    following = (await _schedule(api, caller, device)).json()["data"]["nextFireAt"]
    assert datetime.fromisoformat(following) - datetime.fromisoformat(start) in (
        timedelta(hours=23),
        timedelta(hours=24),
        timedelta(hours=25),
    )


async def test_an_occurrence_in_the_devices_repeated_hour_keeps_its_instant(api: Api) -> None:
    # 21:30 in New York on 2026-10-24 is 01:30Z on the 25th: 02:30 CET, the second 02:30 of
    # Berlin's fall-back night (the device's timezone)
    api.clock.set(datetime.fromisoformat("2026-10-24T12:00:00Z"))
    caller, device = await _setup(api)
    body = {
        "timezone": "America/New_York",
        "slots": [{"time": "21:30", "duration": "PT1H", "command": "idle"}],
    }
    record = await _set(api, caller, device, body)
    assert record["nextFireAt"] == "2026-10-25T01:30:00.000Z"
    [action] = await _actions(api, caller, device)
    assert action["start"] == "2026-10-25T01:30:00.000Z"


# --- ENERGYHUB_SCHEDULES=off ----------------------------------------------------------------


@pytest.fixture
async def api_without_schedules(settings: Settings, clock: FakeClock) -> AsyncIterator[Api]:
    built = await build_container(settings.model_copy(update={"schedules": False}), clock)
    try:
        async with open_api(built, clock) as opened:
            yield opened
    finally:
        await built.aclose()


async def test_schedules_off_answers_not_implemented(api_without_schedules: Api) -> None:
    api = api_without_schedules
    caller = await api.caller()
    for type_ in ("battery", "ev-charger"):
        device = await api.sandbox_device(caller, type_)
        for method, content in (
            ("PUT", b'{"slots": []}'),
            ("PUT", b"{not json"),
            ("GET", None),
            ("DELETE", None),
        ):
            response = await api.client.request(
                method,
                _path(device),
                content=content,
                headers={**caller.headers, "content-type": "application/json"},
            )
            assert response.status_code == 501, (type_, method, content)
            assert response.json()["error"]["code"] == "NOT_IMPLEMENTED"
    unknown = await api.client.get("/battery/nope/schedule", headers=caller.headers)
    assert unknown.status_code == 501


async def test_schedules_off_still_serves_sessions_and_devices(api_without_schedules: Api) -> None:
    api = api_without_schedules
    caller = await api.caller()
    device = await api.sandbox_device(caller, "ev-charger")
    assert device["currentSchedule"] is None
    response = await api.get(caller, f"/ev-charger/{device['id']}/sessions")
    assert response.status_code == 200


# --- the worker loop ------------------------------------------------------------------------


class _CountingPlanner:
    def __init__(self) -> None:
        self.calls = 0
        self.called = asyncio.Event()

    async def plan_due(self) -> int:
        self.calls += 1
        self.called.set()
        return 0

    async def next_due_at(self) -> datetime | None:
        return None


async def test_scheduler_worker_plans_at_start_and_when_woken(clock: FakeClock) -> None:
    planner = _CountingPlanner()
    worker = SchedulerWorker(cast(SchedulePlanner, planner), clock, max_sleep_s=3600)
    worker.start()
    try:
        await asyncio.wait_for(planner.called.wait(), 10)
        planner.called.clear()
        worker.wake(clock.now() + timedelta(minutes=1))
        await asyncio.wait_for(planner.called.wait(), 10)
        assert planner.calls == 2
    finally:
        await worker.stop()
