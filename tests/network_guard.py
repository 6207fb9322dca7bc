"""Tests talk to 127.0.0.0/8 and ::1 only, ever: not even to show that an address is refused.

`install()` wraps `socket.connect`/`connect_ex` and `socket.getaddrinfo` in this process:
a connection to any other address, or a DNS lookup of a name other than `localhost`, is
refused before anything is sent and noted; `checked()` fails the test that caused it (the
autouse fixture in conftest.py). Code under test that resolves names gets a stub resolver
instead (see tests/integration/test_webhook_client.py). Processes the tests start run
without this guard: what they are given to reach is 127.0.0.1 by construction.

`loopback_nat(mapping)` lets a test give the code a public address and have the connection
land on a local server, so the paths taken only for public addresses run with real HTTP.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex
_original_getaddrinfo = socket.getaddrinfo
_violations: list[str] = []
_lock = threading.Lock()
_installed = False


def is_loopback(host: object) -> bool:
    text = host.decode() if isinstance(host, bytes) else str(host)
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _refuse(what: str) -> None:
    with _lock:
        _violations.append(what)


def _allowed(sock: socket.socket, address: Any) -> bool:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return True  # Unix sockets and the like stay on this machine
    return is_loopback(address[0])


def _connect(self: socket.socket, address: Any) -> None:
    if not _allowed(self, address):
        _refuse(f"connect to {address!r}")
        raise OSError(errno.ENETUNREACH, f"test network guard: {address!r} is not loopback")
    _original_connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    if not _allowed(self, address):
        _refuse(f"connect_ex to {address!r}")
        return errno.ENETUNREACH
    return _original_connect_ex(self, address)


def _is_local_name(host: object) -> bool:
    if host is None:
        return True
    text = (host.decode() if isinstance(host, bytes) else str(host)).rstrip(".").lower()
    if text in ("", "localhost") or text.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(text.split("%", 1)[0])  # a literal: no lookup leaves the machine
    except ValueError:
        return False
    return True


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local_name(host):
        _refuse(f"DNS lookup of {host!r}")
        raise socket.gaierror(socket.EAI_NONAME, f"test network guard: no DNS for {host!r}")
    return _original_getaddrinfo(host, port, *args, **kwargs)


def install() -> None:
    """Wraps the socket functions once per process."""
    global _installed
    if _installed:
        return
    socket.socket.connect = _connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _getaddrinfo
    _installed = True


def take_violations() -> list[str]:
    """What tried to leave loopback since the last call (and forgets it)."""
    with _lock:
        found, _violations[:] = list(_violations), []
    return found


@contextmanager
def checked() -> Iterator[None]:
    """Fails the test when anything tried to leave loopback while it ran."""
    take_violations()
    yield
    found = take_violations()
    if found:
        pytest.fail(f"tried to reach beyond 127.0.0.0/8 and ::1: {found}", pytrace=False)


@contextmanager
def loopback_nat(mapping: dict[str, int]) -> Iterator[list[tuple[str, int]]]:
    """Connections to `mapping`'s IPv4 addresses (any port) go to 127.0.0.1 at the mapped
    port instead: nothing is sent to them. Yields the addresses and ports connected to, as
    the code under test gave them."""
    seen: list[tuple[str, int]] = []
    wrapped_connect = socket.socket.connect
    wrapped_connect_ex = socket.socket.connect_ex

    def redirected(address: Any) -> Any:
        if isinstance(address, tuple) and address[0] in mapping:
            seen.append((address[0], address[1]))
            return ("127.0.0.1", mapping[address[0]])
        return address

    def connect(self: socket.socket, address: Any) -> None:
        wrapped_connect(self, redirected(address))

    def connect_ex(self: socket.socket, address: Any) -> int:
        return wrapped_connect_ex(self, redirected(address))

    patched: list[tuple[str, Callable[..., Any]]] = [
        ("connect", connect),
        ("connect_ex", connect_ex),
    ]
    for name, function in patched:
        setattr(socket.socket, name, function)
    try:
        yield seen
    finally:
        socket.socket.connect = wrapped_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = wrapped_connect_ex  # type: ignore[method-assign]
