"""Pushes and the action lifecycle over HTTP: spec 2.7, 3.1, 4.3-4.6; CONTRACT 4."""

from __future__ import annotations

from typing import Any

import pytest

from energyhub.domain.accounts import Environment
from tests.support import Api, Caller

ACTION_KEYS = {
    "id",
    "deviceId",
    "type",
    "state",
    "command",
    "parameters",
    "start",
    "end",
    "onConflict",
    "result",
    "createdAt",
    "updatedAt",
    "deferredUntil",
    "errorCode",
    "errorMessage",
    "acknowledgedAt",
    "completedAt",
    "links",
}
# The fake clock starts at 2026-11-20 12:00Z, 13:00 in Berlin (the sandbox devices' zone).
LOCAL_13_30 = "2026-11-20T13:30:00"
UTC_12_30 = "2026-11-20T12:30:00.000Z"


async def _setup(
    api: Api, type_: str = "battery", profile: str | None = None
) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller()
    device = await api.sandbox_device(caller, type_, profile=profile)
    return caller, device


async def _action(api: Api, caller: Caller, action_id: str) -> dict[str, Any]:
    response = await api.get(caller, f"/actions/{action_id}")
    assert response.status_code == 200
    data: dict[str, Any] = response.json()["data"]
    return data


async def test_immediate_push_is_acknowledged_then_completed(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.push(
        caller, device, "charge", parameters={"target": {"value": 80, "unit": "percent"}}
    )
    assert response.status_code == 200, response.text
    action = response.json()["data"]
    assert set(action) == ACTION_KEYS
    assert action["state"] == "acknowledged"
    assert action["type"] == "battery:set_operation_mode"
    assert action["start"] == "2026-11-20T12:00:00.000Z"
    assert action["end"] is None
    assert action["acknowledgedAt"] == "2026-11-20T12:00:00.000Z"
    assert action["completedAt"] is None
    assert action["links"] == {"self": f"/actions/{action['id']}"}
    assert await api.run_due(1) == 0, "completes after the sandbox delay (2 s), not before"
    assert await api.run_due(1) == 1
    done = await _action(api, caller, action["id"])
    assert done["state"] == "completed"
    assert done["completedAt"] == "2026-11-20T12:00:02.000Z"
    assert done["result"]["success"] is True
    battery = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert battery["state"]["currentMode"] == "charge"
    assert battery["state"]["status"] == "charging"
    assert battery["lastAction"]["id"] == action["id"]
    assert battery["lastAction"]["state"] == "completed"


async def test_scheduled_push_fires_at_its_plant_local_start(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.push(caller, device, "discharge", start=LOCAL_13_30)
    assert response.status_code == 202
    action = response.json()["data"]
    assert action["state"] == "scheduled"
    assert action["start"] == UTC_12_30
    assert await api.run_due(29 * 60 + 59) == 0
    assert await api.run_due(1) == 1
    assert (await _action(api, caller, action["id"]))["state"] == "acknowledged"
    await api.run_due(2)
    assert (await _action(api, caller, action["id"]))["state"] == "completed"


async def test_window_restores_the_previous_mode_at_its_end(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.push(
        caller,
        device,
        "charge",
        start=LOCAL_13_30,
        end="2026-11-20T14:00:00",
        parameters={"power": {"value": 2500, "unit": "w"}},
    )
    assert response.status_code == 202
    action = response.json()["data"]
    assert action["end"] == "2026-11-20T13:00:00.000Z"
    assert action["parameters"] == {"power": {"value": 2500, "unit": "w"}}
    await api.run_due(30 * 60)
    await api.run_due(2)
    assert (await _action(api, caller, action["id"]))["state"] == "completed"
    during = (await api.get(caller, f"/battery/{device['id']}", expedite="true")).json()["data"]
    assert during["state"]["currentMode"] == "charge"
    assert during["state"]["chargeRate"] == 2.5
    await api.run_due(30 * 60)
    after = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert after["state"]["currentMode"] == "auto.balance"
    assert "restoredAt" in (await _action(api, caller, action["id"]))["result"]


async def test_window_does_not_restore_over_a_later_command(api: Api) -> None:
    caller, device = await _setup(api)
    window = await api.push(caller, device, "charge", end="2026-11-20T14:00:00")
    assert window.status_code == 200
    await api.run_due(2)
    later = await api.push(caller, device, "idle", onConflict="cancel_and_replace")
    assert later.status_code == 200, later.text
    await api.run_due(2)
    await api.run_due(3600)
    battery = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert battery["state"]["currentMode"] == "idle"


@pytest.mark.parametrize(
    ("body", "code", "detail"),
    [
        ({"command": "defrost"}, "UNSUPPORTED_MODE", "supportedModes"),
        (
            {"command": "idle", "end": "2026-11-20T14:00:00"},
            "EXECUTION_NOT_SUPPORTED",
            "supportedExecution",
        ),
        (
            {"command": "idle", "parameters": {"power": {"value": 1, "unit": "kw"}}},
            "UNSUPPORTED_PARAMETER",
            "supportedParameters",
        ),
        (
            {"command": "charge", "parameters": {"power": {"value": 1, "unit": "a"}}},
            "UNSUPPORTED_UNIT",
            "expectedUnit",
        ),
        (
            {"command": "charge", "parameters": {"power": {"value": 9, "unit": "kw"}}},
            "PARAMETER_OUT_OF_RANGE",
            "max",
        ),
        ({"command": "charge", "start": "2026-11-20T12:00:00"}, "START_OUT_OF_RANGE", "reason"),
        ({"command": "charge", "start": "2027-01-01T12:00:00"}, "START_OUT_OF_RANGE", "reason"),
    ],
)
async def test_push_refusals(api: Api, body: dict[str, Any], code: str, detail: str) -> None:
    caller, device = await _setup(api)
    body = dict(body)
    command = body.pop("command")
    response = await api.push(caller, device, command, **body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert detail in error["details"]


async def test_minimal_battery_refuses_conflict_strategies(api: Api) -> None:
    caller, device = await _setup(api, profile="battery-minimal")
    response = await api.push(caller, device, "idle", onConflict="queue_after")
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_CONFLICT_STRATEGY"
    assert error["details"] == {"requestedStrategy": "queue_after", "supportedStrategies": []}


async def test_shape_errors_are_400(api: Api) -> None:
    caller, device = await _setup(api)
    backwards = await api.push(
        caller, device, "charge", start="2026-11-20T15:00:00", end="2026-11-20T14:00:00"
    )
    assert backwards.status_code == 400
    bad_strategy = await api.push(caller, device, "charge", onConflict="shove")
    assert bad_strategy.status_code == 400
    with_offset = await api.push(caller, device, "charge", start="2026-11-20T15:00:00Z")
    assert with_offset.status_code == 400
    no_date = await api.push(caller, device, "charge", start="2026-02-30T15:00:00")
    assert no_date.status_code == 400
    assert no_date.json()["error"]["details"]["errors"][0]["path"] == "body.start"


async def test_dst_gap_is_refused(api: Api) -> None:
    caller, device = await _setup(api)
    api.clock.set(api.clock.now().replace(year=2027, month=3, day=27))
    response = await api.push(caller, device, "charge", start="2027-03-28T02:30:00")
    assert response.status_code == 422
    assert response.json()["error"]["details"]["reason"] == "nonexistent_local_time"


async def test_conflicts_and_strategies(api: Api) -> None:
    caller, device = await _setup(api)
    first = (await api.push(caller, device, "charge", start=LOCAL_13_30)).json()["data"]
    clash = await api.push(caller, device, "discharge", start=LOCAL_13_30)
    assert clash.status_code == 409
    error = clash.json()["error"]
    assert error["code"] == "ACTION_CONFLICT"
    assert error["details"] == {
        "conflictingActionId": first["id"],
        "reason": "conflicting_action",
        "supportedStrategies": ["cancel_and_replace"],
    }
    queued = await api.push(
        caller, device, "discharge", start=LOCAL_13_30, onConflict="queue_after"
    )
    assert queued.status_code == 409
    assert queued.json()["error"]["details"]["reason"] == "conflicting_action_not_windowed"
    replaced = await api.push(
        caller, device, "discharge", start=LOCAL_13_30, onConflict="cancel_and_replace"
    )
    assert replaced.status_code == 202
    assert (await _action(api, caller, first["id"]))["state"] == "cancelled"


async def test_queue_after_chains_behind_windows(api: Api) -> None:
    caller, device = await _setup(api)
    await api.push(caller, device, "charge", start="2026-11-20T14:00:00", end="2026-11-20T15:00:00")
    await api.push(
        caller, device, "discharge", start="2026-11-20T15:00:00", end="2026-11-20T15:30:00"
    )
    response = await api.push(
        caller,
        device,
        "charge",
        start="2026-11-20T14:30:00",
        end="2026-11-20T14:45:00",
        onConflict="queue_after",
    )
    assert response.status_code == 202, response.text
    queued = response.json()["data"]
    assert queued["start"] == "2026-11-20T14:30:00.000Z"  # 15:30 Berlin, behind both
    assert queued["end"] == "2026-11-20T14:45:00.000Z"


async def test_conflict_in_execution(api: Api) -> None:
    caller, device = await _setup(api)
    running = (await api.push(caller, device, "charge")).json()["data"]
    response = await api.push(caller, device, "idle", onConflict="cancel_and_replace")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT_IN_EXECUTION"
    assert response.json()["error"]["details"] == {
        "conflictingActionId": running["id"],
        "supportedStrategies": [],
    }


async def test_a_command_the_device_runs_already_needs_no_second_call(api: Api) -> None:
    caller, device = await _setup(api)
    await api.push(caller, device, "idle")
    await api.run_due(2)
    again = await api.push(caller, device, "idle")
    assert again.status_code == 200
    assert again.json()["data"]["result"]["alreadyActive"] is True


@pytest.mark.parametrize("route", ["/actions/{id}/cancel", "/battery/actions/{id}/cancel"])
async def test_cancel(api: Api, route: str) -> None:
    caller, device = await _setup(api)
    action = (await api.push(caller, device, "charge", start=LOCAL_13_30)).json()["data"]
    response = await api.client.post(route.format(id=action["id"]), headers=caller.headers)
    assert response.status_code == 200
    assert response.json()["data"]["state"] == "cancelled"
    again = await api.client.post(route.format(id=action["id"]), headers=caller.headers)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "ACTION_NOT_CANCELLABLE"
    assert await api.run_due(3600) == 0, "a cancelled action never fires"


async def test_cancel_scoping(api: Api) -> None:
    caller, device = await _setup(api)
    action = (await api.push(caller, device, "charge", start=LOCAL_13_30)).json()["data"]
    wrong_type = await api.client.post(
        f"/ev-charger/actions/{action['id']}/cancel", headers=caller.headers
    )
    assert wrong_type.status_code == 404
    assert wrong_type.json()["error"]["code"] == "ACTION_NOT_FOUND"
    stranger = await api.caller()
    hidden = await api.client.post(f"/actions/{action['id']}/cancel", headers=stranger.headers)
    assert hidden.status_code == 404
    assert (await api.get(stranger, f"/actions/{action['id']}")).status_code == 404
    immediate = (
        await api.push(caller, device, "idle", start=LOCAL_13_30, onConflict="cancel_and_replace")
    ).json()["data"]
    await api.run_due(1800)
    late = await api.client.post(f"/actions/{immediate['id']}/cancel", headers=caller.headers)
    assert late.status_code == 409


async def test_simulated_failure_on_an_immediate_push(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.push(
        caller, device, "charge", sandbox={"result": "failed", "errorCode": "DEVICE_OFFLINE"}
    )
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "DEVICE_OFFLINE"
    failed = await _action(api, caller, error["details"]["actionId"])
    assert failed["state"] == "failed"
    assert failed["errorCode"] == "DEVICE_OFFLINE"
    assert failed["result"] == {"success": False, "errorCode": "DEVICE_OFFLINE"}


async def test_simulated_failure_on_a_scheduled_push(api: Api) -> None:
    caller, device = await _setup(api)
    response = await api.push(
        caller,
        device,
        "charge",
        start=LOCAL_13_30,
        sandbox={"result": "failed", "errorCode": "DEVICE_OFFLINE"},
    )
    assert response.status_code == 202
    await api.run_due(1800)
    failed = await _action(api, caller, response.json()["data"]["id"])
    assert failed["state"] == "failed"
    assert failed["errorCode"] == "DEVICE_OFFLINE"


async def test_sandbox_block_with_a_live_key(api: Api) -> None:
    caller, device = await _setup(api)
    live = await api.key_for(caller.account_id, Environment.LIVE)
    response = await api.push(
        live, device, "charge", sandbox={"result": "failed", "errorCode": "DEVICE_OFFLINE"}
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "SANDBOX_ONLY"


async def test_vpp_lock_refuses_then_defers(api: Api) -> None:
    caller, device = await _setup(api)
    scheduled = (await api.push(caller, device, "charge", start=LOCAL_13_30)).json()["data"]
    lock = await api.client.post(
        f"/sandbox/devices/{device['id']}/vpp-lock",
        json={"until": "2026-11-20T12:33:00Z"},
        headers=caller.headers,
    )
    assert lock.status_code == 200
    refused = await api.push(caller, device, "idle")
    assert refused.status_code == 423
    assert refused.json()["error"]["code"] == "VPP_LOCKED"
    assert refused.json()["error"]["details"]["until"] == "2026-11-20T12:33:00.000Z"
    await api.run_due(1800)
    deferred = await _action(api, caller, scheduled["id"])
    assert deferred["state"] == "deferred"
    assert deferred["deferredUntil"] == "2026-11-20T12:31:00.000Z"
    await api.run_due(60)
    assert (await _action(api, caller, scheduled["id"]))[
        "deferredUntil"
    ] == "2026-11-20T12:35:00.000Z"
    await api.run_due(240)
    assert (await _action(api, caller, scheduled["id"]))["state"] == "acknowledged"


async def test_scheduler_active(api: Api) -> None:
    caller, device = await _setup(api, profile="battery-auto-schedule")
    assert (await api.push(caller, device, "auto.schedule")).status_code == 200
    await api.run_due(2)
    refused = await api.push(caller, device, "charge")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "SCHEDULER_ACTIVE"
    taken_over = await api.push(caller, device, "charge", onConflict="cancel_and_replace")
    assert taken_over.status_code == 200


async def test_actions_list_newest_first_with_filters(api: Api) -> None:
    caller, device = await _setup(api)
    other = await api.sandbox_device(caller)
    ids = []
    for hour in (14, 15, 16):
        ids.append(
            (await api.push(caller, device, "idle", start=f"2026-11-20T{hour}:00:00")).json()[
                "data"
            ]["id"]
        )
    await api.push(caller, other, "idle")
    page = (await api.get(caller, "/actions", deviceId=device["id"], limit=2)).json()["data"]
    assert [a["id"] for a in page["items"]] == [ids[2], ids[1]]
    assert page["pagination"] == {"limit": 2, "offset": 0, "total": 3, "hasMore": True}
    acknowledged = (await api.get(caller, "/actions", state="acknowledged")).json()["data"]
    assert [a["deviceId"] for a in acknowledged["items"]] == [other["id"]]
    assert (await api.get(caller, "/actions", state="sleeping")).status_code == 400


async def test_charger_push_and_settings(api: Api) -> None:
    caller, charger = await _setup(api, "ev-charger")
    response = await api.push(
        caller, charger, "charge", parameters={"current": {"value": 16, "unit": "a"}}
    )
    assert response.status_code == 200
    assert response.json()["data"]["type"] == "ev_charger:set_operation_mode"
    both = await api.push(
        caller,
        charger,
        "charge",
        onConflict="cancel_and_replace",
        parameters={"current": {"value": 16, "unit": "a"}, "power": {"value": 7, "unit": "kw"}},
    )
    assert both.status_code == 422
    assert both.json()["error"]["details"]["conflictingParameters"] == ["power", "current"]
    written = await api.client.post(
        f"/ev-charger/{charger['id']}/settings",
        json={"max_charge_rate": {"value": 11000, "unit": "w"}, "cable_lock": {"value": True}},
        headers=caller.headers,
    )
    assert written.status_code == 200, written.text
    settings = written.json()["data"]["settings"]
    assert settings["max_charge_rate"]["value"] == 11
    assert settings["cable_lock"] == {"value": True}
    read = (await api.get(caller, f"/ev-charger/{charger['id']}")).json()["data"]
    assert read["settings"] == settings


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"wattage": {"value": 1, "unit": "w"}}, "UNSUPPORTED_SETTING"),
        ({"scheduler_enabled": {"value": True}}, "READ_ONLY_SETTING"),
        ({"export_limit": {"value": 1, "unit": "percent"}}, "UNSUPPORTED_UNIT"),
        ({"safety_reserve": {"value": 101, "unit": "percent"}}, "PARAMETER_OUT_OF_RANGE"),
    ],
)
async def test_settings_refusals_write_nothing(api: Api, body: dict[str, Any], code: str) -> None:
    caller, device = await _setup(api)
    payload = {"discharge_floor": {"value": 42, "unit": "percent"}, **body}
    response = await api.client.post(
        f"/battery/{device['id']}/settings", json=payload, headers=caller.headers
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == code
    read = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert read["settings"]["discharge_floor"]["value"] == 10, "all or nothing"


async def test_deferral_of_an_action_that_is_not_the_devices_newest(api: Api) -> None:
    caller, device = await _setup(api)
    first = (await api.push(caller, device, "charge", start=LOCAL_13_30)).json()["data"]
    later = await api.push(caller, device, "idle", start="2026-11-20T15:00:00")
    assert later.status_code == 202
    await api.client.post(
        f"/sandbox/devices/{device['id']}/vpp-lock",
        json={"until": "2026-11-20T12:33:00Z"},
        headers=caller.headers,
    )
    await api.run_due(1800)
    deferred = await _action(api, caller, first["id"])
    assert deferred["state"] == "deferred"
    battery = (await api.get(caller, f"/battery/{device['id']}")).json()["data"]
    assert battery["lastAction"]["id"] == later.json()["data"]["id"]
