"""What every driver returns and raises, whatever protocol it speaks: the value types the
ports carry, so the use cases never import a driver."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from energyhub.domain.devices import Device
from energyhub.domain.errors import CredentialsInvalid


@dataclass(frozen=True, slots=True)
class VehicleReading:
    """A car seen through its charger (CONTRACT 3: `GET /vehicles/{id}`)."""

    vendor: str | None
    model: str | None
    vin: str | None
    battery_capacity_kwh: float | None
    state_of_charge: float | None


@dataclass(frozen=True, slots=True)
class DeviceReading:
    """One pull from a device: the spec-shaped `state` body (camelCase keys, presence-based
    keys omitted when unknown), whether the device answered, and its vehicle if any."""

    state: dict[str, Any]
    available: bool = True
    vehicle: VehicleReading | None = None
    pulled_at: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class DriverError(Exception):
    """A protocol failure turned into a spec code (`DEVICE_OFFLINE`, ...) and a retry hint;
    `details` go to the client's error details (the protocol's own error code, say), so the
    message stays one sentence."""

    def __init__(
        self, code: str, message: str, *, retryable: bool, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.details: dict[str, Any] = details or {}


@dataclass(frozen=True, slots=True)
class CommandRequest:
    """A command in the device's declared units; `simulated_failure` is the sandbox block's
    error code (spec 4.3), honoured only by the sandbox driver; `action_id` names the action
    that sends it (None for a window's restore), for drivers that log what they send."""

    command: str
    parameters: dict[str, float]
    simulated_failure: str | None = None
    action_id: str | None = None


@dataclass(frozen=True, slots=True)
class CommandReceipt:
    """The device accepted a command. `completes_after` is when the service may call it
    completed (zero: at once); `driver_state` is stored on the device for the driver's next
    call (the sandbox keeps its simulator anchor there)."""

    result: dict[str, Any]
    completes_after: float = 0.0
    driver_state: dict[str, Any] | None = None


def refuse_if_unlinked(device: Device) -> None:
    """Every driver's rule for a device whose manufacturer access ended (`disconnected_at`:
    the credentials stopped working, or the user revoked the link): no command or setting
    reaches it until it is linked again, whether or not the hardware still answers."""
    if device.disconnected_at is not None:
        raise DriverError(
            CredentialsInvalid.code,
            "This device's manufacturer access ended (credentials no longer accepted, or "
            "the link was revoked): link it again before controlling it.",
            retryable=False,
        )


def unlinked_reading(device: Device, now: datetime) -> DeviceReading | None:
    """For such a device, what a read gives instead of asking it: the stored state, marked
    unavailable (None: the device is linked; read it)."""
    if device.disconnected_at is None:
        return None
    return DeviceReading(state=device.state, available=False, pulled_at=now)
