"""Consistency a newcomer's trial found missing, on SQLite and PostgreSQL: a setting the
state reports follows a write at once and on later pulls, a ceiling in two units stays one
ceiling, a device read on the wrong type's path says which path serves it, and sandbox
session ids have the one format live ones have too."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from tests.support import Api, Caller

SESSION_ID = re.compile(r"^ses_[0-9a-f]{24}$")


async def write(api: Api, caller: Caller, path: str, **body: Any) -> dict[str, Any]:
    response = await api.client.post(f"{path}/settings", json=body, headers=caller.headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def read(api: Api, caller: Caller, path: str) -> dict[str, Any]:
    response = await api.get(caller, path)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def test_discharge_limit_follows_a_discharge_floor_write(api: Api) -> None:
    caller = await api.caller()
    battery = await api.sandbox_device(caller)
    path = f"/battery/{battery['id']}"
    assert (await read(api, caller, path))["state"]["dischargeLimit"] == 10
    await write(api, caller, path, discharge_floor={"value": 25, "unit": "percent"})
    assert (await read(api, caller, path))["state"]["dischargeLimit"] == 25
    api.clock.advance(timedelta(hours=1))  # a fresh pull of the simulated battery
    later = await read(api, caller, path)
    assert later["settings"]["discharge_floor"]["value"] == 25
    assert later["state"]["dischargeLimit"] == 25


@pytest.mark.parametrize(
    ("body", "rate_kw", "current_a"),
    [
        ({"max_charge_rate": {"value": 11, "unit": "kw"}}, 11, 15.9),
        ({"max_charge_rate": {"value": 7400, "unit": "w"}}, 7.4, 10.7),
        ({"max_charge_current": {"value": 16, "unit": "a"}}, 11.04, 16),
        ({"max_charge_current": {"value": 6, "unit": "a"}}, 4.14, 6),
    ],
)
async def test_a_charge_ceiling_written_in_one_unit_is_kept_in_both(
    api: Api, body: dict[str, Any], rate_kw: float, current_a: float
) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    path = f"/ev-charger/{charger['id']}"
    written = await write(api, caller, path, **body)
    for settings in (written["settings"], (await read(api, caller, path))["settings"]):
        rate, current = settings["max_charge_rate"], settings["max_charge_current"]
        assert (rate["value"], rate["unit"]) == (rate_kw, "kw")
        assert (current["value"], current["unit"]) == (current_a, "a")


@pytest.mark.parametrize(
    ("made", "asked", "said"),
    [
        ("ev-charger", "/battery/{id}", "is an EV charger, not a battery: use /ev-charger/{id}."),
        ("battery", "/ev-charger/{id}", "is a battery, not an EV charger: use /battery/{id}."),
        ("battery", "/vehicles/{id}", "is a battery, not a vehicle: use /battery/{id}."),
        ("ev-charger", "/battery/{id}/sessions", None),  # no such route: the router's 404
    ],
)
async def test_a_device_on_another_types_path_names_the_right_one(
    api: Api, made: str, asked: str, said: str | None
) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller, made)
    response = await api.get(caller, asked.format(id=device["id"]))
    assert response.status_code == 404
    if said is None:
        return
    error = response.json()["error"]
    assert error["code"] == "DEVICE_NOT_FOUND"
    assert error["message"] == f"Device {device['id']!r} " + said.format(id=device["id"])
    assert error["details"]["path"] == said.split("use ")[1].rstrip(".").format(id=device["id"])


async def test_a_push_on_another_types_path_names_the_right_one(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    response = await api.client.post(
        f"/battery/{charger['id']}",
        json={"action": {"command": "idle", "parameters": {}}},
        headers=caller.headers,
    )
    assert response.status_code == 404
    assert response.json()["error"]["message"].endswith(f"use /ev-charger/{charger['id']}.")


async def test_another_accounts_device_stays_an_unknown_id(api: Api) -> None:
    owner, stranger = await api.caller(), await api.caller()
    charger = await api.sandbox_device(owner, "ev-charger")
    response = await api.get(stranger, f"/battery/{charger['id']}")
    assert response.status_code == 404
    error = response.json()["error"]
    assert "use /ev-charger" not in error["message"]
    assert "path" not in error["details"]


async def test_sandbox_session_ids_have_the_one_format(api: Api) -> None:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger")
    response = await api.get(caller, f"/ev-charger/{charger['id']}/sessions")
    assert response.status_code == 200, response.text
    ids = [s["id"] for s in response.json()["data"]["items"]]
    assert ids
    assert all(SESSION_ID.match(i) for i in ids), ids
