"""The pages of the hosted Link UI (spec 1.6) as data: what each step shows, built from the
session row; `web/` renders them. Loading a page is where an unknown, expired or used link
is turned away."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from energyhub.domain.accounts import Account
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.errors import (
    ApiError,
    LinkStepOutdated,
    LinkTokenExpired,
    LinkTokenInvalid,
    LinkTokenUsed,
)
from energyhub.domain.linking import (
    LINKABLE_TYPES,
    LinkSession,
    LinkStep,
    Outcome,
    SessionStatus,
    hash_token,
    outcome_url,
)
from energyhub.domain.vendors import VENDORS_BY_ID, OfferedDevice, Vendor, vendors_for
from energyhub.ports.storage import UnitOfWorkFactory
from energyhub.services.link_devices import DeviceLinking
from energyhub.services.linking import LinkedAccountView, LinkingService

MAX_TOKEN_LENGTH = 100
FORM_ERROR = ""  # the key of an error about the whole form, not one field


@dataclass(frozen=True, slots=True)
class VendorChoice:
    vendor: Vendor
    available: bool


@dataclass(frozen=True, slots=True)
class OfferedChoice:
    device: OfferedDevice
    linked_before: bool  # picking it reconnects it


@dataclass(frozen=True, slots=True)
class LinkPage:
    """Everything a page of the flow shows."""

    session: LinkSession
    app_name: str
    vendor: Vendor | None = None
    device_types: tuple[DeviceType, ...] = ()
    vendors: tuple[VendorChoice, ...] = ()
    linked: tuple[LinkedAccountView, ...] = ()
    offered: tuple[OfferedChoice, ...] = ()
    errors: dict[str, str] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    notice: str | None = None
    finish_url: str | None = None
    status: int = 200

    @property
    def step(self) -> LinkStep:
        return self.session.step


class LinkFlowProblem(Exception):
    """The link cannot be used (unknown, expired, used): shown as a page of its own."""

    def __init__(
        self, error: ApiError, app_name: str | None = None, finish_url: str | None = None
    ) -> None:
        super().__init__(error.message)
        self.error = error
        self.app_name = app_name
        self.finish_url = finish_url


class LinkPages:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        linking: LinkingService,
        linker: DeviceLinking,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._linking = linking
        self._linker = linker

    async def load(self, app_id: str, token: str) -> tuple[LinkSession, Account]:
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise LinkFlowProblem(LinkTokenInvalid())
        async with self._uow() as tx:
            session = await tx.linking.session_by_token_hash(hash_token(token))
            account = None if session is None else await tx.accounts.get_account(session.account_id)
        if session is None or account is None or account.app_id != app_id:
            raise LinkFlowProblem(LinkTokenInvalid())
        status = session.status_at(self._clock.now())
        if status is SessionStatus.EXPIRED:
            raise LinkFlowProblem(
                LinkTokenExpired(), account.name, finish_url(session, Outcome.LINK_EXPIRED)
            )
        if status is SessionStatus.USED:
            raise LinkFlowProblem(LinkTokenUsed(), account.name)
        return session, account

    async def outdated(self, app_id: str, token: str) -> LinkPage:
        session, account = await self.load(app_id, token)
        page = await self.render(session, account)
        return replace(page, notice=LinkStepOutdated.default_message, status=409)

    async def render(
        self,
        session: LinkSession,
        account: Account,
        *,
        errors: dict[str, str] | None = None,
        values: Mapping[str, str] | None = None,
        notice: str | None = None,
    ) -> LinkPage:
        state = session.state
        vendor = None if state.vendor is None else VENDORS_BY_ID.get(state.vendor)
        page = LinkPage(
            session,
            account.name,
            vendor,
            errors=errors or {},
            notice=notice,
            status=422 if errors else 200,
        )
        step = session.step
        if step is LinkStep.DEVICE_TYPE:
            linked = await self.active_linked(session)
            types = tuple(t for t in LINKABLE_TYPES if vendors_for(session.environment, t))
            page = replace(page, device_types=types, linked=linked)
            page.values.setdefault("device_type", state.device_type or "")
        elif step is LinkStep.VENDOR:
            choices = tuple(
                VendorChoice(v, self._linking.available(v))
                for v in vendors_for(session.environment, state.device_type)
            )
            page = replace(page, vendors=choices)
            page.values.setdefault("vendor", state.vendor or "")
        elif step is LinkStep.CREDENTIALS and vendor is not None:
            defaults = {f.name: f.default for f in vendor.fields if f.default is not None}
            page.values.update({**defaults, **state.public_values, **(values or {})})
        elif step is LinkStep.DEVICES and vendor is not None:
            before = await self._linker.linked_before(session, vendor)
            offered = tuple(OfferedChoice(d, d.vendor_device_id in before) for d in state.offered)
            page = replace(page, offered=offered)
        elif step is LinkStep.CONSENT and vendor is not None:
            before = await self._linker.linked_before(session, vendor)
            picked = tuple(OfferedChoice(d, d.vendor_device_id in before) for d in state.picked())
            page = replace(page, offered=picked)
        elif step is LinkStep.REVOKE:
            linked = tuple(
                v for v in await self.active_linked(session) if v.account.id == state.revoke_id
            )
            page = replace(page, linked=linked)
        elif step.terminal and session.outcome is not None:
            page = replace(page, finish_url=finish_url(session, session.outcome))
        return page

    async def active_linked(self, session: LinkSession) -> tuple[LinkedAccountView, ...]:
        async with self._uow() as tx:
            views = await self._linking.views(
                tx, session.account_id, session.environment, session.user_id, active_only=True
            )
        return tuple(views)


def finish_url(session: LinkSession, outcome: Outcome) -> str | None:
    """Where "Continue to <app>" leads: the redirect URI with the outcome."""
    if session.redirect_uri is None:
        return None
    return outcome_url(session.redirect_uri, outcome, session.linked_account_id)
