"""Pushes and settings with a live key reach a simulated OCPP charger (issue 7, points 2
and 5): what arrives on the wire for every command, in both OCPP versions, and the
commands map each charger gets from what it declares."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp import web

from energyhub.domain.goals import STRATEGIES
from tests.integration.ocpp_support import (
    PROTOCOLS,
    START,
    STOP,
    WAIT,
    Answers,
    Service,
    charger,
    meter_register,
    profile_limit,
    sampled16,
    start_tx,
)
from tests.support import Caller, local_receiver


@pytest.fixture
def service(stored: Service) -> Service:
    """These tests run on SQLite and on PostgreSQL."""
    return stored


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_charge_without_a_session_sets_the_default_profile_and_starts_one(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-CHARGE")
    async with charger(service, "CP-CHARGE", protocol) as cp:
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "charge")
        assert response.status_code == 200, response.text
        assert response.json()["data"]["state"] == "completed"
        profile = await cp.wire.next_call("SetChargingProfile", seen)
        assert profile_limit(profile, protocol) == ("TxDefaultProfile", "W", 22000.0)
        start = await cp.wire.next_call(START[protocol], seen)
        if protocol == "ocpp1.6":
            assert start["idTag"] == "energyhub"
            assert start["chargingProfile"]["chargingProfilePurpose"] == "TxProfile"
        else:
            assert start["idToken"] == {"idToken": "energyhub", "type": "Central"}
            assert start["evseId"] == 1
        assert cp.wire.actions()[seen:] == ["SetChargingProfile", START[protocol]]
        body = await service.device(caller, device_id)
        assert body["state"]["activeControlMode"] == "charge"
        assert body["lastAction"]["state"] == "completed"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("parameters", "unit", "limit"),
    [
        ({"power": {"value": 7.4, "unit": "kw"}}, "W", 7400.0),
        ({"power": {"value": 3000, "unit": "w"}}, "W", 3000.0),
        ({"current": {"value": 16, "unit": "a"}}, "A", 16.0),
    ],
)
async def test_power_and_current_become_limits_for_the_running_session(
    service: Service, protocol: str, parameters: dict[str, Any], unit: str, limit: float
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-RATE")
    async with charger(service, "CP-RATE", protocol) as cp:
        tx = await start_tx(cp, 1000)
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "charge", parameters=parameters)
        assert response.status_code == 200, response.text
        frames = [p for a, p in cp.wire.calls[seen:] if a == "SetChargingProfile"]
        assert [profile_limit(p, protocol) for p in frames] == [
            ("TxDefaultProfile", unit, limit),
            ("TxProfile", unit, limit),
        ]
        profile = frames[1]["csChargingProfiles" if protocol == "ocpp1.6" else "chargingProfile"]
        assert str(profile["transactionId"]) == tx
        assert START[protocol] not in cp.wire.actions()[seen:]  # the session runs already


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_idle_is_a_zero_limit_that_keeps_the_session(service: Service, protocol: str) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-IDLE")
    async with charger(service, "CP-IDLE", protocol) as cp:
        await start_tx(cp, 500)
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "idle")
        assert response.status_code == 200, response.text
        frames = [p for a, p in cp.wire.calls[seen:] if a == "SetChargingProfile"]
        assert [profile_limit(p, protocol) for p in frames] == [
            ("TxDefaultProfile", "W", 0.0),
            ("TxProfile", "W", 0.0),
        ]
        assert STOP[protocol] not in cp.wire.actions()
        station = service.container.ocpp.station("CP-IDLE")
        assert station is not None
        assert station.record.transaction is not None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_energy_is_a_stop_condition_the_service_enforces(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-ENERGY")
    async with charger(service, "CP-ENERGY", protocol) as cp:
        tx = await start_tx(cp, 10_000)
        energy = {"energy": {"value": 2, "unit": "kwh"}}
        response = await service.push(caller, device_id, "charge", parameters=energy)
        assert response.status_code == 200, response.text
        await meter_register(cp, 11_500)  # 1.5 kWh: below the condition
        assert STOP[protocol] not in cp.wire.actions()
        seen = len(cp.wire.calls)
        await meter_register(cp, 12_100)  # 2.1 kWh
        stop = await cp.wire.next_call(STOP[protocol], seen)
        assert str(stop["transactionId"]) == tx


async def test_target_is_declared_with_soc_and_enforced(service: Service) -> None:
    answers = Answers()
    answers.config["MeterValuesSampledData"] = ("Energy.Active.Import.Register,SoC", False)
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-SOC")
    async with charger(service, "CP-SOC", answers=answers) as cp:
        body = await service.device(caller, device_id)
        assert "target" in body["commands"]["charge"]["parameters"]
        tx = await start_tx(cp, 0)
        target = {"target": {"value": 80, "unit": "percent"}}
        response = await service.push(caller, device_id, "charge", parameters=target)
        assert response.status_code == 200, response.text
        await cp.sim.meter(sampled16(79, "SoC", "Percent"))
        assert "RemoteStopTransaction" not in cp.wire.actions()
        seen = len(cp.wire.calls)
        await cp.sim.meter(sampled16(80, "SoC", "Percent"))
        assert (await cp.wire.next_call("RemoteStopTransaction", seen))["transactionId"] == int(tx)


async def test_what_the_charger_declares_decides_its_commands_map(service: Service) -> None:
    answers = Answers()
    answers.config["SupportedFeatureProfiles"] = ("Core,RemoteTrigger", True)
    answers.config.pop("UnlockConnectorOnEVSideDisconnect")
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-BASIC")
    full = await service.device(caller, device_id)
    assert set(full["commands"]) == {"charge", "idle", *STRATEGIES}
    async with charger(service, "CP-BASIC", answers=answers):
        body = await service.device(caller, device_id)
    assert set(body["commands"]) == {"charge"}  # no smart charging: no idle, no strategies
    assert set(body["commands"]["charge"]["parameters"]) == {"energy"}
    assert set(body["settings"]) == {"scheduler_enabled"}
    refused = await service.push(caller, device_id, "idle")
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "UNSUPPORTED_MODE"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_settings_write_the_maximum_profile_and_the_configuration(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-SET")
    async with charger(service, "CP-SET", protocol) as cp:
        seen = len(cp.wire.calls)
        response = await service.client.post(
            f"/ev-charger/{device_id}/settings",
            json={"max_charge_current": {"value": 20, "unit": "a"}, "cable_lock": {"value": True}},
            headers=caller.headers,
        )
        assert response.status_code == 200, response.text
        assert response.json()["data"]["settings"]["cable_lock"]["value"] is True
        profile = await cp.wire.next_call("SetChargingProfile", seen)
        maximum = "ChargePointMaxProfile" if protocol == "ocpp1.6" else "ChargingStationMaxProfile"
        assert profile_limit(profile, protocol) == (maximum, "A", 20.0)
        if protocol == "ocpp1.6":
            assert profile["connectorId"] == 0
            written = await cp.wire.next_call("ChangeConfiguration", seen)
            assert written == {"key": "UnlockConnectorOnEVSideDisconnect", "value": "false"}
        else:
            assert profile["evseId"] == 0
            written = await cp.wire.next_call("SetVariables", seen)
            assert written["setVariableData"] == [
                {
                    "attributeValue": "false",
                    "component": {"name": "OCPPCommCtrlr"},
                    "variable": {"name": "UnlockOnEVSideDisconnect"},
                }
            ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_refusal_fails_the_push_with_device_rejected(
    service: Service, protocol: str
) -> None:
    answers = Answers()
    answers.status["SetChargingProfile"] = "Rejected"
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-NO")
    async with charger(service, "CP-NO", protocol, answers=answers):
        response = await service.push(caller, device_id, "charge")
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "DEVICE_REJECTED"
    action = await service.client.get(
        f"/actions/{error['details']['actionId']}", headers=caller.headers
    )
    assert action.json()["data"]["state"] == "failed"


async def test_a_push_to_an_offline_charger_fails_with_device_offline(service: Service) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-GONE")
    response = await service.push(caller, device_id, "charge")
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "DEVICE_OFFLINE"


async def test_a_revoked_charger_is_left_alone_as_a_disconnected_sandbox_one(
    service: Service,
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-REVOKED")
    async with charger(service, "CP-REVOKED") as cp:
        now = datetime.now(ZoneInfo("UTC"))
        async with service.container.uow() as tx:  # what revoking the user's link does
            await tx.devices.update_device(
                device_id, disconnected_at=now, last_pulled_at=None, updated_at=now
            )
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "charge")
        assert response.json()["error"]["code"] == "CREDENTIALS_INVALID", response.text
        await cp.sim.meter(sampled16(1200, "Energy.Active.Import.Register", "Wh"))
        body = await service.device(caller, device_id)  # flushes what the charger reported
        assert body["sync"]["available"] is False, "still connected, but no longer ours"
        assert cp.wire.actions()[seen:] == [], "nothing was sent to the charger"


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, asyncio.Queue[tuple[str, bytes]]]]:
    received: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()

    async def handle(request: web.Request) -> web.Response:
        await received.put((request.headers.get("x-event-type", ""), await request.read()))
        return web.Response(status=204)

    async with local_receiver(handle) as url:
        yield url, received


async def test_a_live_push_completes_with_push_completed_delivered(
    service: Service, receiver: tuple[str, asyncio.Queue[tuple[str, bytes]]]
) -> None:
    url, received = receiver
    caller: Caller = await service.live_caller()
    endpoint = await service.client.post(
        "/webhooks/endpoints",
        json={"url": url, "events": ["push.completed"]},
        headers=caller.headers,
    )
    assert endpoint.status_code == 201, endpoint.text
    device_id = await service.commission(caller, "CP-HOOK")
    async with charger(service, "CP-HOOK", "ocpp2.0.1") as cp:
        seen = len(cp.wire.calls)
        response = await service.push(
            caller, device_id, "charge", parameters={"current": {"value": 10, "unit": "a"}}
        )
        assert response.status_code == 200, response.text
        action_id = response.json()["data"]["id"]
        await cp.wire.next_call("RequestStartTransaction", seen)
        async with asyncio.timeout(WAIT):
            event, body = await received.get()
    assert event == "push.completed"
    payload = json.loads(body)
    assert payload["actionId"] == action_id
    assert payload["deviceId"] == device_id
    assert payload["deviceType"] == "ev_charger"
    assert payload["result"]["success"] is True


async def test_a_window_on_a_live_charger_runs_and_restores_and_conflicts_apply(
    service: Service,
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-WIN")
    async with charger(service, "CP-WIN", "ocpp2.0.1") as cp:
        await start_tx(cp, 0)
        assert (await service.push(caller, device_id, "idle")).status_code == 200
        local = datetime.now(ZoneInfo("Europe/Berlin")).replace(microsecond=0, tzinfo=None)
        start, end = local + timedelta(seconds=2), local + timedelta(seconds=4)
        seen = len(cp.wire.calls)
        window = await service.push(
            caller,
            device_id,
            "charge",
            parameters={"power": {"value": 11, "unit": "kw"}},
            start=start.isoformat(),
            end=end.isoformat(),
        )
        assert window.status_code == 202, window.text
        clash = await service.push(caller, device_id, "idle", start=start.isoformat())
        assert clash.status_code == 409
        assert clash.json()["error"]["code"] == "ACTION_CONFLICT"
        limits = []
        while len(limits) < 4:  # the window's two profiles, then the restored idle's two
            await cp.wire.next_call("SetChargingProfile", seen)
            index = next(
                i
                for i, (a, _) in enumerate(cp.wire.calls)
                if i >= seen and a == "SetChargingProfile"
            )
            limits.append(profile_limit(cp.wire.calls[index][1], "ocpp2.0.1"))
            seen = index + 1
        assert limits == [
            ("TxDefaultProfile", "W", 11000.0),
            ("TxProfile", "W", 11000.0),
            ("TxDefaultProfile", "W", 0.0),
            ("TxProfile", "W", 0.0),
        ]
