"""The OCPP central system's handshake and connections (issue 7, point 1): HTTP Basic auth
refused before the websocket opens, the subprotocols, one connection per charge point,
offline after missed heartbeats, reconnects."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest
from ocpp.v16 import call as call16
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from energyhub.domain.clock import SystemClock
from tests.integration.ocpp_support import (
    PASSWORD,
    WAIT,
    Service,
    basic,
    charger,
    connect_charger,
)


async def _refused(service: Service, cp_id: str, headers: dict[str, str], proto: str) -> int:
    with pytest.raises(InvalidStatus) as refused:
        await connect(
            f"{service.ws_base}/{cp_id}",
            subprotocols=[proto],  # type: ignore[list-item]
            additional_headers=headers,
            open_timeout=WAIT,
        )
    return refused.value.response.status_code


@pytest.mark.parametrize("protocol", ["ocpp1.6", "ocpp2.0.1"])
async def test_wrong_or_missing_password_is_refused_at_the_handshake(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-AUTH")
    assert (
        await _refused(service, "CP-AUTH", basic("CP-AUTH", "wrong-password-123456"), protocol)
        == 401
    )
    assert await _refused(service, "CP-AUTH", {}, protocol) == 401
    assert await _refused(service, "CP-AUTH", basic("CP-OTHER", PASSWORD), protocol) == 401
    assert await _refused(service, "CP-NOPE", basic("CP-NOPE", PASSWORD), protocol) == 404
    assert service.container.ocpp.station("CP-AUTH") is None  # nothing was ever accepted


async def test_a_charger_offering_no_ocpp_subprotocol_is_refused(service: Service) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-PROTO")
    assert await _refused(service, "CP-PROTO", basic("CP-PROTO", PASSWORD), "ocpp1.5") == 400


@pytest.mark.parametrize("protocol", ["ocpp1.6", "ocpp2.0.1"])
async def test_the_right_password_connects_and_the_device_goes_online(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-OK")
    before = await service.device(caller, device_id)
    assert before["state"]["status"] == "offline"
    assert before["sync"]["available"] is False
    async with charger(service, "CP-OK", protocol) as cp:
        await cp.sim.status("Available")
        body = await service.device(caller, device_id)
        assert body["state"]["status"] == "available"
        assert body["sync"]["available"] is True
        assert body["vendor"] == "Sim"
        assert cp.wire.actions()[0] == (
            "GetConfiguration" if protocol == "ocpp1.6" else "GetVariables"
        )
    async with asyncio.timeout(WAIT):
        await service.container.ocpp.wait_offline("CP-OK")
    assert (await service.device(caller, device_id))["state"]["status"] == "offline"


async def test_a_new_connection_replaces_the_old_one(service: Service) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-TWICE")
    first = await connect_charger(service, "CP-TWICE")
    await first.sim.boot()
    second = await connect_charger(service, "CP-TWICE")
    try:
        async with asyncio.timeout(WAIT):
            await first.wire.ws.wait_closed()
        assert first.wire.ws.close_code == 4000
        await second.sim.status("Charging")  # the new connection is the one in use
        station = service.container.ocpp.station("CP-TWICE")
        assert station is not None
        assert station.online
        assert station.state(None)["status"] == "charging"
    finally:
        await first.close()
        await second.close()


async def test_a_charger_missing_its_heartbeats_goes_offline_and_may_reconnect(
    service: Service,
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-SILENT")
    central = service.container.ocpp
    async with charger(service, "CP-SILENT") as cp:
        beat = await cp.sim.call(call16.Heartbeat())
        assert beat.current_time
        now = SystemClock().now()
        assert central.check_liveness(now) == []  # heard from just now
        late = now + central.config.offline_after + timedelta(seconds=1)
        assert central.check_liveness(late) == ["CP-SILENT"]
        async with asyncio.timeout(WAIT):
            await cp.wire.ws.wait_closed()
        assert cp.wire.ws.close_code == 4001
        assert (await service.device(caller, device_id))["state"]["status"] == "offline"
    async with charger(service, "CP-SILENT", boot=False) as again:
        await again.sim.status("Preparing")
        body = await service.device(caller, device_id)
        assert body["state"]["status"] == "available"
        assert body["state"]["isConnected"] is True


async def test_a_handshake_that_cannot_reach_the_database_in_time_is_told_to_come_back(
    service: Service,
) -> None:
    """SQLite serves one connection: a storm queues the handshakes' lookups behind it. One
    that waits past the bound gets 503 with Retry-After instead of an error."""
    caller = await service.live_caller()
    await service.commission(caller, "CP-BUSY")
    central = service.container.ocpp
    central.config = replace(central.config, lookup_timeout_s=0.3)
    async with service.container.uow():  # the one connection, held
        status = await _refused(service, "CP-BUSY", basic("CP-BUSY", PASSWORD), "ocpp1.6")
    assert status == 503
    assert service.container.ocpp.station("CP-BUSY") is None
