"""The API keys page: the environment's keys, newest first; a new key is shown once, in the
answer to the POST that made it."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.versions import DEPRECATED_SINCE
from energyhub.web.dashboard.site import Site, Visitor, back_to, notice_of


def routes(site: Site) -> list[Route]:
    return [
        Route("/{env}/keys", site.page(partial(_keys, site)), methods=["GET", "POST"]),
        Route("/{env}/keys/{key_id}/revoke", site.page(partial(_revoke, site)), methods=["POST"]),
    ]


async def _keys(site: Site, request: Request, visitor: Visitor) -> Response:
    accounts = site.services.accounts
    new_key: str | None = None
    if request.method == "POST":
        created = await accounts.create_key(visitor.member.account_id, visitor.environment)
        new_key = created.key
    listed = [
        k
        for k in await accounts.list_keys(visitor.member.account_id)
        if k.environment is visitor.environment
    ]
    listed.sort(key=lambda k: k.created_at, reverse=True)
    now = site.services.clock.now()
    return site.render(
        "keys.html",
        201 if new_key else 200,
        visitor,
        title="API keys",
        section="keys",
        keys=[(k, k.usable_at(now)) for k in listed],
        deprecated=DEPRECATED_SINCE,
        new_key=new_key,
        notice=notice_of(request),
    )


async def _revoke(site: Site, request: Request, visitor: Visitor) -> Response:
    key_id = request.path_params["key_id"]
    revoked = await site.services.accounts.revoke_key(key_id, visitor.member.account_id)
    return back_to(visitor.path("keys"), "key-revoked" if revoked else "key-gone")
