"""Transactions become charging sessions (issue 7, point 3): metered energy from the meter
register difference, `endReason` from the stop reason, surviving a charger reconnect and a
service restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from energyhub.drivers.ocpp import mapping
from tests.integration.ocpp_support import charger, running_service, sessions


@pytest.mark.parametrize(
    ("reason", "end_reason"),
    [
        ("EVDisconnected", "unplugged"),
        ("PowerLoss", "power_lost"),
        (None, "stopped"),
        ("Bogus", "unknown"),
    ],
)
async def test_a_16_transaction_is_a_metered_session(
    tmp_path: Path, reason: str | None, end_reason: str
) -> None:
    async with running_service(tmp_path / "ocpp.db") as service:
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-TX16")
        async with charger(service, "CP-TX16") as cp:
            tx = await cp.sim.start_tx(120_000)
            [active] = await sessions(service, caller, device_id)
            assert active["status"] == "active"
            assert active["measurement"] == "metered"
            if reason == "Bogus":  # outside the schema: the table's fallback decides
                station = service.container.ocpp.station("CP-TX16")
                assert station is not None
                await station.stop_transaction(
                    str(tx), 127_450, station.record.transaction.started_at, reason
                )  # type: ignore[union-attr]
            else:
                await cp.sim.stop_tx(tx, 127_450, reason)
            [done] = await sessions(service, caller, device_id)
    assert done["id"] == active["id"]
    assert done["status"] == "completed"
    assert done["energyDelivered"] == {"value": 7.45, "unit": "kwh"}
    assert done["measurement"] == "metered"
    assert done["endReason"] == end_reason
    assert "endedAt" in done


@pytest.mark.parametrize(("reason", "end_reason"), list(mapping.REASON_201.items())[:4])
async def test_a_201_transaction_event_flow_is_a_metered_session(
    tmp_path: Path, reason: str, end_reason: mapping.EndReason
) -> None:
    async with running_service(tmp_path / "ocpp.db") as service:
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-TX201")
        async with charger(service, "CP-TX201", "ocpp2.0.1") as cp:
            await cp.sim.tx_event("Started", "abc-1", register_wh=1_000, charging_state="Charging")
            await cp.sim.tx_event("Updated", "abc-1", register_wh=4_000)
            [active] = await sessions(service, caller, device_id)
            assert active["energyDelivered"]["value"] == 3.0
            await cp.sim.tx_event(
                "Ended", "abc-1", register_wh=9_250, stopped_reason=reason, trigger="StopAuthorized"
            )
            [done] = await sessions(service, caller, device_id)
    assert done["status"] == "completed"
    assert done["energyDelivered"]["value"] == 8.25
    assert done["endReason"] == end_reason.value


async def test_a_session_survives_a_reconnect_and_a_service_restart(tmp_path: Path) -> None:
    db = tmp_path / "ocpp.db"
    async with running_service(db) as service:
        caller = await service.live_caller()
        device_id = await service.commission(caller, "CP-LONG")
        async with charger(service, "CP-LONG") as cp:
            tx = await cp.sim.start_tx(50_000)
            await cp.sim.meter({"value": "51000", "measurand": "Energy.Active.Import.Register"})
        async with charger(service, "CP-LONG", boot=False) as cp:  # reconnect mid-session
            await cp.sim.meter({"value": "52000", "measurand": "Energy.Active.Import.Register"})
            [active] = await sessions(service, caller, device_id)
            assert active["energyDelivered"]["value"] == 2.0
    async with running_service(db) as restarted:  # a new process on the same database
        async with charger(restarted, "CP-LONG", boot=False) as cp:
            await cp.sim.stop_tx(tx, 55_500, "Local")
        [done] = await sessions(restarted, caller, device_id)
        assert done["id"] == active["id"]
        assert done["status"] == "completed"
        assert done["energyDelivered"]["value"] == 5.5
        assert done["endReason"] == "stopped"
        # 1.6 transaction ids are ours: the next one continues after the stored counter
        async with charger(restarted, "CP-LONG", boot=False) as cp:
            assert await cp.sim.start_tx(55_500) == tx + 1
