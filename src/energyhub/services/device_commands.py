"""Sending an action's command to its device: refused at once while a VPP lock holds it,
and an immediate push tries a transient refusal again a few times quickly (a scheduled one
is deferred instead)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from energyhub.domain.actions import Action
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceTimeout, VppLocked
from energyhub.domain.readings import CommandReceipt, CommandRequest, DriverError
from energyhub.ports.devices import DeviceDriver


class CommandSender:
    def __init__(
        self,
        drivers: Mapping[str, DeviceDriver],
        clock: Clock,
        immediate_backoff_s: tuple[float, ...],
    ) -> None:
        self._drivers = drivers
        self._clock = clock
        self._immediate_backoff = immediate_backoff_s

    async def attempt(
        self, action: Action, device: Device, *, immediate: bool
    ) -> CommandReceipt | DriverError:
        """The device's answer to the action's command: a receipt, or a refusal."""
        now = self._clock.now()
        if device.vpp_locked_until is not None and device.vpp_locked_until > now:
            locked = VppLocked(until=isoformat_utc(device.vpp_locked_until))
            return DriverError(locked.code, locked.message, retryable=True)
        request = CommandRequest(
            action.command, action.device_parameters, action.simulated_failure, action.id
        )
        return await self.send(device, request, immediate=immediate)

    async def send(
        self, device: Device, request: CommandRequest, *, immediate: bool
    ) -> CommandReceipt | DriverError:
        """One call, plus bounded quick retries of transient errors on an immediate push
        (a scheduled one is deferred instead)."""
        driver = self._drivers[device.driver]
        waits = self._immediate_backoff if immediate and request.simulated_failure is None else ()
        attempt = 0
        while True:
            try:
                return await driver.send_command(device, request, self._clock.now())
            except DriverError as error:
                # a command that timed out may have arrived: it is not sent again at once
                if not error.retryable or error.code == DeviceTimeout.code:
                    return error
                if attempt >= len(waits):
                    return error
                await asyncio.sleep(waits[attempt])
                attempt += 1
