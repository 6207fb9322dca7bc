"""The OCPP driver: reads and commands go to the charger's connection in the central
system. Calls leave the process (`instant` False), so the dispatcher makes them outside
transactions under a lease it renews while they run (and stops them if it cannot)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from datetime import datetime
from typing import Any, TypeVar

from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceOffline, DeviceTimeout
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import (
    CommandReceipt,
    CommandRequest,
    DeviceReading,
    DriverError,
    VehicleReading,
    refuse_if_unlinked,
    unlinked_reading,
)
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.central_system import CentralSystem
from energyhub.drivers.ocpp.station import Station

T = TypeVar("T")
COMMAND_DEADLINE_S = 25.0  # a command's calls together; a timeout is not sent again at once


class OcppDriver:
    instant = False

    def __init__(self, central: CentralSystem) -> None:
        self._central = central

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        """What the charger last reported (it reports by itself; nothing to ask)."""
        unlinked = unlinked_reading(device, now)
        if unlinked is not None:
            return unlinked
        station = self._central.station_for_device(device.id)
        if station is None or not station.online:
            state = mapping.state_body(mapping.OFFLINE, {}, None, device.mode_command)
            return DeviceReading(state=state, available=False, pulled_at=now)
        mode = station.record.control.get("command") or device.mode_command
        soc = station.vehicle_soc()
        vehicle = (
            None if soc is None else VehicleReading(None, None, None, None, state_of_charge=soc)
        )
        return DeviceReading(
            state=station.state(mode), available=True, vehicle=vehicle, pulled_at=now
        )

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        station = self._online(device)
        result = await _bounded(
            station.command(request.command, request.parameters, device.settings)
        )
        return CommandReceipt(
            {"accepted": True, **result},
            0.0,
            driver_state={"command": request.command, "parameters": dict(request.parameters)},
        )

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        await _bounded(self._online(device).write_settings(values))

    # --- ChargerSteering ---------------------------------------------------------------------
    def can_steer(self, device: Device) -> bool:
        station = self._central.station_for_device(device.id)
        return station is not None and station.online

    async def steer(self, device: Device, schedule: ChargingSchedule, now: datetime) -> None:
        await _bounded(self._online(device).steer(schedule))

    async def release(self, device: Device, now: datetime) -> None:
        await _bounded(self._online(device).release())

    def _online(self, device: Device) -> Station:
        refuse_if_unlinked(device)
        station = self._central.station_for_device(device.id)
        if station is None or not station.online:
            raise DriverError(
                DeviceOffline.code,
                "The charger is not connected to the service: retry when it is online.",
                retryable=True,
            )
        return station


async def _bounded(work: Coroutine[Any, Any, T]) -> T:
    try:
        return await asyncio.wait_for(work, COMMAND_DEADLINE_S)
    except TimeoutError:
        raise DriverError(
            DeviceTimeout.code, "The charger did not confirm in time.", retryable=True
        ) from None
