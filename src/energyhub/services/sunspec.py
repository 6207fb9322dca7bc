"""Commissioning SunSpec batteries (CONTRACT 8): an operator names a Modbus TCP address, the
driver finds the SunSpec models there, and the battery becomes a live device of a user.

The types here are plain values: services never see Modbus types (DESIGN "Drivers hide
protocols"); the SunSpec driver and the persistence layer implement the Protocols."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import DEFAULT_TIMEZONE, Clock
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.ports.sunspec import (
    SunspecDiscovery,
    SunspecEndpoint,
    SunspecProbe,
    SunspecUnitOfWorkFactory,
)
from energyhub.services.devices import DeviceService
from energyhub.services.ids import new_id

DEFAULT_PORT = 502
DEFAULT_UNIT_ID = 1


class CommissioningError(ValueError):
    """The request cannot be carried out as given; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Commissioned:
    device: Device
    endpoint: SunspecEndpoint
    created: bool  # False: this battery was commissioned before, for the same user


class SunspecCommissioning:
    def __init__(
        self,
        uow: SunspecUnitOfWorkFactory,
        probe: SunspecProbe,
        devices: DeviceService,
        clock: Clock,
    ) -> None:
        self._uow = uow
        self._probe = probe
        self._devices = devices
        self._clock = clock

    async def add(
        self,
        account_id: str,
        user_id: str,
        host: str,
        port: int = DEFAULT_PORT,
        unit_id: int = DEFAULT_UNIT_ID,
        *,
        timezone: str = DEFAULT_TIMEZONE,
        email: str | None = None,
    ) -> Commissioned:
        """A live battery device for the user, read once. Running it again for the same
        address and user gives the same device (operators may re-run scripts).

        Raises LookupError (no such account), CommissioningError (bad input, or the address
        belongs to another user) and `DriverError` (nothing SunSpec answers there)."""
        _check_address(host, port, unit_id)
        _check_timezone(timezone)
        async with self._uow() as tx:
            if await tx.accounts.get_account(account_id) is None:
                raise LookupError(f"no account {account_id}")
            existing = await tx.sunspec.find(host, port, unit_id)
            device = (
                None if existing is None else await tx.devices.get_device_by_id(existing.device_id)
            )
        if existing is not None and device is not None:
            if device.account_id != account_id or device.user_id != user_id:
                raise CommissioningError(
                    f"{host}:{port} unit {unit_id} is already commissioned as device "
                    f"{device.id} for another user: remove that device first."
                )
            return Commissioned(device, existing, created=False)
        found = await self._probe.discover(host, port, unit_id)
        now = self._clock.now()
        device = _device_for(found, account_id, user_id, timezone, now)
        endpoint = SunspecEndpoint(
            device_id=device.id,
            host=host,
            port=port,
            unit_id=unit_id,
            base_address=found.base_address,
            models=found.models,
            manufacturer=found.manufacturer,
            model=found.model,
            serial=found.serial,
            commissioned_at=now,
        )
        async with self._uow() as tx:
            await tx.devices.ensure_user(account_id, Environment.LIVE, user_id, email, now)
            await tx.devices.add_device(device)
            await tx.sunspec.add(endpoint)
        view = await self._devices.pull(device)  # a new device is read once (CONTRACT 3)
        return Commissioned(view.device, endpoint, created=True)


def vendor_key(manufacturer: str) -> str:
    """The `vendor` of a device: its manufacturer's name as a lower-case slug."""
    slug = re.sub(r"[^a-z0-9]+", "-", manufacturer.lower()).strip("-")
    return slug or "sunspec"


def _device_for(
    found: SunspecDiscovery, account_id: str, user_id: str, timezone: str, now: datetime
) -> Device:
    return Device(
        id=new_id(),
        account_id=account_id,
        environment=Environment.LIVE,
        user_id=user_id,
        type=DeviceType.BATTERY,
        vendor=vendor_key(found.manufacturer),
        model=found.model or "SunSpec battery",
        driver=DriverName.SUNSPEC,
        profile=None,
        timezone=timezone,
        capabilities=found.capabilities,
        settings=dict(found.settings),
        state={},
        sim=None,
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=now,
        updated_at=now,
    )


def _check_address(host: str, port: int, unit_id: int) -> None:
    if not host or any(c.isspace() for c in host):
        raise CommissioningError(f"invalid host {host!r}: give an IP address or a host name.")
    if not 1 <= port <= 65535:
        raise CommissioningError(f"invalid port {port}: use 1-65535 (Modbus TCP is 502).")
    if not 0 <= unit_id <= 255:
        raise CommissioningError(f"invalid unit id {unit_id}: use 0-255 (usually 1).")


def _check_timezone(name: str) -> None:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CommissioningError(
            f"unknown timezone {name!r}: use an IANA name such as Europe/Berlin."
        ) from None
