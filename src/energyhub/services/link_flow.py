"""The hosted Link UI's forms (spec 1.6): what each step does with what the user sent.

The session row holds where the user is. Every page carries the session's current nonce;
a form is taken only with the nonce of the step it was shown for, and each step stores its
next state with a compare-and-set on that nonce, so a form sent twice (or from a stale
tab) changes nothing. A step that went through returns None (the browser then loads the
next page); a step that did not returns its page with the errors."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from energyhub.domain.accounts import Account
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.errors import LinkedAccountNotFound
from energyhub.domain.linking import (
    CODE_PATTERN,
    LINKABLE_TYPES,
    MFA_MAX_ATTEMPTS,
    CodeCheck,
    LinkSession,
    LinkStep,
    Outcome,
    back_from,
    check_code,
    choose_devices,
)
from energyhub.domain.vendors import (
    VENDORS_BY_ID,
    Vendor,
    VendorRefusal,
    check_credentials,
    public_values,
    vendor_in,
    vendors_for,
)
from energyhub.ports.storage import UnitOfWorkFactory
from energyhub.services.devices import DeviceService
from energyhub.services.link_devices import DeviceLinking
from energyhub.services.link_pages import FORM_ERROR, LinkPage, LinkPages
from energyhub.services.linking import LinkingService, StaleStep, new_nonce


@dataclass(frozen=True, slots=True)
class Submission:
    """One form as the user sent it, with the session and account it is for."""

    session: LinkSession
    account: Account
    action: str
    form: Mapping[str, str]
    picked: Sequence[str]  # the checked devices
    base_url: str  # of links this step may hand out


Handler = Callable[[Submission], Awaitable[LinkPage | None]]


class LinkFlow:
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
        self._linker = DeviceLinking(uow, clock, linking, devices)
        self._pages = LinkPages(uow, clock, linking, self._linker)
        self._steps: dict[LinkStep, Handler] = {
            LinkStep.DEVICE_TYPE: self._choose_type,
            LinkStep.VENDOR: self._choose_vendor,
            LinkStep.CREDENTIALS: self._sign_in,
            LinkStep.MFA: self._verify_code,
            LinkStep.DEVICES: self._pick_devices,
            LinkStep.CONSENT: self._consent,
            LinkStep.REVOKE: self._confirm_revoke,
        }

    async def page(self, app_id: str, token: str) -> LinkPage:
        """The page of the link's current step; LinkFlowProblem when it cannot be used."""
        session, account = await self._pages.load(app_id, token)
        return await self._pages.render(session, account)

    async def submit(
        self,
        app_id: str,
        token: str,
        nonce: str,
        action: str,
        form: Mapping[str, str],
        picked: Sequence[str],
        base_url: str,
    ) -> LinkPage | None:
        """The page to show after a form, or None when the browser should load the current
        step afresh (POST, redirect, GET)."""
        session, account = await self._pages.load(app_id, token)
        if not hmac.compare_digest(nonce.encode(), session.nonce.encode()):
            return await self._pages.outdated(app_id, token)
        try:
            if action == "cancel":
                return await self._finish(
                    session, account, LinkStep.CANCELLED, Outcome.USER_CANCELLED
                )
            if action == "back":
                target = back_from(session.step, session.vendor is not None)
                if target is not None:
                    await self._back(session, target)
                return None
            sent = Submission(session, account, action, form, picked, base_url)
            return await self._steps[session.step](sent)
        except StaleStep:
            return await self._pages.outdated(app_id, token)

    async def _move(self, session: LinkSession, **changes: Any) -> LinkSession:
        """The session at its next step, stored only if nobody moved it meanwhile."""
        moved = replace(session, nonce=new_nonce(), updated_at=self._clock.now(), **changes)
        async with self._uow() as tx:
            if not await tx.linking.advance_session(moved, session.nonce):
                raise StaleStep()
        return moved

    async def _back(self, session: LinkSession, target: LinkStep) -> LinkSession:
        state = session.state
        if target in (LinkStep.CREDENTIALS, LinkStep.VENDOR, LinkStep.DEVICE_TYPE):
            state = state.signed_out()
        return await self._move(
            session,
            step=target,
            state=replace(state, revoke_id=None),
            pending_credentials=None
            if target is not LinkStep.DEVICES
            else session.pending_credentials,
        )

    async def _finish(
        self,
        session: LinkSession,
        account: Account,
        step: LinkStep,
        outcome: Outcome,
    ) -> LinkPage:
        finished = await self._move(
            session,
            step=step,
            outcome=outcome,
            used_at=self._clock.now(),
            pending_credentials=None,
        )
        return await self._pages.render(finished, account)

    # --- the steps -------------------------------------------------------------------------
    async def _choose_type(self, sent: Submission) -> LinkPage | None:
        session, account = sent.session, sent.account
        if sent.action == "remove":
            chosen = sent.form.get("linked_account_id", "")
            linked = {v.account.id for v in await self._pages.active_linked(session)}
            if chosen not in linked:
                return await self._pages.render(
                    session, account, errors={FORM_ERROR: "Choose a connected account to remove."}
                )
            await self._move(
                session, step=LinkStep.REVOKE, state=replace(session.state, revoke_id=chosen)
            )
            return None
        name = sent.form.get("device_type", "")
        types = [t for t in LINKABLE_TYPES if vendors_for(session.environment, t)]
        device_type = next((t for t in types if t.value == name), None)
        if device_type is None:
            return await self._pages.render(
                session,
                account,
                errors={"device_type": "Choose the type of device you want to connect."},
            )
        state = session.state
        vendor = state.vendor if state.device_type is device_type else None
        await self._move(
            session,
            step=LinkStep.VENDOR,
            state=replace(state, device_type=device_type, vendor=vendor),
        )
        return None

    async def _choose_vendor(self, sent: Submission) -> LinkPage | None:
        session, account = sent.session, sent.account
        vendor = vendor_in(session.environment, sent.form.get("vendor", ""))
        kind = "device" if session.state.device_type is None else _noun(session.state.device_type)
        if vendor is None or vendor.device_type is not session.state.device_type:
            return await self._pages.render(
                session, account, errors={"vendor": f"Choose the manufacturer of your {kind}."}
            )
        if not self._linking.available(vendor):
            return await self._pages.render(
                session,
                account,
                errors={"vendor": f"{vendor.name} is coming soon: it cannot be connected yet."},
            )
        state = session.state
        if state.vendor != vendor.id:
            state = replace(state.signed_out(), vendor=vendor.id, public_values={})
        await self._move(session, step=LinkStep.CREDENTIALS, state=state)
        return None

    async def _sign_in(self, sent: Submission) -> LinkPage | None:
        session, account = sent.session, sent.account
        vendor = self._vendor(session)
        values, errors = check_credentials(vendor, sent.form)
        shown = public_values(vendor, sent.form)
        if errors:
            return await self._pages.render(session, account, errors=errors, values=shown)
        connector = self._linking.connector(vendor)
        try:
            signed_in = await connector.sign_in(vendor, values)
            sealed = self._linking.cipher.encrypt(values)
            state = replace(
                session.state,
                identity=signed_in.identity,
                public_values=public_values(vendor, values),
            )
            if signed_in.mfa_destination is not None:
                await self._move(
                    session,
                    step=LinkStep.MFA,
                    pending_credentials=sealed,
                    state=replace(
                        state,
                        mfa_destination=signed_in.mfa_destination,
                        mfa_issued_at=self._clock.now(),
                        mfa_attempts=0,
                    ),
                )
                return None
            offered = tuple(await connector.devices(vendor, values))
        except VendorRefusal as refusal:
            return await self._pages.render(
                session, account, errors={FORM_ERROR: refusal.message}, values=shown
            )
        await self._move(
            session,
            step=LinkStep.DEVICES,
            pending_credentials=sealed,
            state=replace(state, offered=offered, selected=()),
        )
        return None

    async def _verify_code(self, sent: Submission) -> LinkPage | None:
        session, account = sent.session, sent.account
        vendor = self._vendor(session)
        state = session.state
        now = self._clock.now()
        if sent.action == "resend":
            moved = await self._move(
                session, state=replace(state, mfa_issued_at=now, mfa_attempts=0)
            )
            return await self._pages.render(
                moved, account, notice=f"We sent a new code to {state.mfa_destination}."
            )
        code = "".join(sent.form.get("code", "").split())
        if not CODE_PATTERN.match(code):
            return await self._pages.render(
                session, account, errors={"code": "Enter the 6-digit code, like 012345."}
            )
        assert session.pending_credentials is not None
        credentials = self._linking.cipher.decrypt(session.pending_credentials)
        connector = self._linking.connector(vendor)
        try:
            matches = await connector.code_matches(vendor, credentials, code)
            check = check_code(state, now, matches)
            if check is CodeCheck.ACCEPTED:
                offered = tuple(await connector.devices(vendor, credentials))
        except VendorRefusal as refusal:
            return await self._pages.render(session, account, errors={FORM_ERROR: refusal.message})
        if check is CodeCheck.EXPIRED:
            moved = await self._move(
                session, state=replace(state, mfa_issued_at=now, mfa_attempts=0)
            )
            message = "That code has expired. We sent you a new one: enter it below."
            return await self._pages.render(moved, account, errors={"code": message})
        if check is CodeCheck.WRONG:
            attempts = state.mfa_attempts + 1
            moved = await self._move(session, state=replace(state, mfa_attempts=attempts))
            left = MFA_MAX_ATTEMPTS - attempts
            message = f"That code is not right. {left} {'try' if left == 1 else 'tries'} left."
            return await self._pages.render(moved, account, errors={"code": message})
        if check is CodeCheck.EXHAUSTED:
            moved = await self._move(
                session,
                step=LinkStep.CREDENTIALS,
                pending_credentials=None,
                state=state.signed_out(),
            )
            message = "Too many wrong codes. Sign in again to get a new code."
            return await self._pages.render(moved, account, errors={FORM_ERROR: message})
        moved = await self._move(
            session, step=LinkStep.DEVICES, state=replace(state, offered=offered, selected=())
        )
        return None

    async def _pick_devices(self, sent: Submission) -> LinkPage | None:
        session, account = sent.session, sent.account
        chosen = choose_devices(session.state, sent.picked)
        if chosen is None:
            message = (
                "Choose at least one device to connect."
                if session.state.offered
                else "There are no devices in this account to connect."
            )
            return await self._pages.render(session, account, errors={"device": message})
        await self._move(
            session, step=LinkStep.CONSENT, state=replace(session.state, selected=chosen)
        )
        return None

    async def _consent(self, sent: Submission) -> LinkPage:
        session, account = sent.session, sent.account
        if sent.action == "deny":
            return await self._finish(session, account, LinkStep.CANCELLED, Outcome.CONSENT_DENIED)
        if sent.action != "allow":
            return await self._pages.render(
                session, account, errors={FORM_ERROR: "Choose Allow or Don't allow."}
            )
        vendor = self._vendor(session)
        now = self._clock.now()
        done = replace(
            session,
            step=LinkStep.DONE,
            outcome=Outcome.SUCCESS,
            used_at=now,
            pending_credentials=None,
            nonce=new_nonce(),
            updated_at=now,
        )
        identity = session.state.identity or ""
        try:
            done = await self._linker.link_devices(session, done, vendor, identity)
        except VendorRefusal as refusal:
            return await self._pages.render(session, account, errors={FORM_ERROR: refusal.message})
        return await self._pages.render(done, account)

    async def _confirm_revoke(self, sent: Submission) -> LinkPage:
        session, account = sent.session, sent.account
        if sent.action != "confirm" or session.state.revoke_id is None:
            return await self._pages.render(
                session, account, errors={FORM_ERROR: "Choose Remove access or Back."}
            )
        now = self._clock.now()
        revoked = replace(
            session,
            step=LinkStep.REVOKED,
            outcome=Outcome.REVOKED,
            used_at=now,
            linked_account_id=session.state.revoke_id,
            nonce=new_nonce(),
            updated_at=now,
        )
        try:
            async with self._uow() as tx:
                _, changed = await self._linking.revoke_in(
                    tx,
                    session.account_id,
                    session.environment,
                    session.user_id,
                    session.state.revoke_id,
                    sent.base_url,
                )
                if not await tx.linking.advance_session(revoked, session.nonce):
                    raise StaleStep()
        except LinkedAccountNotFound:
            moved = await self._back(session, LinkStep.DEVICE_TYPE)
            return await self._pages.render(
                moved, account, errors={FORM_ERROR: "That connected account no longer exists."}
            )
        self._linking.devices_changed(changed)
        return await self._pages.render(revoked, account)

    def _vendor(self, session: LinkSession) -> Vendor:
        vendor = VENDORS_BY_ID.get(session.state.vendor or "")
        if vendor is None:  # a step past choosing the vendor always has one
            raise StaleStep()
        return vendor


def _noun(device_type: DeviceType) -> str:
    return {DeviceType.BATTERY: "battery", DeviceType.EV_CHARGER: "EV charger"}.get(
        device_type, "device"
    )
