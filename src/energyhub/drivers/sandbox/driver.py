"""The sandbox driver: reads come from the simulator, never from a manufacturer."""

from __future__ import annotations

from datetime import datetime

from energyhub.domain.devices import Device
from energyhub.drivers.base import DeviceReading
from energyhub.drivers.sandbox import simulator
from energyhub.drivers.sandbox.profiles import PROFILES


class SandboxDriver:
    async def read(self, device: Device, now: datetime) -> DeviceReading:
        profile = PROFILES[device.profile or ""]
        anchor = None if device.sim is None else simulator.SimAnchor.from_json(device.sim)
        return simulator.read(profile, anchor, now)
