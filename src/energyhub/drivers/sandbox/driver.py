"""The sandbox driver: reads and commands go to the simulator, never to a manufacturer."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from energyhub.domain.devices import Device
from energyhub.domain.errors import device_failure_for
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import (
    CommandReceipt,
    CommandRequest,
    DeviceReading,
    DriverError,
    refuse_if_unlinked,
    unlinked_reading,
)
from energyhub.domain.sandbox_controls import hold_in, with_hold
from energyhub.domain.sandbox_profiles import PROFILES
from energyhub.drivers.sandbox import simulator
from energyhub.drivers.sandbox.command_log import SandboxCommandLog


class SandboxDriver:
    instant = True  # a pure function of time and the last command (plus a log line)

    def __init__(
        self, completion_delay_s: float, command_log: SandboxCommandLog | None = None
    ) -> None:
        self._completion_delay_s = completion_delay_s
        self._command_log = command_log

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        unlinked = unlinked_reading(device, now)  # the simulated vendor refuses our login
        if unlinked is not None:
            return unlinked
        return simulator.read_sim(PROFILES[device.profile or ""], device.sim, now, device.settings)

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        """Accepted at once, completed after the configured delay; each call goes to the
        command log (if one is set) with the device's answer before the answer returns."""
        try:
            receipt = self._answer(device, request, now)
        except DriverError as refusal:
            self._log(device, request, now, refusal.code)
            raise
        answer = "alreadyActive" if receipt.result.get("alreadyActive") else "accepted"
        self._log(device, request, now, answer)
        return receipt

    def _log(self, device: Device, request: CommandRequest, now: datetime, answer: str) -> None:
        if self._command_log is not None:
            self._command_log.record(
                at=now,
                device_id=device.id,
                action_id=request.action_id,
                command=request.command,
                parameters=request.parameters,
                answer=answer,
            )

    def _answer(self, device: Device, request: CommandRequest, now: datetime) -> CommandReceipt:
        """The sandbox block asks for `result: failed`, so its code fails the push for good
        (never deferred)."""
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
        hold = hold_in(device.sim)
        accepted = simulator.accept(
            PROFILES[device.profile or ""],
            anchor,
            request.command,
            request.parameters,
            now,
            hold,
            simulator.Steered.of(device.sim),
        )
        sim = with_hold(accepted.to_json(), hold)  # a command does not end a hold
        return CommandReceipt({"accepted": True}, self._completion_delay_s, driver_state=sim)

    def steered_sim(
        self, device: Device, schedule: ChargingSchedule, now: datetime
    ) -> dict[str, Any]:
        """A strategy's schedule for a simulated charger is simulator state to store."""
        return simulator.steered_sim(PROFILES[device.profile or ""], device.sim, schedule, now)

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        """Simulated devices take every valid setting; the service stores them."""


def _anchor(device: Device) -> simulator.SimAnchor | None:
    return simulator.SimAnchor.of(device.sim)
