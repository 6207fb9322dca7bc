"""Webhook rules (CONTRACT 9): event names, delivery states, retry timing, endpoint filters,
signing secrets, endpoint URL checks and which addresses count as public.

Pure: no I/O. The HTTP side lives in `energyhub.adapters.webhook_client`.
"""

from __future__ import annotations

import base64
import ipaddress
import random
import re
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from urllib.parse import urlsplit

from energyhub.domain.errors import InvalidRequest


class DeliveryStatus(StrEnum):
    """A delivery is `pending` until a 2xx (`succeeded`) or the retry schedule runs out
    (`failed`). A resend adds an attempt; it does not create a delivery."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class EventType(StrEnum):
    """The events of spec 6; the name travels in `x-event-type`, never in the body."""

    PUSH_COMPLETED = "push.completed"
    PUSH_FAILED = "push.failed"
    DEVICE_CONNECTED = "device.connected"
    DEVICE_RECONNECTED = "device.reconnected"
    DEVICE_DISCONNECTED = "device.disconnected"


TEST_EVENT = "webhook.test"
"""The `x-event-type` of a test delivery (`POST /webhooks/endpoints/{id}/test`). Not an
`EventType`: no endpoint subscribes to it, and it is never written to the outbox."""


def webhook_test_body(endpoint_id: str, sent_at: str) -> dict[str, object]:
    """The body of a test delivery: flat, like every event's."""
    return {"endpointId": endpoint_id, "sentAt": sent_at, "test": True}


# --- retries ---------------------------------------------------------------------------------
DEFAULT_RETRY_SCHEDULE_S: tuple[float, ...] = (
    5,
    300,
    1800,
    7200,
    18000,
    36000,
    36000,
    36000,
    36000,
)
"""Seconds to wait after the 1st, 2nd, ... failed attempt: about 3 days in all (CONTRACT 9)."""

RETRY_JITTER = 0.10
"""Each delay is moved by up to this fraction either way, so endpoints that failed together
(a receiver outage) are not all retried in the same second."""


def retry_delay(attempts_made: int, schedule: Sequence[float], rng: random.Random) -> float | None:
    """Seconds until the next attempt after `attempts_made` failed attempts, or None when the
    schedule is exhausted (the delivery is then `failed`).

    After the n-th failure the delay is `schedule[n-1]` times a factor drawn uniformly from
    [0.9, 1.1]: jitter is symmetric (+/-10%), so the mean delay is the scheduled one.
    `rng` is injected so tests can seed it."""
    if attempts_made < 1:
        raise ValueError(f"attempts_made must be at least 1, got {attempts_made}")
    if attempts_made > len(schedule):
        return None
    base = float(schedule[attempts_made - 1])
    return base * (1.0 + rng.uniform(-RETRY_JITTER, RETRY_JITTER))


# --- endpoints ---------------------------------------------------------------------------------
def endpoint_accepts(events_filter: Sequence[str] | None, event: EventType | str) -> bool:
    """Whether an endpoint subscribed to `events_filter` gets `event`; None or an empty
    filter means every event (the default of `POST /webhooks/endpoints`)."""
    if not events_filter:
        return True
    return str(event) in events_filter


SECRET_PREFIX = "whsec_"
SECRET_BYTES = 24


def new_signing_secret() -> str:
    """A fresh Standard Webhooks secret: `whsec_` + base64 of 24 random bytes (192 bits)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


ROTATION_OVERLAP = timedelta(hours=24)
"""How long after a rotation the old secret still signs, beside the new one: receivers can
switch to the new secret in their own time without rejecting a delivery."""


def previous_secret_in_use(
    previous: str | None, expires_at: datetime | None, now: datetime
) -> str | None:
    """The old secret while it still signs (until `expires_at`), else None."""
    if previous is None or expires_at is None or now >= expires_at:
        return None
    return previous


MAX_URL_LENGTH = 2048
_ALLOWED_SCHEMES = frozenset({"http", "https"})
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]*))*$", re.IGNORECASE)


def validate_endpoint_url(url: str, *, field: str = "body.url") -> str:
    """The endpoint URL if it is one we can deliver to, else 400 `INVALID_REQUEST` naming
    `field`. Credentials in the URL are refused because they would be stored and shown in
    the dashboard in clear; whether the host is public is checked at delivery (CONTRACT 12),
    not here, since DNS can change after registration."""

    def refuse(reason: str) -> InvalidRequest:
        return InvalidRequest(
            f"Invalid webhook endpoint URL: {reason}.",
            errors=[{"path": field, "message": reason}],
        )

    if not url:
        raise refuse("must not be empty")
    if len(url) > MAX_URL_LENGTH:
        raise refuse(f"must be at most {MAX_URL_LENGTH} characters")
    if _CONTROL_OR_SPACE.search(url):
        raise refuse("must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a port that is not a number in 0-65535
    except ValueError:
        raise refuse("is not a valid URL") from None
    if parts.scheme.lower() not in _ALLOWED_SCHEMES:
        raise refuse("scheme must be http or https")
    if "@" in parts.netloc:
        raise refuse("must not contain credentials (user:password@)")
    host = parts.hostname
    if not host:
        raise refuse("must name a host")
    if port == 0:
        raise refuse("port must be between 1 and 65535")
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise refuse("host is not a valid IPv6 address") from None
    elif _NUMERIC_HOST.match(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            # 127.1 or 2130706433 would reach an address nobody reads in the URL.
            raise refuse("host is not a valid dotted-quad IPv4 address") from None
    return url


# --- addresses -------------------------------------------------------------------------------
_NON_PUBLIC_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated)
        "192.168.0.0/16",
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
    )
)
_NON_PUBLIC_V6 = tuple(
    ipaddress.IPv6Network(n)
    for n in (
        "::/96",  # unspecified, loopback, IPv4-compatible (deprecated)
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard
        "2001::/23",  # IETF protocol assignments, Teredo
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation
        "5f00::/16",  # segment routing SIDs
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def is_public_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a live webhook may connect to `ip`: false for private, loopback, link-local,
    multicast, reserved, unspecified, CGNAT and documentation ranges, and for IPv6 forms
    that embed such an IPv4 address (mapped, 6to4, NAT64). Our own table plus Python's
    `is_global`, so the answer does not shift between Python patch releases."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(embedded)
        if any(ip in net for net in _NON_PUBLIC_V6):
            return False
    elif any(ip in net for net in _NON_PUBLIC_V4):
        return False
    return ip.is_global and not (
        ip.is_multicast
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_unspecified
    )
