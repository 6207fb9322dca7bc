"""The API keys page: the environment's keys, newest first, with their names and when each
was last used; a new key is shown once, on the page its form redirects to."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.accounts import KEY_NAME_MAX_LENGTH, key_name
from energyhub.domain.versions import DEPRECATED_SINCE
from energyhub.web.dashboard.site import Site, Visitor, back_to, flash_of, notice_of


def routes(site: Site) -> list[Route]:
    return [
        Route("/{env}/keys", site.page(partial(_keys, site)), methods=["GET", "POST"]),
        Route("/{env}/keys/{key_id}/revoke", site.page(partial(_revoke, site)), methods=["POST"]),
    ]


async def _keys(site: Site, request: Request, visitor: Visitor) -> Response:
    if request.method == "POST":
        return await _create(site, request, visitor)
    accounts = site.services.accounts
    listed = [
        k
        for k in await accounts.list_keys(visitor.member.account_id)
        if k.environment is visitor.environment
    ]
    listed.sort(key=lambda k: k.created_at, reverse=True)
    now = site.services.clock.now()
    flash = flash_of(request)
    return site.render(
        "keys.html",
        200,
        visitor,
        title="API keys",
        section="keys",
        keys=[(k, k.usable_at(now)) for k in listed],
        deprecated=DEPRECATED_SINCE,
        new_key=flash.get("newKey"),
        new_key_name=flash.get("name"),
        name_error=flash.get("nameError"),
        name_value=flash.get("nameValue", ""),
        name_max=KEY_NAME_MAX_LENGTH,
        notice=notice_of(request),
    )


async def _create(site: Site, request: Request, visitor: Visitor) -> Response:
    raw = request.state.fields.get("name", "")
    try:
        name = key_name(raw)
    except ValueError as bad:
        message = f"{str(bad)[0].upper()}{str(bad)[1:]}."
        return site.after_form(
            request, visitor.path("keys"), nameError=message, nameValue=raw[:200]
        )
    created = await site.services.accounts.create_key(
        visitor.member.account_id, visitor.environment, name=name
    )
    return site.after_form(request, visitor.path("keys"), newKey=created.key, name=name)


async def _revoke(site: Site, request: Request, visitor: Visitor) -> Response:
    key_id = request.path_params["key_id"]
    revoked = await site.services.accounts.revoke_key(key_id, visitor.member.account_id)
    return back_to(visitor.path("keys"), "key-revoked" if revoked else "key-gone")
