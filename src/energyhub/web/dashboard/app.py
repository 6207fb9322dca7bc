"""The dashboard's Starlette app: every page module's routes, in an order where the fixed
paths (`/sign-in`) come before the environment's catch-all (`/{env}`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp

from energyhub.config import Settings
from energyhub.web.dashboard import (
    deliveries,
    device,
    device_commands,
    devices,
    keys,
    sandbox_controls,
    sign_in,
    webhooks,
)
from energyhub.web.dashboard.site import DashboardServices, Site, Visitor, back_to
from energyhub.web.pages import page_app


def dashboard_app(services: DashboardServices, settings: Settings) -> ASGIApp:
    """The dashboard, to be mounted at `/dashboard`."""
    site = Site(services, settings)

    def refused_page(status: int) -> Response:
        if status == 404:
            return site.problem(404, "Page not found", "There is no such page.", None)
        return site.problem(status, "Request refused", "This request cannot be answered.", None)

    def refuse(status: int, message: str) -> Response:
        title = "Page not found" if status == 404 else "This request could not be read"
        return site.problem(status, title, message, None)

    routes = [
        *sign_in.routes(site),
        *keys.routes(site),
        *webhooks.routes(site),
        *deliveries.routes(site),
        *devices.routes(site),
        *device.routes(site),
        *device_commands.routes(site),
        *sandbox_controls.routes(site),
        Route("/{env}", site.page(_environment_home)),
    ]
    return page_app(routes, refused_page, refuse)


async def _environment_home(_request: Request, visitor: Visitor) -> Response:
    return back_to(visitor.path("devices"))
