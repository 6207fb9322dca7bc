"""Strategies steer live OCPP chargers (issue 14, point 3): a plan's schedule reaches the
charger as one absolute charging profile, in both versions and in the charger's unit; a
refusal is a `DriverError` that says so; an `auto.*` push completes and another command
clears the strategy's profile."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from energyhub.domain.devices import Device
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.planning.slots import Slot
from energyhub.domain.planning.steering import ChargingSchedule, schedule_for
from energyhub.domain.readings import DriverError
from energyhub.drivers.ocpp.driver import OcppDriver
from energyhub.drivers.ocpp.link import iso
from energyhub.ports.devices import ChargerSteering
from tests.integration.ocpp_support import (
    PROTOCOLS,
    START,
    Answers,
    Charger,
    Service,
    charger,
    connect_charger,
    profile_limit,
    start_tx,
)

PLUGGED = {"ocpp1.6": "Preparing", "ocpp2.0.1": "Occupied"}
CLEAR_ID = {"ocpp1.6": "id", "ocpp2.0.1": "chargingProfileId"}
HORIZON_S = 48 * 3600


def plan(now: datetime) -> ChargingSchedule:
    """A slot under way, two ahead with gaps between: what a tariff plan looks like."""

    def slot(start_min: int, end_min: int, kw: float) -> Slot:
        return Slot(
            now + timedelta(minutes=start_min), now + timedelta(minutes=end_min), kw, "grid", 0.1
        )

    return schedule_for([slot(-10, 5, 3.7), slot(15, 45, 7.4), slot(60, 90, 11.0)], now)


PERIODS_W = [(0, 3700.0), (300, 0.0), (900, 7400.0), (2700, 0.0), (3600, 11000.0), (5400, 0.0)]
# 3.7 kW on three phases is 5.4 A, below the 6 A a car can take: a pause
PERIODS_A = [(0, 0.0), (900, 10.7), (2700, 0.0), (3600, 15.9), (5400, 0.0)]


def sent_profile(payload: dict[str, Any], protocol: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(profile, its one schedule) of a SetChargingProfile frame."""
    if protocol == "ocpp1.6":
        profile = payload["csChargingProfiles"]
        return profile, profile["chargingSchedule"]
    profile = payload["chargingProfile"]
    assert len(profile["chargingSchedule"]) == 1
    return profile, profile["chargingSchedule"][0]


def periods(schedule: dict[str, Any]) -> list[tuple[int, float]]:
    return [(p["startPeriod"], p["limit"]) for p in schedule["chargingSchedulePeriod"]]


async def device_of(service: Service, device_id: str) -> Device:
    async with service.container.uow() as tx:
        device = await tx.devices.get_device_by_id(device_id)
    assert device is not None
    return device


def frames(cp: Charger, action: str, since: int) -> list[dict[str, Any]]:
    return [payload for name, payload in cp.wire.calls[since:] if name == action]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_schedule_reaches_the_charger_as_one_absolute_profile(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-STEER")
    driver = OcppDriver(service.container.ocpp)
    assert isinstance(driver, ChargerSteering)
    async with charger(service, "CP-STEER", protocol) as cp:
        device = await device_of(service, device_id)
        assert driver.can_steer(device)
        now = datetime.now(UTC).replace(microsecond=0)
        seen = len(cp.wire.calls)
        await driver.steer(device, plan(now), now)
        [payload] = frames(cp, "SetChargingProfile", seen)
        assert payload.get("connectorId", payload.get("evseId")) == 1
        profile, schedule = sent_profile(payload, protocol)
        assert profile["chargingProfilePurpose"] == "TxDefaultProfile"  # holds when a car starts
        assert profile["chargingProfileKind"] == "Absolute"
        assert profile["stackLevel"] == 1  # above the commands' own profiles
        assert "transactionId" not in profile
        assert schedule["startSchedule"] == iso(now)
        assert schedule["duration"] == HORIZON_S
        assert schedule["chargingRateUnit"] == "W"
        assert periods(schedule) == PERIODS_W

        tx = await start_tx(cp, 1000)
        later = now + timedelta(minutes=1)
        seen = len(cp.wire.calls)
        await driver.steer(device, plan(later), later)
        [payload] = frames(cp, "SetChargingProfile", seen)
        profile_tx, schedule = sent_profile(payload, protocol)
        assert profile_tx["chargingProfilePurpose"] == "TxProfile"
        assert str(profile_tx["transactionId"]) == tx
        assert profile_tx.get("chargingProfileId", profile_tx.get("id")) != profile.get(
            "chargingProfileId", profile.get("id")
        )
        assert schedule["startSchedule"] == iso(later)
        assert periods(schedule) == PERIODS_W


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_charger_that_takes_only_amps_gets_the_schedule_in_amps(
    service: Service, protocol: str
) -> None:
    answers = Answers()
    answers.config["ChargingScheduleAllowedChargingRateUnit"] = ("Current", True)
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-AMPS")
    driver = OcppDriver(service.container.ocpp)
    variables = {("SmartChargingCtrlr", "Enabled"): "true", ("SmartChargingCtrlr", "RateUnit"): "A"}
    async with charger(
        service,
        "CP-AMPS",
        protocol,
        answers=answers,
        variables=None if protocol == "ocpp1.6" else variables,
    ) as cp:
        now = datetime.now(UTC).replace(microsecond=0)
        seen = len(cp.wire.calls)
        await driver.steer(await device_of(service, device_id), plan(now), now)
        [payload] = frames(cp, "SetChargingProfile", seen)
        _, schedule = sent_profile(payload, protocol)
        assert schedule["chargingRateUnit"] == "A"
        assert periods(schedule) == PERIODS_A


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_refused_schedule_raises_a_driver_error_that_says_so(
    service: Service, protocol: str
) -> None:
    answers = Answers()
    answers.status["SetChargingProfile"] = "Rejected"
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-REFUSE")
    driver = OcppDriver(service.container.ocpp)
    async with charger(service, "CP-REFUSE", protocol, answers=answers):
        now = datetime.now(UTC)
        with pytest.raises(DriverError) as refused:
            await driver.steer(await device_of(service, device_id), plan(now), now)
    assert refused.value.code == "DEVICE_REJECTED"
    assert refused.value.retryable is False
    assert "refused the charging schedule" in refused.value.message
    assert "Rejected" in refused.value.message
    assert refused.value.details == {"ocppStatus": "Rejected"}


async def test_a_charger_connected_nowhere_here_cannot_be_steered(service: Service) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-AWAY")
    driver = OcppDriver(service.container.ocpp)
    device = await device_of(service, device_id)
    assert not driver.can_steer(device)
    now = datetime.now(UTC)
    with pytest.raises(DriverError) as offline:
        await driver.steer(device, plan(now), now)
    assert offline.value.code == "DEVICE_OFFLINE"
    assert offline.value.retryable is True


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_release_clears_the_strategy_profiles(service: Service, protocol: str) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-RELEASE")
    driver = OcppDriver(service.container.ocpp)
    async with charger(service, "CP-RELEASE", protocol) as cp:
        device = await device_of(service, device_id)
        now = datetime.now(UTC)
        await driver.steer(device, plan(now), now)
        seen = len(cp.wire.calls)
        await driver.release(device, now)
        cleared = frames(cp, "ClearChargingProfile", seen)
        assert sorted(c[CLEAR_ID[protocol]] for c in cleared) == [1004, 1005]
        assert frames(cp, "SetChargingProfile", seen) == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_strategy_push_completes_and_starts_a_paused_session_for_a_plugged_car(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-AUTO")
    async with charger(service, "CP-AUTO", protocol) as cp:
        body = await service.device(caller, device_id)
        assert set(STRATEGIES) <= set(body["commands"])
        await cp.sim.status(PLUGGED[protocol])
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "auto.charge_tariff")
        assert response.status_code == 200, response.text
        assert response.json()["data"]["state"] == "completed"
        pause = await cp.wire.next_call("SetChargingProfile", seen)
        assert profile_limit(pause, protocol) == ("TxDefaultProfile", "W", 0.0)
        start = await cp.wire.next_call(START[protocol], seen)
        assert start.get("chargingProfile") is None  # the strategy's schedule will raise it
        body = await service.device(caller, device_id)
        assert body["state"]["activeControlMode"] == "auto.charge_tariff"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_another_command_after_a_strategy_clears_its_profile_first(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-AFTER")
    driver = OcppDriver(service.container.ocpp)
    async with charger(service, "CP-AFTER", protocol) as cp:
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "auto.charge_surplus_only")
        assert response.status_code == 200, response.text
        assert START[protocol] not in cp.wire.actions()[seen:]  # no car: nothing to start
        now = datetime.now(UTC)
        await driver.steer(await device_of(service, device_id), plan(now), now)
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "charge")
        assert response.status_code == 200, response.text
        await cp.wire.next_call(START[protocol], seen)
        actions = cp.wire.actions()[seen:]
        first_set = actions.index("SetChargingProfile")
        cleared = [
            p[CLEAR_ID[protocol]]
            for a, p in cp.wire.calls[seen : seen + first_set]
            if a == "ClearChargingProfile"
        ]
        assert sorted(cleared) == [1004, 1005]
        charge = await cp.wire.next_call("SetChargingProfile", seen)
        assert profile_limit(charge, protocol) == ("TxDefaultProfile", "W", 22000.0)


async def strategy_profile(cp: Charger, protocol: str, since: int) -> dict[str, Any]:
    """The first SetChargingProfile at index >= `since` above the commands' own profiles."""
    while True:
        payload = await cp.wire.next_call("SetChargingProfile", since)
        since = cp.wire.calls.index(("SetChargingProfile", payload), since) + 1
        if sent_profile(payload, protocol)[0]["stackLevel"] == 1:
            return payload


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_charger_that_comes_back_gets_the_last_schedule_again(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-BACK")
    driver = OcppDriver(service.container.ocpp)
    now = datetime.now(UTC).replace(microsecond=0)
    async with charger(service, "CP-BACK", protocol):
        response = await service.push(caller, device_id, "auto.charge_tariff")
        assert response.status_code == 200, response.text
        await driver.steer(await device_of(service, device_id), plan(now), now)
    await service.container.ocpp.wait_offline("CP-BACK")
    cp = await connect_charger(service, "CP-BACK", protocol)
    try:
        pause = await cp.wire.next_call("SetChargingProfile")
        assert profile_limit(pause, protocol) == ("TxDefaultProfile", "W", 0.0)
        _, schedule = sent_profile(await strategy_profile(cp, protocol, 0), protocol)
        assert schedule["startSchedule"] == iso(now)
        assert periods(schedule) == PERIODS_W
    finally:
        await cp.close()
