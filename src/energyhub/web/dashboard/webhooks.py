"""The webhook endpoints page: add, remove, send a test event, and show or rotate an
endpoint's signing secret (shown only in the answer to the POST that asked for it)."""

from __future__ import annotations

from functools import partial
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.deliveries import WebhookEndpoint
from energyhub.domain.errors import ApiError, EndpointLimitReached
from energyhub.domain.webhooks import EventType
from energyhub.web.dashboard.site import Site, Visitor, back_to, notice_of

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


async def _show(
    site: Site,
    request: Request,
    visitor: Visitor,
    status: int = 200,
    *,
    revealed: WebhookEndpoint | None = None,
    reason: str | None = None,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
) -> Response:
    """The endpoints page; `revealed` shows that endpoint's secret (`reason`: why)."""
    return site.render(
        "webhooks.html",
        status,
        visitor,
        title="Webhook endpoints",
        section="webhooks",
        endpoints=await site.services.webhooks.list_endpoints(visitor.principal),
        revealed=revealed,
        revealed_reason=reason,
        errors=errors or {},
        values=values or {"url": "", "description": "", "events": ""},
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
        return await _show(
            site, request, visitor, error.status, errors={"endpoints": error.message}, values=values
        )
    except ApiError as error:
        return await _show(
            site, request, visitor, 400, errors={"url": error.message}, values=values
        )
    return await _show(site, request, visitor, 201, revealed=created, reason="new")


async def _reveal(site: Site, request: Request, visitor: Visitor) -> Response:
    endpoint_id = request.path_params["endpoint_id"]
    endpoint = await site.services.webhooks.get_endpoint(visitor.principal, endpoint_id)
    return await _show(site, request, visitor, revealed=endpoint, reason="revealed")


async def _rotate(
    site: Site, request: Request, visitor: Visitor, *, expire_old_now: bool = False
) -> Response:
    """A new secret; the old one signs beside it for a day, or stops now (a leaked one)."""
    endpoint_id = request.path_params["endpoint_id"]
    endpoint = await site.services.webhooks.rotate_secret(
        visitor.principal, endpoint_id, expire_old_now=expire_old_now
    )
    return await _show(site, request, visitor, revealed=endpoint, reason="rotated")


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
