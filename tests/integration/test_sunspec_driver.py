"""The SunSpec driver against a real pymodbus TCP server holding SunSpec register maps:
discovery, every state mapping row, what every command and setting writes (and in which
order), the reversion timeout and its renewal, and failures as spec codes."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sunspec2.modbus.client as sunspec_client  # type: ignore[import-untyped]
from pymodbus.constants import ExcCodes

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.readings import CommandRequest, DriverError
from energyhub.drivers.sunspec.driver import SunspecDriver
from energyhub.ports.sunspec import SunspecEndpoint
from tests.sunspec_peer import (
    BASIC_LAYOUT,
    BATTERY_802,
    COMMON,
    DER_LAYOUT,
    STORAGE_LAYOUT,
    Layout,
    SunspecPeer,
)

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
REVERSION_S = 120


class Endpoints:
    """The driver's commissioning lookup, in memory."""

    def __init__(self) -> None:
        self.by_device: dict[str, SunspecEndpoint] = {}

    async def get(self, device_id: str) -> SunspecEndpoint | None:
        return self.by_device.get(device_id)


async def commission(driver: SunspecDriver, endpoints: Endpoints, peer: SunspecPeer) -> Device:
    found = await driver.discover("127.0.0.1", peer.port, peer.unit_id)
    device = Device(
        id=f"dev-{peer.port}",
        account_id="acc",
        environment=Environment.LIVE,
        user_id="user-1",
        type=DeviceType.BATTERY,
        vendor="volta-energy",
        model=found.model,
        driver="sunspec",
        profile=None,
        timezone="Europe/Berlin",
        capabilities=found.capabilities,
        settings=dict(found.settings),
        state={},
        sim=None,
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=NOW,
        updated_at=NOW,
    )
    endpoints.by_device[device.id] = SunspecEndpoint(
        device.id, "127.0.0.1", peer.port, peer.unit_id, found.base_address, found.models,
        found.manufacturer, found.model, found.serial, NOW,
    )  # fmt: skip
    return device


@pytest.fixture
def endpoints() -> Endpoints:
    return Endpoints()


@pytest.fixture
def driver(endpoints: Endpoints) -> SunspecDriver:
    return SunspecDriver(endpoints.get, reversion_s=REVERSION_S, call_timeout_s=2.0)


async def _battery(
    driver: SunspecDriver, endpoints: Endpoints, layout: Layout, base: int = 40000
) -> tuple[SunspecPeer, Device]:
    peer = await SunspecPeer(layout, base=base).start()
    return peer, await commission(driver, endpoints, peer)


async def _send(driver: SunspecDriver, device: Device, command: str, **parameters: float) -> Device:
    """Sends a command and keeps the driver's state on the device, as the dispatcher does."""
    receipt = await driver.send_command(device, CommandRequest(command, parameters), NOW)
    assert receipt.driver_state is not None
    assert receipt.completes_after > 0, "acknowledged first, completed after a read-back"
    return replace(device, sim=receipt.driver_state)


# --- discovery -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("layout", "base", "models", "commands", "settings"),
    [
        (
            STORAGE_LAYOUT,
            40000,
            [1, 124, 802],
            {"charge", "discharge", "idle", "auto.balance", "auto.reserve", "auto.export"},
            {"discharge_floor", "charge_ceiling", "max_charge_rate", "scheduler_enabled"},
        ),
        (
            DER_LAYOUT,
            0,
            [1, 802, 704],
            {"charge", "discharge", "idle", "auto.balance"},
            {"discharge_floor", "charge_ceiling", "scheduler_enabled"},
        ),
        (
            BASIC_LAYOUT,
            50000,
            [1, 124],
            {"charge", "discharge", "idle", "auto.balance", "auto.reserve", "auto.export"},
            {"max_charge_rate", "scheduler_enabled"},
        ),
    ],
)
async def test_discovery_finds_the_models_and_what_they_allow(
    driver: SunspecDriver,
    layout: Layout,
    base: int,
    models: list[int],
    commands: set[str],
    settings: set[str],
) -> None:
    async with SunspecPeer(layout, base=base) as peer:
        found = await driver.discover("127.0.0.1", peer.port, 1)
    assert found.base_address == base
    assert found.model_ids == models
    assert (found.manufacturer, found.model, found.serial, found.version) == (
        "Volta Energy",
        "ModBat 10",
        "VB-0001",
        "1.2.3",
    )
    assert set(found.capabilities.commands) == commands
    assert set(found.capabilities.settings) == settings
    assert found.capabilities.settings["scheduler_enabled"].read_only


async def test_parameters_follow_the_registers(driver: SunspecDriver) -> None:
    async with SunspecPeer(STORAGE_LAYOUT) as peer:
        full = (await driver.discover("127.0.0.1", peer.port, 1)).capabilities
    async with SunspecPeer(BASIC_LAYOUT) as peer:
        basic = (await driver.discover("127.0.0.1", peer.port, 1)).capabilities
    async with SunspecPeer(DER_LAYOUT, base=0) as peer:
        der = (await driver.discover("127.0.0.1", peer.port, 1)).capabilities
    charge = full.commands["charge"].to_json()["parameters"]
    assert charge == {
        "target": {"unit": "percent", "min": 10, "max": 100},
        "power": {"unit": "kw", "min": 0, "max": 5.0},  # WChaMax
        "reserve": {"unit": "percent", "min": 0, "max": 100},
    }
    assert full.commands["idle"].parameters == {}
    assert set(basic.commands["charge"].parameters) == {"power"}  # no SoC limit registers
    assert der.commands["discharge"].parameters["power"].max == 4.0  # 802 WDisChaRteMax
    assert full.settings["max_charge_rate"].to_json(5.0) == {
        "value": 5.0,
        "unit": "kw",
        "min": 0,
        "max": 5.0,
    }
    assert full.conflict_strategies is not None


async def test_a_battery_without_a_reversion_timer_offers_only_its_own_mode(
    driver: SunspecDriver,
) -> None:
    storage = {k: v for k, v in STORAGE_LAYOUT[1][1].items() if k != "InOutWRte_RvrtTms"}
    async with SunspecPeer([(1, COMMON), (124, storage)]) as peer:
        found = await driver.discover("127.0.0.1", peer.port, 1)
    assert set(found.capabilities.commands) == {"auto.balance"}


async def test_a_battery_without_controls_is_read_only(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, [(1, COMMON), (802, BATTERY_802)])
    try:
        state = (await driver.read(device, NOW)).state
        with pytest.raises(DriverError) as refused:
            await driver.send_command(device, CommandRequest("idle", {}), NOW)
    finally:
        await peer.stop()
    assert device.capabilities.commands == {}
    assert device.capabilities.conflict_strategies is None
    assert set(device.capabilities.settings) == {
        "discharge_floor",
        "charge_ceiling",
        "scheduler_enabled",
    }
    assert (state["level"], state["currentMode"]) == (73.6, "unknown")
    assert refused.value.code == "DEVICE_REJECTED"


@pytest.mark.parametrize(
    ("layout", "base", "expected"),
    [
        (STORAGE_LAYOUT, 1000, "no SunSpec marker"),  # not where SunSpec devices put it
        ([(1, COMMON)], 40000, "not a battery"),
    ],
)
async def test_discovery_refuses_what_is_not_a_sunspec_battery(
    driver: SunspecDriver, layout: Layout, base: int, expected: str
) -> None:
    async with SunspecPeer(layout, base=base) as peer:
        with pytest.raises(DriverError) as refused:
            await driver.discover("127.0.0.1", peer.port, 1)
    assert refused.value.code == "DEVICE_REJECTED"
    assert not refused.value.retryable
    assert expected in refused.value.message


async def test_discovery_of_an_unreachable_address(driver: SunspecDriver) -> None:
    peer = await SunspecPeer(STORAGE_LAYOUT).start()
    port = peer.port
    await peer.stop()
    with pytest.raises(DriverError) as failed:
        await driver.discover("127.0.0.1", port, 1)
    assert (failed.value.code, failed.value.retryable) == ("DEVICE_OFFLINE", True)


# --- reading: every mapping row ---------------------------------------------------------------
async def test_reading_has_the_spec_shape(driver: SunspecDriver, endpoints: Endpoints) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        await peer.set(802, "W", -2000)  # taking 2 kW
        reading = await driver.read(device, NOW)
    finally:
        await peer.stop()
    assert reading.available
    assert reading.state == {
        "status": "idle",  # ChaSt 6 HOLDING wins over the power's sign
        "capacity": 13.5,  # 802 WHRtg 1350 * 10 Wh
        "level": 73.6,  # 802 SoC before 124 ChaState
        "chargeRate": 2.0,
        "dischargeLimit": 10.0,  # 124 MinRsvPct
        "currentMode": "auto.balance",
    }


@pytest.mark.parametrize(
    ("chast", "status"),
    [
        (1, "idle"),
        (2, "idle"),
        (3, "discharging"),
        (4, "charging"),
        (5, "idle"),
        (6, "idle"),
        (7, "idle"),
        (99, "unknown"),
    ],
)
async def test_charge_status_rows(
    driver: SunspecDriver, endpoints: Endpoints, chast: int, status: str
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        await peer.set(124, "ChaSt", chast)
        assert (await driver.read(device, NOW)).state["status"] == status
    finally:
        await peer.stop()


@pytest.mark.parametrize(
    ("watts", "rate", "status"),
    [(-2500, 2.5, "charging"), (1500, -1.5, "discharging"), (0, 0.0, "idle")],
)
async def test_without_charge_status_the_power_sign_decides(
    driver: SunspecDriver, endpoints: Endpoints, watts: int, rate: float, status: str
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        await peer.set(124, "ChaSt", 0xFFFF)  # not implemented
        await peer.set(802, "ChaSt", 0xFFFF)
        await peer.set(802, "W", watts)
        state = (await driver.read(device, NOW)).state
    finally:
        await peer.stop()
    assert (state["chargeRate"], state["status"]) == (rate, status)


async def test_a_basic_battery_reads_what_it_has(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, BASIC_LAYOUT, base=50000)
    try:
        state = (await driver.read(device, NOW)).state
        await peer.set(124, "ChaSt", 0xFFFF)
        unknown = (await driver.read(device, NOW)).state["status"]
    finally:
        await peer.stop()
    assert state["level"] == 73.5  # 124 ChaState
    assert state["status"] == "idle"
    assert (state["chargeRate"], state["capacity"], state["dischargeLimit"]) == (None, None, None)
    assert unknown == "unknown"  # no ChaSt and no power measurement


@pytest.mark.parametrize(
    ("registers", "mode"),
    [
        ({"StorCtl_Mod": 3, "InWRte": 4000, "OutWRte": -4000}, "charge"),
        ({"StorCtl_Mod": 3, "InWRte": -2000, "OutWRte": 2000}, "discharge"),
        ({"StorCtl_Mod": 3, "InWRte": 0, "OutWRte": 0}, "idle"),
        ({"StorCtl_Mod": 0, "InWRte": 500, "OutWRte": -300}, "auto.balance"),
        ({"StorCtl_Mod": 2, "InWRte": 10000, "OutWRte": 0}, "auto.reserve"),
        ({"StorCtl_Mod": 1, "InWRte": 0, "OutWRte": 10000}, "auto.export"),
        ({"StorCtl_Mod": 3, "InWRte": 4000, "OutWRte": 4000}, "unknown"),
        ({"StorCtl_Mod": 0xFFFF}, "unknown"),
    ],
)
async def test_storage_mode_rows(
    driver: SunspecDriver, endpoints: Endpoints, registers: dict[str, int], mode: str
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        for point, raw in registers.items():
            await peer.set(124, point, raw)
        assert (await driver.read(device, NOW)).state["currentMode"] == mode
    finally:
        await peer.stop()


@pytest.mark.parametrize(
    ("registers", "mode"),
    [
        ({"WSetEna": 1, "WSet": -3000}, "charge"),
        ({"WSetEna": 1, "WSet": 3000}, "discharge"),
        ({"WSetEna": 1, "WSet": 0}, "idle"),
        ({"WSetEna": 0, "WSet": 3000}, "auto.balance"),
        ({"WSetEna": 0xFFFF}, "unknown"),
    ],
)
async def test_der_mode_rows(
    driver: SunspecDriver, endpoints: Endpoints, registers: dict[str, int], mode: str
) -> None:
    peer, device = await _battery(driver, endpoints, DER_LAYOUT, base=0)
    try:
        for point, raw in registers.items():
            await peer.set(704, point, raw)
        assert (await driver.read(device, NOW)).state["currentMode"] == mode
    finally:
        await peer.stop()


# --- commands: what arrives in the registers ----------------------------------------------------
STORAGE_COMMANDS: list[tuple[str, dict[str, float], dict[tuple[int, str], int]]] = [
    (
        "charge",
        {"power": 2.0, "target": 90, "reserve": 20},
        {
            (124, "InOutWRte_RvrtTms"): REVERSION_S,
            (124, "MinRsvPct"): 200,  # reserve 20.0 %
            (802, "SocRsvMax"): 900,  # target 90.0 %
            (124, "ChaGriSet"): 1,  # from the grid too
            (124, "InWRte"): 4000,  # 2 kW of WChaMax 5 kW: 40.00 %
            (124, "OutWRte"): -4000,  # a negative discharge limit forces charging
            (124, "StorCtl_Mod"): 3,
        },
    ),
    (
        "charge",
        {},
        {
            (124, "MinRsvPct"): 100,  # the discharge_floor setting
            (802, "SocRsvMax"): 950,  # the charge_ceiling setting
            (124, "InWRte"): 10000,
            (124, "OutWRte"): -10000,
            (124, "StorCtl_Mod"): 3,
        },
    ),
    (
        "discharge",
        {"power": 1.0, "target": 30, "reserve": 20},
        {
            (124, "InOutWRte_RvrtTms"): REVERSION_S,
            (124, "MinRsvPct"): 300,  # the higher of target and reserve
            (802, "SocRsvMax"): 950,
            (124, "ChaGriSet"): 0,
            (124, "OutWRte"): 2000,
            (124, "InWRte"): -2000,
            (124, "StorCtl_Mod"): 3,
        },
    ),
    (
        "idle",
        {},
        {
            (124, "InOutWRte_RvrtTms"): REVERSION_S,
            (124, "InWRte"): 0,
            (124, "OutWRte"): 0,
            (124, "StorCtl_Mod"): 3,
        },
    ),
    (
        "auto.balance",
        {},
        {
            (124, "InOutWRte_RvrtTms"): 0,  # the battery's own mode needs no reversion
            (124, "ChaGriSet"): 0,
            (124, "InWRte"): 10000,
            (124, "OutWRte"): 10000,
            (124, "StorCtl_Mod"): 0,
        },
    ),
    (
        "auto.reserve",
        {},
        {
            (124, "InOutWRte_RvrtTms"): REVERSION_S,
            (124, "ChaGriSet"): 1,
            (124, "InWRte"): 10000,
            (124, "OutWRte"): 0,
            (124, "StorCtl_Mod"): 2,
        },
    ),
    (
        "auto.export",
        {},
        {
            (124, "InOutWRte_RvrtTms"): REVERSION_S,
            (124, "ChaGriSet"): 0,
            (124, "InWRte"): 0,
            (124, "OutWRte"): 10000,
            (124, "StorCtl_Mod"): 1,
        },
    ),
]


@pytest.mark.parametrize(("command", "parameters", "expected"), STORAGE_COMMANDS)
async def test_storage_commands_write_model_124(
    driver: SunspecDriver,
    endpoints: Endpoints,
    command: str,
    parameters: dict[str, float],
    expected: dict[tuple[int, str], int],
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        if command == "auto.balance":
            device = await _send(driver, device, "charge")  # something to leave
            peer.writes.clear()
        device = await _send(driver, device, command, **parameters)
        for (model_id, point), raw in expected.items():
            assert await peer.raw(model_id, point) == raw, point
            assert peer.written(model_id, point) == [raw], point
        order = peer.write_order()
        assert order[0] == peer.address(124, "InOutWRte_RvrtTms"), "the timer goes first"
        assert order[-1] == peer.address(124, "StorCtl_Mod"), "activation goes last"
        assert device.sim is not None
        assert device.sim["command"] == command
        assert (await driver.read(device, NOW)).state["currentMode"] == command
    finally:
        await peer.stop()


DER_COMMANDS: list[tuple[str, dict[str, float], dict[tuple[int, str], int]]] = [
    (
        "charge",
        {"power": 2.0, "target": 80},
        {
            (704, "WSetRvrtTms"): REVERSION_S,
            (704, "WSetEnaRvrt"): 0,  # after the timeout: the battery's own control
            (802, "SocRsvMax"): 800,
            (802, "SoCRsvMin"): 50,  # the discharge_floor setting
            (704, "WSetMod"): 1,  # watts
            (704, "WSet"): -2000,  # generator reference: taking power
            (704, "WSetEna"): 1,
        },
    ),
    (
        "discharge",
        {},
        {(704, "WSetRvrtTms"): REVERSION_S, (704, "WSet"): 4000, (704, "WSetEna"): 1},
    ),
    (
        "discharge",
        {"power": 1.5, "reserve": 30},
        {(802, "SoCRsvMin"): 300, (704, "WSet"): 1500, (704, "WSetEna"): 1},
    ),
    ("idle", {}, {(704, "WSetRvrtTms"): REVERSION_S, (704, "WSet"): 0, (704, "WSetEna"): 1}),
    ("auto.balance", {}, {(704, "WSetRvrtTms"): 0, (704, "WSetEna"): 0}),
]


@pytest.mark.parametrize(("command", "parameters", "expected"), DER_COMMANDS)
async def test_der_commands_write_model_704(
    driver: SunspecDriver,
    endpoints: Endpoints,
    command: str,
    parameters: dict[str, float],
    expected: dict[tuple[int, str], int],
) -> None:
    peer, device = await _battery(driver, endpoints, DER_LAYOUT, base=0)
    try:
        device = await _send(driver, device, command, **parameters)
        for (model_id, point), raw in expected.items():
            assert await peer.raw(model_id, point) == raw, point
            assert peer.written(model_id, point) == [raw], point
        assert peer.write_order()[-1] == peer.address(704, "WSetEna"), "activation goes last"
        assert (await driver.read(device, NOW)).state["currentMode"] == command
    finally:
        await peer.stop()


async def test_an_independent_sunspec_client_sees_the_command(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    """pysunspec2 (its own SunSpec stack) reads back what the driver wrote."""
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        await _send(driver, device, "discharge", power=1.5)

        def scan() -> dict[str, Any]:
            client = sunspec_client.SunSpecModbusClientDeviceTCP(
                slave_id=1, ipaddr="127.0.0.1", ipport=peer.port, timeout=3
            )
            try:
                client.scan()
                storage = client.models["storage_basic"][0]
                return {
                    "models": sorted(k for k in client.models if isinstance(k, int)),
                    "OutWRte": storage.OutWRte.cvalue,
                    "InWRte": storage.InWRte.cvalue,
                    "StorCtl_Mod": storage.StorCtl_Mod.value,
                    "RvrtTms": storage.InOutWRte_RvrtTms.value,
                }
            finally:
                client.disconnect()

        seen = await asyncio.to_thread(scan)
    finally:
        await peer.stop()
    assert seen == {
        "models": [1, 124, 802],
        "OutWRte": 30.0,
        "InWRte": -30.0,
        "StorCtl_Mod": 3,
        "RvrtTms": REVERSION_S,
    }


async def test_an_undeclared_command_is_refused(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, DER_LAYOUT, base=0)
    try:
        with pytest.raises(DriverError) as refused:
            await driver.send_command(device, CommandRequest("auto.export", {}), NOW)
    finally:
        await peer.stop()
    assert (refused.value.code, refused.value.retryable) == ("DEVICE_REJECTED", False)
    assert peer.writes == []


# --- the reversion timeout -----------------------------------------------------------------------
async def test_reads_renew_a_held_mode_while_the_registers_hold_it(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        device = await _send(driver, device, "charge", power=2.0, reserve=20)
        peer.writes.clear()
        await driver.read(device, NOW + timedelta(seconds=10))
        assert peer.writes == [], "just written: nothing to renew yet"
        later = NOW + timedelta(seconds=REVERSION_S / 3)
        await driver.read(device, later)
        assert peer.written(124, "InOutWRte_RvrtTms") == [REVERSION_S]
        assert peer.written(124, "InWRte") == [4000]
        assert peer.written(124, "StorCtl_Mod") == [3]
        assert peer.written(124, "MinRsvPct") == [], "limits are not rewritten"
        assert peer.write_order()[0] == peer.address(124, "InOutWRte_RvrtTms")
        peer.writes.clear()
        await peer.set(124, "StorCtl_Mod", 0)  # the timeout ran out: the battery's own mode
        reading = await driver.read(device, later + timedelta(seconds=60))
        assert peer.writes == [], "a mode the battery left is not forced back"
        assert reading.state["currentMode"] == "auto.balance"
    finally:
        await peer.stop()


async def test_a_mode_changed_since_is_not_renewed(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    """A read that began before another command must not put the old one back."""
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        stale = await _send(driver, device, "charge", power=2.0)
        await _send(driver, stale, "charge", power=3.0)  # by another call
        peer.writes.clear()
        await driver.read(stale, NOW + timedelta(seconds=REVERSION_S))
        assert peer.writes == []
        assert await peer.raw(124, "InWRte") == 6000
    finally:
        await peer.stop()


async def test_the_own_mode_is_not_renewed(driver: SunspecDriver, endpoints: Endpoints) -> None:
    peer, device = await _battery(driver, endpoints, DER_LAYOUT, base=0)
    try:
        device = await _send(driver, device, "auto.balance")
        peer.writes.clear()
        await driver.read(device, NOW + timedelta(seconds=REVERSION_S))
        assert peer.writes == []
    finally:
        await peer.stop()


# --- settings ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("layout", "base", "values", "expected"),
    [
        (STORAGE_LAYOUT, 40000, {"discharge_floor": 15.0}, {(124, "MinRsvPct"): 150}),
        (STORAGE_LAYOUT, 40000, {"charge_ceiling": 90.0}, {(802, "SocRsvMax"): 900}),
        (STORAGE_LAYOUT, 40000, {"max_charge_rate": 3.5}, {(124, "WChaMax"): 3500}),
        (DER_LAYOUT, 0, {"discharge_floor": 12.5}, {(802, "SoCRsvMin"): 125}),
    ],
)
async def test_settings_write_their_registers(
    driver: SunspecDriver,
    endpoints: Endpoints,
    layout: Layout,
    base: int,
    values: dict[str, float],
    expected: dict[tuple[int, str], int],
) -> None:
    peer, device = await _battery(driver, endpoints, layout, base)
    try:
        await driver.write_settings(device, values, NOW)
        for (model_id, point), raw in expected.items():
            assert await peer.raw(model_id, point) == raw
        assert len(peer.writes) == len(expected)
    finally:
        await peer.stop()


async def test_a_setting_without_a_register_is_refused(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, BASIC_LAYOUT, base=50000)
    try:
        with pytest.raises(DriverError) as refused:
            await driver.write_settings(device, {"discharge_floor": 20.0}, NOW)
    finally:
        await peer.stop()
    assert refused.value.code == "DEVICE_REJECTED"
    assert peer.writes == []


# --- failures ------------------------------------------------------------------------------------
async def test_a_stopped_battery_is_offline(driver: SunspecDriver, endpoints: Endpoints) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    device = replace(device, state={"level": 50.0})
    await peer.stop()
    with pytest.raises(DriverError) as failed:
        await driver.send_command(device, CommandRequest("idle", {}), NOW)
    assert (failed.value.code, failed.value.retryable) == ("DEVICE_OFFLINE", True)
    with pytest.raises(DriverError) as failed:
        await driver.write_settings(device, {"discharge_floor": 20.0}, NOW)
    assert failed.value.code == "DEVICE_OFFLINE"
    reading = await driver.read(device, NOW)
    assert (reading.available, reading.state) == (False, {"level": 50.0})


@pytest.mark.parametrize(
    ("exception", "code", "retryable"),
    [
        (ExcCodes.DEVICE_BUSY, "DEVICE_BUSY", True),
        (ExcCodes.ACKNOWLEDGE, "DEVICE_BUSY", True),
        (ExcCodes.ILLEGAL_VALUE, "DEVICE_REJECTED", False),
        (ExcCodes.DEVICE_FAILURE, "DEVICE_REJECTED", False),
        (ExcCodes.GATEWAY_NO_RESPONSE, "DEVICE_OFFLINE", True),
        (ExcCodes.MEMORY_PARITY_ERROR, "DEVICE_REJECTED", False),  # not in the table
    ],
)
async def test_modbus_exceptions_become_spec_codes(
    driver: SunspecDriver,
    endpoints: Endpoints,
    exception: ExcCodes,
    code: str,
    retryable: bool,
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        peer.refuse_with = exception
        with pytest.raises(DriverError) as failed:
            await driver.send_command(device, CommandRequest("idle", {}), NOW)
    finally:
        await peer.stop()
    assert (failed.value.code, failed.value.retryable) == (code, retryable)


async def test_a_silent_battery_times_out(endpoints: Endpoints) -> None:
    driver = SunspecDriver(endpoints.get, call_timeout_s=0.3)
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        peer.silent = True
        with pytest.raises(DriverError) as failed:
            await driver.send_command(device, CommandRequest("idle", {}), NOW)
    finally:
        await peer.stop()
    assert (failed.value.code, failed.value.retryable) == ("DEVICE_TIMEOUT", True)


async def test_a_moved_model_asks_for_commissioning_again(
    driver: SunspecDriver, endpoints: Endpoints
) -> None:
    peer, device = await _battery(driver, endpoints, STORAGE_LAYOUT)
    try:
        await peer.set(124, "ID", 123)  # a firmware update rearranged the map
        with pytest.raises(DriverError) as failed:
            await driver.send_command(device, CommandRequest("idle", {}), NOW)
    finally:
        await peer.stop()
    assert failed.value.code == "DEVICE_REJECTED"
    assert "commission" in failed.value.message
