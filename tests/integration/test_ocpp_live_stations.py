"""What an independent charging-station simulator (SAP e-mobility) does that our first peers
did not (issue 12, defects 11-13), with `ocpp` peers that behave like it: silent at the
OCPP level but answering WebSocket pings, settings reported at boot, a lost maximum profile,
smart charging answered `NotImplemented`, a push applied after it timed out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from websockets.protocol import State

from energyhub.drivers.ocpp.central_system import OcppConfig
from tests.integration.ocpp_support import (
    PROTOCOLS,
    START,
    STOP,
    Answers,
    Charger,
    Service,
    charger,
    meter_register,
    profile_limit,
    running_service,
    start_tx,
)
from tests.support import Caller


async def test_a_charger_answering_pings_but_sending_no_heartbeats_stays_online(
    tmp_path: Path,
) -> None:
    """OCPP 1.6J needs no heartbeats over a WebSocket: pongs are signs of life."""
    config = OcppConfig(heartbeat_s=1, missed_heartbeats=1.5, response_timeout_s=3.0, flush_s=0.02)
    async with running_service(tmp_path / "ocpp.db", config, ping_s=0.2) as service:
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-PONG")
        async with charger(service, "CP-PONG") as cp:
            station = service.container.ocpp.station("CP-PONG")
            assert station is not None
            assert station.record.last_seen_at is not None
            booted_seen = station.record.last_seen_at
            frames = len(cp.wire.calls)
            # 2.5 times the silence allowed; the liveness check runs every 0.25 s
            await asyncio.sleep(2.5 * config.offline_after.total_seconds())
            assert len(cp.wire.calls) == frames, "no OCPP message in either direction"
            assert cp.wire.ws.state is State.OPEN
            assert station.online
            assert station.record.last_seen_at - booted_seen > config.offline_after  # pongs
            body = await service.device(caller, device_id)
            assert body["sync"]["available"] is True


# --- defect 12: smart charging answered NotImplemented ------------------------------------
NO_SMART_CHARGING = [
    ("ocpp2.0.1", "NotImplemented"),
    ("ocpp1.6", "NotImplemented"),
    ("ocpp1.6", "NotSupported"),
]


@pytest.mark.parametrize(("protocol", "answer"), NO_SMART_CHARGING)
async def test_a_charger_without_smart_charging_is_still_started_and_stopped(
    service: Service, protocol: str, answer: str
) -> None:
    answers = Answers()
    answers.status["SetChargingProfile"] = answer
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-PLAIN")
    async with charger(service, "CP-PLAIN", protocol, answers=answers) as cp:
        seen = len(cp.wire.calls)
        energy = {"energy": {"value": 1, "unit": "kwh"}}
        response = await service.push(caller, device_id, "charge", parameters=energy)
        assert response.status_code == 200, response.text
        start = await cp.wire.next_call(START[protocol], seen)
        assert start.get("chargingProfile") is None  # no profile it would refuse
        body = await service.device(caller, device_id)
        assert set(body["commands"]) == {"charge"}, "declared again without smart charging"
        assert set(body["commands"]["charge"]["parameters"]) == {"energy"}
        assert "max_charge_rate" not in body["settings"]
        tx = await start_tx(cp, 5_000)
        seen = len(cp.wire.calls)
        await meter_register(cp, 6_100)  # 1.1 kWh: the energy condition stops it
        stop = await cp.wire.next_call(STOP[protocol], seen)
        assert str(stop["transactionId"]) == tx
        again = await service.push(caller, device_id, "charge", parameters=energy)
        assert again.status_code == 200, again.text
        assert "SetChargingProfile" not in cp.wire.actions()[seen:]


@pytest.mark.parametrize(("protocol", "answer"), NO_SMART_CHARGING)
async def test_a_rate_the_charger_cannot_limit_fails_in_one_sentence_with_the_ocpp_code(
    service: Service, protocol: str, answer: str
) -> None:
    answers = Answers()
    answers.status["SetChargingProfile"] = answer
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-NORATE")
    async with charger(service, "CP-NORATE", protocol, answers=answers):
        power = {"power": {"value": 7, "unit": "kw"}}
        response = await service.push(caller, device_id, "charge", parameters=power)
        assert response.status_code == 502, response.text
        error = response.json()["error"]
        assert error["code"] == "DEVICE_REJECTED"
        message = error["message"]
        assert len(message) < 120, message
        assert message.count(".") == 1, message
        assert message.endswith(".")
        assert "\n" not in message
        details = error["details"]
        assert details["actionId"]
        if answer == "NotImplemented":
            assert details["ocppError"] == "NotImplemented"
            assert 0 < len(details["ocppErrorDescription"]) <= 120
            assert "stack" not in response.text, "the charger's error details stay out"
        else:
            assert details["ocppStatus"] == "NotSupported"
        body = await service.device(caller, device_id)
        assert set(body["commands"]["charge"]["parameters"]) == {"energy"}
        again = await service.push(caller, device_id, "charge", parameters=power)
        assert again.status_code == 422, again.text  # no longer declared
        assert again.json()["error"]["code"] == "UNSUPPORTED_PARAMETER"


# --- defect 11: settings read at boot, lost maximum profiles restored ----------------------
def _max_profile_201(amps: float) -> dict[str, Any]:
    schedule = {
        "id": 7,
        "chargingRateUnit": "A",
        "chargingSchedulePeriod": [{"startPeriod": 0, "limit": amps}],
    }
    return {
        "id": 7,
        "stackLevel": 0,
        "chargingProfilePurpose": "ChargingStationMaxProfile",
        "chargingProfileKind": "Absolute",
        "chargingSchedule": [schedule],
    }


async def _set(service: Service, caller: Caller, device_id: str, **values: Any) -> None:
    response = await service.client.post(
        f"/ev-charger/{device_id}/settings", json=values, headers=caller.headers
    )
    assert response.status_code == 200, response.text


def _profiles(cp: Charger) -> list[tuple[str, str, float]]:
    return [profile_limit(p, cp.protocol) for a, p in cp.wire.calls if a == "SetChargingProfile"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_stored_cable_lock_follows_what_the_charger_reports_at_boot(
    stored: Service, protocol: str
) -> None:
    answers = Answers()
    answers.config["UnlockConnectorOnEVSideDisconnect"] = ("false", False)  # locked
    variables = {
        ("SmartChargingCtrlr", "Enabled"): "true",
        ("SmartChargingCtrlr", "RateUnit"): "A,W",
        ("OCPPCommCtrlr", "UnlockOnEVSideDisconnect"): "false",
    }
    caller = await stored.live_caller()
    device_id = await stored.commission(caller, "CP-LOCK")
    async with charger(stored, "CP-LOCK", protocol, answers=answers, variables=variables):
        body = await stored.device(caller, device_id)
        assert body["settings"]["cable_lock"]["value"] is True
        await _set(stored, caller, device_id, cable_lock={"value": False})
    # changed back at the charger (its own app, an installer) while it was away
    async with charger(stored, "CP-LOCK", protocol, answers=answers, variables=variables):
        body = await stored.device(caller, device_id)
        assert body["settings"]["cable_lock"]["value"] is True


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_charger_that_restarts_without_its_maximum_profile_gets_it_back(
    stored: Service, protocol: str
) -> None:
    caller = await stored.live_caller()
    device_id = await stored.commission(caller, "CP-MAX")
    maximum = "ChargePointMaxProfile" if protocol == "ocpp1.6" else "ChargingStationMaxProfile"
    async with charger(stored, "CP-MAX", protocol) as cp:
        assert _profiles(cp) == [], "nothing set by the service: nothing to restore"
        await _set(stored, caller, device_id, max_charge_current={"value": 20, "unit": "a"})
    async with charger(stored, "CP-MAX", protocol) as cp:  # restarted, profiles lost
        assert _profiles(cp) == [(maximum, "A", 20.0)]
        body = await stored.device(caller, device_id)
        assert body["settings"]["max_charge_current"]["value"] == 20


async def test_a_201_station_reporting_its_maximum_profile_shows_it_and_keeps_it(
    stored: Service,
) -> None:
    answers = Answers()
    answers.max_profile = _max_profile_201(16)
    caller = await stored.live_caller()
    device_id = await stored.commission(caller, "CP-HELD")
    async with charger(stored, "CP-HELD", "ocpp2.0.1", answers=answers) as cp:
        assert "GetChargingProfiles" in cp.wire.actions()
        body = await stored.device(caller, device_id)
        assert body["settings"]["max_charge_current"]["value"] == 16
        assert _profiles(cp) == [], "it holds one: nothing is sent"


# --- defect 13: the current mode's profile again on every new connection --------------------
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_reconnect_asserts_the_current_modes_profile_again(
    service: Service, protocol: str
) -> None:
    """A push that timed out may still be applied by the charger later; whatever it did,
    a new connection gets the profile of the mode the service holds."""
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-MODE")
    power = {"power": {"value": 7, "unit": "kw"}}
    async with charger(service, "CP-MODE", protocol):
        response = await service.push(caller, device_id, "charge", parameters=power)
        assert response.status_code == 200, response.text
    async with charger(service, "CP-MODE", protocol, boot=False) as cp:
        frame = await cp.wire.next_call("SetChargingProfile")
        assert profile_limit(frame, protocol) == ("TxDefaultProfile", "W", 7000.0)
        assert START[protocol] not in cp.wire.actions(), "no session is started for it"
        await cp.sim.status("Available")  # a second message: the first was handled
        assert _profiles(cp) == [("TxDefaultProfile", "W", 7000.0)], "once per connection"
    async with charger(service, "CP-MODE", protocol) as cp:  # restarted: it boots
        assert _profiles(cp) == [("TxDefaultProfile", "W", 7000.0)]


async def test_a_push_that_timed_out_is_undone_when_the_charger_reconnects(tmp_path: Path) -> None:
    """The charger applies a push after the service gave up on it (as the SAP simulator
    does); the mode the service holds is still the last one that went through."""
    config = OcppConfig(response_timeout_s=0.5, flush_s=0.02)
    async with running_service(tmp_path / "ocpp.db", config) as service:
        answers = Answers()
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-LATE")
        power = {"power": {"value": 7, "unit": "kw"}}
        async with charger(service, "CP-LATE", answers=answers) as cp:
            assert (await service.push(caller, device_id, "charge", parameters=power)).is_success
            answers.delay["SetChargingProfile"] = 1.0
            late = await service.push(caller, device_id, "idle")
            assert late.status_code == 502, late.text
            assert late.json()["error"]["code"] == "DEVICE_TIMEOUT"
            assert ("TxDefaultProfile", "W", 0.0) in _profiles(cp)  # applied, late
        answers.delay.clear()
        body = await service.device(caller, device_id)
        assert body["state"]["activeControlMode"] == "charge"
        async with charger(service, "CP-LATE", answers=answers, boot=False) as cp:
            frame = await cp.wire.next_call("SetChargingProfile")
            assert profile_limit(frame, "ocpp1.6") == ("TxDefaultProfile", "W", 7000.0)
