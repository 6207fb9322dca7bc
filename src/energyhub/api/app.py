"""The FastAPI application: routes, error handlers and the gateway, nothing global."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from fastapi import Depends, FastAPI
from starlette.responses import Response

import energyhub
from energyhub.api.deps import ApiServices, reject_unknown_query
from energyhub.api.docs_pages import install_docs
from energyhub.api.errors import install_error_handlers
from energyhub.api.gateway import Gateway, GatewayDeps
from energyhub.api.observe import RequestObserver
from energyhub.api.openapi_document import describe_document
from energyhub.api.ratelimit import RateLimiter
from energyhub.api.routes import (
    actions,
    devices,
    linking,
    sandbox,
    schedules,
    sessions,
    strategies,
    users,
    webhooks,
)
from energyhub.api.routes.docs import COMMON_ERRORS
from energyhub.api.versioning import document_version_header, version_headers
from energyhub.domain.versions import ApiVersion

DESCRIPTION = """Read and control batteries and EV chargers through one API.

Every request carries an API key in the `x-api-key` header: `sk_test_` keys reach the
sandbox of simulated devices, `sk_live_` keys real hardware. Every response is an envelope:
`{success, data, meta}` or `{success: false, error: {code, message, details}, meta}`.

This document describes API version `1.0`. Each key is pinned to a version; a request may
pick one with the `energyhub-version` header (`1.0` or `legacy`, an older variant kept for
existing clients), and every response names the version it was rendered in with the same
header (an unknown value: 400 `UNSUPPORTED_VERSION`)."""


def create_app(
    services: ApiServices,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
) -> FastAPI:
    app = FastAPI(
        title="energyhub",
        version=energyhub.__version__,
        description=DESCRIPTION,
        responses=COMMON_ERRORS,
        lifespan=lifespan,
        dependencies=[Depends(reject_unknown_query)],
        redirect_slashes=False,  # `/battery/` is 404, not a redirect built from the Host
        docs_url=None,  # served by install_docs, with local assets
        redoc_url=None,
    )
    install_docs(app)
    app.state.services = services
    install_error_handlers(app, services.clock)
    document_version_header(app)
    describe_document(app, services.settings.public_url)
    for module in (devices, actions, users, sandbox, webhooks, linking):
        app.include_router(module.router)
    app.include_router(sessions.router)
    app.include_router(strategies.router)
    app.include_router(schedules.router_for(services.settings.schedules))

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    return app


def with_gateway(
    app: FastAPI,
    services: ApiServices,
    rate_limiter: RateLimiter,
    observer: RequestObserver | None = None,
    main_address: str | None = None,
) -> Gateway:
    """The gateway in front of the whole app (outside FastAPI's own middleware), so cached
    reads are answered before any framework code runs. `main_address` is named to live keys
    that reach the sandbox listener (ENERGYHUB_SANDBOX_PORT)."""
    settings = services.settings
    sunsets = {} if settings.legacy_sunset is None else {ApiVersion.LEGACY: settings.legacy_sunset}
    return Gateway(
        app,
        GatewayDeps(
            accounts=services.accounts,
            rate_limiter=rate_limiter,
            read_cache=services.read_cache,
            clock=services.clock,
            actions=services.actions,
            devices=services.devices,
            observer=observer,
            version_headers=version_headers(sunsets),
            sandbox_port=settings.sandbox_port,
            main_address=main_address or "the main address",
        ),
    )
