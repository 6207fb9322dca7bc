"""Every row of the OCPP state tables (issue 7, point 2) through a real charger connection
to the device body the API serves: StatusNotification / charging states, MeterValues."""

from __future__ import annotations

import pytest

from energyhub.drivers.ocpp import mapping
from tests.integration.ocpp_support import (
    Service,
    charger,
    sampled16,
    sampled201,
)


def _expected(row: mapping.StatusRow) -> dict[str, object]:
    body: dict[str, object] = {
        "status": row.status,
        "isConnected": row.is_connected,
        "isCharging": row.is_charging,
    }
    if row.not_charging_reason is not None:
        body["notChargingReason"] = row.not_charging_reason
    return body


def _status_of(state: dict[str, object]) -> dict[str, object]:
    return {
        k: state[k]
        for k in ("status", "isConnected", "isCharging", "notChargingReason")
        if k in state
    }


async def test_every_16_status_row_reaches_the_device_body(service: Service) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-S16")
    rows = [*mapping.STATUS_16.items(), ("SomethingNew", mapping.UNKNOWN_STATUS)]
    async with charger(service, "CP-S16") as cp:
        for status, row in rows:
            if status == "SomethingNew":  # outside the schema: the table's fallback decides
                station = service.container.ocpp.station("CP-S16")
                assert station is not None
                station.on_status(status)
            else:
                await cp.sim.status(status)
            state = (await service.device(caller, device_id))["state"]
            assert _status_of(state) == _expected(row), status


async def test_every_201_connector_and_charging_state_row(service: Service) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-S201")
    async with charger(service, "CP-S201", "ocpp2.0.1") as cp:
        for status, row in mapping.CONNECTOR_201.items():
            await cp.sim.status(status)
            state = (await service.device(caller, device_id))["state"]
            assert _status_of(state) == _expected(row), status
        await cp.sim.status("Occupied")
        await cp.sim.tx_event("Started", "T1", register_wh=0, charging_state="EVConnected")
        for charging_state, row in mapping.CHARGING_STATE_201.items():
            await cp.sim.tx_event("Updated", "T1", charging_state=charging_state)
            state = (await service.device(caller, device_id))["state"]
            assert _status_of(state) == _expected(row), charging_state
        await cp.sim.status("Faulted")  # a fault wins over the charging state
        state = (await service.device(caller, device_id))["state"]
        assert _status_of(state) == _expected(mapping.CONNECTOR_201["Faulted"])


@pytest.mark.parametrize("protocol", ["ocpp1.6", "ocpp2.0.1"])
async def test_meter_values_become_power_energy_voltage_and_phases(
    service: Service, protocol: str
) -> None:
    make = sampled16 if protocol == "ocpp1.6" else sampled201
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-METER")
    async with charger(service, "CP-METER", protocol) as cp:
        if protocol == "ocpp1.6":
            await cp.sim.status("Charging")
            await cp.sim.start_tx(5000)
        else:
            await cp.sim.tx_event("Started", "T9", register_wh=5000, charging_state="Charging")
        await cp.sim.meter(
            make(3.68, "Power.Active.Import", "kW", "L1"),
            make(3.68, "Power.Active.Import", "kW", "L2"),
            make(3.64, "Power.Active.Import", "kW", "L3"),
            make(6.5, "Energy.Active.Import.Register", "kWh"),
            make(229, "Voltage", "V", "L1-N"),
            make(231, "Voltage", "V", "L2-N"),
            make(230, "Voltage", "V", "L3-N"),
            make(16, "Current.Import", "A", "L1"),
            make(16, "Current.Import", "A", "L2"),
            make(0.1, "Current.Import", "A", "L3"),
            make(16, "Current.Offered", "A"),
            make(50, "Frequency", "Hertz"),  # not kept: no row
        )
        state = (await service.device(caller, device_id))["state"]
        assert state["status"] == "charging"
        assert state["currentPower"] == 11.0
        assert state["sessionEnergy"] == 1.5
        assert state["voltage"] == 230.0
        assert state["phases"] == 2
        assert state["maxCurrent"] == 16.0
        assert "powerRateLimit" not in state  # never reported: absent, not zero
        await cp.sim.meter(make(2500, "Power.Active.Export", "W"))  # exporting
        state = (await service.device(caller, device_id))["state"]
        assert state["status"] == "discharging"
        assert state["currentPower"] == -2.5
        assert state["isCharging"] is False
