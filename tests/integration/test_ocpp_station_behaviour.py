"""What an independent charging-station simulator (SAP e-mobility, OCPP 1.6J and 2.0.1)
showed and our own peers never did (issue 12, defects 8-10): a three-phase meter that
sends totals and per-phase values, line-to-line voltages, telemetry after a session ends,
and a charger that reboots mid-session and forgets its transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from ocpp.v201 import call as call201

from tests.integration.ocpp_support import (
    PROTOCOLS,
    START,
    STOP,
    Answers,
    Charger,
    Service,
    charger,
    now_text,
    sampled16,
    sampled201,
    sessions,
    start_tx,
)
from tests.support import Caller


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
        tx = await start_tx(cp, 10_000, "SAP-1")
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


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _purposes(cp: Charger, seen: int) -> list[tuple[str, float]]:
    """(purpose, limit) of each SetChargingProfile since `seen`."""
    key = "csChargingProfiles" if cp.protocol == "ocpp1.6" else "chargingProfile"
    found = []
    for action, payload in cp.wire.calls[seen:]:
        if action == "SetChargingProfile":
            profile = payload[key]
            schedule = profile["chargingSchedule"]
            schedule = schedule if cp.protocol == "ocpp1.6" else schedule[0]
            limit = schedule["chargingSchedulePeriod"][0]["limit"]
            found.append((profile["chargingProfilePurpose"], limit))
    return found


def _without_session(state: dict[str, Any]) -> None:
    assert state["currentPower"] == 0.0, "nothing flows"
    assert "voltage" not in state, "unknown until the next reading"
    assert "phases" not in state, "unknown until the next reading"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_session_telemetry_goes_when_the_session_ends_or_the_charger_faults(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-END")
    async with charger(service, "CP-END", protocol) as cp:
        tx = await start_tx(cp, 10_000, "SAP-1")
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_200))
        state = await _state(service, caller, device_id)
        assert (state["currentPower"], state["voltage"], state["phases"]) == (7.0, 230.0, 3)
        await cp.sim.status("Faulted")  # mid-session: nothing flows while faulted
        _without_session(await _state(service, caller, device_id))
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_500))
        assert (await _state(service, caller, device_id))["currentPower"] == 7.0
        await _stop(cp, tx, 12_000)
        state = await _state(service, caller, device_id)
        _without_session(state)
        assert state["sessionEnergy"] == 2.0  # the last session's energy stays
        await cp.sim.status("Available")
        _without_session(await _state(service, caller, device_id))
    async with charger(service, "CP-END", protocol, boot=False):  # a reconnect
        _without_session(await _state(service, caller, device_id))


@pytest.mark.parametrize(
    ("protocol", "end_reason"), [("ocpp1.6", "unknown"), ("ocpp2.0.1", "power_lost")]
)
async def test_a_charger_that_reboots_mid_session_closes_it_and_starts_again(
    stored: Service, protocol: str, end_reason: str
) -> None:
    service = stored
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-BOOT")
    async with charger(service, "CP-BOOT", protocol) as cp:
        tx = await start_tx(cp, 10_000, "SAP-1")
        before = datetime.now(UTC)
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_200))
        heard = datetime.now(UTC)
        [active] = await sessions(service, caller, device_id)
    # the charger restarts (2.0.1 reason `PowerUp`): a new connection and BootNotification,
    # its transaction gone; what it says next is that its connector is available
    async with charger(service, "CP-BOOT", protocol) as cp:
        [done] = await sessions(service, caller, device_id)
        assert done["id"] == active["id"]
        assert done["status"] == "completed"
        assert done["endReason"] == end_reason
        assert before <= _instant(done["endedAt"]) <= heard, "ended when last heard of"
        assert done["energyDelivered"]["value"] == 1.2
        _without_session(await _state(service, caller, device_id))
        await cp.sim.status("Available")
        seen = len(cp.wire.calls)
        response = await service.push(caller, device_id, "charge")
        assert response.status_code == 200, response.text
        assert response.json()["data"]["state"] == "completed"
        assert cp.wire.actions()[seen:] == ["SetChargingProfile", START[protocol]]
        assert _purposes(cp, seen) == [("TxDefaultProfile", 22_000.0)]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_tx_profile_for_a_lost_transaction_falls_back_to_a_remote_start(
    service: Service, protocol: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-FORGOT")
    async with charger(service, "CP-FORGOT", protocol) as cp:
        tx = await start_tx(cp, 10_000, "SAP-1")
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_200))
    # back without a BootNotification, and without the transaction: the charger says nothing
    async with charger(service, "CP-FORGOT", protocol, boot=False) as cp:
        seen = len(cp.wire.calls)
        power = {"power": {"value": 7.4, "unit": "kw"}}
        response = await service.push(caller, device_id, "charge", parameters=power)
        assert response.status_code == 200, response.text
        assert cp.wire.actions()[seen:] == [
            "SetChargingProfile",
            "SetChargingProfile",  # TxProfile, rejected: the charger runs no such transaction
            START[protocol],
        ]
        assert _purposes(cp, seen) == [("TxDefaultProfile", 7_400.0), ("TxProfile", 7_400.0)]
        [done] = await sessions(service, caller, device_id)
        assert done["status"] == "completed"
        assert done["endReason"] == "unknown"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_failed_charge_leaves_the_default_profile_as_it_was(
    service: Service, protocol: str
) -> None:
    answers = Answers()
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-UNDO")
    async with charger(service, "CP-UNDO", protocol, answers=answers) as cp:
        answers.status[START[protocol]] = "Rejected"  # e.g. no vehicle plugged in
        seen = len(cp.wire.calls)
        failed = await service.push(caller, device_id, "charge")
        assert failed.status_code == 502, failed.text
        assert failed.json()["error"]["code"] == "DEVICE_REJECTED"
        clear = await cp.wire.next_call("ClearChargingProfile", seen)  # none was ours before
        assert clear == ({"id": 1001} if protocol == "ocpp1.6" else {"chargingProfileId": 1001})
        answers.status.pop(START[protocol])
        power = {"power": {"value": 7.4, "unit": "kw"}}
        assert (
            await service.push(caller, device_id, "charge", parameters=power)
        ).status_code == 200
        answers.status[START[protocol]] = "Rejected"
        seen = len(cp.wire.calls)
        power = {"power": {"value": 11, "unit": "kw"}}
        failed = await service.push(caller, device_id, "charge", parameters=power)
        assert failed.status_code == 502, failed.text
        assert _purposes(cp, seen) == [
            ("TxDefaultProfile", 11_000.0),
            ("TxDefaultProfile", 7_400.0),
        ]


@pytest.mark.parametrize(
    ("protocol", "idle"), [("ocpp1.6", "Preparing"), ("ocpp2.0.1", "Available")]
)
async def test_a_transaction_the_connector_no_longer_shows_is_closed_after_a_while(
    service: Service, protocol: str, idle: str
) -> None:
    caller = await service.live_caller()
    device_id = await service.commission(caller, "CP-IDLE")
    central = service.container.ocpp
    after = timedelta(seconds=central.config.lost_transaction_s)
    async with charger(service, "CP-IDLE", protocol) as cp:
        tx = await start_tx(cp, 10_000, "SAP-1")
        before = datetime.now(UTC)
        await _report(cp, tx, three_phase_sample(protocol, 7_000, 11_200))
        heard = datetime.now(UTC)
        await cp.sim.status(idle)  # the charger runs no transaction (it lost it)
        assert await central.close_lost_transactions(datetime.now(UTC)) == []
        assert await central.close_lost_transactions(heard + after / 2) == []
        assert await central.close_lost_transactions(datetime.now(UTC) + after) == ["CP-IDLE"]
        [done] = await sessions(service, caller, device_id)
        assert done["status"] == "completed"
        assert done["endReason"] == "unknown"
        assert before <= _instant(done["endedAt"]) <= heard, "ended when last heard of"
        seen = len(cp.wire.calls)
        assert (await service.push(caller, device_id, "charge")).status_code == 200
        assert cp.wire.actions()[seen:] == ["SetChargingProfile", START[protocol]]
