"""What the Link UI and the dashboard share as HTML apps: the Jinja environment, the headers
every page carries, the 303 after a form, and the Starlette app with its own refusals shown as
the app's problem page and NUL refused in front of it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from energyhub.domain.capabilities import DeviceType
from energyhub.services.link_pages import FORM_ERROR
from energyhub.web.nul_guard import NulGuard, Refusal

if TYPE_CHECKING:
    from jinja2 import Environment

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}

DEVICE_TYPE_LABELS = {DeviceType.BATTERY: "Home battery", DeviceType.EV_CHARGER: "EV charger"}
DEVICE_TYPE_NOUNS = {DeviceType.BATTERY: "battery", DeviceType.EV_CHARGER: "EV charger"}


@cache
def templates() -> Environment:
    """The pages' Jinja environment, made (and jinja2 loaded) with the first page served."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals.update(
        device_type_labels={t.value: label for t, label in DEVICE_TYPE_LABELS.items()},
        device_type_nouns={t.value: noun for t, noun in DEVICE_TYPE_NOUNS.items()},
        FORM_ERROR=FORM_ERROR,
    )
    return environment


def static_files() -> StaticFiles:
    return StaticFiles(directory=STATIC)


def html_page(template: str, http_status: int, /, **context: Any) -> HTMLResponse:
    """A page with its headers; positional-only, so `status` may be a template variable."""
    return HTMLResponse(
        templates().get_template(template).render(**context),
        status_code=http_status,
        headers=SECURITY_HEADERS,
    )


def see_other(target: str) -> RedirectResponse:
    """The answer to a form that went through, so reloading the next page sends nothing."""
    return RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)


def page_app(
    routes: Sequence[BaseRoute], refused_page: Callable[[int], Response], refuse: Refusal
) -> ASGIApp:
    """A pages app: Starlette's own refusals (no such page, wrong method, unreadable form) are
    answered with `refused_page(status)`, and a NUL in the path or query with `refuse`."""

    async def http_problem(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        response = refused_page(status)
        if status == 405:
            response.headers["Allow"] = "GET, HEAD, POST"
        return response

    app = Starlette(routes=list(routes), exception_handlers={HTTPException: http_problem})
    app.router.redirect_slashes = False  # a redirect would carry the client's Host
    return NulGuard(app, refuse)
