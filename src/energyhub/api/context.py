"""Per-request facts the gateway puts in the ASGI scope for routes and handlers."""

from __future__ import annotations

import itertools
import re
import secrets
import time
from dataclasses import dataclass, field

from starlette.types import Scope

from energyhub.domain.accounts import Principal
from energyhub.domain.versions import ApiVersion

REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
CONTEXT_KEY = "energyhub"


@dataclass(slots=True)
class RequestContext:
    request_id: str
    started: float = field(default_factory=time.perf_counter)
    principal: Principal | None = None
    rate_limit_headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    status: int = 0  # the answer's, once it has started
    route: str | None = None  # the route template, set by the gateway's fast paths
    version: ApiVersion = ApiVersion.V1  # what the answer is rendered in

    def latency_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)


# Unique across processes (random prefix) and cheap (no system call per request).
_ID_PREFIX = "req_" + secrets.token_hex(6)
_ID_COUNTER = itertools.count(1)


def request_id_from(header: bytes | None) -> str:
    """The caller's id when it is well formed (CONTRACT 1), else a new one."""
    if header:
        text = header.decode("latin-1")
        if REQUEST_ID_PATTERN.match(text):
            return text
    return f"{_ID_PREFIX}{next(_ID_COUNTER):010x}"


def context_of(scope: Scope) -> RequestContext:
    found = scope.get("state", {}).get(CONTEXT_KEY)
    if isinstance(found, RequestContext):
        return found
    context = RequestContext(request_id=request_id_from(None))
    scope.setdefault("state", {})[CONTEXT_KEY] = context
    return context
