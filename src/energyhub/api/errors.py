"""Every failure becomes the failure envelope with a catalogue code; never a stack trace."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match

from energyhub.api.context import context_of
from energyhub.api.envelope import failure_response
from energyhub.api.validation_messages import plain_message
from energyhub.domain.clock import Clock
from energyhub.domain.errors import (
    ApiError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
)

log = logging.getLogger(__name__)


def validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    """Pydantic's errors as `{path, message}` (CONTRACT 1), e.g. `query.limit`."""
    found: list[dict[str, str]] = []
    tag = exc.body.get("type") if isinstance(exc.body, dict) else None
    for error in exc.errors():
        loc = [str(part) for part in error.get("loc", ())]
        if len(loc) > 2 and loc[0] == "body" and loc[1] == tag:
            del loc[1]  # a body discriminated on `type` puts the tag in the path
        message = plain_message(error, loc[1:])
        if error.get("type") == "json_invalid":
            message = "Body is not valid JSON: " + str(error.get("ctx", {}).get("error", ""))
        found.append({"path": ".".join(loc), "message": message})
    return found


def install_error_handlers(app: FastAPI, clock: Clock) -> None:
    def respond(
        request: Request, error: ApiError, headers: dict[str, str] | None = None
    ) -> Response:
        return failure_response(error, context_of(request.scope), request.url.path, clock, headers)

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return respond(request, exc)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return respond(request, InvalidRequest(errors=validation_errors(exc)))

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 404:
            return respond(request, NotFound())
        if exc.status_code == 405:
            allowed = allowed_methods(request)
            return respond(
                request,
                MethodNotAllowed(allowed=allowed),
                {"Allow": ", ".join(allowed)},
            )
        if exc.status_code == 413:
            return respond(request, PayloadTooLarge())
        if exc.status_code == 400:
            return respond(request, InvalidRequest(str(exc.detail)))
        return respond(request, InternalError())

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return respond(request, InternalError())

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)


def allowed_methods(request: Request) -> list[str]:
    """Methods of every route matching the path, not only the first (schemathesis ST205)."""
    scope: dict[str, Any] = dict(request.scope)
    methods: set[str] = set()
    pending: list[Any] = list(request.app.router.routes)
    while pending:
        route = pending.pop()
        nested = getattr(route, "original_router", None)  # an included APIRouter
        if nested is not None:
            pending.extend(nested.routes)
            continue
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(scope)[0] is not Match.NONE:
            methods.update(route_methods)
    methods.discard("HEAD")
    return sorted(methods)
