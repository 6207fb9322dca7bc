"""POST /sandbox/devices/{id}/simulate: a simulated car plugged in or out, its state of
charge or a battery's level set and held (the daily pattern stands still, commands run from
it) until a reset; every refusal with the code the rest of the API uses for its kind."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType
from energyhub.domain.sandbox_profiles import PROFILES, new_sandbox_device
from tests.support import Api, Caller

# The fake clock starts on Friday 2026-11-20 at 12:00Z: the default charger's car is away
# (it comes home at 17:00Z) and the battery follows auto.balance (solar charging at noon).


async def _simulate(api: Api, caller: Caller, device_id: str, body: Any) -> httpx.Response:
    return await api.client.post(
        f"/sandbox/devices/{device_id}/simulate", json=body, headers=caller.headers
    )


async def _ok(api: Api, caller: Caller, device_id: str, body: Any) -> dict[str, Any]:
    response = await _simulate(api, caller, device_id, body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def _read(api: Api, caller: Caller, device: dict[str, Any]) -> dict[str, Any]:
    response = await api.get(caller, f"/{device['type']}/{device['id']}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def _soc(api: Api, caller: Caller, charger: dict[str, Any]) -> float:
    """The car's state of charge as the charger's last read stored it."""
    response = await api.get(caller, f"/vehicles/{charger['vehicle']['id']}")
    assert response.status_code == 200, response.text
    soc: float = response.json()["data"]["stateOfCharge"]
    return soc


async def test_a_car_is_plugged_in_at_a_state_of_charge_and_held(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    assert charger["state"]["isConnected"] is False
    body = await _ok(api, caller, charger["id"], {"pluggedIn": True, "vehicleSoc": 20})
    assert body["id"] == charger["id"]
    assert body["state"]["isConnected"] is True
    assert body["state"]["currentPower"] == 0.0
    assert await _soc(api, caller, body) == 20.0
    api.clock.advance(8 * 3600)  # 20:00Z: the pattern would charge now, and has the car home
    read = await _read(api, caller, charger)
    assert read["state"]["isConnected"] is True
    assert read["state"]["currentPower"] == 0.0
    assert await _soc(api, caller, read) == 20.0


async def test_charge_fills_the_held_car_from_the_level_set(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    await _ok(api, caller, charger["id"], {"pluggedIn": True, "vehicleSoc": 20})
    pushed = await api.push(
        caller, charger, "charge", parameters={"power": {"value": 7.5, "unit": "kw"}}
    )
    assert pushed.status_code == 200, pushed.text
    await api.run_due(60)
    api.clock.advance(3600)  # one hour at 7.5 kW: 10 % of a 75 kWh car
    read = await _read(api, caller, charger)
    assert read["state"]["currentPower"] == 7.5
    assert await _soc(api, caller, read) == pytest.approx(30.0, abs=0.3)
    unplugged = await _ok(api, caller, charger["id"], {"pluggedIn": False})
    assert unplugged["state"]["isConnected"] is False
    assert unplugged["state"]["currentPower"] == 0.0
    soc = await _soc(api, caller, unplugged)
    api.clock.advance(3600)
    assert await _soc(api, caller, await _read(api, caller, charger)) == soc


async def test_reset_returns_the_device_to_its_time_pattern(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    await _ok(api, caller, charger["id"], {"pluggedIn": True, "vehicleSoc": 90})
    body = await _ok(api, caller, charger["id"], {"reset": True})
    assert body["state"]["isConnected"] is False  # 12:00Z: the pattern has the car away
    assert body["state"] == charger["state"]


async def test_a_battery_level_is_set_held_and_reset(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, "battery")
    assert battery["state"]["chargeRate"] > 0  # solar charging at noon
    body = await _ok(api, caller, battery["id"], {"level": 75})
    assert body["state"]["level"] == 75.0
    assert body["state"]["chargeRate"] == 0.0
    assert body["state"]["status"] == "idle"
    api.clock.advance(2 * 3600)
    assert (await _read(api, caller, battery))["state"]["level"] == 75.0
    reset = await _ok(api, caller, battery["id"], {"reset": True})
    assert reset["state"]["level"] != 75.0
    assert reset["state"]["chargeRate"] > 0


async def test_a_cached_read_shows_the_held_state_at_once(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, "battery")
    path = f"/battery/{battery['id']}"
    await api.get(caller, path)  # fills the read cache
    await _ok(api, caller, battery["id"], {"level": 42})
    principal = await api.container.services.accounts.authenticate(caller.key)
    hit = api.container.services.read_cache.lookup(
        principal, DeviceType.BATTERY, battery["id"], CacheType.NORMAL, api.clock.now()
    )
    assert hit is not None
    assert (await api.get(caller, path)).json()["data"]["state"]["level"] == 42.0
    listed = (await api.get(caller, "/battery")).json()["data"]["items"]
    assert [item["state"]["level"] for item in listed] == [42.0]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, "body"),
        ([], "body"),
        ({"plugged": True}, "body.plugged"),
        ({"pluggedIn": "yes"}, "body.pluggedIn"),
        ({"vehicleSoc": "50"}, "body.vehicleSoc"),
        ({"vehicleSoc": True}, "body.vehicleSoc"),
        ({"reset": False}, "body.reset"),
        ({"reset": True, "pluggedIn": True}, "body.reset"),
    ],
)
async def test_a_malformed_body_is_400(api: Api, body: Any, path: str) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    response = await _simulate(api, caller, charger["id"], body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert path in [e["path"] for e in error["details"]["errors"]]


@pytest.mark.parametrize(
    ("type_", "profile", "body", "parameter"),
    [
        ("battery", None, {"vehicleSoc": 50}, "vehicleSoc"),
        ("battery", None, {"pluggedIn": True}, "pluggedIn"),
        ("ev-charger", None, {"level": 50}, "level"),
        ("ev-charger", "ev-charger-basic", {"vehicleSoc": 50}, "vehicleSoc"),
    ],
)
async def test_a_field_the_device_cannot_take_is_422(
    api: Api, type_: str, profile: str | None, body: Any, parameter: str
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, type_, profile)
    response = await _simulate(api, caller, device["id"], body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_PARAMETER"
    assert error["details"]["parameter"] == parameter


@pytest.mark.parametrize(
    ("type_", "key", "value"), [("ev-charger", "vehicleSoc", 101), ("battery", "level", -1)]
)
async def test_a_value_outside_0_to_100_is_422(
    api: Api, type_: str, key: str, value: float
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, type_)
    response = await _simulate(api, caller, device["id"], {key: value})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "PARAMETER_OUT_OF_RANGE"
    assert error["details"] == {"parameter": key, "min": 0, "max": 100}


async def test_a_boundary_value_is_taken(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, "battery")
    assert (await _ok(api, caller, battery["id"], {"level": 0}))["state"]["level"] == 0.0
    assert (await _ok(api, caller, battery["id"], {"level": 100.0}))["state"]["level"] == 100.0


async def test_another_accounts_device_is_404(api: Api) -> None:
    owner, stranger = await api.caller(), await api.caller()
    battery = await api.sandbox_device(owner, "battery")
    for device_id in (battery["id"], "no-such-device"):
        response = await _simulate(api, stranger, device_id, {"level": 50})
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "DEVICE_NOT_FOUND"


async def test_a_live_key_is_403_sandbox_only(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller, "battery")
    live = await api.key_for(caller.account_id, Environment.LIVE)
    response = await _simulate(api, live, battery["id"], {"level": 50})
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "SANDBOX_ONLY"


async def test_a_device_the_simulator_does_not_run_is_403_sandbox_only(api: Api) -> None:
    """A device of the sandbox environment behind a real protocol (a charger commissioned
    there) is not simulated."""
    caller = await api.caller()
    device = new_sandbox_device(
        PROFILES["ev-charger"],
        device_id="real-charger",
        account_id=caller.account_id,
        environment=Environment.SANDBOX,
        user_id="user-1",
        timezone="Europe/Berlin",
        now=api.clock.now(),
    )
    async with api.container.uow() as tx:
        await tx.devices.ensure_user(
            caller.account_id, Environment.SANDBOX, "user-1", None, api.clock.now()
        )
        await tx.devices.add_device(replace(device, driver="ocpp", profile=None))
    response = await _simulate(api, caller, "real-charger", {"pluggedIn": True})
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "SANDBOX_ONLY"


async def test_the_openapi_document_shows_the_route(api: Api) -> None:
    document = (await api.client.get("/openapi.json")).json()
    operation = document["paths"]["/sandbox/devices/{deviceId}/simulate"]["post"]
    assert operation["summary"]
    assert {"200", "400", "403", "422"} <= set(operation["responses"])
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    assert "anyOf" in schema or "oneOf" in schema
