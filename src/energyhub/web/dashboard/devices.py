"""The devices pages: the environment's devices, paged, and one device with its state, its
last 24 hours as a chart and its recent actions."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from energyhub.domain.capabilities import DeviceType
from energyhub.web.chart import line_chart
from energyhub.web.dashboard.site import PAGE_SIZE, Site, Visitor, page_number

RECENT_ACTIONS = 10


def routes(site: Site) -> list[Route]:
    return [
        Route("/{env}/devices", site.page(partial(_devices, site))),
        Route("/{env}/devices/{device_id}", site.page(partial(_device, site))),
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
        devices=listed.devices,
        total=listed.total,
        page=number,
        pages=max(1, -(-listed.total // PAGE_SIZE)),
    )


async def _device(site: Site, request: Request, visitor: Visitor) -> Response:
    found, history = await site.services.history.last_day(
        visitor.principal, request.path_params["device_id"]
    )
    recent, _ = await site.services.actions.list(
        visitor.principal, found.id, None, 0, RECENT_ACTIONS
    )
    return site.render(
        "device.html",
        200,
        visitor,
        title=f"{found.vendor} {found.model}",
        section="devices",
        device=found,
        is_battery=found.type is DeviceType.BATTERY,
        state_rows=_state_rows(found.state),
        chart=line_chart(history),
        actions=recent,
    )


def _state_rows(state: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for name, value in state.items():
        if isinstance(value, dict):
            shown = " ".join(f"{v}" for v in value.values())
        else:
            shown = json.dumps(value) if isinstance(value, bool) or value is None else str(value)
        rows.append((name, shown))
    return rows
