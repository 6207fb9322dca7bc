"""Resolves a webhook endpoint's host name when the endpoint is created, so a live endpoint
whose name points at a private address is refused then, not only at its first delivery."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from energyhub.domain.webhook_reach import IPAddress

LOOKUP_TIMEOUT_S = 3.0
"""A name that does not answer within this is let through: every delivery checks again."""


class DnsHostLookup:
    """The system resolver (getaddrinfo), as the webhook client's connections use it."""

    def __init__(self, timeout_s: float = LOOKUP_TIMEOUT_S) -> None:
        self._timeout_s = timeout_s

    async def addresses(self, host: str) -> list[IPAddress]:
        """Every address `host` resolves to; none when it does not resolve in time."""
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, None, type=socket.SOCK_STREAM), self._timeout_s
            )
        except (OSError, TimeoutError, UnicodeError):
            return []
        found: list[IPAddress] = []
        for *_, sockaddr in infos:
            try:
                address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            except ValueError:
                continue
            if address not in found:
                found.append(address)
        return found
