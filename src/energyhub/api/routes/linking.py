"""Link sessions and linked accounts: spec 1.6; CONTRACT 8."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.linking_schemas import LinkedAccount, LinkedAccounts, LinkSession
from energyhub.api.linking_schemas import LinkSessionCreate as LinkSessionBody
from energyhub.api.schemas import Envelope, ErrorEnvelope
from energyhub.config import Settings
from energyhub.domain.clock import isoformat_utc
from energyhub.services.linking import LinkedAccountView

router = APIRouter(tags=["linking"])

UserRef = Annotated[str, Path(min_length=1, max_length=320)]
LinkedAccountId = Annotated[str, Path(min_length=1, max_length=64)]
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorEnvelope,
        "description": "USER_NOT_FOUND, or LINKED_ACCOUNT_NOT_FOUND: no linked account with "
        "this id for this user in this environment",
    }
}


def public_base(request: Request, settings: Settings) -> str:
    """ENERGYHUB_PUBLIC_URL, else the address the request arrived at (never its Host)."""
    return settings.public_base_for(request.scope.get("server"))


def linked_account_body(view: LinkedAccountView) -> dict[str, Any]:
    account = view.account
    return {
        "id": account.id,
        "userId": account.user_id,
        "vendor": account.vendor,
        "vendorName": view.vendor.name if view.vendor is not None else account.vendor,
        "deviceType": None if view.vendor is None else view.vendor.device_type.value,
        "status": account.status.value,
        "createdAt": isoformat_utc(account.created_at),
        "revokedAt": None if account.revoked_at is None else isoformat_utc(account.revoked_at),
        "deviceIds": view.device_ids,
    }


@router.post(
    "/link-sessions",
    status_code=201,
    response_model=Envelope[LinkSession],
    responses={
        403: {
            "model": ErrorEnvelope,
            "description": "SANDBOX_ONLY or LIVE_ONLY: `vendor` is not offered in this "
            "key's environment",
        },
        503: {
            "model": ErrorEnvelope,
            "description": "NOT_YET_AVAILABLE: `vendor` cannot be linked on this server yet",
        },
    },
    operation_id="createLinkSession",
    summary="Start linking a user's devices",
)
async def create_link_session(
    body: LinkSessionBody,
    request: Request,
    services: Services,
    context: Context,
    caller: Caller,
) -> Response:
    """A single-use link to the hosted Link UI for one end user, valid for 24 hours: send the
    user to `linkUrl`. The user is created when new. Sandbox keys link simulated vendors,
    live keys real devices."""
    created = await services.linking.create_session(
        caller,
        body.userId,
        body.email,
        body.redirectUri,
        body.vendor,
        public_base(request, services.settings),
    )
    data = {
        "linkUrl": created.url,
        "linkToken": created.token,
        "expiresAt": isoformat_utc(created.session.expires_at),
    }
    return success_response(data, context, caller.environment.value, services.clock, 201)


@router.get(
    "/users/{userIdOrEmail}/linked-accounts",
    response_model=Envelope[LinkedAccounts],
    responses=NOT_FOUND,
    operation_id="listLinkedAccounts",
    summary="List a user's linked accounts",
)
async def list_linked_accounts(
    services: Services, context: Context, caller: Caller, userIdOrEmail: UserRef
) -> Response:
    """A user's linked accounts (their sessions with manufacturers), revoked ones too."""
    views = await services.linking.linked_accounts(caller, userIdOrEmail)
    data = {"items": [linked_account_body(v) for v in views]}
    return success_response(data, context, caller.environment.value, services.clock)


@router.delete(
    "/users/{userId}/linked-accounts/{linkedAccountId}",
    response_model=Envelope[LinkedAccount],
    responses=NOT_FOUND,
    operation_id="revokeLinkedAccount",
    summary="Revoke a linked account",
)
async def revoke_linked_account(
    request: Request,
    services: Services,
    context: Context,
    caller: Caller,
    userId: UserRef,
    linkedAccountId: LinkedAccountId,
) -> Response:
    """Revoke consent: the stored credentials are deleted, the account's devices read as
    unavailable from their next pull and their commands fail, and `device.disconnected` is
    sent for each with a `reconnectionUrl`. Answers the account, now `revoked`."""
    view = await services.linking.revoke(
        caller, userId, linkedAccountId, public_base(request, services.settings)
    )
    return success_response(
        linked_account_body(view), context, caller.environment.value, services.clock
    )
