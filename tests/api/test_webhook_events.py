"""Which state changes write webhook events to the outbox, and what their bodies hold
(spec 6, CONTRACT 9). Delivery itself is tested with a real receiver elsewhere."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from energyhub.domain.accounts import Environment
from energyhub.persistence.tables import webhook_events
from tests.support import Api


async def events(api: Api) -> list[dict[str, Any]]:
    async with api.container.engine.connect() as connection:
        rows = await connection.execute(select(webhook_events).order_by(webhook_events.c.pk))
        return [dict(row._mapping) for row in rows]


async def test_a_completed_push_writes_push_completed_once(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    before = len(await events(api))
    pushed = await api.push(
        caller, device, "charge", parameters={"target": {"value": 80, "unit": "percent"}}
    )
    assert pushed.status_code == 200, pushed.text
    assert len(await events(api)) == before, "no event when an action is created or starts"
    await api.run_due(api.container.settings.sandbox_completion_delay_s)
    written = (await events(api))[before:]
    assert [e["type"] for e in written] == ["push.completed"]
    event = written[0]
    action = pushed.json()["data"]
    assert event["payload"] == {
        "actionId": action["id"],
        "deviceId": device["id"],
        "deviceType": "battery",
        "command": "charge",
        "parameters": {"target": {"value": 80, "unit": "percent"}},
        "result": {"success": True, "accepted": True},
        "completedAt": event["payload"]["completedAt"],
    }
    assert event["environment"] == "sandbox"
    assert event["account_id"] == caller.account_id
    delay = timedelta(seconds=api.container.settings.sandbox_push_event_delay_s)
    assert event["deliver_after"] - event["occurred_at"] == delay
    await api.run_due(3600)
    assert len(await events(api)) == before + 1, "one final event per action"


async def test_a_refused_push_writes_push_failed_with_the_code(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, "ev-charger")
    refused = await api.push(
        caller, device, "charge", sandbox={"result": "failed", "errorCode": "DEVICE_OFFLINE"}
    )
    assert refused.status_code == 502
    written = [e for e in await events(api) if e["type"] == "push.failed"]
    assert len(written) == 1
    payload = written[0]["payload"]
    assert payload["actionId"] == refused.json()["error"]["details"]["actionId"]
    assert payload["deviceType"] == "ev_charger"
    assert payload["errorCode"] == "DEVICE_OFFLINE"
    assert payload["errorMessage"]
    assert payload["result"]["success"] is False


async def test_cancelled_and_scheduled_actions_write_nothing(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)
    before = len(await events(api))
    scheduled = await api.push(caller, device, "idle", start="2026-11-20T18:00:00")
    assert scheduled.status_code == 202, scheduled.text
    action_id = scheduled.json()["data"]["id"]
    cancelled = await api.client.post(f"/actions/{action_id}/cancel", headers=caller.headers)
    assert cancelled.status_code == 200, cancelled.text
    await api.run_due(24 * 3600)
    assert len(await events(api)) == before


async def test_disconnect_and_reconnect_write_device_events(api: Api) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, user_id="user-7")
    connected = [e for e in await events(api) if e["type"] == "device.connected"]
    assert [e["payload"]["deviceId"] for e in connected] == [device["id"]]
    assert connected[0]["payload"]["userId"] == "user-7"
    link_delay = timedelta(seconds=api.container.settings.sandbox_link_event_delay_s)
    assert connected[0]["deliver_after"] - connected[0]["occurred_at"] == link_delay

    path = f"/sandbox/devices/{device['id']}"
    off = await api.client.post(f"{path}/disconnect", headers=caller.headers)
    assert off.status_code == 200, off.text
    assert off.json()["data"]["connected"] is False
    read = await api.get(caller, f"/battery/{device['id']}", expedite="true")
    api.clock.advance(120)
    read = await api.get(caller, f"/battery/{device['id']}", expedite="true")
    assert read.json()["data"]["sync"]["available"] is False, "unavailable on the next pull"
    refused = await api.push(caller, device, "idle")
    assert refused.status_code == 502
    assert refused.json()["error"]["code"] == "CREDENTIALS_INVALID"

    on = await api.client.post(f"{path}/reconnect", headers=caller.headers)
    assert on.status_code == 200, on.text
    read = await api.get(caller, f"/battery/{device['id']}")
    assert read.json()["data"]["sync"]["available"] is True
    kinds = [e["type"] for e in await events(api) if e["payload"].get("deviceId") == device["id"]]
    assert kinds == ["device.connected", "device.disconnected", "push.failed", "device.reconnected"]
    disconnected = next(e for e in await events(api) if e["type"] == "device.disconnected")
    relink = disconnected["payload"]["reconnectionUrl"]
    assert "/link/" in relink
    assert "token=" in relink, "a link session for that user, ready to use"
    assert disconnected["payload"]["deviceType"] == "battery"


async def test_device_routes_refuse_live_keys_and_unknown_devices(api: Api) -> None:
    sandbox = await api.caller()
    device = await api.sandbox_device(sandbox)
    live = await api.key_for(sandbox.account_id, Environment.LIVE)
    path = f"/sandbox/devices/{device['id']}/disconnect"
    refused = await api.client.post(path, headers=live.headers)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "SANDBOX_ONLY"
    missing = await api.client.post("/sandbox/devices/nope/disconnect", headers=sandbox.headers)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "DEVICE_NOT_FOUND"
