"""What an independent charging-station simulator (SAP e-mobility, OCPP 1.6J and 2.0.1)
showed and our own peers never did (issue 12, defects 8-10): a three-phase meter that
sends totals and per-phase values, line-to-line voltages, telemetry after a session ends,
and a charger that reboots mid-session and forgets its transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ocpp.v201 import call as call201

from tests.integration.ocpp_support import (
    Charger,
    Service,
    charger,
    now_text,
    running_service,
    sampled16,
    sampled201,
)
from tests.support import Caller

PROTOCOLS = ["ocpp1.6", "ocpp2.0.1"]
START = {"ocpp1.6": "RemoteStartTransaction", "ocpp2.0.1": "RequestStartTransaction"}
STOP = {"ocpp1.6": "RemoteStopTransaction", "ocpp2.0.1": "RequestStopTransaction"}


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with running_service(tmp_path / "ocpp.db") as running:
        yield running


async def _start(cp: Charger, register_wh: int) -> str:
    if cp.protocol == "ocpp1.6":
        return str(await cp.sim.start_tx(register_wh))
    await cp.sim.tx_event("Started", "SAP-1", register_wh=register_wh, charging_state="Charging")
    return "SAP-1"


async def _stop(cp: Charger, tx: str, register_wh: int) -> None:
    if cp.protocol == "ocpp1.6":
        await cp.sim.stop_tx(int(tx), register_wh, "EVDisconnected")
    else:
        await cp.sim.tx_event("Ended", tx, register_wh=register_wh, stopped_reason="EVDisconnected")


def three_phase_sample(protocol: str, power_w: float, register_wh: float) -> list[dict[str, Any]]:
    """One sample as the simulator's three-phase meter sends it: power and the energy
    register as a total and per phase, phase voltages and line-to-line voltages, and the
    current of each phase."""
    make = sampled16 if protocol == "ocpp1.6" else sampled201
    values = [make(power_w, "Power.Active.Import", "W")]
    values += [make(power_w / 3, "Power.Active.Import", "W", f"L{n}-N") for n in (1, 2, 3)]
    values.append(make(register_wh, "Energy.Active.Import.Register", "Wh"))
    values += [
        make(register_wh / 3, "Energy.Active.Import.Register", "Wh", f"L{n}-N") for n in (1, 2, 3)
    ]
    values += [make(v, "Voltage", "V", f"L{n}-N") for n, v in ((1, 229), (2, 230), (3, 231))]
    values += [make(400, "Voltage", "V", p) for p in ("L1-L2", "L2-L3", "L3-L1")]
    values += [make(10.1, "Current.Import", "A", f"L{n}") for n in (1, 2, 3)]
    return values


async def _report(cp: Charger, tx: str, sampled: list[dict[str, Any]]) -> None:
    """In session, as the simulator reports: 1.6 MeterValues with the transaction id,
    2.0.1 a TransactionEvent `Updated` carrying the sample."""
    if cp.protocol == "ocpp1.6":
        await cp.sim.meter(*sampled, transaction_id=int(tx))
        return
    cp.sim.seq += 1
    await cp.sim.call(
        call201.TransactionEvent(
            event_type="Updated",
            timestamp=now_text(),
            trigger_reason="MeterValuePeriodic",
            seq_no=cp.sim.seq,
            transaction_info={"transactionId": tx, "chargingState": "Charging"},
            meter_value=[{"timestamp": now_text(), "sampledValue": sampled}],
            evse={"id": 1, "connectorId": 1},
        )
    )


async def _state(service: Service, caller: Caller, device_id: str) -> dict[str, Any]:
    state: dict[str, Any] = (await service.device(caller, device_id))["state"]
    return state


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_meter_sending_totals_and_phases_is_read_once(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-3PH")
    async with charger(service, "CP-3PH", protocol) as cp:
        tx = await _start(cp, 10_000)
        energy = {"energy": {"value": 2, "unit": "kwh"}}
        response = await service.push(caller, device_id, "charge", parameters=energy)
        assert response.status_code == 200, response.text
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_200))
        state = await _state(service, caller, device_id)
        assert state["currentPower"] == 7.0  # not total + phases (14 kW)
        assert state["sessionEnergy"] == 1.2  # not 22.4 - 10 kWh
        assert state["voltage"] == 230.0  # line-to-neutral only: not (3 x 230 + 3 x 400) / 6
        assert state["phases"] == 3
        assert STOP[protocol] not in cp.wire.actions(), "1.2 of 2 kWh: the session goes on"
