"""The two envelopes of spec 1.3 with the meta of spec 2.1, serialised once with orjson,
rendered in the request's API version (`domain/versions.py`: error codes, listing items).
The request-id, rate-limit and version headers are added by the gateway to every response."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson
from starlette.responses import Response

from energyhub.api.context import RequestContext
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.errors import ApiError
from energyhub.domain.versions import RULES

JSON = "application/json"


def success_bytes(
    data_json: bytes, context: RequestContext, environment: str, now: datetime
) -> bytes:
    """Splices already serialised `data` into the envelope (the cached read path uses this)."""
    meta = orjson.dumps(
        {
            "requestId": context.request_id,
            "environment": environment,
            "timestamp": isoformat_utc(now),
            "latencyMs": context.latency_ms(),
        }
    )
    return b'{"success":true,"data":' + data_json + b',"meta":' + meta + b"}"


def failure_body(
    error: ApiError,
    code: str,
    details: Mapping[str, Any],
    context: RequestContext,
    path: str,
    clock: Clock,
) -> bytes:
    body: dict[str, Any] = {"code": code, "message": error.message}
    if details:
        body["details"] = details
    return orjson.dumps(
        {
            "success": False,
            "error": body,
            "meta": {
                "requestId": context.request_id,
                "timestamp": isoformat_utc(clock.now()),
                "path": path,
                "latencyMs": context.latency_ms(),
            },
        },
        default=str,
    )


def success_response(
    data: Any, context: RequestContext, environment: str, clock: Clock, status: int = 200
) -> Response:
    return Response(
        success_bytes(orjson.dumps(data), context, environment, clock.now()),
        status_code=status,
        media_type=JSON,
    )


def listing_json(items: Sequence[bytes], page: dict[str, Any]) -> bytes:
    """A page of items already serialised (`representations.list_item_json`), spliced as
    orjson would write the whole."""
    return b'{"items":[' + b",".join(items) + b'],"pagination":' + orjson.dumps(page) + b"}"


def device_listing_response(
    data_json: bytes, context: RequestContext, environment: str, clock: Clock
) -> Response:
    """A page of device bodies (`listing_json`), as the gateway's fast path sends it too."""
    return Response(
        success_bytes(data_json, context, environment, clock.now()),
        status_code=200,
        media_type=JSON,
    )


def failure_response(
    error: ApiError,
    context: RequestContext,
    path: str,
    clock: Clock,
    headers: dict[str, str] | None = None,
) -> Response:
    """The failure envelope, with the code and status of the request's version."""
    code, status, details = RULES[context.version].error(error.code, error.status, error.details)
    return Response(
        failure_body(error, code, details, context, path, clock),
        status_code=status,
        media_type=JSON,
        headers=headers,
    )
