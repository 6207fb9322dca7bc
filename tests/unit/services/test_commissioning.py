"""The commissioning use case against fakes in memory: one rule for both protocols (a device
commissioned now sends `device.connected`, announced only after its transaction committed),
one error type for what the caller must change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import pytest

from energyhub.domain.accounts import Account, Environment
from energyhub.domain.capabilities import Capabilities
from energyhub.domain.clock import FakeClock
from energyhub.domain.commissioning import vendor_key
from energyhub.domain.devices import Device
from energyhub.domain.events import EventDelays, OutboxEvent
from energyhub.domain.readings import DriverError
from energyhub.ports.ocpp import ChargePointRecord
from energyhub.ports.sunspec import ModelLocation, SunspecDiscovery, SunspecEndpoint
from energyhub.services.commissioning import (
    AlreadyCommissioned,
    Commissioning,
    CommissioningError,
)
from energyhub.services.outbox import Outbox

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PASSWORD = "a-long-charger-secret"
NO_CAPABILITIES = Capabilities(commands={}, settings={}, conflict_strategies=None)


# --- fakes --------------------------------------------------------------------------------------
@dataclass
class Tables:
    """What is committed."""

    accounts: dict[str, Account] = field(default_factory=dict)
    users: set[tuple[str, str]] = field(default_factory=set)
    devices: dict[str, Device] = field(default_factory=dict)
    charge_points: dict[str, ChargePointRecord] = field(default_factory=dict)
    endpoints: dict[str, SunspecEndpoint] = field(default_factory=dict)
    events: list[OutboxEvent] = field(default_factory=list)

    def copy(self) -> Tables:
        return Tables(
            dict(self.accounts),
            set(self.users),
            dict(self.devices),
            dict(self.charge_points),
            dict(self.endpoints),
            list(self.events),
        )


class FakeAccounts:
    def __init__(self, t: Tables) -> None:
        self.t = t

    async def get_account(self, account_id: str) -> Account | None:
        return self.t.accounts.get(account_id)


class FakeDevices:
    def __init__(self, t: Tables) -> None:
        self.t = t

    async def ensure_user(
        self, account_id: str, environment: Environment, user_id: str, email: Any, now: Any
    ) -> None:
        self.t.users.add((account_id, user_id))

    async def add_device(self, device: Device) -> None:
        self.t.devices[device.id] = device

    async def get_device_by_id(self, device_id: str) -> Device | None:
        return self.t.devices.get(device_id)


class FakeEvents:
    def __init__(self, t: Tables) -> None:
        self.t = t

    async def add(self, events: Sequence[OutboxEvent]) -> None:
        self.t.events.extend(events)


class FakeChargePoints:
    def __init__(self, t: Tables, fail: bool) -> None:
        self.t, self.fail = t, fail

    async def get(self, charge_point_id: str) -> ChargePointRecord | None:
        return self.t.charge_points.get(charge_point_id)

    async def add(self, record: ChargePointRecord, now: datetime) -> None:
        if self.fail:
            raise RuntimeError("the database went away")
        self.t.charge_points[record.charge_point_id] = record


class FakeSunspec:
    def __init__(self, t: Tables) -> None:
        self.t = t

    async def add(self, endpoint: SunspecEndpoint) -> None:
        self.t.endpoints[endpoint.device_id] = endpoint

    async def get(self, device_id: str) -> SunspecEndpoint | None:
        return self.t.endpoints.get(device_id)

    async def find(self, host: str, port: int, unit_id: int) -> SunspecEndpoint | None:
        return next(
            (
                e
                for e in self.t.endpoints.values()
                if (e.host, e.port, e.unit_id) == (host, port, unit_id)
            ),
            None,
        )


class FakeUnitOfWork:
    """Works on a copy of the tables; a clean exit commits it, then runs `after_commit`."""

    def __init__(self, db: FakeDatabase) -> None:
        self.db = db
        self.callbacks: list[Callable[[], None]] = []

    async def __aenter__(self) -> FakeUnitOfWork:
        self.work = self.db.tables.copy()
        self.accounts = FakeAccounts(self.work)
        self.devices = FakeDevices(self.work)
        self.events = FakeEvents(self.work)
        self.charge_points = FakeChargePoints(self.work, self.db.fail_charge_points)
        self.sunspec = FakeSunspec(self.work)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.db.tables = self.work
            for callback in self.callbacks:
                callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self.callbacks.append(callback)


@dataclass
class FakeDatabase:
    tables: Tables = field(default_factory=Tables)
    fail_charge_points: bool = False

    def __call__(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self)


class FakeChargers:
    """The OCPP driver's side: a charger's first capabilities and state, and its hash."""

    def capabilities(self) -> Capabilities:
        return NO_CAPABILITIES

    def offline_state(self) -> dict[str, Any]:
        return {"status": "offline"}

    def hash_password(self, password: str) -> str:
        return f"hashed:{password}"

    def verify_password(self, password: str, stored: str) -> bool:
        return stored == f"hashed:{password}"


class FakeProbe:
    def __init__(self) -> None:
        self.answers = True
        self.calls = 0

    async def discover(self, host: str, port: int, unit_id: int) -> SunspecDiscovery:
        self.calls += 1
        if not self.answers:
            raise DriverError("DEVICE_OFFLINE", "nothing answers", retryable=True)
        return SunspecDiscovery(
            host=host,
            port=port,
            unit_id=unit_id,
            base_address=40000,
            models=(ModelLocation(1, 40002, 66), ModelLocation(124, 40070, 24)),
            manufacturer="Volta Energy",
            model="ModBat 10",
            serial="S-1",
            version="1.0",
            capabilities=NO_CAPABILITIES,
            settings={"discharge_floor": 10.0},
        )


@dataclass
class Pulled:
    device: Device


class FakeDeviceReads:
    """`DeviceService.pull`: a new battery is read once."""

    def __init__(self) -> None:
        self.pulled: list[str] = []

    async def pull(self, device: Device) -> Pulled:
        self.pulled.append(device.id)
        return Pulled(device)


@dataclass
class World:
    db: FakeDatabase
    service: Commissioning
    probe: FakeProbe
    reads: FakeDeviceReads
    announced: list[tuple[datetime, int]]  # (soonest delivery, committed events then)


@pytest.fixture
def world() -> World:
    db = FakeDatabase()
    db.tables.accounts["acc_1"] = Account("acc_1", "Op", "app_1", NOW)
    clock = FakeClock(NOW)
    outbox = Outbox(clock, EventDelays())
    announced: list[tuple[datetime, int]] = []
    outbox.subscribe(lambda soonest: announced.append((soonest, len(db.tables.events))))
    probe, reads, chargers = FakeProbe(), FakeDeviceReads(), FakeChargers()
    service = Commissioning(db, clock, outbox, reads, chargers, chargers, probe)  # type: ignore[arg-type]
    return World(db, service, probe, reads, announced)


# --- OCPP ---------------------------------------------------------------------------------------
async def test_a_charger_is_stored_offline_with_its_hash_and_device_connected(world: World) -> None:
    device = await world.service.add_ocpp(
        "acc_1", "user-1", "CP-1", PASSWORD, timezone="Europe/Paris"
    )
    t = world.db.tables
    assert t.devices[device.id] == device
    assert (device.available, device.state, device.timezone) == (
        False,
        {"status": "offline"},
        "Europe/Paris",
    )
    assert (device.vendor, device.model, device.environment) == ("ocpp", "CP-1", Environment.LIVE)
    assert t.charge_points["CP-1"].device_id == device.id
    assert t.charge_points["CP-1"].password_hash == f"hashed:{PASSWORD}"
    assert ("acc_1", "user-1") in t.users
    [event] = t.events
    assert (event.type, event.environment) == ("device.connected", "live")
    assert event.payload["deviceId"] == device.id
    assert event.payload["linkedAccountId"] is None
    assert world.announced == [(NOW, 1)], "announced once, after the commit"


@pytest.mark.parametrize(
    ("charge_point_id", "password", "timezone", "says"),
    [
        ("CP 1", PASSWORD, "Europe/Berlin", "charge point id"),
        ("CP-1", "short", "Europe/Berlin", "16-40"),
        ("CP-1", "x" * 41, "Europe/Berlin", "16-40"),
        ("CP-1", PASSWORD, "Mars/Base", "timezone"),
    ],
)
async def test_a_charger_the_handshake_could_not_accept_is_refused(
    world: World, charge_point_id: str, password: str, timezone: str, says: str
) -> None:
    with pytest.raises(CommissioningError, match=says):
        await world.service.add_ocpp(
            "acc_1", "user-1", charge_point_id, password, timezone=timezone
        )
    assert world.db.tables.devices == {}
    assert world.announced == []


async def test_a_charge_point_id_is_commissioned_once(world: World) -> None:
    await world.service.add_ocpp("acc_1", "user-1", "CP-1", PASSWORD)
    with pytest.raises(AlreadyCommissioned, match="commissioned already"):
        await world.service.add_ocpp("acc_1", "user-2", "CP-1", PASSWORD)
    with pytest.raises(LookupError):
        await world.service.add_ocpp("acc_nope", "user-1", "CP-2", PASSWORD)
    assert len(world.db.tables.devices) == 1
    assert len(world.announced) == 1


async def test_a_failed_transaction_records_and_announces_nothing(world: World) -> None:
    world.db.fail_charge_points = True
    with pytest.raises(RuntimeError):
        await world.service.add_ocpp("acc_1", "user-1", "CP-1", PASSWORD)
    assert (world.db.tables.devices, world.db.tables.events) == ({}, [])
    assert world.announced == []


# --- SunSpec ------------------------------------------------------------------------------------
async def test_a_battery_is_stored_read_once_and_sends_device_connected(world: World) -> None:
    done = await world.service.add_sunspec("acc_1", "user-1", "10.0.0.5", 502, 1)
    t = world.db.tables
    assert done.created
    assert (done.device.vendor, done.device.model) == ("volta-energy", "ModBat 10")
    assert done.device.settings == {"discharge_floor": 10.0}
    assert t.endpoints[done.device.id] == done.endpoint
    assert [m.id for m in done.endpoint.models] == [1, 124]
    assert world.reads.pulled == [done.device.id]
    [event] = t.events
    assert event.type == "device.connected"
    assert (event.payload["deviceId"], event.payload["deviceType"]) == (done.device.id, "battery")
    assert world.announced == [(NOW, 1)]


async def test_a_battery_commissioned_again_is_the_same_device_and_sends_nothing(
    world: World,
) -> None:
    first = await world.service.add_sunspec("acc_1", "user-1", "10.0.0.5")
    again = await world.service.add_sunspec("acc_1", "user-1", "10.0.0.5")
    assert (again.device.id, again.created) == (first.device.id, False)
    assert world.probe.calls == 1
    assert len(world.db.tables.events) == len(world.announced) == 1
    with pytest.raises(AlreadyCommissioned, match="another user"):
        await world.service.add_sunspec("acc_1", "user-2", "10.0.0.5")


@pytest.mark.parametrize(
    ("host", "port", "unit_id", "timezone", "says"),
    [
        ("bad host", 502, 1, "Europe/Berlin", "invalid host"),
        ("10.0.0.5", 70000, 1, "Europe/Berlin", "invalid port"),
        ("10.0.0.5", 502, 256, "Europe/Berlin", "invalid unit id"),
        ("10.0.0.5", 502, 1, "Nowhere/Land", "timezone"),
    ],
)
async def test_a_battery_address_that_cannot_be_reached_is_refused(
    world: World, host: str, port: int, unit_id: int, timezone: str, says: str
) -> None:
    with pytest.raises(CommissioningError, match=says):
        await world.service.add_sunspec("acc_1", "user-1", host, port, unit_id, timezone=timezone)
    assert world.probe.calls == 0


async def test_a_battery_that_does_not_answer_stores_nothing(world: World) -> None:
    world.probe.answers = False
    with pytest.raises(DriverError):
        await world.service.add_sunspec("acc_1", "user-1", "10.0.0.5")
    with pytest.raises(LookupError):
        await world.service.add_sunspec("acc_nope", "user-1", "10.0.0.5")
    assert (world.db.tables.devices, world.db.tables.events, world.announced) == ({}, [], [])


def test_a_vendor_is_its_manufacturers_slug() -> None:
    assert vendor_key("Volta Energy GmbH") == "volta-energy-gmbh"
    assert vendor_key("---") == "sunspec"
