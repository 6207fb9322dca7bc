"""The HTTP edge of a real `energyhub serve` process. Request heads: one over 32 KiB is
answered 431 without the server keeping it, one that does not arrive within
ENERGYHUB_HEAD_TIMEOUT_S is closed, and normal requests (kept-alive ones, idle past that
timeout, and OCPP websockets on the same port) are unaffected. Hosts: without
ENERGYHUB_PUBLIC_URL, links use the address the request arrived at, never its `Host`."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.integration.ocpp_support import PASSWORD, connect_charger
from tests.processes import Service, run_cli, start_service

HEAD_TIMEOUT_S = 1.0
SLACK_S = 3.0  # a loaded machine's event loop may answer late; the old server never closed
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    workdir = tmp_path_factory.mktemp("heads")
    started = start_service(
        f"sqlite+aiosqlite:///{workdir / 'heads.db'}",
        workdir,
        "--no-demo",
        env={"ENERGYHUB_HEAD_TIMEOUT_S": str(HEAD_TIMEOUT_S)},
    )
    try:
        yield started
    finally:
        started.stop()


def _address(service: Service) -> tuple[str, int]:
    host, port = service.base.removeprefix("http://").split(":")
    return host, int(port)


def _rss_bytes(service: Service) -> int:
    for line in Path(f"/proc/{service.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _read_all(sock: socket.socket, timeout: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and when it closed (monotonic)."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received, time.monotonic()


def _send_header_of(sock: socket.socket, size: int) -> None:
    """A request line and one header field `size` bytes long, never ended: the head goes on."""
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ")
    chunk = b"a" * MIB
    sent = 0
    try:
        while sent < size:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed by the server after its answer


def test_a_64_mib_header_is_answered_431(service: Service) -> None:
    with socket.create_connection(_address(service)) as sock:
        _send_header_of(sock, 64 * MIB)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"\r\n\r\n")
        answer, _ = _read_all(sock, 10)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert b"\r\nenergyhub-version: 1.0\r\n" in answer, answer[:300]
    assert b"32 KiB" in answer


def test_half_sent_large_heads_do_not_pin_memory(service: Service) -> None:
    before = _rss_bytes(service)
    sockets = [socket.create_connection(_address(service)) for _ in range(8)]
    try:
        for sock in sockets:
            _send_header_of(sock, 16 * MIB)  # each left unfinished, the connection open
        during = _rss_bytes(service)
        answers = [_read_all(sock, 10)[0] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
    assert all(a.startswith(b"HTTP/1.1 431 ") for a in answers), [a[:40] for a in answers]
    # 8 x 16 MiB stayed in the old server's memory; a bounded head keeps at most one read
    assert during - before < 24 * MIB, (before, during)


def test_a_head_over_32_kib_in_one_piece_is_refused_and_one_under_it_is_served(
    service: Service,
) -> None:
    over = httpx.get(f"{service.base}/healthz", headers={"x-filler": "a" * 33 * 1024})
    assert over.status_code == 431
    under = httpx.get(f"{service.base}/healthz", headers={"x-filler": "a" * 16 * 1024})
    assert under.status_code == 200


def test_a_half_sent_head_is_closed_within_the_timeout(service: Service) -> None:
    with socket.create_connection(_address(service)) as sock:
        began = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer, closed = _read_all(sock, 10)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"\r\nenergyhub-version: 1.0\r\n" in answer, answer[:300]
    assert HEAD_TIMEOUT_S * 0.9 <= closed - began < HEAD_TIMEOUT_S + SLACK_S


def test_a_head_trickled_a_byte_at_a_time_is_closed_within_the_timeout(
    service: Service,
) -> None:
    with socket.create_connection(_address(service)) as sock:
        began = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        sock.settimeout(0.2)
        answer = None
        while answer is None and time.monotonic() - began < 10:
            try:
                sock.sendall(b"X")  # new bytes every 0.2 s: the deadline is for the whole head
                answer = sock.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                answer = b""
        closed = time.monotonic()
    assert answer is not None, "the server kept a trickled head open for 10 s"
    assert closed - began < HEAD_TIMEOUT_S + SLACK_S


def test_a_connection_that_sends_nothing_is_closed_within_the_timeout(service: Service) -> None:
    with socket.create_connection(_address(service)) as sock:
        began = time.monotonic()
        answer, closed = _read_all(sock, 10)
    assert answer == b""
    assert closed - began < HEAD_TIMEOUT_S + SLACK_S


def test_kept_alive_connections_idle_past_the_head_timeout_still_serve(service: Service) -> None:
    with httpx.Client(base_url=service.base) as client:
        first = client.get("/healthz")
        time.sleep(HEAD_TIMEOUT_S * 2)  # idle between requests: uvicorn's 5 s keep-alive rules
        second = client.get("/healthz")
        assert first.status_code == second.status_code == 200
        assert client.get("/battery/x").json()["error"]["code"] == "UNAUTHORIZED"


@dataclass
class _Address:
    ws_base: str


def _energyhub(service: Service, *args: str) -> str:
    """The CLI on the service's database."""
    return run_cli(service.log.parent / "heads.db", *args)


async def test_ocpp_chargers_connect_on_the_same_port(service: Service) -> None:
    account = json.loads(_energyhub(service, "accounts", "create", "--name", "Ws", "--json"))
    _energyhub(
        service, "devices", "add-ocpp", "--account", account["accountId"], "--user", "u-1",
        "--charge-point-id", "CP-HEADS", "--password", PASSWORD, "--json",
    )  # fmt: skip
    ws_base = service.base.replace("http://", "ws://") + "/ocpp"
    charger = await connect_charger(_Address(ws_base), "CP-HEADS")  # type: ignore[arg-type]
    try:
        await charger.sim.boot()  # answered over the websocket, or it raises
    finally:
        await charger.close()


def test_links_use_the_address_the_request_arrived_at_not_its_host(service: Service) -> None:
    account = json.loads(_energyhub(service, "accounts", "create", "--name", "H", "--json"))
    key = json.loads(
        _energyhub(service, "keys", "create", "--account", account["accountId"], "--env", "test",
                   "--json")
    )["key"]  # fmt: skip
    hostile = {"host": "evil.example", "x-api-key": key}
    created = httpx.post(f"{service.base}/link-sessions", json={"userId": "u"}, headers=hostile)
    assert created.status_code == 201, created.text
    assert created.json()["data"]["linkUrl"].startswith(f"{service.base}/link/")
    entry = httpx.get(f"{service.base}/dashboard", headers=hostile)
    assert entry.status_code == 307
    assert entry.headers["location"] == "/dashboard/"
