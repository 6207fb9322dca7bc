"""The one pull of a device: ask its driver for its state, then store the reading with what
every pull keeps (a history sample, the vehicle a charger sees). Reads, the
state poller, and the dispatcher's completions and window ends all pull through it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime

from energyhub.domain.devices import Device, Vehicle
from energyhub.domain.dispatch import DeviceChange
from energyhub.domain.history import SAMPLES_KEPT, sample_of
from energyhub.domain.readings import DeviceReading, DriverError
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.storage import UnitOfWork

log = logging.getLogger(__name__)


class DevicePull:
    def __init__(self, drivers: Mapping[str, DeviceDriver]) -> None:
        self._drivers = drivers

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        """The device's state now; a device that fails to answer (`DriverError`) keeps its
        last known state and shows as unavailable."""
        try:
            return await self._drivers[device.driver].read(device, now)
        except DriverError as error:
            log.info("device %s did not answer its pull: %s", device.id, error.code)
            return DeviceReading(state=device.state, available=False)

    async def store(
        self, tx: UnitOfWork, device: Device, reading: DeviceReading, now: datetime
    ) -> Vehicle | None:
        """The reading as the device's state, and what a pull keeps besides; returns the
        charger's vehicle, if any."""
        await tx.steps.change_device(device.id, DeviceChange(at=now, reading=reading))
        vehicle = await self.keep(tx, device, reading, now)
        if vehicle is None:
            return (await tx.devices.vehicles_for_chargers([device.id])).get(device.id)
        return vehicle

    async def keep(
        self, tx: UnitOfWork, device: Device, reading: DeviceReading, now: datetime
    ) -> Vehicle | None:
        """What a pull keeps besides the device's state (stored by the caller): a history
        sample, and the vehicle a charger sees. Returns the vehicle it stored."""
        if reading.available:
            # the chart is drawn from what the state was, pull by pull (the sandbox's too:
            # its commands and holds change what it would compute for the past)
            sample = sample_of(device.type, reading.state, now)
            await tx.samples.add_sample(device.id, sample, now - SAMPLES_KEPT)
        if device.vehicle_id is None or reading.vehicle is None:
            return None
        seen = reading.vehicle
        vehicle = Vehicle(
            id=device.vehicle_id,
            user_id=device.user_id,
            charger_id=device.id,
            vendor=seen.vendor,
            model=seen.model,
            vin=seen.vin,
            battery_capacity_kwh=seen.battery_capacity_kwh,
            state_of_charge=seen.state_of_charge,
        )
        await tx.devices.upsert_vehicle(vehicle, device.account_id, device.environment, now)
        return vehicle
