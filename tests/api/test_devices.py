"""Device reads: spec 2.2-2.5, 2.9, 2.10, 4.1, 4.2, 4.9, 4.10; CONTRACT 3 and 10."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from tests.support import Api, Caller

BATTERY_STATE_KEYS = {"status", "capacity", "level", "chargeRate", "dischargeLimit", "currentMode"}


async def _read(api: Api, caller: Caller, path: str, **params: Any) -> dict[str, Any]:
    response = await api.get(caller, path, **params)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def test_created_battery_has_every_spec_field(api: Api) -> None:
    caller = await api.caller()
    created = await api.sandbox_device(caller, email="ada@example.com")
    assert created["metadata"]["source"] == "live", "a new device is read once on creation"
    battery = await _read(api, caller, f"/battery/{created['id']}")
    assert battery["id"] == created["id"]
    assert battery["type"] == "battery"
    assert battery["userId"] == "user-1"
    assert battery["vendor"] == "sandbox-volta"
    assert battery["sync"] == {"available": True, "lastPulledAt": "2026-11-20T12:00:00.000Z"}
    assert battery["metadata"] == {
        "model": battery["metadata"]["model"],
        "timezone": "Europe/Berlin",
        "source": "cache",
        "cacheType": "normal",
    }
    assert set(battery["state"]) == BATTERY_STATE_KEYS
    assert set(battery["commands"]) == {
        "charge",
        "discharge",
        "idle",
        "auto.balance",
        "auto.reserve",
        "auto.export",
    }
    assert battery["commands"]["charge"]["parameters"]["power"] == {
        "unit": "kw",
        "min": 0,
        "max": 5,
    }
    assert battery["commands"]["idle"] == {
        "parameters": {},
        "execution": ["immediate", "scheduled"],
    }
    assert battery["conflictStrategies"] == ["cancel_and_replace", "queue_after"]
    assert battery["settings"]["scheduler_enabled"] == {"value": False}
    assert battery["settings"]["export_limit"]["unit"] == "w"
    assert battery["currentSchedule"] is None
    assert "lastAction" not in battery


@pytest.mark.parametrize("hour", range(0, 24, 3))
async def test_battery_status_agrees_with_charge_rate(api: Api, hour: int) -> None:
    caller = await api.caller()
    api.clock.set(api.clock.now().replace(hour=hour))
    created = await api.sandbox_device(caller)
    state = created["state"]
    expected = (
        "idle"
        if state["chargeRate"] == 0
        else ("charging" if state["chargeRate"] > 0 else "discharging")
    )
    assert state["status"] == expected
    assert 0 <= state["level"] <= 100


async def test_cache_serves_stored_state_for_15_minutes_then_pulls(api: Api) -> None:
    caller = await api.caller()
    device_id = (await api.sandbox_device(caller))["id"]
    api.clock.advance(timedelta(minutes=14, seconds=59))
    cached = await _read(api, caller, f"/battery/{device_id}")
    assert cached["metadata"]["source"] == "cache"
    assert cached["sync"]["lastPulledAt"] == "2026-11-20T12:00:00.000Z"
    api.clock.advance(timedelta(seconds=1))
    pulled = await _read(api, caller, f"/battery/{device_id}")
    assert pulled["metadata"] == {**pulled["metadata"], "source": "live", "cacheType": "normal"}
    assert pulled["sync"]["lastPulledAt"] == "2026-11-20T12:15:00.000Z"
    again = await _read(api, caller, f"/battery/{device_id}")
    assert again["metadata"]["source"] == "cache"
    assert again["sync"]["lastPulledAt"] == "2026-11-20T12:15:00.000Z"


async def test_expedite_accepts_at_most_one_minute_old_state(api: Api) -> None:
    caller = await api.caller()
    device_id = (await api.sandbox_device(caller))["id"]
    api.clock.advance(timedelta(seconds=59))
    cached = await _read(api, caller, f"/battery/{device_id}", expedite="true")
    assert cached["metadata"]["source"] == "cache"
    assert cached["metadata"]["cacheType"] == "expedite"
    api.clock.advance(timedelta(seconds=1))
    pulled = await _read(api, caller, f"/battery/{device_id}", expedite="true")
    assert pulled["metadata"]["source"] == "live"
    assert pulled["metadata"]["cacheType"] == "expedite"
    normal = await _read(api, caller, f"/battery/{device_id}")
    assert normal["metadata"]["source"] == "cache"


async def test_pulled_state_follows_the_time_of_day(api: Api) -> None:
    caller = await api.caller()
    api.clock.set(api.clock.now().replace(hour=6))
    device_id = (await api.sandbox_device(caller))["id"]
    morning = await _read(api, caller, f"/battery/{device_id}")
    api.clock.advance(timedelta(hours=6))
    noon = await _read(api, caller, f"/battery/{device_id}")
    assert noon["metadata"]["source"] == "live"
    assert noon["state"]["level"] > morning["state"]["level"]
    assert noon["state"]["status"] == "charging"


async def test_cache_hit_body_equals_a_full_read(api: Api) -> None:
    """The gateway's cached path and the route build the same body."""
    caller = await api.caller()
    device_id = (await api.sandbox_device(caller, "ev-charger"))["id"]
    api.container.services.read_cache.clear()
    full = await _read(api, caller, f"/ev-charger/{device_id}")
    hit = await _read(api, caller, f"/ev-charger/{device_id}")
    assert full == hit
    assert api.container.services.read_cache.lookup is not None


async def test_lists_never_pull_and_carry_no_cache_type(api: Api) -> None:
    caller = await api.caller()
    device_id = (await api.sandbox_device(caller))["id"]
    api.clock.advance(timedelta(hours=3))
    listing = await _read(api, caller, "/battery")
    item = listing["items"][0]
    assert item["id"] == device_id
    assert item["metadata"]["source"] == "cache"
    assert "cacheType" not in item["metadata"]
    assert item["sync"]["lastPulledAt"] == "2026-11-20T12:00:00.000Z"


async def test_list_pagination_and_user_filter(api: Api) -> None:
    caller = await api.caller()
    ids = [(await api.sandbox_device(caller, user_id=f"u{i % 2}"))["id"] for i in range(5)]
    await api.sandbox_device(caller, "ev-charger")
    first = await _read(api, caller, "/battery", limit=2)
    assert [i["id"] for i in first["items"]] == ids[:2]
    assert first["pagination"] == {"limit": 2, "offset": 0, "total": 5, "hasMore": True}
    last = await _read(api, caller, "/battery", limit=2, offset=4)
    assert [i["id"] for i in last["items"]] == ids[4:]
    assert last["pagination"]["hasMore"] is False
    mine = await _read(api, caller, "/battery", userId="u1")
    assert [i["id"] for i in mine["items"]] == [ids[1], ids[3]]
    chargers = await _read(api, caller, "/ev-charger")
    assert chargers["pagination"]["total"] == 1
    assert chargers["items"][0]["type"] == "ev-charger"


async def test_wrong_device_type_path_is_not_found(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    response = await api.get(caller, f"/battery/{charger['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "DEVICE_NOT_FOUND"


async def test_charger_state_is_presence_based(api: Api) -> None:
    caller = await api.caller()
    for hour in (3, 12, 20):
        api.clock.set(api.clock.now().replace(hour=hour))
        charger = await api.sandbox_device(caller, "ev-charger")
        state = charger["state"]
        assert {"status", "isConnected", "isCharging"} <= set(state)
        assert None not in state.values(), "unknown fields are omitted, never null"
        assert state["isCharging"] == (state.get("currentPower", 0) > 0)


async def test_charger_profiles(api: Api) -> None:
    caller = await api.caller()
    full = await api.sandbox_device(caller, "ev-charger")
    assert set(full["commands"]) == {
        "charge",
        "idle",
        "auto.charge_tariff",
        "auto.charge_surplus_only",
        "auto.charge_surplus_first",
    }
    assert full["sessions"] is True
    assert full["vehicle"]["links"]["self"] == f"/vehicles/{full['vehicle']['id']}"
    assert set(full["settings"]) == {
        "max_charge_rate",
        "max_charge_current",
        "cable_lock",
        "scheduler_enabled",
    }
    basic = await api.sandbox_device(caller, "ev-charger", profile="ev-charger-basic")
    assert basic["sessions"] is False
    assert basic["vehicle"] is None
    assert "target" not in basic["commands"]["charge"]["parameters"]
    assert basic["conflictStrategies"] == ["cancel_and_replace"]
    exporting = await api.sandbox_device(caller, "ev-charger", profile="ev-charger-bidirectional")
    assert exporting["state"]["status"] == "discharging"
    assert exporting["state"]["currentPower"] < 0
    assert exporting["state"]["isCharging"] is False


async def test_battery_profiles(api: Api) -> None:
    caller = await api.caller()
    minimal = await api.sandbox_device(caller, profile="battery-minimal")
    assert set(minimal["commands"]) == {"charge", "idle", "auto.balance"}
    assert set(minimal["commands"]["charge"]["parameters"]) == {"target", "power"}
    assert all("windowed" not in c["execution"] for c in minimal["commands"].values())
    assert "conflictStrategies" not in minimal
    assert minimal["settings"] == {}
    scheduled = await api.sandbox_device(caller, profile="battery-auto-schedule")
    assert "auto.schedule" in scheduled["commands"]


@pytest.mark.parametrize(
    "body",
    [
        {"type": "battery", "userId": "u", "profile": "ev-charger"},
        {"type": "battery", "userId": "u", "profile": "toaster"},
        {"type": "toaster", "userId": "u"},
        {"type": "battery", "userId": ""},
        {"type": "battery", "userId": "u", "timezone": "Mars/Olympus"},
    ],
)
async def test_bad_sandbox_device_request_is_invalid(api: Api, body: dict[str, Any]) -> None:
    caller = await api.caller()
    response = await api.client.post("/sandbox/devices", json=body, headers=caller.headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_REQUEST"


async def test_vehicle_of_a_charger(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    vehicle = await _read(api, caller, charger["vehicle"]["links"]["self"])
    assert vehicle["id"] == charger["vehicle"]["id"]
    assert len(vehicle["vin"]) == 17
    assert vehicle["batteryCapacity"]["unit"] == "kwh"
    assert 0 <= vehicle["stateOfCharge"] <= 100
    other = await api.caller()
    hidden = await api.get(other, charger["vehicle"]["links"]["self"])
    assert hidden.status_code == 404


async def test_user_devices_by_id_and_email_with_type_filter(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, user_id="ada", email="Ada@Example.com")
    charger = await api.sandbox_device(caller, "ev-charger", user_id="ada")
    await api.sandbox_device(caller, user_id="bob")
    everything = await _read(api, caller, "/users/ada/devices")
    kinds = [(d["id"], d["type"]) for d in everything["devices"]]
    assert kinds == [
        (battery["id"], "battery"),
        (charger["id"], "ev-charger"),
        (charger["vehicle"]["id"], "vehicle"),
    ]
    assert set(everything["devices"][0]) == {"id", "vendor", "type", "model", "available"}
    by_email = await _read(api, caller, "/users/ada@example.com/devices")
    assert by_email["devices"] == everything["devices"]
    response = await api.client.get(
        "/users/ada/devices?type=battery&type=vehicle", headers=caller.headers
    )
    filtered = response.json()["data"]
    assert [d["type"] for d in filtered["devices"]] == ["battery", "vehicle"]
    assert filtered["pagination"]["total"] == 2
    none = await _read(api, caller, "/users/ada/devices", type="hvac")
    assert none["devices"] == []
    paged = await _read(api, caller, "/users/ada/devices", limit=1, offset=1)
    assert [d["id"] for d in paged["devices"]] == [charger["id"]]
    assert paged["pagination"] == {"limit": 1, "offset": 1, "total": 3, "hasMore": True}


async def test_unknown_user_and_bad_type(api: Api) -> None:
    caller = await api.caller()
    missing = await api.get(caller, "/users/nobody/devices")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "USER_NOT_FOUND"
    await api.sandbox_device(caller, user_id="ada")
    bad = await api.get(caller, "/users/ada/devices", type="toaster")
    assert bad.status_code == 400


async def test_first_devices_of_a_new_user_made_at_once(api: Api) -> None:
    caller = await api.caller()
    made = await asyncio.gather(
        *(
            api.client.post(
                "/sandbox/devices",
                json={"type": "battery", "userId": "twins", "email": "twins@example.com"},
                headers=caller.headers,
            )
            for _ in range(5)
        )
    )
    assert [r.status_code for r in made] == [201] * 5
    listing = await _read(api, caller, "/users/twins/devices")
    assert listing["pagination"]["total"] == 5
