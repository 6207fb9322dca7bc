"""The sandbox driver: reads and commands go to the simulator, never to a manufacturer."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from energyhub.domain.devices import Device
from energyhub.domain.errors import device_failure_for
from energyhub.drivers.base import (
    CommandReceipt,
    CommandRequest,
    DeviceReading,
    DriverError,
    refuse_if_unlinked,
    unlinked_reading,
)
from energyhub.drivers.sandbox import simulator
from energyhub.drivers.sandbox.profiles import PROFILES


class SandboxDriver:
    instant = True  # a pure function of time and the last command: no I/O

    def __init__(self, completion_delay_s: float) -> None:
        self._completion_delay_s = completion_delay_s

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        unlinked = unlinked_reading(device, now)  # the simulated vendor refuses our login
        if unlinked is not None:
            return unlinked
        return simulator.read(PROFILES[device.profile or ""], _anchor(device), now)

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        """Accepted at once, completed after the configured delay. The sandbox block asks for
        `result: failed`, so its code fails the push for good (never deferred)."""
        refuse_if_unlinked(device)
        if request.simulated_failure is not None:
            failure = device_failure_for(request.simulated_failure)
            message = failure.default_message if failure is not None else "The device refused."
            raise DriverError(
                request.simulated_failure, f"Simulated failure: {message}", retryable=False
            )
        anchor = _anchor(device)
        if (
            anchor is not None
            and anchor.command == request.command
            and anchor.parameters == request.parameters
        ):
            return CommandReceipt({"alreadyActive": True}, self._completion_delay_s)
        accepted = simulator.accept(
            PROFILES[device.profile or ""], anchor, request.command, request.parameters, now
        )
        return CommandReceipt(
            {"accepted": True}, self._completion_delay_s, driver_state=accepted.to_json()
        )

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        """Simulated devices take every valid setting; the service stores them."""


def _anchor(device: Device) -> simulator.SimAnchor | None:
    return None if device.sim is None else simulator.SimAnchor.from_json(device.sim)
