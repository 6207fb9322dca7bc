"""What an independent charging-station simulator (SAP e-mobility) does that our first peers
did not (issue 12, defects 11-13), with `ocpp` peers that behave like it: silent at the
OCPP level but answering WebSocket pings, settings reported at boot, a lost maximum profile,
smart charging answered `NotImplemented`, a push applied after it timed out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from websockets.protocol import State

from energyhub.drivers.ocpp.central_system import OcppConfig
from tests.integration.ocpp_support import charger, running_service


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
