"""Linking the devices a user picked (spec 1.6, spec 6): the linked account and its
credentials, new devices made and read once (`device.connected`), devices linked before
attached again (`device.reconnected`), all with the link session's last step in one
transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from energyhub.domain.clock import Clock
from energyhub.domain.linking import LinkedAccount, LinkedAccountStatus, LinkSession
from energyhub.domain.vendors import OfferedDevice, Vendor
from energyhub.domain.webhooks import EventType
from energyhub.ports.devices import DeviceOwner, NewDevice
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.services.devices import DeviceService
from energyhub.services.ids import new_id, prefixed_id
from energyhub.services.linking import LinkingService, StaleStep


class DeviceLinking:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        linking: LinkingService,
        devices: DeviceService,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._linking = linking
        self._devices = devices

    async def link_devices(
        self, session: LinkSession, done: LinkSession, vendor: Vendor, identity: str
    ) -> LinkSession:
        """Stores the linked account and the picked devices, and moves the session to `done`
        (single use: only while it still is at the step the user saw). A device the user
        linked before is reconnected (`device.reconnected`); a new one is made and read once
        (`device.connected`)."""
        assert session.pending_credentials is not None
        credentials = self._linking.cipher.decrypt(session.pending_credentials)
        picked = session.state.picked()
        known = await self._known(session, vendor, picked)
        connector = self._linking.connector(vendor)
        now = self._clock.now()
        made: list[tuple[OfferedDevice, NewDevice]] = []
        for offered in picked:
            if offered.vendor_device_id not in known:
                owner = DeviceOwner(
                    new_id(), session.account_id, session.environment, session.user_id, now
                )
                made.append(
                    (offered, await connector.new_device(vendor, offered, credentials, owner))
                )
        async with self._uow() as tx:
            linked = await self._linked_account(tx, session, vendor, identity, credentials, now)
            done = replace(done, linked_account_id=linked.id)
            if not await tx.linking.advance_session(done, session.nonce):
                raise StaleStep()
            for offered in picked:
                device_id = known.get(offered.vendor_device_id)
                if device_id is None:
                    continue
                device = await tx.devices.get_device_by_id(device_id)
                assert device is not None
                await tx.devices.update_device(
                    device_id, disconnected_at=None, last_pulled_at=None, updated_at=now
                )
                await tx.linking.attach_device(device_id, linked.id, offered.vendor_device_id, now)
                await self._linking.record(tx, device, EventType.DEVICE_RECONNECTED, linked.id)
            for offered, new in made:
                if not new.stored:
                    await tx.devices.add_device(new.device)
                await tx.linking.attach_device(
                    new.device.id, linked.id, offered.vendor_device_id, now
                )
                if new.event is not None:
                    await self._linking.record(tx, new.device, new.event, linked.id)
        self._linking.devices_changed(
            [*known.values(), *(n.device.id for _, n in made if n.stored)]
        )
        for _, new in made:
            if not new.stored:
                await self._devices.pull(new.device)  # a new device is read once
        return done

    async def _known(
        self, session: LinkSession, vendor: Vendor, picked: Sequence[OfferedDevice]
    ) -> dict[str, str]:
        """vendor device id -> our device id, for the picked devices linked before."""
        known: dict[str, str] = {}
        async with self._uow() as tx:
            for offered in picked:
                found = await tx.linking.find_linked_device(
                    session.account_id,
                    session.environment,
                    session.user_id,
                    vendor.id,
                    offered.vendor_device_id,
                )
                if found is not None:
                    known[offered.vendor_device_id] = found
        return known

    async def linked_before(self, session: LinkSession, vendor: Vendor) -> set[str]:
        """The offered devices' vendor ids that this user linked before."""
        return set(await self._known(session, vendor, session.state.offered))

    async def _linked_account(
        self,
        tx: UnitOfWork,
        session: LinkSession,
        vendor: Vendor,
        identity: str,
        credentials: Mapping[str, Any],
        now: datetime,
    ) -> LinkedAccount:
        """The user's active linked account for this login, refreshed, or a new one."""
        sealed = self._linking.cipher.encrypt(credentials)
        found = await tx.linking.active_linked_account(
            session.account_id, session.environment, session.user_id, vendor.id, identity
        )
        if found is not None:
            await tx.linking.update_linked_account(found.id, credentials=sealed, updated_at=now)
            return replace(found, credentials=sealed, updated_at=now)
        linked = LinkedAccount(
            id=prefixed_id("la"),
            account_id=session.account_id,
            environment=session.environment,
            user_id=session.user_id,
            vendor=vendor.id,
            external_id=identity,
            credentials=sealed,
            status=LinkedAccountStatus.ACTIVE,
            redirect_uri=session.redirect_uri,
            created_at=now,
            updated_at=now,
        )
        await tx.linking.add_linked_account(linked)
        return linked
