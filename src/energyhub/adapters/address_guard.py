"""The address checks of webhook sessions (see `webhook_client`): kept apart because they
subclass aiohttp's resolver, and aiohttp loads only with the first delivery.

Two checks, both before any connection is opened, so a refused address costs no connect
and its answer cannot depend on what listens there:
- `ReachResolver` drops every address a name resolves to that the endpoint may not reach;
- `guarded_socket(reach)` refuses the exact address being connected to (aiohttp does not
  call the resolver for a literal IP host, so this covers `http://10.0.0.5/` too).
The socket factory also notes each address connected to, so a failed attempt can be told
to have gone to a non-public address (whose failures are recorded with one generic text).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.connector import AddrInfoType

from energyhub.domain.webhook_reach import IPAddress, Reach, may_connect


class AddressNotAllowedError(OSError):
    """A connection would have gone to an address the endpoint may not reach (private,
    loopback, link-local or otherwise non-public). An OSError so aiohttp carries it inside
    its connector errors."""


def _ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


class ReachResolver(AbstractResolver):
    """Wraps a resolver and keeps only the addresses `reach` allows; refuses the name when
    none is left. The refusal does not list the addresses: they may be the operator's.

    aiohttp caches what this returns (ttl_dns_cache), so the cache only ever holds addresses
    that passed the check. The inner resolver may be shared with other sessions."""

    def __init__(self, inner: AbstractResolver, reach: Reach) -> None:
        self._inner = inner
        self._reach = reach

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        kept = [
            r
            for r in results
            if (ip := _ip(r["host"])) is not None and may_connect(ip, self._reach)
        ]
        if not kept:
            raise AddressNotAllowedError(
                f"{host} resolves to no address this endpoint may reach ({self._reach.allowed})"
            )
        return kept

    async def close(self) -> None:
        """Nothing to release: the inner resolver stays its owner's to close."""


_attempted: ContextVar[list[IPAddress] | None] = ContextVar("webhook_attempted", default=None)


@contextmanager
def noting_connections() -> Iterator[list[IPAddress]]:
    """The addresses the guarded sockets of this task (and the tasks it starts meanwhile,
    such as aiohttp's happy-eyeballs race) are created for, while the block runs."""
    attempted: list[IPAddress] = []
    token = _attempted.set(attempted)
    try:
        yield attempted
    finally:
        _attempted.reset(token)


def guarded_socket(reach: Reach) -> Callable[[AddrInfoType], socket.socket]:
    """aiohttp's socket factory for a session of `reach`: the last check before connect()."""

    def make(addr_info: AddrInfoType) -> socket.socket:
        family, type_, proto, _, sockaddr = addr_info
        ip = _ip(str(sockaddr[0]))
        if ip is None or not may_connect(ip, reach):
            raise AddressNotAllowedError(
                f"address {sockaddr[0]} is not one this endpoint may reach ({reach.allowed})"
            )
        attempted = _attempted.get()
        if attempted is not None:
            attempted.append(ip)
        return socket.socket(family=family, type=type_, proto=proto)

    return make
