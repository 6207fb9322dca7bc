"""A new simulated device from a profile: the one way sandbox devices are made, whether by
`POST /sandbox/devices` or by linking a simulated vendor's device in the Link UI."""

from __future__ import annotations

import uuid
from datetime import datetime

from energyhub.domain.accounts import Environment
from energyhub.domain.devices import Device
from energyhub.drivers.sandbox.profiles import SandboxProfile

SANDBOX_DRIVER = "sandbox"


def new_sandbox_device(
    profile: SandboxProfile,
    *,
    device_id: str,
    account_id: str,
    environment: Environment,
    user_id: str,
    timezone: str,
    now: datetime,
    vendor: str | None = None,
    model: str | None = None,
) -> Device:
    """Not yet read: the caller stores it, then pulls it once. `vendor` and `model` name a
    simulated vendor's device (default: the profile's)."""
    return Device(
        id=device_id,
        account_id=account_id,
        environment=environment,
        user_id=user_id,
        type=profile.device_type,
        vendor=vendor or profile.vendor,
        model=model or profile.model,
        driver=SANDBOX_DRIVER,
        profile=profile.name,
        timezone=timezone,
        capabilities=profile.capabilities,
        settings=profile.capabilities.default_settings(),
        state={},
        sim=None,
        available=True,
        last_pulled_at=None,
        last_action=None,
        current_schedule=None,
        vehicle_id=str(uuid.uuid4()) if profile.has_vehicle else None,
        created_at=now,
        updated_at=now,
    )
