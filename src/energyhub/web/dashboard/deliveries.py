"""The webhook deliveries pages: the list (by endpoint and status, paged), one delivery with
its attempts and body, and a resend."""

from __future__ import annotations

import json
from functools import partial
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.webhooks import DeliveryStatus
from energyhub.web.dashboard.site import (
    PAGE_SIZE,
    Site,
    Visitor,
    back_to,
    notice_of,
    page_number,
)

_STATUSES = {s.value for s in DeliveryStatus}


def routes(site: Site) -> list[Route]:
    return [
        Route("/{env}/deliveries", site.page(partial(_deliveries, site))),
        Route("/{env}/deliveries/{delivery_id}", site.page(partial(_delivery, site))),
        Route(
            "/{env}/deliveries/{delivery_id}/resend",
            site.page(partial(_resend, site)),
            methods=["POST"],
        ),
    ]


async def _deliveries(site: Site, request: Request, visitor: Visitor) -> Response:
    webhooks = site.services.webhooks
    query = request.query_params
    status_name = query.get("status", "")
    status = DeliveryStatus(status_name) if status_name in _STATUSES else None
    endpoint_id = query.get("endpoint") or None
    number = page_number(query.get("page"))
    listed, total = await webhooks.list_deliveries(
        visitor.principal, endpoint_id, status, (number - 1) * PAGE_SIZE, PAGE_SIZE
    )
    return site.render(
        "deliveries.html",
        200,
        visitor,
        title="Webhook deliveries",
        section="deliveries",
        deliveries=listed,
        total=total,
        page=number,
        pages=max(1, -(-total // PAGE_SIZE)),
        status=status.value if status else "",
        statuses=[s.value for s in DeliveryStatus],
        endpoint_id=endpoint_id or "",
        endpoints=await webhooks.list_endpoints(visitor.principal),
        notice=notice_of(request),
    )


async def _delivery(site: Site, request: Request, visitor: Visitor) -> Response:
    found = await site.services.webhooks.get_delivery(
        visitor.principal, request.path_params["delivery_id"]
    )
    return site.render(
        "delivery.html",
        200,
        visitor,
        title=f"Delivery {found.id}",
        section="deliveries",
        delivery=found,
        body=found.body,  # exactly the signed bytes: a receiver can check a signature on it
        pretty=_pretty(found.body),
        notice=notice_of(request),
    )


async def _resend(site: Site, request: Request, visitor: Visitor) -> Response:
    delivery_id = request.path_params["delivery_id"]
    await site.services.webhooks.resend(visitor.principal, delivery_id)
    return back_to(f"{visitor.path('deliveries')}/{quote(delivery_id, safe='')}", "resent")


def _pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2, sort_keys=True)
    except ValueError:
        return body
