"""The strategy runner with sandbox chargers: plans made again when their inputs change,
the charger following the plan's limits, surplus steering with its delays, and the run
ending with the strategy. The fake clock starts on Friday 2026-11-20 at 12:00Z."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from energyhub.domain.session_costs import WRITE_STEP_KWH
from energyhub.services.strategy_runner import TickReport
from tests.support import Api, Caller

CHEAP_NIGHT = {
    "timeOfUse": [
        {"from": "00:00", "to": "06:00", "price": 0.12},
        {"from": "06:00", "to": "24:00", "price": 0.34},
    ]
}


async def _tick(api: Api) -> TickReport:
    return await api.container.strategy_worker.runner.tick()


async def _setup(api: Api, command: str, goal_kwh: float | None = None) -> tuple[Caller, str]:
    caller = await api.caller()
    charger = await api.sandbox_device(caller, "ev-charger", user_id="home-1")
    site = {"timezone": "Europe/Berlin", "tariff": {"currency": "EUR", "import": CHEAP_NIGHT}}
    response = await api.client.put("/users/home-1/site", json=site, headers=caller.headers)
    assert response.status_code == 200, response.text
    if goal_kwh is not None:
        await _goal(api, caller, charger["id"], goal_kwh)
    assert (await api.push(caller, charger, command)).status_code == 200
    assert await api.run_due(2) == 1  # the sandbox completes it after 2 s
    return caller, charger["id"]


async def _goal(api: Api, caller: Caller, charger_id: str, kwh: float) -> None:
    body = {"readyBy": "07:00", "energy": {"value": kwh, "unit": "kwh"}}
    response = await api.client.put(
        f"/ev-charger/{charger_id}/goal", json=body, headers=caller.headers
    )
    assert response.status_code == 200, response.text


async def _plan(api: Api, caller: Caller, charger_id: str) -> dict[str, Any]:
    response = await api.get(caller, f"/ev-charger/{charger_id}/plan")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def _state(api: Api, caller: Caller, charger_id: str) -> dict[str, Any]:
    response = await api.get(caller, f"/ev-charger/{charger_id}", expedite="true")
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()["data"]["state"]
    return state


async def _reading(api: Api, caller: Caller, grid_kw: float) -> None:
    at = api.clock.now().isoformat().replace("+00:00", "Z")
    body = {"readings": [{"at": at, "gridPower": {"value": grid_kw, "unit": "kw"}}]}
    response = await api.client.post(
        "/users/home-1/site/readings", json=body, headers=caller.headers
    )
    assert response.status_code == 202, response.text


async def test_a_tariff_strategy_steers_the_charger_by_its_plan_until_the_goal_is_met(
    api: Api,
) -> None:
    caller, charger = await _setup(api, "auto.charge_tariff", goal_kwh=22)
    report = await _tick(api)
    assert (report.planned, report.steered) == (1, 1)
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "waiting"
    assert plan["steering"]["state"] == "applied"
    # 22 kWh in the cheap night (00:00-06:00 in Berlin), spread evenly: one block
    assert [(s["start"], s["end"], s["power"]["value"]) for s in plan["slots"]] == [
        ("2026-11-20T23:00:00.000Z", "2026-11-21T05:00:00.000Z", 3.667)
    ]
    state = await _state(api, caller, charger)
    assert (state["isConnected"], state["currentPower"], state["activeControlMode"]) == (
        True,
        0.0,
        "auto.charge_tariff",
    )
    api.clock.set(datetime(2026, 11, 21, 2, 0, tzinfo=UTC))
    state = await _state(api, caller, charger)
    assert (state["currentPower"], state["sessionEnergy"]) == (3.667, 11.0)
    assert (await _tick(api)).planned == 1  # the delivered energy moved on: planned again
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "charging"
    assert plan["expectedEnergy"] == {"value": 11.0, "unit": "kwh"}
    api.clock.set(datetime(2026, 11, 21, 5, 0, tzinfo=UTC))
    await _tick(api)
    assert (await _plan(api, caller, charger))["status"] == "done"
    state = await _state(api, caller, charger)
    assert (state["currentPower"], state["sessionEnergy"]) == (0.0, 22.0)


async def test_a_plan_is_made_again_only_when_its_inputs_change_or_it_is_due(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_tariff", goal_kwh=22)
    assert (await _tick(api)).planned == 1
    api.clock.advance(10)
    assert (await _tick(api)) == TickReport()  # nothing changed: nothing done
    await _goal(api, caller, charger, 44)
    assert (await _tick(api)).planned == 1
    plan = await _plan(api, caller, charger)
    assert plan["expectedEnergy"] == {"value": 44.0, "unit": "kwh"}
    api.clock.advance(timedelta(minutes=15))
    assert (await _tick(api)).planned == 1  # ENERGYHUB_REPLAN_INTERVAL_S: 900 s


async def test_an_unplugged_car_pauses_the_charger_and_plugging_in_plans_again(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_tariff", goal_kwh=22)
    await _tick(api)
    response = await api.client.post(
        f"/sandbox/devices/{charger}/simulate", json={"pluggedIn": False}, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    assert (await _tick(api)).planned == 1
    assert (await _plan(api, caller, charger))["status"] == "unplugged"
    response = await api.client.post(
        f"/sandbox/devices/{charger}/simulate", json={"pluggedIn": True}, headers=caller.headers
    )
    assert (await _tick(api)).planned == 1
    assert (await _plan(api, caller, charger))["status"] == "waiting"


async def test_surplus_only_starts_after_the_start_delay_and_pauses_after_the_stop_delay(
    api: Api,
) -> None:
    caller, charger = await _setup(api, "auto.charge_surplus_only")
    await _reading(api, caller, -5.0)  # exporting 5 kW
    await _tick(api)
    plan = await _plan(api, caller, charger)
    assert (plan["status"], plan["slots"]) == ("paused", [])
    assert "surplus below" in plan["explanation"] or "minimum" in plan["explanation"]
    for _ in range(6):  # readings every 10 s: after 60 s above the minimum it starts
        api.clock.advance(10)
        await _reading(api, caller, -5.0)
        await _tick(api)
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "charging"
    state = await _state(api, caller, charger)
    # 5 kW of surplus on three phases at 230 V: 7 A a phase, 4.83 kW
    assert state["currentPower"] == 4.83
    # the car now draws 4.83 kW; a cloud: the site imports 1 kW, so 3.83 kW of surplus is
    # below the 4.14 kW minimum; it keeps charging for the 120 s stop delay, then pauses
    for _ in range(12):  # 10 to 120 s below the minimum: still charging
        api.clock.advance(10)
        await _reading(api, caller, 1.0)
        await _tick(api)
        assert (await _plan(api, caller, charger))["status"] == "charging"
    api.clock.advance(10)
    await _reading(api, caller, 1.0)
    await _tick(api)
    assert (await _plan(api, caller, charger))["status"] == "paused"
    assert (await _state(api, caller, charger))["currentPower"] == 0.0


async def test_a_sandbox_site_without_readings_charges_from_its_simulated_sun(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_surplus_only")
    for _ in range(7):  # 12:00Z: the simulated panels give 7.6 kW, the house takes 0.5 kW
        await _tick(api)
        api.clock.advance(10)
    state = await _state(api, caller, charger)
    assert state["currentPower"] == 6.9  # 10 A a phase: the most within the 7.1 kW surplus
    site = await api.get(caller, "/users/home-1/site")
    assert site.json()["data"]["lastReading"] is None  # nothing was posted


async def test_another_command_ends_the_strategy_and_its_run(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_tariff", goal_kwh=22)
    await _tick(api)
    devices = await api.get(caller, f"/ev-charger/{charger}")
    assert devices.status_code == 200
    assert (
        await api.push(caller, {"id": charger, "type": "ev-charger"}, "idle")
    ).status_code == 200
    assert await api.run_due(2) == 1
    await _tick(api)
    async with api.container.uow() as tx:
        assert await tx.strategy_runs.get(charger) is None
    plan = await _plan(api, caller, charger)
    assert (plan["strategy"], plan["status"], plan["steering"]) == (None, "not_running", None)


async def _sessions(api: Api, caller: Caller, charger_id: str) -> list[dict[str, Any]]:
    response = await api.get(
        caller, f"/ev-charger/{charger_id}/sessions", **{"from": "2026-11-19T00:00:00Z"}
    )
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]["items"]
    return items


async def test_a_session_under_the_tariff_strategy_carries_its_cost(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_tariff", goal_kwh=22)
    for hour in (12, 23, 0.5, 2, 3.5, 5, 5.5):  # the runner's looks through the night
        day = 20 if hour >= 12 else 21
        api.clock.set(datetime(2026, 11, day, int(hour), int(hour % 1 * 60), tzinfo=UTC))
        await _tick(api)
    response = await api.client.post(
        f"/sandbox/devices/{charger}/simulate", json={"pluggedIn": False}, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    await _tick(api)  # the car left: the session's ledger closes
    [session] = [s for s in await _sessions(api, caller, charger) if s["cost"] is not None]
    assert session["status"] == "completed"
    assert session["energyDelivered"] == {"value": 22.0, "unit": "kwh"}
    # every kWh came from the grid in the 0.12 EUR/kWh night (the simulated sun is down)
    assert session["cost"] == {"value": 2.64, "currency": "EUR"}
    assert session["energyFromSurplus"] == {"value": 0.0, "unit": "kwh"}
    earlier = [s for s in await _sessions(api, caller, charger) if s["id"] != session["id"]]
    assert all(s["cost"] is None and s["energyFromSurplus"] is None for s in earlier)


async def test_a_session_on_surplus_counts_its_energy_from_the_surplus(api: Api) -> None:
    caller, charger = await _setup(api, "auto.charge_surplus_only")
    for _ in range(67):  # ten minutes of readings every 10 s at 5 kW of export
        api.clock.advance(10)
        await _reading(api, caller, -5.0)
        await _tick(api)
    [session] = [s for s in await _sessions(api, caller, charger) if s["status"] == "active"]
    # charging from 60 s on at 4.83 kW, all of it surplus: no export tariff, so it cost 0
    assert session["energyFromSurplus"]["value"] == pytest.approx(
        session["energyDelivered"]["value"], abs=WRITE_STEP_KWH
    )
    assert session["energyFromSurplus"]["value"] > 0.4
    assert session["cost"] == {"value": 0.0, "currency": "EUR"}
