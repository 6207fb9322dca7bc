"""The ASGI layer in front of FastAPI: request ids, the 64 KiB body limit, API-key
authentication (live keys are refused on the sandbox listener), per-key rate limits and
their headers, the API version of the answer (`energyhub-version`), and the two hot paths
served without entering the framework: cache hits of single-device reads
(`bench/device_read.py`), well-formed pushes (`bench/push.py`) and device list pages with a
plain query (`bench/history.py`). Every API request, fast
or not, first passes the checks of `input_guard` (no NUL character, bodies UTF-8 JSON).
Anything else unusual about a request (a query string, a body that does not validate) goes
on to FastAPI, whose routes define the API and its errors; the fast paths only skip its
layers for the common case."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import orjson
from pydantic import TypeAdapter, ValidationError
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from energyhub.adapters.logs import REQUEST_ID
from energyhub.api.context import CONTEXT_KEY, RequestContext, request_id_from
from energyhub.api.envelope import JSON, failure_response, success_bytes
from energyhub.api.input_guard import JSON_TYPES, body_problem, head_problem
from energyhub.api.observe import RequestObserver, RouteTemplates
from energyhub.api.ratelimit import RateLimiter
from energyhub.api.read_cache import DeviceReadCache
from energyhub.api.representations import action_body
from energyhub.api.routes.actions import push_request, push_status
from energyhub.api.routes.devices import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, device_page_json
from energyhub.api.schemas import PushBody
from energyhub.api.versioning import REQUESTED, VERSION_HEADER, Headers
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import CacheType
from energyhub.domain.errors import (
    ApiError,
    ExpiredToken,
    InternalError,
    PayloadTooLarge,
    RateLimited,
    Unauthorized,
    UnsupportedVersion,
)
from energyhub.domain.versions import SUPPORTED_VERSIONS, ApiVersion
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.devices import DeviceService

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
# "/link/" with its slash: `/link-sessions` is an API route and needs a key
PUBLIC_PREFIXES = (
    "/docs",
    "/redoc",
    "/openapi.json",
    "/healthz",
    "/readyz",
    "/metrics",
    "/link/",
    "/dashboard",
    "/static/",
)
READ_TYPES = {"battery": DeviceType.BATTERY, "ev-charger": DeviceType.EV_CHARGER}
DEVICE_ROUTES = {"battery": "/battery/{deviceId}", "ev-charger": "/ev-charger/{deviceId}"}
LIST_TYPES = {"/battery": DeviceType.BATTERY, "/ev-charger": DeviceType.EV_CHARGER}
EXPEDITE_QUERIES = {
    b"": CacheType.NORMAL,
    b"expedite=false": CacheType.NORMAL,
    b"expedite=0": CacheType.NORMAL,
    b"expedite=true": CacheType.EXPEDITE,
    b"expedite=1": CacheType.EXPEDITE,
}
JSON_HEADERS = [(b"content-type", b"application/json")]
BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})


PUSH_BODY = TypeAdapter(PushBody)
MAX_DEVICE_ID = 64  # as the routes' `DeviceId`


@dataclass(frozen=True, slots=True)
class GatewayDeps:
    accounts: AccountService
    rate_limiter: RateLimiter
    read_cache: DeviceReadCache
    clock: Clock
    actions: ActionService | None = None
    devices: DeviceService | None = None  # device list pages with a plain query
    observer: RequestObserver | None = None  # metrics and access lines, when wired
    version_headers: dict[ApiVersion, Headers] | None = None  # default: `energyhub-version`
    sandbox_port: int | None = None  # a listener for sandbox keys only
    main_address: str = "the main address"  # named when a live key meets that listener


def is_public(path: str) -> bool:
    return path == "/" or path.startswith(PUBLIC_PREFIXES)


class Gateway:
    def __init__(self, app: ASGIApp, deps: GatewayDeps) -> None:
        self.app = app
        self.deps = deps
        self.routes = RouteTemplates(app)  # a metric's route label
        self.version_headers = deps.version_headers or {
            v: [(VERSION_HEADER, v.value.encode())] for v in ApiVersion
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = api_key = length = content_type = version = None
        for name, value in scope["headers"]:
            if name == b"x-api-key":
                api_key = value
            elif name == b"x-request-id":
                request_id = value
            elif name == b"content-length":
                length = value
            elif name == b"content-type":
                content_type = value
            elif name == VERSION_HEADER:
                version = value
        context = RequestContext(request_id=request_id_from(request_id))
        scope.setdefault("state", {})[CONTEXT_KEY] = context
        REQUEST_ID.set(context.request_id)  # for log lines; this request's task only
        try:
            await self._serve(scope, receive, send, context, api_key, length, content_type, version)
        finally:
            if self.deps.observer is not None:
                self.deps.observer.done(scope, context, self.routes)

    async def _serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        context: RequestContext,
        api_key: bytes | None,
        length: bytes | None,
        content_type: bytes | None,
        version: bytes | None,
    ) -> None:
        raw_send = send
        send, started = _with_headers(send, context, self.version_headers)
        api = not is_public(scope["path"])
        requested = None if version is None or not api else REQUESTED.get(version)
        if requested is not None:
            context.version = requested
        try:
            if length is not None or scope["method"] not in BODILESS:
                receive = await _limited_body(scope, receive, length)
            if api:
                principal = await self._authenticate(scope, api_key, context, version)
                context.principal = principal
                decision = await self.deps.rate_limiter.hit(principal)
                context.rate_limit_headers = decision.headers()
                if not decision.allowed:
                    raise RateLimited(retryAfter=decision.retry_after())
                if version is not None and requested is None:
                    raise UnsupportedVersion(supportedVersions=list(SUPPORTED_VERSIONS))
                problem = head_problem(scope["path"], scope["query_string"])
                if problem is not None:
                    raise problem
                if await self._serve_cached_read(scope, context, raw_send):
                    return
                if await self._serve_list(scope, context, raw_send):
                    return
                if scope["method"] not in BODILESS:
                    body = await _read_body(receive)
                    problem = body_problem(content_type, body)
                    if problem is not None and self._routed(scope):
                        raise problem
                    if self._is_fast_push(scope, content_type) and await self._serve_push(
                        scope, body, context, raw_send
                    ):
                        return
                    receive = _replaying(body, receive)
        except ApiError as error:
            await self._fail(error, scope, receive, send, context)
            return
        except Exception:
            log.exception("gateway failure on %s", scope["path"])
            await self._fail(InternalError(), scope, receive, send, context)
            return
        try:
            await self.app(scope, receive, send)
        except Exception:
            if started():
                return  # the app's own handler has logged it and answered 500 already
            log.exception("unhandled error on %s %s", scope["method"], scope["path"])
            await self._fail(InternalError(), scope, receive, send, context)

    async def _authenticate(
        self, scope: Scope, api_key: bytes | None, context: RequestContext, version: bytes | None
    ) -> Principal:
        """The caller; without a version header the answer is in the key's pinned version
        (an expired key's too). On the sandbox listener, live keys are refused."""
        try:
            principal = await self.deps.accounts.authenticate((api_key or b"").decode("latin-1"))
        except ExpiredToken as expired:
            if version is None and expired.key_version is not None:
                context.version = ApiVersion(expired.key_version)
            raise
        if version is None:
            context.version = principal.api_version
        if (
            self.deps.sandbox_port is not None
            and principal.environment is Environment.LIVE
            and (scope.get("server") or ("", None))[1] == self.deps.sandbox_port
        ):
            raise Unauthorized(
                "This address serves sandbox keys only: send live keys to "
                f"{self.deps.main_address}."
            )
        return principal

    async def _serve_cached_read(self, scope: Scope, context: RequestContext, send: Send) -> bool:
        if scope["method"] != "GET" or context.principal is None:
            return False
        parts = scope["path"].split("/")
        if len(parts) != 3 or parts[1] not in READ_TYPES or not parts[2]:
            return False
        cache_type = EXPEDITE_QUERIES.get(scope["query_string"])
        if cache_type is None:
            return False
        now = self.deps.clock.now()
        data = self.deps.read_cache.lookup(
            context.principal, READ_TYPES[parts[1]], parts[2], cache_type, now
        )
        if data is None:
            return False
        body = success_bytes(data, context, context.principal.environment.value, now)
        headers = [
            *JSON_HEADERS,
            (b"content-length", str(len(body)).encode()),
            (b"x-request-id", context.request_id.encode()),
            *context.rate_limit_headers,
            *self.version_headers[context.version],
        ]
        context.status, context.route = 200, DEVICE_ROUTES[parts[1]]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return True

    async def _serve_list(self, scope: Scope, context: RequestContext, send: Send) -> bool:
        """A device list page whose query is plain (`list_query`), answered as the route
        answers it, headers in the same order; any other query goes on to the route."""
        device_type = LIST_TYPES.get(scope["path"])
        if (
            device_type is None
            or scope["method"] != "GET"
            or context.principal is None
            or self.deps.devices is None
        ):
            return False
        query = list_query(scope["query_string"])
        if query is None:
            return False
        principal = context.principal
        data = await device_page_json(
            self.deps.devices, principal, device_type, None, *query, context.version
        )
        now = self.deps.clock.now()
        body = success_bytes(data, context, principal.environment.value, now)
        headers = [
            (b"content-length", str(len(body)).encode()),
            (b"content-type", JSON.encode()),
            (b"x-request-id", context.request_id.encode()),
            *context.rate_limit_headers,
            *self.version_headers[context.version],
        ]
        context.status, context.route = 200, scope["path"]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return True

    def _routed(self, scope: Scope) -> bool:
        """Whether a route takes this method at this path: a request none takes gets the
        router's 404 or 405, whatever its body holds."""
        routes = getattr(getattr(self.app, "router", None), "routes", None)
        if routes is None:
            return True
        return any(route.matches(scope)[0] is Match.FULL for route in routes)

    def _is_fast_push(self, scope: Scope, content_type: bytes | None) -> bool:
        if scope["method"] != "POST" or scope["query_string"] or self.deps.actions is None:
            return False
        parts = scope["path"].split("/")
        if len(parts) != 3 or parts[1] not in READ_TYPES or not 0 < len(parts[2]) <= MAX_DEVICE_ID:
            return False
        return content_type in JSON_TYPES

    async def _serve_push(
        self, scope: Scope, body: bytes, context: RequestContext, send: Send
    ) -> bool:
        """Answers a well-formed push (True); a body that does not validate goes on to
        FastAPI (False), which words the error as for every route. `send` is the server's
        own: the answer carries every header already."""
        try:
            parsed = PUSH_BODY.validate_json(body)
        except ValidationError:
            return False
        assert self.deps.actions is not None
        assert context.principal is not None
        parts = scope["path"].split("/")
        action = await self.deps.actions.push(
            context.principal, READ_TYPES[parts[1]], parts[2], push_request(parsed)
        )
        data = orjson.dumps(action_body(action))
        now = self.deps.clock.now()
        answer = success_bytes(data, context, context.principal.environment.value, now)
        headers = [
            *JSON_HEADERS,
            (b"content-length", str(len(answer)).encode()),
            (b"x-request-id", context.request_id.encode()),
            *context.rate_limit_headers,
            *self.version_headers[context.version],
        ]
        context.status, context.route = push_status(action), DEVICE_ROUTES[parts[1]]
        await send({"type": "http.response.start", "status": context.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})
        return True

    async def _fail(
        self, error: ApiError, scope: Scope, receive: Receive, send: Send, context: RequestContext
    ) -> None:
        extra = (
            {"Retry-After": str(error.details["retryAfter"])}
            if isinstance(error, RateLimited)
            else None
        )
        response = failure_response(error, context, scope["path"], self.deps.clock, extra)
        await response(scope, receive, send)


def list_query(query: bytes) -> tuple[int, int] | None:
    """`offset` and `limit` of a list query made only of those two, each once, in decimal
    digits and in range; None for anything else (the route validates and words it)."""
    found = {b"offset": 0, b"limit": DEFAULT_LIMIT}
    if not query:
        return found[b"offset"], found[b"limit"]
    seen: set[bytes] = set()
    for part in query.split(b"&"):
        name, equals, value = part.partition(b"=")
        if name not in found or name in seen or not equals or not value.isdigit():
            return None
        seen.add(name)
        found[name] = int(value[:8]) if len(value) <= 8 else MAX_OFFSET + 1
    offset, limit = found[b"offset"], found[b"limit"]
    if offset > MAX_OFFSET or not 1 <= limit <= MAX_LIMIT:
        return None
    return offset, limit


def _with_headers(
    send: Send, context: RequestContext, version_headers: dict[ApiVersion, Headers]
) -> tuple[Send, Callable[[], bool]]:
    """`send` adding our headers to every response the app sends, and whether a response
    has started. (Cached reads send theirs complete, without this wrapper.)"""
    began = False

    async def wrapped(message: Message) -> None:
        nonlocal began
        if message["type"] == "http.response.start":
            began = True
            context.status = message["status"]
            headers = list(message.get("headers", []))
            headers.append((b"x-request-id", context.request_id.encode()))
            headers.extend(context.rate_limit_headers)
            headers.extend(version_headers[context.version])
            message = {**message, "headers": headers}
        await send(message)

    return wrapped, lambda: began


async def _limited_body(scope: Scope, receive: Receive, length: bytes | None) -> Receive:
    """Refuses bodies over 64 KiB, by Content-Length or while reading a chunked body."""
    if length is not None:
        if not length.isdigit():
            return receive
        if int(length) > MAX_BODY_BYTES:
            raise PayloadTooLarge()
        return receive
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return receive
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise PayloadTooLarge()
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return _replaying(b"".join(chunks), receive)


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app a body already read, then carries on as `receive`."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
