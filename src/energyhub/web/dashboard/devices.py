"""The devices page: the environment's devices, paged (one device's page: `device.py`)."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.web.dashboard.device_view import LocalTime
from energyhub.web.dashboard.site import PAGE_SIZE, Site, Visitor, page_number


def routes(site: Site) -> list[Route]:
    return [
        Route("/{env}/devices", site.page(partial(_devices, site))),
    ]


async def _devices(site: Site, request: Request, visitor: Visitor) -> Response:
    number = page_number(request.query_params.get("page"))
    listed = await site.services.devices.list_page(
        visitor.principal, [], None, (number - 1) * PAGE_SIZE, PAGE_SIZE
    )
    return site.render(
        "devices.html",
        200,
        visitor,
        title="Devices",
        section="devices",
        devices=[(d, LocalTime.of(d)) for d in listed.devices],
        total=listed.total,
        page=number,
        pages=max(1, -(-listed.total // PAGE_SIZE)),
    )
