"""The webhook endpoints page: add, remove, send a test event, and show or rotate an
endpoint's signing secret (shown only on the page the form that asked for it redirects to,
once)."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.deliveries import WebhookEndpoint
from energyhub.domain.errors import ApiError, EndpointLimitReached
from energyhub.domain.webhooks import EventType
from energyhub.web.dashboard.site import Site, Visitor, back_to, flash_of, notice_of

_EVENTS = {e.value for e in EventType}


def routes(site: Site) -> list[Route]:
    post = ["POST"]
    return [
        Route("/{env}/webhooks", site.page(partial(_webhooks, site)), methods=["GET", "POST"]),
        Route(
            "/{env}/webhooks/{endpoint_id}/reveal", site.page(partial(_reveal, site)), methods=post
        ),
        Route(
            "/{env}/webhooks/{endpoint_id}/rotate", site.page(partial(_rotate, site)), methods=post
        ),
        Route(
            "/{env}/webhooks/{endpoint_id}/rotate-now",
            site.page(partial(_rotate, site, expire_old_now=True)),
            methods=post,
        ),
        Route("/{env}/webhooks/{endpoint_id}/test", site.page(partial(_test, site)), methods=post),
        Route(
            "/{env}/webhooks/{endpoint_id}/remove", site.page(partial(_remove, site)), methods=post
        ),
    ]


async def _show(site: Site, request: Request, visitor: Visitor) -> Response:
    """The endpoints page, with what the form before redirected here with: an endpoint
    whose secret to show (and why), or the form's errors and values."""
    flash = flash_of(request)
    revealed: WebhookEndpoint | None = None
    if isinstance(flash.get("revealed"), str):
        try:
            revealed = await site.services.webhooks.get_endpoint(
                visitor.principal, flash["revealed"]
            )
        except ApiError:
            revealed = None  # removed meanwhile
    errors = flash.get("errors")
    values = flash.get("values")
    return site.render(
        "webhooks.html",
        200,
        visitor,
        title="Webhook endpoints",
        section="webhooks",
        endpoints=await site.services.webhooks.list_endpoints(visitor.principal),
        revealed=revealed,
        revealed_reason=flash.get("reason"),
        errors=errors if isinstance(errors, dict) else {},
        values=values if isinstance(values, dict) else {"url": "", "description": "", "events": ""},
        event_types=[e.value for e in EventType],
        notice=notice_of(request),
    )


async def _webhooks(site: Site, request: Request, visitor: Visitor) -> Response:
    if request.method != "POST":
        return await _show(site, request, visitor)
    fields: dict[str, str] = request.state.fields
    values = {
        "url": fields.get("url", "").strip(),
        "description": fields.get("description", "").strip(),
        "events": fields.get("events", ""),
    }
    try:
        created = await site.services.webhooks.create_endpoint(
            visitor.principal,
            values["url"],
            values["description"] or None,
            _events(values["events"]) or None,
        )
    except EndpointLimitReached as error:  # not the URL's fault: said above the list
        return _back(site, request, visitor, errors={"endpoints": error.message}, values=values)
    except ApiError as error:
        return _back(site, request, visitor, errors={"url": error.message}, values=values)
    return _back(site, request, visitor, revealed=created.id, reason="new")


def _back(site: Site, request: Request, visitor: Visitor, **outcome: Any) -> Response:
    """Every form of the page answers 303 to it (reloading it sends nothing again); the
    page shows `outcome` once: a secret to reveal (read again), or errors and values."""
    return site.after_form(request, visitor.path("webhooks"), **outcome)


async def _reveal(site: Site, request: Request, visitor: Visitor) -> Response:
    endpoint_id = request.path_params["endpoint_id"]
    endpoint = await site.services.webhooks.get_endpoint(visitor.principal, endpoint_id)
    return _back(site, request, visitor, revealed=endpoint.id, reason="revealed")


async def _rotate(
    site: Site, request: Request, visitor: Visitor, *, expire_old_now: bool = False
) -> Response:
    """A new secret; the old one signs beside it for a day, or stops now (a leaked one)."""
    endpoint_id = request.path_params["endpoint_id"]
    endpoint = await site.services.webhooks.rotate_secret(
        visitor.principal, endpoint_id, expire_old_now=expire_old_now
    )
    return _back(site, request, visitor, revealed=endpoint.id, reason="rotated")


async def _test(site: Site, request: Request, visitor: Visitor) -> Response:
    """A `webhook.test` delivery now; its page shows how the endpoint answered."""
    delivery = await site.services.webhooks.send_test(
        visitor.principal, request.path_params["endpoint_id"]
    )
    return back_to(f"{visitor.path('deliveries')}/{quote(delivery.id, safe='')}", "test-sent")


async def _remove(site: Site, request: Request, visitor: Visitor) -> Response:
    await site.services.webhooks.delete_endpoint(
        visitor.principal, request.path_params["endpoint_id"]
    )
    return back_to(visitor.path("webhooks"), "endpoint-removed")


def _events(raw: str) -> list[EventType]:
    return [EventType(v) for v in raw.split("\n") if v in _EVENTS]
