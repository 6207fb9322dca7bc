"""What the webhook sender needs to make one attempt: a request, its outcome, and the
sender of attempts (the HTTP client in `adapters/`, or a fake in tests)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    """One attempt to deliver: `delivery_id` is the `webhook-id`, constant across retries;
    `body` is the exact JSON bytes that are signed and sent; `environment` ("sandbox" or
    "live") is the endpoint's, which with the client's setting decides what it may reach;
    `previous_secret`, for a day after a rotation, signs too (a second signature)."""

    delivery_id: str
    event_type: str
    url: str
    secret: str = field(repr=False)
    body: bytes
    environment: str
    previous_secret: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """What one attempt did, in the shape of a delivery's `attempts[]` entry. `error` is a
    short human-readable reason, never the secret or the signature."""

    at: datetime
    http_status: int | None
    duration_ms: int
    error: str | None
    response_body: str | None = None  # the start of the receiver's answer, for the dashboard

    @property
    def succeeded(self) -> bool:
        """A 2xx ends a delivery; anything else (3xx included) is retried."""
        return self.http_status is not None and 200 <= self.http_status < 300


class AttemptSender(Protocol):
    """`adapters.webhook_client.WebhookClient`, or a fake in tests."""

    async def send(self, request: WebhookRequest) -> AttemptOutcome: ...


class HostLookup(Protocol):
    """Resolves a host name to its addresses (empty when it does not resolve), so a live
    endpoint whose name points at a private address is refused when it is created."""

    async def addresses(self, host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]: ...
