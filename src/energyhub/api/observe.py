"""What the gateway records when a request ends: the HTTP metrics by route template, and an
access line (ENERGYHUB_ACCESS_LOG) except for the probes (/healthz, /readyz, /metrics)."""

from __future__ import annotations

import logging
import re
import time
from typing import Protocol

from starlette.routing import Mount, compile_path
from starlette.types import Scope

from energyhub.api.context import RequestContext

access = logging.getLogger("energyhub.access")
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})
UNMATCHED = "unmatched"  # a path no route serves (a bounded label, never the path itself)


class RequestMetrics(Protocol):
    def request(self, method: str, route: str, status: int, seconds: float) -> None: ...


class RequestObserver:
    def __init__(self, metrics: RequestMetrics | None, access_log: bool) -> None:
        self._metrics = metrics
        self._access_log = access_log

    def done(self, scope: Scope, context: RequestContext, routes: RouteTemplates) -> None:
        route = context.route or routes.of(scope)
        seconds = time.perf_counter() - context.started
        status = context.status or 500
        if self._metrics is not None:
            self._metrics.request(scope["method"], route, status, seconds)
        if self._access_log and route not in PROBES:
            access.info(
                "%s %s %d %.1f ms",
                scope["method"],
                scope["path"],
                status,
                seconds * 1000,
                extra={"method": scope["method"], "route": route, "status": status},
            )


class RouteTemplates:
    """The template of the route that served a request (`/battery/{deviceId}`), or of the
    API route that would have: the gateway answers some requests (401, 429, 413...) before
    the app runs. Those are API paths, matched against the API's templates in the order
    the app matches them (compiled on first use)."""

    def __init__(self, app: object) -> None:
        self._app = app
        self._compiled: list[tuple[re.Pattern[str], str]] | None = None

    def of(self, scope: Scope) -> str:
        route = scope.get("route")
        if isinstance(route, Mount):
            return route.path + "/{path}"
        if route is not None:
            root: str = scope.get("root_path", "")
            return root + str(getattr(route, "path", UNMATCHED))
        path: str = scope["path"]
        for pattern, template in self._templates():
            if pattern.match(path):
                return template
        return UNMATCHED

    def _templates(self) -> list[tuple[re.Pattern[str], str]]:
        if self._compiled is None:
            routes = getattr(self._app, "routes", [])
            self._compiled = [(compile_path(path)[0], path) for path in _paths(routes, "")]
        return self._compiled


def _paths(routes: list[object], prefix: str) -> list[str]:
    """The paths of `routes`, in order, through FastAPI's included routers (their prefix
    added). Never the OpenAPI document: building it costs ~8 MB that a process keeps."""
    found: list[str] = []
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            context = getattr(route, "include_context", None)
            inner = prefix + str(getattr(context, "prefix", "") or "")
            found.extend(_paths(list(getattr(included, "routes", [])), inner))
        elif not isinstance(route, Mount) and isinstance(getattr(route, "path", None), str):
            found.append(prefix + str(getattr(route, "path", "")))
    return found
