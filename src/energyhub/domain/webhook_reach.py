"""Which addresses a webhook endpoint may reach (`ENERGYHUB_PRIVATE_WEBHOOK_URLS`).

Public addresses always; the loopback of the machine running the service too for sandbox
endpoints under `sandbox` (the default, for a service run on a developer's machine); every
address under `all` (receivers on the operator's own network). A hosted service sets `none`:
otherwise any sandbox key could make the service probe its own loopback ports.

Pure: the HTTP client enforces this after DNS and at connect (`adapters.address_guard`);
endpoint creation refuses what the URL shows (a literal address, `localhost`) and, for a
live endpoint, what its name resolves to then.
"""

from __future__ import annotations

import ipaddress
from enum import StrEnum
from urllib.parse import urlsplit

from energyhub.domain.errors import WebhookUrlNotPublic
from energyhub.domain.webhooks import is_public_address

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class PrivateWebhookUrls(StrEnum):
    """The operator's setting: which endpoints may reach non-public addresses."""

    NONE = "none"
    SANDBOX = "sandbox"
    ALL = "all"


class Reach(StrEnum):
    """What one endpoint may connect to."""

    PUBLIC = "public"
    PUBLIC_OR_LOOPBACK = "public_or_loopback"
    ANY = "any"

    @property
    def allowed(self) -> str:
        """The addresses allowed, in words for error messages."""
        return _ALLOWED[self]


_ALLOWED = {
    Reach.PUBLIC: "only public addresses",
    Reach.PUBLIC_OR_LOOPBACK: "only public addresses and this server's loopback (127.0.0.0/8, ::1)",
    Reach.ANY: "any address",
}


def endpoint_reach(policy: PrivateWebhookUrls, environment: str) -> Reach:
    """What an endpoint of `environment` ("sandbox" or "live") may reach under `policy`."""
    if policy is PrivateWebhookUrls.ALL:
        return Reach.ANY
    if policy is PrivateWebhookUrls.SANDBOX and environment == "sandbox":
        return Reach.PUBLIC_OR_LOOPBACK
    return Reach.PUBLIC


def is_loopback_address(ip: IPAddress) -> bool:
    """127.0.0.0/8 and ::1, also written as an IPv4-mapped IPv6 address."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def may_connect(ip: IPAddress, reach: Reach) -> bool:
    """Whether an endpoint with `reach` may open a connection to `ip`."""
    if reach is Reach.ANY or is_public_address(ip):
        return True
    return reach is Reach.PUBLIC_OR_LOOPBACK and is_loopback_address(ip)


def _host_address(host: str) -> IPAddress | None:
    """The address a URL host certainly stands for without DNS: a literal, or loopback for
    `localhost` and `*.localhost` (RFC 6761 reserves them for it)."""
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return ipaddress.IPv4Address("127.0.0.1")
    try:
        return ipaddress.ip_address(name.split("%", 1)[0])  # an IPv6 zone is not the address
    except ValueError:
        return None


def check_endpoint_url_reach(url: str, reach: Reach, *, field: str = "body.url") -> None:
    """422 `WEBHOOK_URL_NOT_PUBLIC` when the URL's host is an address `reach` forbids. A name
    is looked up by the caller (`check_resolved_reach`) and checked again at every delivery,
    since what it resolves to can change; `url` has passed `validate_endpoint_url`."""
    host = urlsplit(url).hostname
    address = None if host is None else _host_address(host)
    if host is None or address is None or may_connect(address, reach):
        return
    raise _not_public(host, reach, field)


def host_to_resolve(url: str) -> str | None:
    """The URL's host when it is a name DNS must answer for (not a literal address and not
    `localhost`), else None."""
    host = urlsplit(url).hostname
    return host if host is not None and _host_address(host) is None else None


def check_resolved_reach(
    host: str, addresses: list[IPAddress], reach: Reach, *, field: str = "body.url"
) -> None:
    """422 `WEBHOOK_URL_NOT_PUBLIC` when `host` resolves to any address `reach` forbids (a
    name that resolves to nothing passes: it is checked again at every delivery)."""
    if all(may_connect(address, reach) for address in addresses):
        return
    raise _not_public(host, reach, field, resolved=True)


def _not_public(
    host: str, reach: Reach, field: str, *, resolved: bool = False
) -> WebhookUrlNotPublic:
    what = "resolves to an address that is not public" if resolved else "is not a public address"
    return WebhookUrlNotPublic(
        f"The webhook URL's host {host} {what}, and this endpoint may reach "
        f"{reach.allowed}: use a public host name or address (a tunnel can expose a local "
        "receiver). The server's operator decides this with ENERGYHUB_PRIVATE_WEBHOOK_URLS.",
        field=field,
        host=host,
        allowed=reach.value,
    )
