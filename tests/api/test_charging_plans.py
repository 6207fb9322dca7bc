"""Charging plans over HTTP (strategies): the domain planner fed with the site's tariff,
the charger's goal and limits and the site's grid import limit; each status."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.support import Api, Caller

# The fake clock starts on Friday 2026-11-20 at 12:00Z: 13:00 in Berlin. A sandbox charger
# under auto.charge_tariff has the car plugged in from 17:00 to 07:00 UTC.
TOU = {
    "timeOfUse": [
        {"from": "00:00", "to": "06:00", "price": 0.12},
        {"from": "06:00", "to": "22:00", "price": 0.34},
        {"from": "22:00", "to": "24:00", "price": 0.2},
    ]
}
PLAN_KEYS = {
    "strategy",
    "status",
    "goal",
    "slots",
    "expectedEnergy",
    "expectedCost",
    "explanation",
    "updatedAt",
    "steering",
}


async def _charger(api: Api) -> tuple[Caller, dict[str, Any]]:
    caller = await api.caller()
    return caller, await api.sandbox_device(caller, "ev-charger", user_id="home-1")


async def _site(api: Api, caller: Caller, body: dict[str, Any]) -> None:
    response = await api.client.put("/users/home-1/site", json=body, headers=caller.headers)
    assert response.status_code == 200, response.text


async def _goal(api: Api, caller: Caller, charger: dict[str, Any], kwh: float) -> None:
    body = {"readyBy": "07:00", "energy": {"value": kwh, "unit": "kwh"}}
    response = await api.client.put(
        f"/ev-charger/{charger['id']}/goal", json=body, headers=caller.headers
    )
    assert response.status_code == 200, response.text


async def _start(api: Api, caller: Caller, charger: dict[str, Any], command: str) -> None:
    assert (await api.push(caller, charger, command)).status_code == 200
    assert await api.run_due(2) == 1  # the sandbox completes it after 2 s


async def _plug(api: Api, caller: Caller, charger: dict[str, Any], plugged: bool) -> None:
    response = await api.client.post(
        f"/sandbox/devices/{charger['id']}/simulate",
        json={"pluggedIn": plugged},
        headers=caller.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["state"]["isConnected"] is plugged


async def _plan(api: Api, caller: Caller, charger: dict[str, Any]) -> dict[str, Any]:
    response = await api.get(caller, f"/ev-charger/{charger['id']}/plan")
    assert response.status_code == 200, response.text
    plan: dict[str, Any] = response.json()["data"]
    assert set(plan) == PLAN_KEYS
    return plan


async def test_without_a_strategy_the_plan_shows_what_auto_charge_tariff_would_do(
    api: Api,
) -> None:
    caller, charger = await _charger(api)
    await _site(api, caller, {"tariff": {"currency": "EUR", "import": TOU}})
    await _goal(api, caller, charger, 22)
    plan = await _plan(api, caller, charger)
    assert plan["strategy"] is None
    assert plan["status"] == "not_running"
    assert plan["explanation"].startswith("No strategy is running (push auto.charge_tariff")
    assert plan["slots"] == [
        {  # spread over the whole cheap period (one block either way, gentler on the car)
            "start": "2026-11-20T23:00:00.000Z",  # 00:00 in Berlin
            "end": "2026-11-21T05:00:00.000Z",
            "power": {"value": 3.667, "unit": "kw"},
            "source": "grid",
            "price": 0.12,
        }
    ]
    assert plan["expectedEnergy"] == {"value": 22.0, "unit": "kwh"}
    assert plan["expectedCost"] == {"value": 2.64, "currency": "EUR"}
    assert plan["goal"]["readyAt"] == "2026-11-21T06:00:00.000Z"
    assert plan["updatedAt"] == "2026-11-20T12:00:00.000Z"


async def test_an_unplugged_car_under_a_strategy_has_no_slots_until_it_is_plugged_in(
    api: Api,
) -> None:
    caller, charger = await _charger(api)
    await _site(
        api,
        caller,
        {
            "tariff": {"currency": "EUR", "import": TOU},
            "gridImportLimit": {"value": 11, "unit": "kw"},
        },
    )
    await _goal(api, caller, charger, 80)
    await _start(api, caller, charger, "auto.charge_tariff")
    await _plug(api, caller, charger, False)
    plan = await _plan(api, caller, charger)
    assert (plan["strategy"], plan["status"], plan["slots"]) == (
        "auto.charge_tariff",
        "unplugged",
        [],
    )
    assert plan["explanation"] == "The car is not plugged in: charging is planned when it is."
    await _plug(api, caller, charger, True)
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "waiting"
    # the site's 11 kW import limit caps the 22 kW charger: 66 kWh fit in the cheap
    # 00:00-06:00 period, the other 14 kWh go into 22:00-24:00 before it
    assert [(s["start"], s["end"], s["power"]["value"], s["price"]) for s in plan["slots"]] == [
        ("2026-11-20T21:00:00.000Z", "2026-11-20T23:00:00.000Z", 7.0, 0.2),
        ("2026-11-20T23:00:00.000Z", "2026-11-21T05:00:00.000Z", 11.0, 0.12),
    ]
    assert plan["expectedCost"] == {"value": 10.72, "currency": "EUR"}
    assert plan["explanation"] == (
        "Waiting for the 22:00-06:00 period at an average of 0.13 EUR/kWh; "
        "80.0 kWh needed by 07:00."
    )


async def test_without_a_tariff_the_plan_charges_now_and_says_why(api: Api) -> None:
    caller, charger = await _charger(api)
    await _goal(api, caller, charger, 11)
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "not_running"
    assert plan["expectedCost"] is None
    assert plan["slots"] == [
        {
            "start": "2026-11-20T12:00:00.000Z",
            "end": "2026-11-20T12:30:00.000Z",
            "power": {"value": 22.0, "unit": "kw"},
            "source": "grid",
            "price": None,
        }
    ]
    assert (
        "No tariff is set, so charging now at full power until 11.0 kWh are charged."
        in (plan["explanation"])
    )


async def test_without_a_goal_a_running_strategy_uses_the_cheapest_third_of_the_day(
    api: Api,
) -> None:
    caller, charger = await _charger(api)
    await _site(api, caller, {"tariff": {"currency": "EUR", "import": TOU}})
    api.clock.set(datetime(2026, 11, 20, 17, 0, tzinfo=UTC))
    await _start(api, caller, charger, "auto.charge_tariff")
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "no_goal"
    assert plan["goal"] is None
    assert [(s["start"], s["end"]) for s in plan["slots"]] == [  # 22:00-06:00 in Berlin
        ("2026-11-20T21:00:00.000Z", "2026-11-20T23:00:00.000Z"),
        ("2026-11-20T23:00:00.000Z", "2026-11-21T05:00:00.000Z"),
    ]
    assert plan["explanation"].startswith("No goal set, so charging at full power")


async def test_surplus_only_plans_no_grid_charging(api: Api) -> None:
    caller, charger = await _charger(api)
    await _site(api, caller, {"tariff": {"currency": "EUR", "import": TOU}})
    api.clock.set(datetime(2026, 11, 20, 17, 0, tzinfo=UTC))  # plugged 09:00-07:00Z
    await _start(api, caller, charger, "auto.charge_surplus_only")
    plan = await _plan(api, caller, charger)
    assert (plan["strategy"], plan["status"], plan["slots"]) == (
        "auto.charge_surplus_only",
        "waiting",
        [],
    )
    assert plan["expectedCost"] == {"value": 0.0, "currency": "EUR"}


async def test_a_push_of_another_command_ends_the_strategy(api: Api) -> None:
    caller, charger = await _charger(api)
    await _start(api, caller, charger, "auto.charge_surplus_first")
    assert (await _plan(api, caller, charger))["strategy"] == "auto.charge_surplus_first"
    await _start(api, caller, charger, "idle")
    assert (await _plan(api, caller, charger))["status"] == "not_running"


async def test_on_the_autumn_dst_night_the_cheap_period_has_five_hours(api: Api) -> None:
    """Europe/Berlin falls back on 2026-10-25: 01:00-05:00 local lasts five hours, so
    55 kWh fit at 11 kW (on any other night four hours, 44 kWh)."""
    api.clock.set(datetime(2026, 10, 24, 14, 0, tzinfo=UTC))  # 16:00 CEST
    caller, charger = await _charger(api)
    tariff = {
        "currency": "EUR",
        "import": {
            "timeOfUse": [
                {"from": "01:00", "to": "05:00", "price": 0.09},
                {"from": "05:00", "to": "01:00", "price": 0.3},
            ]
        },
    }
    await _site(api, caller, {"tariff": tariff, "gridImportLimit": {"value": 11, "unit": "kw"}})
    await _goal(api, caller, charger, 55)
    await _start(api, caller, charger, "auto.charge_tariff")
    api.clock.set(datetime(2026, 10, 24, 17, 0, tzinfo=UTC))  # 19:00 CEST: plugged in
    await api.get(caller, f"/ev-charger/{charger['id']}", expedite="true")
    plan = await _plan(api, caller, charger)
    assert plan["goal"]["readyAt"] == "2026-10-25T06:00:00.000Z"  # 07:00 CET
    assert plan["status"] == "waiting"
    assert plan["slots"] == [
        {
            "start": "2026-10-24T23:00:00.000Z",  # 01:00 CEST
            "end": "2026-10-25T04:00:00.000Z",  # 05:00 CET
            "power": {"value": 11.0, "unit": "kw"},
            "source": "grid",
            "price": 0.09,
        }
    ]
    assert plan["expectedCost"] == {"value": 4.95, "currency": "EUR"}
    assert plan["explanation"] == (
        "Waiting for the 01:00-05:00 period at 0.09 EUR/kWh; 55.0 kWh needed by 07:00."
    )


async def test_dynamic_prices_posted_later_move_the_plan(api: Api) -> None:
    caller, charger = await _charger(api)
    hours = [
        (f"2026-11-20T{h:02d}:00:00Z", f"2026-11-20T{h + 1:02d}:00:00Z") for h in range(12, 23)
    ]
    prices = [{"start": s, "end": e, "price": 0.3} for s, e in hours]
    await _site(api, caller, {"tariff": {"currency": "EUR", "import": {"prices": prices}}})
    body = {"readyBy": "23:00", "energy": {"value": 11, "unit": "kwh"}}
    await api.client.put(f"/ev-charger/{charger['id']}/goal", json=body, headers=caller.headers)
    cheap = {
        "import": [{"start": "2026-11-20T18:00:00Z", "end": "2026-11-20T19:00:00Z", "price": -0.05}]
    }
    response = await api.client.post(
        "/users/home-1/site/prices", json=cheap, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    plan = await _plan(api, caller, charger)
    assert [(s["start"], s["price"]) for s in plan["slots"]] == [
        ("2026-11-20T18:00:00.000Z", -0.05)
    ]
    assert plan["expectedCost"] == {"value": -0.55, "currency": "EUR"}


async def test_a_target_goal_needs_the_way_from_the_cars_charge_and_is_done_below_it(
    api: Api,
) -> None:
    caller, charger = await _charger(api)
    await _site(api, caller, {"tariff": {"currency": "EUR", "import": TOU}})
    api.clock.set(datetime(2026, 11, 20, 17, 0, tzinfo=UTC))
    await _start(api, caller, charger, "auto.charge_tariff")
    body = (await api.get(caller, f"/ev-charger/{charger['id']}", expedite="true")).json()
    vehicle_id = body["data"]["vehicle"]["id"]
    car = (await api.get(caller, f"/vehicles/{vehicle_id}")).json()["data"]
    soc, capacity = car["stateOfCharge"], car["batteryCapacity"]["value"]
    path = f"/ev-charger/{charger['id']}/goal"
    goal = {"readyBy": "07:00", "target": {"value": 90, "unit": "percent"}}
    assert (await api.client.put(path, json=goal, headers=caller.headers)).status_code == 200
    plan = await _plan(api, caller, charger)
    assert plan["status"] == "waiting"
    expected = round((90 - soc) / 100 * capacity, 3)
    assert abs(plan["expectedEnergy"]["value"] - expected) < 0.01
    below = {"readyBy": "07:00", "target": {"value": max(1, soc - 5), "unit": "percent"}}
    assert (await api.client.put(path, json=below, headers=caller.headers)).status_code == 200
    plan = await _plan(api, caller, charger)
    assert (plan["status"], plan["slots"]) == ("done", [])
    assert plan["explanation"] == "Done: nothing more is needed by 07:00."
