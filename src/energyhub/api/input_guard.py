"""What the gateway refuses before any route (or fast path) sees a request: the NUL
character anywhere a value could come from (PostgreSQL cannot store it, SQLite can: refused
on both alike), and request bodies that are not UTF-8 JSON.

The checks are scans for a byte or two on the common path; only a request that contains
one of them is parsed further, to name the fields in `details.errors`."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import orjson

from energyhub.domain.errors import ApiError, InvalidRequest, NotFound, UnsupportedMediaType

NUL = "\x00"
NUL_MESSAGE = "contains the NUL character (U+0000), which no field accepts: remove it"
JSON_TYPES = frozenset(
    {
        b"application/json",
        b"application/json; charset=utf-8",
        b"application/json;charset=utf-8",
        b"application/json; charset=UTF-8",
    }
)
"""The usual spellings of a JSON content type, taken without parsing the header."""


def head_problem(path: str, query: bytes) -> ApiError | None:
    """A NUL in the path (404: no id contains one) or in the query string (400)."""
    if NUL in path:
        return NotFound("No such resource: paths and ids never contain the NUL character.")
    if query and (b"%00" in query or b"\x00" in query):
        names = [
            name
            for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True)
            if NUL in name or NUL in value
        ]
        if names:
            return _nul_refused([f"query.{_shown(name)}" for name in dict.fromkeys(names)])
    return None


def body_problem(content_type: bytes | None, body: bytes) -> ApiError | None:
    """A body that is not JSON by its content type (415), not UTF-8, or that holds a NUL
    character in a key or a string (400). An empty body is left to the route."""
    if not body:
        return None
    if content_type not in JSON_TYPES and not is_json_type(content_type):
        return UnsupportedMediaType(contentType=(content_type or b"").decode("latin-1"))
    if b"\x00" in body:  # UTF-16 and UTF-32 text; never in UTF-8 JSON
        return _not_utf8()
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return _not_utf8()
    if b"\\u0000" in body:
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None  # the route words the syntax error
        paths = list(_nul_paths(parsed, "body"))
        if paths:
            return _nul_refused(paths)
    return None


def is_json_type(content_type: bytes | None) -> bool:
    """`application/json` or `application/<anything>+json`, with no charset or UTF-8."""
    if not content_type:
        return False
    media, _, parameters = content_type.decode("latin-1").partition(";")
    media = media.strip().lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        return False
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            return False
    return True


def _nul_paths(value: Any, path: str) -> Any:
    if isinstance(value, str):
        if NUL in value:
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            if NUL in key:
                yield f"{path}.{_shown(key)}"
            else:
                yield from _nul_paths(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nul_paths(item, f"{path}.{index}")


def _shown(name: str) -> str:
    return name.replace(NUL, "\\u0000")


def _nul_refused(paths: list[str]) -> InvalidRequest:
    return InvalidRequest(
        f"{paths[0]} {NUL_MESSAGE}" + (f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""),
        errors=[{"path": path, "message": NUL_MESSAGE} for path in paths],
    )


def _not_utf8() -> InvalidRequest:
    return InvalidRequest(
        "The body is not UTF-8: send JSON encoded as UTF-8.",
        errors=[{"path": "body", "message": "not UTF-8: send JSON encoded as UTF-8"}],
    )
