"""The probes and the metrics an operator's tools read, without an API key: `/readyz` (the
database answers and its migrations are at head) for a load balancer, and `/metrics`
(Prometheus text; behind a bearer token when ENERGYHUB_METRICS_TOKEN is set). `/healthz`
(the process is up) is the app's own route."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

log = logging.getLogger(__name__)
READINESS_TIMEOUT_S = 3.0
JSON = "application/json"


def operations_router(
    revision: Callable[[], Awaitable[str | None]],
    head: str,
    metrics: Callable[[], bytes] | None,
    metrics_type: str,
    metrics_token: str | None,
) -> APIRouter:
    """`revision()` reads the database's migration revision (None: never migrated), ready at
    `head`; `metrics()` renders the exposition text of type `metrics_type`."""
    router = APIRouter(include_in_schema=False)

    @router.get("/readyz")
    async def readyz() -> Response:
        try:
            found = await asyncio.wait_for(revision(), READINESS_TIMEOUT_S)
        except Exception as failure:  # unreachable, refused, timed out: not ready
            log.warning("readiness: the database does not answer: %r", failure)
            return _not_ready(f"the database does not answer ({type(failure).__name__})")
        if found != head:
            return _not_ready(
                f"the database's migrations are at {found or 'none'}, not at {head}: "
                "run `energyhub migrate`"
            )
        return Response(b'{"status":"ready"}', media_type=JSON)

    @router.get("/metrics")
    async def metrics_text(request: Request) -> Response:
        if metrics_token is not None:
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {metrics_token}".encode()):
                return Response(
                    b'{"status":"unauthorized","reason":"send Authorization: Bearer <the '
                    b'ENERGYHUB_METRICS_TOKEN value>"}',
                    status_code=401,
                    media_type=JSON,
                    headers={"www-authenticate": "Bearer"},
                )
        if metrics is None:
            return Response(b"", media_type=metrics_type)
        return Response(metrics(), media_type=metrics_type)

    return router


def _not_ready(reason: str) -> Response:
    return Response(
        orjson.dumps({"status": "not ready", "reason": reason}),
        status_code=503,
        media_type=JSON,
    )
