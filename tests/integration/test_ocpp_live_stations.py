"""What an independent charging-station simulator (SAP e-mobility) does that our first peers
did not (issue 12, defects 11-13), with `ocpp` peers that behave like it: silent at the
OCPP level but answering WebSocket pings, settings reported at boot, a lost maximum profile,
smart charging answered `NotImplemented`, a push applied after it timed out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.protocol import State

from energyhub.drivers.ocpp.central_system import OcppConfig
from tests.integration.ocpp_support import (
    Answers,
    Charger,
    Service,
    charger,
    running_service,
    sampled16,
    sampled201,
)

START = {"ocpp1.6": "RemoteStartTransaction", "ocpp2.0.1": "RequestStartTransaction"}
STOP = {"ocpp1.6": "RemoteStopTransaction", "ocpp2.0.1": "RequestStopTransaction"}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with running_service(tmp_path / "ocpp.db") as running:
        yield running


async def _start_tx(cp: Charger, register_wh: int) -> str:
    if cp.protocol == "ocpp1.6":
        return str(await cp.sim.start_tx(register_wh))
    await cp.sim.tx_event("Started", "TX-1", register_wh=register_wh, charging_state="Charging")
    return "TX-1"


async def _register(cp: Charger, wh: float) -> None:
    make = sampled16 if cp.protocol == "ocpp1.6" else sampled201
    await cp.sim.meter(make(wh, "Energy.Active.Import.Register", "Wh"))


async def test_a_charger_answering_pings_but_sending_no_heartbeats_stays_online(
    tmp_path: Path,
) -> None:
    """OCPP 1.6J needs no heartbeats over a WebSocket: pongs are signs of life."""
    config = OcppConfig(heartbeat_s=1, missed_heartbeats=1.0, response_timeout_s=3.0, flush_s=0.02)
    async with running_service(tmp_path / "ocpp.db", config, ping_s=0.2) as service:
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-PONG")
        async with charger(service, "CP-PONG") as cp:
            station = service.container.ocpp.station("CP-PONG")
            assert station is not None
            assert station.record.last_seen_at is not None
            booted_seen = station.record.last_seen_at
            frames = len(cp.wire.calls)
            # three times the silence allowed; the liveness check runs every 0.25 s
            await asyncio.sleep(3 * config.offline_after.total_seconds())
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
        tx = await _start_tx(cp, 5_000)
        seen = len(cp.wire.calls)
        await _register(cp, 6_100)  # 1.1 kWh: the energy condition stops it
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
