"""Charging goals over HTTP (strategies): set, read in the charger's body (the gateway's
cached read and FastAPI's route alike), remove; every refusal with its code."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType
from tests.support import Api, Caller

# The fake clock starts on Friday 2026-11-20 at 12:00Z: 13:00 in Berlin.
ENERGY_GOAL = {"readyBy": "07:00", "energy": {"value": 20, "unit": "kwh"}}
GOAL = {
    "readyBy": "07:00",
    "readyAt": "2026-11-21T06:00:00.000Z",
    "timezone": "Europe/Berlin",
    "energy": {"value": 20.0, "unit": "kwh"},
    "target": None,
    "setAt": "2026-11-20T12:00:00.000Z",
}


async def _charger(api: Api, profile: str | None = None) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller()
    return caller, await api.sandbox_device(caller, "ev-charger", profile, user_id="home-1")


async def _put(api: Api, caller: Caller, device_id: str, body: Any) -> httpx.Response:
    return await api.client.put(f"/ev-charger/{device_id}/goal", json=body, headers=caller.headers)


async def test_a_goal_is_set_shown_in_the_charger_body_and_removed(api: Api) -> None:
    caller, charger = await _charger(api)
    assert charger["goal"] is None
    response = await _put(api, caller, charger["id"], ENERGY_GOAL)
    assert response.status_code == 200, response.text
    assert response.json()["data"] == GOAL
    body = (await api.get(caller, f"/ev-charger/{charger['id']}")).json()["data"]
    assert body["goal"] == GOAL
    listed = (await api.get(caller, "/ev-charger")).json()["data"]["items"]
    assert [item["goal"] for item in listed] == [GOAL]
    response = await api.client.delete(f"/ev-charger/{charger['id']}/goal", headers=caller.headers)
    assert response.status_code == 200, response.text
    assert response.json()["data"] == GOAL
    assert (await api.get(caller, f"/ev-charger/{charger['id']}")).json()["data"]["goal"] is None
    again = await api.client.delete(f"/ev-charger/{charger['id']}/goal", headers=caller.headers)
    assert again.status_code == 200
    assert again.json()["data"] is None


async def test_the_cached_read_and_the_route_show_the_same_goal(api: Api) -> None:
    """The gateway answers a repeated read from its cache; a goal change reaches it."""
    caller, charger = await _charger(api)
    path = f"/ev-charger/{charger['id']}"
    for change in (ENERGY_GOAL, None):
        if change is None:
            await api.client.delete(f"{path}/goal", headers=caller.headers)
        else:
            await _put(api, caller, charger["id"], change)
        cache = api.container.services.read_cache
        cache.clear()
        route = (await api.get(caller, path)).json()["data"]  # FastAPI, fills the cache
        principal = await api.container.services.accounts.authenticate(caller.key)
        hit = cache.lookup(
            principal, DeviceType.EV_CHARGER, charger["id"], CacheType.NORMAL, api.clock.now()
        )
        assert hit is not None, "the next read is the gateway's"
        cached = (await api.get(caller, path)).json()["data"]
        assert cached == route
        assert route["goal"] == (None if change is None else GOAL)


async def test_ready_by_is_the_next_time_the_site_clock_shows_it(api: Api) -> None:
    caller, charger = await _charger(api)
    later_today = {"readyBy": "14:30", "energy": {"value": 5, "unit": "kwh"}}
    goal = (await _put(api, caller, charger["id"], later_today)).json()["data"]
    assert goal["readyAt"] == "2026-11-20T13:30:00.000Z"
    site = {"timezone": "America/New_York"}
    assert (
        await api.client.put("/users/home-1/site", json=site, headers=caller.headers)
    ).status_code == 200
    goal = (await _put(api, caller, charger["id"], later_today)).json()["data"]
    assert goal["readyAt"] == "2026-11-20T19:30:00.000Z"  # 14:30 in New York
    assert goal["timezone"] == "America/New_York"


async def test_a_target_goal_on_a_charger_that_reads_the_car(api: Api) -> None:
    caller, charger = await _charger(api)
    body = {"readyBy": "06:15", "target": {"value": 80, "unit": "percent"}}
    response = await _put(api, caller, charger["id"], body)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["target"] == {"value": 80.0, "unit": "percent"}
    assert response.json()["data"]["energy"] is None


async def test_a_target_on_a_charger_that_does_not_declare_it_is_422(api: Api) -> None:
    caller, charger = await _charger(api, "ev-charger-basic")
    body = {"readyBy": "06:15", "target": {"value": 80, "unit": "percent"}}
    response = await _put(api, caller, charger["id"], body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "UNSUPPORTED_PARAMETER"
    assert "energy" in error["message"]
    assert (await _put(api, caller, charger["id"], ENERGY_GOAL)).status_code == 200


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        ({"readyBy": "07:00"}, ["body"]),
        (
            {
                "readyBy": "07:00",
                "energy": {"value": 5, "unit": "kwh"},
                "target": {"value": 80, "unit": "percent"},
            },
            ["body"],
        ),
        ({"readyBy": "7:00", "energy": {"value": 5, "unit": "kwh"}}, ["body.readyBy"]),
        ({"readyBy": "24:00", "energy": {"value": 5, "unit": "kwh"}}, ["body.readyBy"]),
        ({"energy": {"value": 5, "unit": "kwh"}}, ["body.readyBy"]),
        ({"readyBy": "07:00", "energy": {"value": 0, "unit": "kwh"}}, ["body.energy.value"]),
        ({"readyBy": "07:00", "energy": {"value": 5, "unit": "kw"}}, ["body.energy.unit"]),
        ({"readyBy": "07:00", "energy": None}, ["body.energy"]),
        ({"readyBy": "07:00", "target": {"value": 101, "unit": "percent"}}, ["body.target.value"]),
        ({**ENERGY_GOAL, "when": "now"}, ["body.when"]),
        ([ENERGY_GOAL], ["body"]),
    ],
)
async def test_a_malformed_goal_is_400_naming_each_problem(
    api: Api, body: Any, paths: list[str]
) -> None:
    caller, charger = await _charger(api)
    response = await _put(api, caller, charger["id"], body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert [e["path"] for e in error["details"]["errors"]] == paths


async def test_goals_of_unknown_or_other_devices_are_404(api: Api) -> None:
    caller, _ = await _charger(api)
    battery = await api.sandbox_device(caller, "battery", user_id="home-1")
    stranger = await api.caller()
    theirs = await api.sandbox_device(stranger, "ev-charger", user_id="x")
    for device_id in ("nope", battery["id"], theirs["id"]):
        for method in ("PUT", "DELETE"):
            response = await api.client.request(
                method, f"/ev-charger/{device_id}/goal", json=ENERGY_GOAL, headers=caller.headers
            )
            assert response.status_code == 404, (device_id, method, response.text)
            assert response.json()["error"]["code"] == "DEVICE_NOT_FOUND"
        plan = await api.get(caller, f"/ev-charger/{device_id}/plan")
        assert plan.status_code == 404


async def test_a_ready_by_time_the_spring_night_skips_is_the_moment_the_clock_jumps(
    api: Api,
) -> None:
    """Europe/Berlin has no 02:30 on 2026-03-29: clocks go from 02:00 to 03:00 (01:00Z)."""
    api.clock.set(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    caller, charger = await _charger(api)
    body = {"readyBy": "02:30", "energy": {"value": 5, "unit": "kwh"}}
    goal = (await _put(api, caller, charger["id"], body)).json()["data"]
    assert goal["readyAt"] == "2026-03-29T01:00:00.000Z"
    api.clock.set(datetime(2026, 3, 29, 12, 0, tzinfo=UTC))
    goal = (await _put(api, caller, charger["id"], body)).json()["data"]
    assert goal["readyAt"] == "2026-03-30T00:30:00.000Z"  # 02:30 CEST the next night
