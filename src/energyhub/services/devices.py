"""Device reads (CONTRACT 3): serve the stored state while it is fresh, else pull the device
through its driver and store what it said."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from energyhub.domain.accounts import Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import (
    CacheType,
    Device,
    StateSource,
    User,
    Vehicle,
    device_not_found,
    is_fresh,
)
from energyhub.domain.errors import DeviceNotFound, UserNotFound
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.storage import PushUnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.device_pull import DevicePull


@dataclass(frozen=True, slots=True)
class DeviceView:
    device: Device
    vehicle: Vehicle | None
    source: StateSource


@dataclass(frozen=True, slots=True)
class DevicePage:
    devices: Sequence[Device]
    vehicles: Mapping[str, Vehicle]
    total: int


class DeviceService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        drivers: Mapping[str, DeviceDriver],
        clock: Clock,
        changes: DeviceChangeFeed,
    ) -> None:
        self._uow = uow
        self._drivers = drivers
        self._clock = clock
        self._changes = changes
        self._pull = DevicePull(drivers)

    async def read(
        self, principal: Principal, device_type: DeviceType, device_id: str, cache_type: CacheType
    ) -> DeviceView:
        """One device; pulls it when the stored state is older than the cache allows."""
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id)
            if is_fresh(device.last_pulled_at, self._clock.now(), cache_type):
                vehicles = await tx.devices.vehicles_for_chargers([device.id])
                return DeviceView(device, vehicles.get(device.id), StateSource.CACHE)
        return await self.pull(device)

    async def read_any(
        self, principal: Principal, device_id: str, cache_type: CacheType
    ) -> DeviceView:
        """`read` for a battery or a charger whose type the caller does not know (the
        dashboard's device page: its address carries only the id)."""
        async with self._uow() as tx:
            device = await tx.devices.get_device(
                principal.account_id, principal.environment, device_id
            )
        if device is None or device.type is DeviceType.VEHICLE:
            raise DeviceNotFound(device_id)
        return await self.read(principal, device.type, device_id, cache_type)

    def changed(self, device_id: str) -> None:
        """Something stored about the device changed outside a pull: cached reads end."""
        self._changes.publish(device_id)

    async def pull(self, device: Device) -> DeviceView:
        """Ask the driver for the device's state now and store it (also when it failed)."""
        reading = await self._pull.read(device, self._clock.now())
        now = self._clock.now()
        async with self._uow() as tx:
            vehicle = await self._pull.store(tx, device, reading, now)
        self._changes.publish(device.id)
        updated = replace(
            device,
            state=reading.state,
            available=reading.available,
            last_pulled_at=now,
            updated_at=now,
        )
        return DeviceView(updated, vehicle, StateSource.LIVE)

    async def list_page(
        self,
        principal: Principal,
        types: Sequence[DeviceType],
        user_id: str | None,
        offset: int,
        limit: int,
    ) -> DevicePage:
        """Lists never pull: they show the last stored state (spec 4.2)."""
        async with self._uow() as tx:
            found, total = await tx.devices.list_devices(
                principal.account_id, principal.environment, types, user_id, offset, limit
            )
            vehicles = await tx.devices.vehicles_for_chargers(
                [d.id for d in found if d.type is DeviceType.EV_CHARGER]
            )
        return DevicePage(found, vehicles, total)

    async def user_devices(
        self,
        principal: Principal,
        user_ref: str,
        type_names: frozenset[str],
        offset: int,
        limit: int,
    ) -> tuple[User, list[Device | Vehicle], int]:
        """A user's devices, with each charger's vehicle listed as a `vehicle` device;
        `type_names` filters by spec 2.9 type (empty: all)."""
        async with self._uow() as tx:
            user = await tx.devices.get_user(principal.account_id, principal.environment, user_ref)
            if user is None:
                raise UserNotFound(f"No user {user_ref!r} in this environment.")
            found, _ = await tx.devices.list_devices(
                principal.account_id, principal.environment, [], user.id, 0, 10_000
            )
            vehicles = await tx.devices.vehicles_for_chargers(
                [d.id for d in found if d.type is DeviceType.EV_CHARGER]
            )
        listing: list[Device | Vehicle] = []
        for device in found:
            if not type_names or device.type.value in type_names:
                listing.append(device)
            vehicle = vehicles.get(device.id)
            if vehicle is not None and (not type_names or DeviceType.VEHICLE in type_names):
                listing.append(vehicle)
        return user, listing[offset : offset + limit], len(listing)

    async def vehicle(self, principal: Principal, vehicle_id: str) -> Vehicle:
        async with self._uow() as tx:
            found = await tx.devices.get_vehicle(
                principal.account_id, principal.environment, vehicle_id
            )
            if found is None:  # a battery's or charger's id: name its path
                other = await tx.devices.get_device(
                    principal.account_id, principal.environment, vehicle_id
                )
                kind = None if other is None else other.type
                raise device_not_found(vehicle_id, kind, DeviceType.VEHICLE)
        return found


async def visible_device(
    tx: PushUnitOfWork,
    principal: Principal,
    device_type: DeviceType,
    device_id: str,
    *,
    lock: bool = False,
) -> Device:
    """The caller's device of this type, or DEVICE_NOT_FOUND (also for another account's or
    environment's, which must look like an id that never existed)."""
    device = await tx.devices.get_device(
        principal.account_id, principal.environment, device_id, lock=lock
    )
    if device is None or device.type is not device_type:
        raise device_not_found(device_id, None if device is None else device.type, device_type)
    return device
