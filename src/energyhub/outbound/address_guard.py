"""The address checks of guarded webhook sessions (see `webhook_client`): kept apart
because they subclass aiohttp's resolver, and aiohttp loads only with the first delivery."""

from __future__ import annotations

import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.connector import AddrInfoType

from energyhub.domain.webhooks import is_public_address
from energyhub.outbound.webhook_client import _PRIVATE_HINT, NonPublicAddressError


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class PublicOnlyResolver(AbstractResolver):
    """Wraps a resolver and keeps only public addresses; refuses the name when none is left.

    aiohttp caches what this returns (ttl_dns_cache), so the cache only ever holds addresses
    that passed the check. The inner resolver may be shared with the unguarded session."""

    def __init__(self, inner: AbstractResolver) -> None:
        self._inner = inner

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        public: list[ResolveResult] = []
        refused: list[str] = []
        for result in results:
            ip = _ip(result["host"])
            if ip is not None and is_public_address(ip):
                public.append(result)
            else:
                refused.append(result["host"])
        if not public:
            shown = ", ".join(dict.fromkeys(refused)) or "nothing"
            raise NonPublicAddressError(
                f"{host} resolves only to private addresses ({shown}); {_PRIVATE_HINT}"
            )
        return public

    async def close(self) -> None:
        """Nothing to release: the inner resolver stays its owner's to close."""


def public_only_socket(addr_info: AddrInfoType) -> socket.socket:
    """aiohttp's socket factory for the guarded session: the last check before connect()."""
    family, type_, proto, _, sockaddr = addr_info
    ip = _ip(str(sockaddr[0]))
    if ip is None or not is_public_address(ip):
        raise NonPublicAddressError(f"address {sockaddr[0]} is private; {_PRIVATE_HINT}")
    return socket.socket(family=family, type=type_, proto=proto)
