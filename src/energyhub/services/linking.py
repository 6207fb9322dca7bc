"""Linking use cases (spec 1.6, CONTRACT 8): link sessions, linked accounts, linking the
devices a user picked, and revoking. The hosted flow's steps are in `link_flow.py`."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from energyhub.domain.accounts import Account, Environment, Principal
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.errors import (
    InvalidRequest,
    LinkedAccountNotFound,
    LiveOnly,
    NotYetAvailable,
    SandboxOnly,
    UserNotFound,
)
from energyhub.domain.linking import (
    LINK_SESSION_TTL,
    LINK_TOKEN_PREFIX,
    FlowState,
    LinkedAccount,
    LinkedAccountStatus,
    LinkSession,
    check_redirect_uri,
    first_step,
    hash_token,
)
from energyhub.domain.vendors import VENDORS_BY_ID, Vendor
from energyhub.domain.webhooks import EventType
from energyhub.ports.devices import VendorConnector
from energyhub.ports.secrets import Cipher
from energyhub.ports.storage import UnitOfWork, UnitOfWorkFactory
from energyhub.services.devices import DeviceService
from energyhub.services.ids import prefixed_id, random_base62
from energyhub.services.outbox import Outbox

TOKEN_RANDOM_LENGTH = 43  # base62: ~256 bits


def new_nonce() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class CreatedLinkSession:
    session: LinkSession
    token: str  # shown once, stored only as a hash
    url: str


@dataclass(frozen=True, slots=True)
class LinkedAccountView:
    account: LinkedAccount
    vendor: Vendor | None
    device_ids: list[str]


class StaleStep(Exception):
    """The session moved on since the page was shown (a form sent twice)."""


class LinkingService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        outbox: Outbox,
        cipher: Cipher,
        devices: DeviceService,
        connectors: Mapping[str, VendorConnector],
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._outbox = outbox
        self.cipher = cipher
        self._devices = devices
        self._connectors = connectors

    # --- vendors ---------------------------------------------------------------------------
    def available(self, vendor: Vendor) -> bool:
        """Whether the vendor's connector is installed (else it is shown as coming soon)."""
        return vendor.driver in self._connectors

    def connector(self, vendor: Vendor) -> VendorConnector:
        return self._connectors[vendor.driver]

    def devices_changed(self, device_ids: Sequence[str]) -> None:
        """Stored device rows changed outside a pull: cached reads of them end."""
        for device_id in device_ids:
            self._devices.changed(device_id)

    def _check_vendor(self, environment: Environment, vendor_id: str) -> None:
        vendor = VENDORS_BY_ID.get(vendor_id)
        if vendor is None:
            names = ", ".join(VENDORS_BY_ID)
            raise InvalidRequest(
                f"Unknown vendor {vendor_id!r}: use one of {names}.",
                errors=[{"path": "vendor", "message": f"expected one of: {names}"}],
            )
        if vendor.environment is not environment and vendor.environment is Environment.SANDBOX:
            raise SandboxOnly(f"{vendor.name} is simulated: link it with an sk_test_ key.")
        if vendor.environment is not environment:
            raise LiveOnly(f"{vendor.name} links real devices: use an sk_live_ key.")
        if not self.available(vendor):
            raise NotYetAvailable(f"{vendor.name} cannot be linked yet.")

    # --- link sessions ---------------------------------------------------------------------
    async def create_session(
        self,
        principal: Principal,
        user_id: str,
        email: str | None,
        redirect_uri: str | None,
        vendor_id: str | None,
        base_url: str,
    ) -> CreatedLinkSession:
        """A single-use link for one user, valid for LINK_SESSION_TTL; the user comes into
        being now when new."""
        if redirect_uri is not None:
            why = check_redirect_uri(redirect_uri)
            if why is not None:
                raise InvalidRequest(
                    f"redirectUri {why}.",
                    errors=[{"path": "redirectUri", "message": f"redirectUri {why}"}],
                )
        if vendor_id is not None:
            self._check_vendor(principal.environment, vendor_id)
        now = self._clock.now()
        async with self._uow() as tx:
            account = await tx.accounts.get_account(principal.account_id)
            if account is None:
                raise LookupError(principal.account_id)
            await tx.devices.ensure_user(
                principal.account_id, principal.environment, user_id, email, now
            )
            return await self.add_session(
                tx,
                account,
                principal.environment,
                user_id,
                email,
                redirect_uri,
                vendor_id,
                base_url,
                now,
            )

    async def add_session(
        self,
        tx: UnitOfWork,
        account: Account,
        environment: Environment,
        user_id: str,
        email: str | None,
        redirect_uri: str | None,
        vendor_id: str | None,
        base_url: str,
        now: datetime,
    ) -> CreatedLinkSession:
        token = LINK_TOKEN_PREFIX + random_base62(TOKEN_RANDOM_LENGTH)
        vendor = None if vendor_id is None else VENDORS_BY_ID[vendor_id]
        session = LinkSession(
            id=prefixed_id("lnk"),
            account_id=account.id,
            environment=environment,
            user_id=user_id,
            email=email,
            redirect_uri=redirect_uri,
            vendor=vendor_id,
            step=first_step(vendor is not None),
            state=FlowState(
                device_type=None if vendor is None else vendor.device_type, vendor=vendor_id
            ),
            nonce=new_nonce(),
            created_at=now,
            expires_at=now + LINK_SESSION_TTL,
            updated_at=now,
        )
        await tx.linking.add_session(session, hash_token(token))
        url = f"{base_url.rstrip('/')}/link/{account.app_id}?token={token}"
        return CreatedLinkSession(session, token, url)

    # --- linked accounts -------------------------------------------------------------------
    async def linked_accounts(self, principal: Principal, user_ref: str) -> list[LinkedAccountView]:
        """A user's linked accounts (by user id or e-mail address), revoked ones too."""
        async with self._uow() as tx:
            user = await tx.devices.get_user(principal.account_id, principal.environment, user_ref)
            if user is None:
                raise UserNotFound(f"No user {user_ref!r} in this environment.")
            return await self.views(tx, principal.account_id, principal.environment, user.id)

    async def views(
        self,
        tx: UnitOfWork,
        account_id: str,
        environment: Environment,
        user_id: str,
        *,
        active_only: bool = False,
    ) -> list[LinkedAccountView]:
        found = await tx.linking.list_linked_accounts(account_id, environment, user_id)
        if active_only:
            found = [a for a in found if a.status is LinkedAccountStatus.ACTIVE]
        devices = await tx.linking.device_ids_of([a.id for a in found])
        return [LinkedAccountView(a, VENDORS_BY_ID.get(a.vendor), devices[a.id]) for a in found]

    async def revoke(
        self, principal: Principal, user_ref: str, linked_account_id: str, base_url: str
    ) -> LinkedAccountView:
        """Consent withdrawn: credentials dropped, the devices unavailable from their next
        pull, and `device.disconnected` for each, with a link to connect them again.
        Revoking a revoked account changes nothing."""
        async with self._uow() as tx:
            user = await tx.devices.get_user(principal.account_id, principal.environment, user_ref)
            if user is None:
                raise UserNotFound(f"No user {user_ref!r} in this environment.")
            view, changed = await self.revoke_in(
                tx,
                principal.account_id,
                principal.environment,
                user.id,
                linked_account_id,
                base_url,
            )
        self.devices_changed(changed)
        return view

    async def revoke_in(
        self,
        tx: UnitOfWork,
        account_id: str,
        environment: Environment,
        user_id: str,
        linked_account_id: str,
        base_url: str,
    ) -> tuple[LinkedAccountView, list[str]]:
        """Revokes inside `tx`; returns the account and the ids of the devices it changed."""
        linked = await tx.linking.get_linked_account(account_id, environment, linked_account_id)
        if linked is None or linked.user_id != user_id:
            raise LinkedAccountNotFound()
        device_ids = (await tx.linking.device_ids_of([linked.id]))[linked.id]
        vendor = VENDORS_BY_ID.get(linked.vendor)
        if linked.status is LinkedAccountStatus.REVOKED:
            return LinkedAccountView(linked, vendor, device_ids), []
        now = self._clock.now()
        await tx.linking.update_linked_account(
            linked.id,
            status=LinkedAccountStatus.REVOKED,
            credentials=None,
            revoked_at=now,
            updated_at=now,
        )
        revoked = replace(
            linked,
            status=LinkedAccountStatus.REVOKED,
            credentials=None,
            revoked_at=now,
            updated_at=now,
        )
        found = {d.id: d for d in await tx.devices.get_devices_by_ids(device_ids)}
        devices = [found[i] for i in device_ids if i in found]
        if devices:
            account = await tx.accounts.get_account(account_id)
            assert account is not None
            relink = await self.add_session(
                tx,
                account,
                environment,
                user_id,
                None,
                linked.redirect_uri,
                linked.vendor if vendor is not None else None,
                base_url,
                now,
            )
            for device in devices:
                # read afresh: the next read pulls, and the driver finds no credentials
                await tx.devices.update_device(
                    device.id, disconnected_at=now, last_pulled_at=None, updated_at=now
                )
                if device.disconnected_at is None:
                    await self.record(
                        tx, device, EventType.DEVICE_DISCONNECTED, linked.id, relink.url
                    )
        return LinkedAccountView(revoked, vendor, device_ids), [d.id for d in devices]

    async def record(
        self,
        tx: UnitOfWork,
        device: Device,
        event: EventType,
        linked_account_id: str,
        reconnection_url: str | None = None,
    ) -> None:
        """The `device.*` event of a linked device, in the transaction of the change."""
        await self._outbox.record_device_event(
            tx,
            device,
            event,
            linked_account_id=linked_account_id,
            reconnection_url=reconnection_url,
        )

    # --- credentials -----------------------------------------------------------------------
    async def rotate_credentials(self, batch: int = 200) -> int:
        """Re-encrypts every stored credential with the first configured key, so older keys
        can be dropped from ENERGYHUB_SECRET_KEY afterwards. Returns how many."""
        count, after = 0, 0
        while True:
            async with self._uow() as tx:
                page = await tx.linking.credentials_page(after, batch)
                for _, linked_id, token in page:
                    await tx.linking.update_linked_account(
                        linked_id, credentials=self.cipher.rotate(token)
                    )
            if not page:
                return count
            count += len(page)
            after = page[-1][0]
