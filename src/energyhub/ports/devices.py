"""What the use cases need from devices and vendors: a driver per protocol family, a
connector per vendor sign-in, a driver's session history. Drivers implement these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from energyhub.domain.accounts import Environment
from energyhub.domain.devices import Device
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading
from energyhub.domain.sessions import ChargingSession
from energyhub.domain.vendors import OfferedDevice, SignIn, Vendor
from energyhub.domain.webhooks import EventType


class DeviceDriver(Protocol):
    """One protocol family (sandbox, OCPP, SunSpec) behind one interface. `instant`: its
    calls never leave the process (the sandbox), so a push may make them inside its own
    transaction; a driver that talks to hardware is called outside transactions."""

    instant: bool

    async def read(self, device: Device, now: datetime) -> DeviceReading: ...

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        """The device accepted the command; a refusal raises `DriverError`."""
        ...

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None: ...


@runtime_checkable
class ChargerSteering(Protocol):
    """A driver whose chargers keep a schedule of power limits (OCPP smart charging). The
    strategies steer through it; a refusal or a charger this process cannot reach raises
    `DriverError`."""

    def can_steer(self, device: Device) -> bool:
        """This process can reach the charger now (it holds its connection)."""
        ...

    async def steer(self, device: Device, schedule: ChargingSchedule, now: datetime) -> None:
        """The charger keeps to `schedule` from now on, replacing the last one."""
        ...

    async def release(self, device: Device, now: datetime) -> None:
        """The strategy ended: the charger drops the schedule (its own limits apply)."""
        ...


@runtime_checkable
class SimulatedSteering(Protocol):
    """A driver whose chargers are simulated (the sandbox): a strategy's schedule is new
    simulator state for the device row, which the simulator then follows."""

    def steered_sim(
        self, device: Device, schedule: ChargingSchedule, now: datetime
    ) -> dict[str, Any]: ...


class VendorConnector(Protocol):
    """Signs a user in at a vendor and lists the devices there (spec 1.6). The sandbox's
    connector simulates vendors; live ones sit on the OCPP and SunSpec drivers. Refusals
    raise `VendorRefusal` with a message for the user."""

    async def sign_in(self, vendor: Vendor, credentials: Mapping[str, Any]) -> SignIn: ...

    async def code_matches(
        self, vendor: Vendor, credentials: Mapping[str, Any], code: str
    ) -> bool: ...

    async def devices(
        self, vendor: Vendor, credentials: Mapping[str, Any]
    ) -> Sequence[OfferedDevice]: ...

    async def new_device(
        self,
        vendor: Vendor,
        offered: OfferedDevice,
        credentials: Mapping[str, Any],
        owner: DeviceOwner,
    ) -> NewDevice:
        """The device for a newly linked `offered` device (live connectors commission it)."""
        ...


@dataclass(frozen=True, slots=True)
class NewDevice:
    """A device a link made. `stored`: the connector stored it already (a live driver's
    commissioning), else linking stores it. `event`: the `device.*` event linking sends for
    it; None when the connector sent its own."""

    device: Device
    stored: bool = False
    event: EventType | None = EventType.DEVICE_CONNECTED


@dataclass(frozen=True, slots=True)
class DeviceOwner:
    """Whose a newly linked device is, and when and under which id it is made."""

    device_id: str
    account_id: str
    environment: Environment
    user_id: str
    now: datetime


class SessionSource(Protocol):
    """A driver's session history: the sessions overlapping [start, end] as the charger
    reports them at `now` (none that starts after `now`; the running one `active`)."""

    def __call__(
        self, device: Device, start: datetime, end: datetime, now: datetime
    ) -> Sequence[ChargingSession]: ...
