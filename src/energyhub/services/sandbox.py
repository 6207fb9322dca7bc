"""The sandbox fleet: simulated devices made on request (CONTRACT 8 and 10)."""

from __future__ import annotations

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.errors import InvalidRequest, SandboxOnly
from energyhub.drivers.sandbox.profiles import profile_for
from energyhub.services.devices import DeviceService, DeviceView
from energyhub.services.ids import new_id
from energyhub.services.ports import UnitOfWorkFactory

SANDBOX_DRIVER = "sandbox"
DEFAULT_TIMEZONE = "Europe/Berlin"


class SandboxService:
    def __init__(self, uow: UnitOfWorkFactory, devices: DeviceService, clock: Clock) -> None:
        self._uow = uow
        self._devices = devices
        self._clock = clock

    async def create_device(
        self,
        principal: Principal,
        device_type: DeviceType,
        user_id: str,
        email: str | None = None,
        profile_name: str | None = None,
        timezone: str = DEFAULT_TIMEZONE,
    ) -> DeviceView:
        """A simulated device for a user (made on first use), read once like a linked one."""
        if principal.environment is not Environment.SANDBOX:
            raise SandboxOnly()
        try:
            profile = profile_for(device_type, profile_name)
        except KeyError as missing:
            raise InvalidRequest(
                str(missing.args[0]) if missing.args else "Unknown profile.",
                errors=[{"path": "profile", "message": "unknown profile for this device type"}],
            ) from None
        now = self._clock.now()
        device = Device(
            id=new_id(),
            account_id=principal.account_id,
            environment=principal.environment,
            user_id=user_id,
            type=device_type,
            vendor=profile.vendor,
            model=profile.model,
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
            vehicle_id=new_id() if profile.has_vehicle else None,
            created_at=now,
            updated_at=now,
        )
        async with self._uow() as tx:
            await tx.devices.ensure_user(
                principal.account_id, principal.environment, user_id, email, now
            )
            await tx.devices.add_device(device)
        return await self._devices.pull(device)
