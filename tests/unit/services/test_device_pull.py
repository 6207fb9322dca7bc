"""The one device pull (`services/device_pull.py`) on the dispatcher's paths: a completion
and a window's end keep what any pull keeps (a history sample, the vehicle a
charger sees), and a device that fails to answer shows as unavailable instead of leaving
its action stuck. Before, the dispatcher stored only the state, and a `DriverError` from
the read escaped."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action, ActionState, DueKind, RetryPolicy
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.devices import Device
from energyhub.domain.readings import DeviceReading, VehicleReading
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import DeviceService
from energyhub.services.dispatch import Dispatcher

from .fakes import FakeDatabase, FakeDriver, waiting_action

START = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
SEEN = VehicleReading("Polestar", "2", "VIN123", 78.0, 64.0)


def charger(now: datetime) -> Device:
    device = new_sandbox_device(
        profile_for(DeviceType.EV_CHARGER, None),
        device_id="chg_1",
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="user_1",
        timezone="Europe/Berlin",
        now=now - timedelta(days=1),
    )
    return replace(device, vehicle_id="veh_1", state={"currentPower": 0})


def acknowledged(device: Device, now: datetime, end: datetime | None = None) -> Action:
    """Accepted by the device and due for its completion now, held by nobody."""
    return waiting_action(
        "act_1",
        device,
        now - timedelta(minutes=1),
        end,
        state=ActionState.ACKNOWLEDGED,
        acknowledged_at=now - timedelta(minutes=1),
        due_at=now,
        due_kind=DueKind.COMPLETE,
    )


def world(reading: DeviceReading | None) -> tuple[FakeClock, FakeDatabase, FakeDriver]:
    clock = FakeClock(START)
    db = FakeDatabase(clock)
    device = charger(START)
    db.tables.devices[device.id] = device
    db.tables.actions["act_1"] = acknowledged(device, START)
    return clock, db, FakeDriver(clock, reading=reading)


def dispatcher(clock: FakeClock, db: FakeDatabase, driver: FakeDriver) -> Dispatcher:
    drivers = {"sandbox": driver}
    return Dispatcher(db, drivers, clock, DeviceChangeFeed(), RetryPolicy.from_seconds([60]))


async def test_a_completion_keeps_the_history_sample_and_the_vehicle() -> None:
    clock, db, driver = world(DeviceReading({"currentPower": 7.4}, vehicle=SEEN))

    assert await dispatcher(clock, db, driver).run_due("worker") == 1

    assert db.tables.actions["act_1"].state is ActionState.COMPLETED
    assert db.tables.devices["chg_1"].state == {"currentPower": 7.4}
    [(device_id, sample)] = db.tables.samples
    assert (device_id, sample.at, sample.power_kw) == ("chg_1", START, 7.4)
    vehicle = db.tables.vehicles["veh_1"]
    assert (vehicle.charger_id, vehicle.vin, vehicle.state_of_charge) == ("chg_1", "VIN123", 64.0)


async def test_an_immediate_completion_keeps_them_too() -> None:
    clock, db, driver = world(DeviceReading({"currentPower": 3.0}, vehicle=SEEN))
    action = db.tables.actions["act_1"]

    done = await dispatcher(clock, db, driver).complete(action, None)

    assert done.state is ActionState.COMPLETED
    assert [s.power_kw for _, s in db.tables.samples] == [3.0]
    assert db.tables.vehicles["veh_1"].state_of_charge == 64.0


async def test_a_device_silent_at_completion_completes_it_and_shows_unavailable() -> None:
    clock, db, driver = world(None)  # every read raises DEVICE_OFFLINE

    assert await dispatcher(clock, db, driver).run_due("worker") == 1

    assert db.tables.actions["act_1"].state is ActionState.COMPLETED
    device = db.tables.devices["chg_1"]
    assert (device.available, device.state) == (False, {"currentPower": 0})
    assert db.tables.samples == []
    assert db.tables.vehicles == {}


async def test_a_window_end_pulls_the_device_like_any_pull() -> None:
    clock, db, driver = world(DeviceReading({"currentPower": 1.5}, vehicle=SEEN))
    window = replace(
        db.tables.actions["act_1"],
        state=ActionState.COMPLETED,
        end=START,
        due_kind=DueKind.RESTORE,
        restore={"command": "stop", "parameters": {}},
    )
    db.tables.actions["act_1"] = window
    db.tables.devices["chg_1"] = replace(db.tables.devices["chg_1"], mode_action_id="act_1")

    assert await dispatcher(clock, db, driver).run_due("worker") == 1

    assert [r.command for _, r in driver.sent] == ["stop"]
    device = db.tables.devices["chg_1"]
    assert (device.mode_action_id, device.mode_command) == (None, "stop")
    assert device.state == {"currentPower": 1.5}
    assert [s.power_kw for _, s in db.tables.samples] == [1.5]
    assert db.tables.vehicles["veh_1"].vin == "VIN123"
    assert db.tables.actions["act_1"].due_at is None


@pytest.mark.parametrize("available", [True, False])
async def test_a_read_pulls_the_same_way(available: bool) -> None:
    clock, db, driver = world(DeviceReading({"currentPower": 2.0}, vehicle=SEEN))
    if not available:
        driver.reading = None
    service = DeviceService(db, {"sandbox": driver}, clock, DeviceChangeFeed())

    view = await service.pull(db.tables.devices["chg_1"])

    assert view.device.available is available
    assert len(db.tables.samples) == (1 if available else 0)
    assert (view.vehicle is not None) is available


async def test_a_driver_that_answers_in_process_keeps_its_samples_too() -> None:
    """The sandbox's pulls are charted from what they stored, like hardware's: the chart and
    the state beside it are the same samples."""
    clock, db, driver = world(DeviceReading({"currentPower": 4.0}))
    driver.instant = True
    service = DeviceService(db, {"sandbox": driver}, clock, DeviceChangeFeed())

    await service.pull(db.tables.devices["chg_1"])

    assert [(s.at, s.power_kw) for _, s in db.tables.samples] == [(START, 4.0)]
