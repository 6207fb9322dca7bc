"""Commissioning live devices (CONTRACT 8): an OCPP charger by its charge point id and
handshake password, a SunSpec battery by its Modbus TCP address. Operators do it with
`energyhub devices add-*`, end users through the Link UI; either way the device, its
protocol's record and its `device.connected` are written in one transaction, and the event
goes out once that has committed. Protocol knowledge comes through ports: the OCPP driver
says what a charger is before it connects and hashes its password, the SunSpec driver finds
a battery's models."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import Capabilities, DeviceType
from energyhub.domain.clock import DEFAULT_TIMEZONE, Clock
from energyhub.domain.commissioning import (
    DEFAULT_MODBUS_PORT,
    DEFAULT_UNIT_ID,
    AlreadyCommissioned,
    CommissioningError,
    check_address,
    check_charger,
    check_timezone,
    vendor_key,
)
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.domain.webhooks import EventType
from energyhub.ports.commissioning import CommissioningUnitOfWork, CommissioningUnitOfWorkFactory
from energyhub.ports.ocpp import ChargePointRecord, ChargerCommissioner, PasswordHasher
from energyhub.ports.sunspec import SunspecEndpoint, SunspecProbe
from energyhub.services.devices import DeviceService
from energyhub.services.ids import new_id
from energyhub.services.outbox import Outbox

__all__ = ["AlreadyCommissioned", "Commissioned", "Commissioning", "CommissioningError"]


@dataclass(frozen=True, slots=True)
class Commissioned:
    device: Device
    endpoint: SunspecEndpoint
    created: bool  # False: this battery was commissioned before, for the same user


class Commissioning:
    """Both protocols under one rule: a device commissioned now sends `device.connected`
    (without a linked account: the Link UI links it afterwards). Refusals of the input are
    `CommissioningError`; an unknown account is LookupError."""

    def __init__(
        self,
        uow: CommissioningUnitOfWorkFactory,
        clock: Clock,
        outbox: Outbox,
        devices: DeviceService,
        chargers: ChargerCommissioner,
        passwords: PasswordHasher,
        probe: SunspecProbe,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._outbox = outbox
        self._devices = devices
        self._chargers = chargers
        self._passwords = passwords
        self._probe = probe

    async def add_ocpp(
        self,
        account_id: str,
        user_id: str,
        charge_point_id: str,
        password: str,
        *,
        email: str | None = None,
        timezone: str = DEFAULT_TIMEZONE,
        announce: bool = True,
    ) -> Device:
        """The live charger device (offline until it connects to `/ocpp/{id}`) and its
        charge point. Raises CommissioningError (AlreadyCommissioned when the id is taken)
        and LookupError. `announce` False: a link commissions it, and sends its
        `device.connected` itself, with the linked account."""
        check_charger(charge_point_id, password)
        check_timezone(timezone)
        password_hash = self._passwords.hash_password(password)
        now = self._clock.now()
        capabilities = self._chargers.capabilities()
        device = _live_device(
            DeviceType.EV_CHARGER,
            DriverName.OCPP,
            account_id,
            user_id,
            timezone,
            now,
            vendor="ocpp",
            model=charge_point_id,
            capabilities=capabilities,
            settings=capabilities.default_settings(),
            state=self._chargers.offline_state(),
        )
        async with self._uow() as tx:
            await _check_account(tx, account_id)
            if await tx.charge_points.get(charge_point_id) is not None:
                raise AlreadyCommissioned(f"charge point {charge_point_id} is commissioned already")
            await self._store(tx, device, email, now, announce=announce)
            record = ChargePointRecord(charge_point_id, device.id, password_hash)
            await tx.charge_points.add(record, now)
        return device

    async def add_sunspec(
        self,
        account_id: str,
        user_id: str,
        host: str,
        port: int = DEFAULT_MODBUS_PORT,
        unit_id: int = DEFAULT_UNIT_ID,
        *,
        timezone: str = DEFAULT_TIMEZONE,
        email: str | None = None,
        announce: bool = True,
    ) -> Commissioned:
        """A live battery device for the user, read once. Running it again for the same
        address and user gives the same device (operators may re-run scripts) and sends no
        event. Raises CommissioningError (AlreadyCommissioned when the address is another
        user's), LookupError, and `DriverError` (nothing SunSpec answers there). `announce`: as
        for `add_ocpp`."""
        check_address(host, port, unit_id)
        check_timezone(timezone)
        async with self._uow() as tx:
            await _check_account(tx, account_id)
            existing = await tx.sunspec.find(host, port, unit_id)
            device = (
                None if existing is None else await tx.devices.get_device_by_id(existing.device_id)
            )
        if existing is not None and device is not None:
            if device.account_id != account_id or device.user_id != user_id:
                raise AlreadyCommissioned(
                    f"{host}:{port} unit {unit_id} is already commissioned as device "
                    f"{device.id} for another user: remove that device first."
                )
            return Commissioned(device, existing, created=False)
        found = await self._probe.discover(host, port, unit_id)
        now = self._clock.now()
        device = _live_device(
            DeviceType.BATTERY,
            DriverName.SUNSPEC,
            account_id,
            user_id,
            timezone,
            now,
            vendor=vendor_key(found.manufacturer),
            model=found.model or "SunSpec battery",
            capabilities=found.capabilities,
            settings=dict(found.settings),
            state={},
        )
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
            await self._store(tx, device, email, now, announce=announce)
            await tx.sunspec.add(endpoint)
        view = await self._devices.pull(device)  # a new device is read once (CONTRACT 3)
        return Commissioned(view.device, endpoint, created=True)

    async def _store(
        self,
        tx: CommissioningUnitOfWork,
        device: Device,
        email: str | None,
        now: datetime,
        *,
        announce: bool,
    ) -> None:
        """The device, its user (made on first use) and, when `announce`, its
        `device.connected`: every commissioned device sends one, whatever its protocol."""
        await tx.devices.ensure_user(
            device.account_id, Environment.LIVE, device.user_id, email, now
        )
        await tx.devices.add_device(device)
        if announce:
            await self._outbox.record_device_event(tx, device, EventType.DEVICE_CONNECTED)


async def _check_account(tx: CommissioningUnitOfWork, account_id: str) -> None:
    if await tx.accounts.get_account(account_id) is None:
        raise LookupError(f"no account {account_id}")


def _live_device(
    device_type: DeviceType,
    driver: DriverName,
    account_id: str,
    user_id: str,
    timezone: str,
    now: datetime,
    *,
    vendor: str,
    model: str,
    capabilities: Capabilities,
    settings: dict[str, Any],
    state: dict[str, Any],
) -> Device:
    """A live device as commissioning makes it; a charger is unavailable until it connects,
    a battery answered just now."""
    charger = device_type is DeviceType.EV_CHARGER
    return Device(
        id=new_id(),
        account_id=account_id,
        environment=Environment.LIVE,
        user_id=user_id,
        type=device_type,
        vendor=vendor,
        model=model,
        driver=driver,
        profile=None,
        timezone=timezone,
        capabilities=capabilities,
        settings=settings,
        state=state,
        sim=None,
        available=not charger,
        last_pulled_at=now if charger else None,
        last_action=None,
        current_schedule=None,
        vehicle_id=None,
        created_at=now,
        updated_at=now,
    )
