"""The strategy runner steering live OCPP chargers end to end: the schedule a charger gets
is the plan a client reads; a surplus run follows posted site readings; a charger that
refuses the schedule shows in the plan. The runner is driven by the test on its own clock
(the service's own strategy loop is idle), so the 30 s between surplus changes need no
waiting."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.driver_names import DriverName
from energyhub.domain.strategy_runs import STEER_RETRY
from energyhub.drivers.ocpp.driver import OcppDriver
from energyhub.drivers.ocpp.link import iso
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.strategy_runner import RunnerSettings, StrategyRunner
from tests.integration.ocpp_support import (
    PROTOCOLS,
    Answers,
    Charger,
    Service,
    charger,
    running_service,
)
from tests.support import Caller

PLUGGED = {"ocpp1.6": "Preparing", "ocpp2.0.1": "Occupied"}
ALL_DAY = {"timeOfUse": [{"from": "00:00", "to": "24:00", "price": 0.3}]}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with running_service(tmp_path / "ocpp.db", strategy_tick_s=3600) as running:
        yield running


def runner(service: Service, clock: FakeClock, start_delay_s: float = 60.0) -> StrategyRunner:
    c = service.container
    return StrategyRunner(
        c.uow,
        clock,
        c.drivers,
        {DriverName.OCPP: OcppDriver(c.ocpp)},
        {},
        DeviceChangeFeed(),
        RunnerSettings(surplus_start_delay_s=start_delay_s, surplus_stop_delay_s=0),
    )


async def put(service: Service, caller: Caller, path: str, body: dict[str, Any]) -> None:
    response = await service.client.put(path, json=body, headers=caller.headers)
    assert response.status_code == 200, response.text


async def started(
    service: Service,
    caller: Caller,
    protocol: str,
    cp_id: str,
    command: str,
    *,
    site: dict[str, Any],
    **answers: str,
) -> tuple[str, Charger, Any]:
    """A commissioned charger with a car plugged in, its user's site set, the strategy
    pushed (the charger disconnects when `held` exits)."""
    device_id = await service.commission(caller, cp_id)
    await put(service, caller, "/users/user-1/site", site)
    held = charger(service, cp_id, protocol, answers=_answers(answers))
    cp = await held.__aenter__()
    await cp.sim.status(PLUGGED[protocol])
    response = await service.push(caller, device_id, command)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["state"] == "completed"
    return device_id, cp, held


def _answers(status: dict[str, str]) -> Answers:
    answers = Answers()
    answers.status.update(status)
    return answers


def schedule_of(payload: dict[str, Any], protocol: str) -> dict[str, Any]:
    if protocol == "ocpp1.6":
        schedule: dict[str, Any] = payload["csChargingProfiles"]["chargingSchedule"]
        return schedule
    [first] = payload["chargingProfile"]["chargingSchedule"]
    return dict(first)


def sent_since(cp: Charger, seen: int) -> list[dict[str, Any]]:
    return [p for name, p in cp.wire.calls[seen:] if name == "SetChargingProfile"]


async def plan_of(service: Service, caller: Caller, device_id: str) -> dict[str, Any]:
    response = await service.client.get(f"/ev-charger/{device_id}/plan", headers=caller.headers)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_charger_receives_the_plan_a_client_reads(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    cheap = {"from": "02:00", "to": "04:00", "price": 0.1}
    tariff = {
        "timeOfUse": [
            {"from": "00:00", "to": "02:00", "price": 0.3},
            cheap,
            {"from": "04:00", "to": "24:00", "price": 0.3},
        ]
    }
    site = {"timezone": "UTC", "tariff": {"currency": "EUR", "import": tariff}}
    device_id, cp, held = await started(
        service, caller, protocol, "CP-PLAN", "auto.charge_tariff", site=site
    )
    try:
        await put(
            service,
            caller,
            f"/ev-charger/{device_id}/goal",
            {"readyBy": "06:00", "energy": {"value": 22, "unit": "kwh"}},
        )
        clock = FakeClock(datetime.now(UTC).replace(microsecond=0))
        seen = len(cp.wire.calls)
        report = await runner(service, clock).tick()
        assert (report.planned, report.steered) == (1, 1)
        [payload] = sent_since(cp, seen)
        plan = await plan_of(service, caller, device_id)
        assert plan["steering"]["state"] == "applied"
        schedule = schedule_of(payload, protocol)
        start = datetime.fromisoformat(schedule["startSchedule"].replace("Z", "+00:00"))
        assert schedule["startSchedule"] == iso(clock.now())
        expected: list[tuple[int, float]] = []
        for slot in plan["slots"]:
            begin = datetime.fromisoformat(slot["start"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(slot["end"].replace("Z", "+00:00"))
            expected.append((int((begin - start).total_seconds()), slot["power"]["value"] * 1000))
            expected.append((int((end - start).total_seconds()), 0.0))
        # a slot that starts where the last ends follows it at once: no pause between them
        expected = [
            e
            for e, after in zip(expected, [*expected[1:], None], strict=True)
            if not (after and after[0] == e[0])
        ]
        got = [(p["startPeriod"], p["limit"]) for p in schedule["chargingSchedulePeriod"]]
        if got and got[0] == (0, 0.0) and expected and expected[0][0] > 0:
            got = got[1:]  # waiting for the first slot: paused from now
        # the plan shows whole watts (kW to 3 decimals), the charger gets tenths of a watt
        assert [start for start, _ in got] == [start for start, _ in expected], (got, expected)
        for (_, sent), (_, shown) in zip(got, expected, strict=True):
            assert abs(sent - shown) <= 0.5 + 1e-6, (got, expected)
        assert sum(s["power"]["value"] for s in plan["slots"]) > 0
        # nothing changed: the same schedule is not sent again
        clock.advance(10)
        seen = len(cp.wire.calls)
        await runner(service, clock).tick()
        assert sent_since(cp, seen) == []
    finally:
        await held.__aexit__(None, None, None)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_surplus_run_follows_posted_site_readings(service: Service, protocol: str) -> None:
    caller = await service.live_caller()
    site = {"timezone": "UTC", "tariff": {"currency": "EUR", "import": ALL_DAY}}
    device_id, cp, held = await started(
        service, caller, protocol, "CP-SUN", "auto.charge_surplus_only", site=site
    )
    try:
        clock = FakeClock(datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10))
        steering = runner(service, clock, start_delay_s=0)

        async def reading(grid_kw: float) -> None:
            at = clock.now().isoformat().replace("+00:00", "Z")
            body = {"readings": [{"at": at, "gridPower": {"value": grid_kw, "unit": "kw"}}]}
            response = await service.client.post(
                "/users/user-1/site/readings", json=body, headers=caller.headers
            )
            assert response.status_code == 202, response.text

        limits: list[float] = []
        for grid_kw in (-8.0, -5.0, 3.0):
            await reading(grid_kw)
            seen = len(cp.wire.calls)
            await steering.tick()
            [payload] = sent_since(cp, seen)
            [period] = schedule_of(payload, protocol)["chargingSchedulePeriod"][:1]
            limits.append(period["limit"])
            clock.advance(31)  # a surplus limit changes at most every 30 s
        # 8 kW of export: 11 A on three phases (7.59 kW); 5 kW: 7 A (4.83 kW); importing: 0
        assert limits == [7590.0, 4830.0, 0.0]
        assert (await plan_of(service, caller, device_id))["status"] == "paused"
    finally:
        await held.__aexit__(None, None, None)


async def test_a_charger_that_refuses_the_schedule_shows_it_in_the_plan_and_the_action(
    service: Service,
) -> None:
    caller = await service.live_caller()
    site = {"timezone": "UTC", "tariff": {"currency": "EUR", "import": ALL_DAY}}
    device_id, cp, held = await started(
        service, caller, "ocpp1.6", "CP-NO", "auto.charge_tariff", site=site
    )
    try:
        cp.sim.answers.status["SetChargingProfile"] = "Rejected"  # the strategy's schedule
        clock = FakeClock(datetime.now(UTC))
        looks = runner(service, clock)
        report = await looks.tick()
        assert report.refused == 1
        plan = await plan_of(service, caller, device_id)
        assert plan["steering"]["state"] == "refused"
        assert "refused the charging schedule" in plan["steering"]["message"]
        assert plan["explanation"].startswith("The charger refused the schedule")
        # the device's action history: the strategy's action says so too
        strategy_action = await strategy_action_of(service, caller, device_id)
        assert strategy_action["state"] == "completed"
        assert strategy_action["result"]["steering"] == plan["steering"]

        cp.sim.answers.status["SetChargingProfile"] = "Accepted"
        clock.advance(STEER_RETRY.total_seconds())  # the refused schedule is sent again
        assert (await looks.tick()).steered == 1
        taken = (await strategy_action_of(service, caller, device_id))["result"]["steering"]
        assert (taken["state"], taken["message"]) == ("applied", None)
    finally:
        await held.__aexit__(None, None, None)


async def strategy_action_of(service: Service, caller: Caller, device_id: str) -> dict[str, Any]:
    """The device's newest action (the strategy's push) as the actions list shows it."""
    response = await service.client.get(
        "/actions", params={"deviceId": device_id}, headers=caller.headers
    )
    assert response.status_code == 200, response.text
    newest: dict[str, Any] = response.json()["data"]["items"][0]
    return newest
