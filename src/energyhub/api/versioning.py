"""The HTTP side of API versions: the `energyhub-version` header a request may send, and
the headers every answer carries for the version it was rendered in: `energyhub-version`,
and on a deprecated version `Deprecation` (RFC 9745) and, once a date is set, `Sunset`
(RFC 8594). What differs in the bodies is `domain/versions.py`'s."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

from fastapi import FastAPI

from energyhub.domain.versions import DEPRECATED_SINCE, SUPPORTED_VERSIONS, ApiVersion

VERSION_HEADER = b"energyhub-version"
# The header's values, as bytes: the gateway looks the raw value up without decoding it.
REQUESTED: Mapping[bytes, ApiVersion] = {v.value.encode(): v for v in ApiVersion}

Headers = list[tuple[bytes, bytes]]


def version_headers(sunsets: Mapping[ApiVersion, datetime]) -> dict[ApiVersion, Headers]:
    """Each version's response headers, built once."""
    table: dict[ApiVersion, Headers] = {}
    for version in ApiVersion:
        headers = [(VERSION_HEADER, version.value.encode())]
        deprecated = DEPRECATED_SINCE.get(version)
        if deprecated is not None:
            headers.append((b"deprecation", f"@{int(deprecated.timestamp())}".encode()))
        sunset = sunsets.get(version)
        if sunset is not None:
            headers.append((b"sunset", http_date(sunset).encode()))
        table[version] = headers
    return table


def http_date(moment: datetime) -> str:
    """`Sat, 01 Jan 2028 00:00:00 GMT`; a naive moment is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_datetime(moment.astimezone(UTC), usegmt=True)


def document_version_header(app: FastAPI) -> None:
    """`/openapi.json` (which documents 1.0) names the `energyhub-version` header on every
    response of the API; built once, when the document is first asked for."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = build()
        header = {
            "description": "The API version this answer is rendered in (docs/versioning.md).",
            "schema": {"type": "string", "enum": list(SUPPORTED_VERSIONS)},
        }
        for operations in document.get("paths", {}).values():
            for operation in operations.values():
                for response in operation.get("responses", {}).values():
                    response.setdefault("headers", {})["energyhub-version"] = header
        return document

    app.openapi = openapi  # type: ignore[method-assign]
