"""The sandbox fleet: simulated devices made on request (CONTRACT 8 and 10)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import DEFAULT_TIMEZONE, Clock
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.domain.errors import DeviceNotFound, InvalidRequest, SandboxOnly
from energyhub.domain.sandbox_controls import hold_from, parse_simulate, with_hold
from energyhub.domain.sandbox_profiles import PROFILES, new_sandbox_device, profile_for
from energyhub.domain.vendors import VENDORS_BY_ID
from energyhub.domain.webhooks import EventType
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.services.devices import DeviceService, DeviceView
from energyhub.services.ids import new_id
from energyhub.services.linking import LinkingService
from energyhub.services.outbox import Outbox


class SandboxService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        devices: DeviceService,
        clock: Clock,
        outbox: Outbox,
        linking: LinkingService | None = None,
    ) -> None:
        self._uow = uow
        self._devices = devices
        self._clock = clock
        self._outbox = outbox
        self._linking = linking

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
        device = new_sandbox_device(
            profile,
            device_id=new_id(),
            account_id=principal.account_id,
            environment=principal.environment,
            user_id=user_id,
            timezone=timezone,
            now=now,
        )
        async with self._uow() as tx:
            await tx.devices.ensure_user(
                principal.account_id, principal.environment, user_id, email, now
            )
            await tx.devices.add_device(device)
            await self._outbox.record_device_event(tx, device, EventType.DEVICE_CONNECTED)
        return await self._devices.pull(device)

    async def disconnect(self, principal: Principal, device_id: str, base_url: str) -> Device:
        """The simulated vendor stops accepting the device's credentials: it reads as
        unavailable from its next pull, pushes fail, and `device.disconnected` goes out with
        a new link session's URL (`base_url` is the service's public address)."""
        return await self._set_connected(principal, device_id, connected=False, base_url=base_url)

    async def reconnect(self, principal: Principal, device_id: str) -> Device:
        """The user linked the device again: `device.reconnected`."""
        return await self._set_connected(principal, device_id, connected=True)

    async def _set_connected(
        self, principal: Principal, device_id: str, *, connected: bool, base_url: str = ""
    ) -> Device:
        if principal.environment is not Environment.SANDBOX:
            raise SandboxOnly()
        now = self._clock.now()
        async with self._uow() as tx:
            device = await tx.devices.get_device(
                principal.account_id, principal.environment, device_id, lock=True
            )
            if device is None or device.type is DeviceType.VEHICLE:
                raise DeviceNotFound(device_id)
            changes: dict[str, Any] = {"disconnected_at": None if connected else now}
            if connected:
                changes["last_pulled_at"] = None  # read it afresh
            await tx.devices.update_device(device_id, updated_at=now, **changes)
            device = replace(device, updated_at=now, **changes)
            event = EventType.DEVICE_RECONNECTED if connected else EventType.DEVICE_DISCONNECTED
            relink = None if connected else await self._relink_url(tx, device, base_url)
            await self._outbox.record_device_event(tx, device, event, reconnection_url=relink)
        self._devices.changed(device_id)
        return device

    async def simulate(self, principal: Principal, device_id: str, body: object) -> DeviceView:
        """Plug the simulated car in or out, set its state of charge or a battery's level,
        and hold it so (or end the hold); answers the device as read under it. Checked in
        this order: sandbox key (403), the device (404), the body (400, then 422)."""
        if principal.environment is not Environment.SANDBOX:
            raise SandboxOnly()
        async with self._uow() as tx:
            device = await self._simulated(tx, principal, device_id)
        profile = PROFILES[device.profile or ""]
        request = parse_simulate(body, device.type, profile.has_vehicle)
        hold = None
        if not request.reset:  # the hold starts from the device as it is now
            now_view = await self._devices.pull(device)
            soc = now_view.vehicle.state_of_charge if now_view.vehicle is not None else None
            hold = hold_from(request, now_view.device.state, soc, self._clock.now())
        now = self._clock.now()
        async with self._uow() as tx:
            device = await self._simulated(tx, principal, device_id, lock=True)
            sim = with_hold(device.sim, hold)
            await tx.devices.update_device(device.id, sim=sim, updated_at=now)
            device = replace(device, sim=sim, updated_at=now)
        return await self._devices.pull(device)  # stores the held state and says it changed

    async def _simulated(
        self, tx: UnitOfWork, principal: Principal, device_id: str, lock: bool = False
    ) -> Device:
        device = await tx.devices.get_device(
            principal.account_id, principal.environment, device_id, lock=lock
        )
        if device is None or device.type is DeviceType.VEHICLE:
            raise DeviceNotFound(device_id)
        if device.driver != DriverName.SANDBOX or device.profile not in PROFILES:
            raise SandboxOnly(
                "Only simulated devices (made with POST /sandbox/devices) can be simulated."
            )
        return device

    async def _relink_url(self, tx: UnitOfWork, device: Device, base_url: str) -> str | None:
        """A link session for the device's user (and vendor, when it is one of the Link UI's)
        where they can link it again."""
        account = await tx.accounts.get_account(device.account_id)
        if self._linking is None or account is None:
            return None
        vendor = device.vendor if device.vendor in VENDORS_BY_ID else None
        created = await self._linking.add_session(
            tx,
            account,
            device.environment,
            device.user_id,
            None,
            None,
            vendor,
            base_url,
            self._clock.now(),
        )
        return created.url
