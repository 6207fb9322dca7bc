"""OpenAPI response documentation shared by routes."""

from __future__ import annotations

from typing import Any

from energyhub.api.schemas import ErrorEnvelope

COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorEnvelope,
        "description": "INVALID_REQUEST: malformed body or query; UNSUPPORTED_VERSION: an "
        "energyhub-version header other than 1.0 or legacy",
    },
    401: {"model": ErrorEnvelope, "description": "UNAUTHORIZED or EXPIRED_TOKEN"},
    404: {"model": ErrorEnvelope, "description": "NOT_FOUND or a resource's *_NOT_FOUND"},
    405: {"model": ErrorEnvelope, "description": "METHOD_NOT_ALLOWED"},
    413: {"model": ErrorEnvelope, "description": "PAYLOAD_TOO_LARGE: body over 64 KiB"},
    415: {
        "model": ErrorEnvelope,
        "description": "UNSUPPORTED_MEDIA_TYPE: a body not sent as application/json (UTF-8)",
    },
    429: {"model": ErrorEnvelope, "description": "RATE_LIMITED; see Retry-After"},
    500: {"model": ErrorEnvelope, "description": "INTERNAL_ERROR"},
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorEnvelope} for status in statuses}
