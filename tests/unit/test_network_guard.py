"""The guard that keeps tests on loopback (tests/network_guard.py) refuses before the socket
call: checked here against a fake socket call, so a broken guard sends nothing either."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests import network_guard


@pytest.fixture
def passed_on(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What the guard lets through to the (faked) socket functions."""
    calls: list[Any] = []
    monkeypatch.setattr(network_guard, "_original_connect", lambda _sock, addr: calls.append(addr))
    monkeypatch.setattr(network_guard, "_original_connect_ex", lambda _s, addr: calls.append(addr))
    monkeypatch.setattr(network_guard, "_original_getaddrinfo", lambda *a, **_k: calls.append(a))
    return calls


def test_connections_beyond_loopback_are_refused_and_noted(passed_on: list[Any]) -> None:
    with socket.socket() as v4, socket.socket(socket.AF_INET6) as v6:
        for sock, address in (
            (v4, ("10.0.0.1", 80)),
            (v4, ("8.8.8.8", 53)),
            (v6, ("fd00::1", 80, 0, 0)),
        ):
            with pytest.raises(OSError, match="not loopback"):
                socket.socket.connect(sock, address)
        assert socket.socket.connect_ex(v4, ("192.168.1.1", 80)) != 0
        socket.socket.connect(v4, ("127.0.0.2", 9))
        socket.socket.connect(v6, ("::1", 9, 0, 0))
    assert passed_on == [("127.0.0.2", 9), ("::1", 9, 0, 0)]
    assert len(network_guard.take_violations()) == 4


def test_only_local_names_are_looked_up(passed_on: list[Any]) -> None:
    for name in ("example.com", "hooks.acme.test", b"db.internal"):
        with pytest.raises(socket.gaierror):
            socket.getaddrinfo(name, 80)
    for host in ("localhost", "api.localhost", "127.0.0.1", "10.0.0.1", "", None):
        socket.getaddrinfo(host, 80)  # a literal is no lookup; connecting to it is checked
    assert [call[0] for call in passed_on] == [
        "localhost",
        "api.localhost",
        "127.0.0.1",
        "10.0.0.1",
        "",
        None,
    ]
    assert len(network_guard.take_violations()) == 3
