"""Handshake password checks under a reconnect storm (issue 16, point 6), over real
websockets: a verified password is remembered per charge point for a while (a reconnect
costs no scrypt), a new password forgets it, failed handshakes are throttled per charge
point id and per source address without hashing, and scrypt runs in a thread pool while
the event loop keeps answering HTTP."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from energyhub.domain.clock import FakeClock
from energyhub.drivers.ocpp.auth import hash_password
from energyhub.drivers.ocpp.credentials import CredentialChecker, CredentialPolicy
from energyhub.persistence.tables import ocpp_charge_points
from tests.integration.ocpp_support import PASSWORD, WAIT, Service, basic, running_service

POLICY = CredentialPolicy(cache_s=300, failures=3, window_s=60, threads=2)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with running_service(tmp_path / "ocpp.db") as running:
        yield running


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 11, 25, 12, 0, tzinfo=UTC))


@pytest.fixture
def checker(service: Service, clock: FakeClock) -> CredentialChecker:
    checker = CredentialChecker(clock, POLICY)
    service.container.ocpp.credentials = checker
    return checker


async def _handshake(service: Service, cp_id: str, password: str) -> tuple[int, str | None]:
    """(101, None) when the websocket opened, else (status, Retry-After)."""
    try:
        ws = await connect(
            f"{service.ws_base}/{cp_id}",
            subprotocols=["ocpp1.6"],  # type: ignore[list-item]
            additional_headers=basic(cp_id, password),
            open_timeout=WAIT,
        )
    except InvalidStatus as refused:
        return refused.response.status_code, refused.response.headers.get("retry-after")
    await ws.close()
    return 101, None


async def test_a_reconnect_within_the_cache_time_costs_no_scrypt(
    service: Service, checker: CredentialChecker, clock: FakeClock
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-CACHE")
    assert await _handshake(service, "CP-CACHE", PASSWORD) == (101, None)
    assert checker.hashes == 1
    clock.advance(POLICY.cache_s - 1)
    assert await _handshake(service, "CP-CACHE", PASSWORD) == (101, None)
    assert checker.hashes == 1  # remembered
    assert await _handshake(service, "CP-CACHE", "wrong-password-123456") == (401, None)
    assert checker.hashes == 1  # the hash matched another password: refused without scrypt
    clock.advance(2)  # the remembered proof is older than the cache time
    assert await _handshake(service, "CP-CACHE", PASSWORD) == (101, None)
    assert checker.hashes == 2


async def test_a_new_password_forgets_the_remembered_one(
    service: Service, checker: CredentialChecker
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-ROTATE")
    assert await _handshake(service, "CP-ROTATE", PASSWORD) == (101, None)
    new_password = "a-new-password-0123456"
    async with service.container.engine.begin() as connection:
        await connection.execute(
            update(ocpp_charge_points)
            .where(ocpp_charge_points.c.charge_point_id == "CP-ROTATE")
            .values(password_hash=hash_password(new_password))
        )
    assert await _handshake(service, "CP-ROTATE", PASSWORD) == (401, None)
    assert await _handshake(service, "CP-ROTATE", new_password) == (101, None)
    assert checker.hashes == 3
    async with service.container.engine.begin() as connection:  # the charge point is removed
        await connection.execute(
            ocpp_charge_points.delete().where(ocpp_charge_points.c.charge_point_id == "CP-ROTATE")
        )
    assert await _handshake(service, "CP-ROTATE", new_password) == (404, None)


async def test_failed_handshakes_are_throttled_without_hashing_until_the_window_passes(
    service: Service, checker: CredentialChecker, clock: FakeClock
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-GUESS")
    for attempt in range(POLICY.failures):
        assert await _handshake(service, "CP-GUESS", f"guess-{attempt}-0123456789") == (401, None)
    assert checker.hashes == POLICY.failures
    clock.advance(10)
    assert await _handshake(service, "CP-GUESS", "guess-x-0123456789") == (429, "50")
    assert await _handshake(service, "CP-GUESS", PASSWORD) == (429, "50")  # not checked either
    assert checker.hashes == POLICY.failures
    clock.advance(POLICY.window_s - 10)
    assert await _handshake(service, "CP-GUESS", PASSWORD) == (101, None)
    assert checker.hashes == POLICY.failures + 1


async def test_a_verified_charger_is_not_locked_out_by_someone_guessing_its_password(
    service: Service, checker: CredentialChecker
) -> None:
    caller = await service.live_caller()
    await service.commission(caller, "CP-TARGET")
    assert await _handshake(service, "CP-TARGET", PASSWORD) == (101, None)
    for attempt in range(POLICY.failures + 2):
        status, _ = await _handshake(service, "CP-TARGET", f"guess-{attempt}-0123456789")
        assert status == (401 if attempt < POLICY.failures else 429)
    assert await _handshake(service, "CP-TARGET", PASSWORD) == (101, None)
    assert checker.hashes == 1


async def test_failures_from_one_address_across_charge_points_are_throttled(
    service: Service, checker: CredentialChecker
) -> None:
    caller = await service.live_caller()
    limit = POLICY.failures * 10
    ids = [f"CP-SPRAY-{i}" for i in range(limit // POLICY.failures + 1)]
    for cp_id in ids:
        await service.commission(caller, cp_id)
    for cp_id in ids[:-1]:  # each id stays under its own limit; the address reaches its own
        for attempt in range(POLICY.failures):
            assert await _handshake(service, cp_id, f"guess-{attempt}-0123456789") == (401, None)
    assert checker.hashes == limit
    status, retry_after = await _handshake(service, ids[-1], PASSWORD)
    assert (status, retry_after) == (429, "60")
    assert checker.hashes == limit


async def test_passwords_hash_in_a_thread_pool_while_the_loop_answers_http(
    service: Service, checker: CredentialChecker
) -> None:
    caller = await service.live_caller()
    fleet = [f"CP-STORM-{i}" for i in range(12)]
    for cp_id in fleet:
        await service.commission(caller, cp_id, password=f"{cp_id}-own-password")
    storm = asyncio.gather(
        *(_handshake(service, cp_id, f"{cp_id}-own-password") for cp_id in fleet)
    )
    health: list[float] = []
    pool_threads: set[int] = set()
    while not storm.done() and len(health) < 200:
        sent = time.perf_counter()
        assert (await service.client.get("/healthz")).status_code == 200
        health.append(time.perf_counter() - sent)
        pool_threads |= {
            t.ident or 0 for t in threading.enumerate() if t.name.startswith("ocpp-scrypt")
        }
    results = await storm
    assert results == [(101, None)] * len(fleet)
    assert checker.hashes == len(fleet)
    assert len(pool_threads) == POLICY.threads  # the hashes shared the pool's threads
    assert len(health) >= 3, "HTTP was not answered while the chargers' passwords hashed"
    assert sorted(health)[len(health) // 2] < 0.5


async def test_a_fleet_with_its_own_passwords_is_let_in_only_by_each_ones_own(
    service: Service, checker: CredentialChecker
) -> None:
    """Distinct passwords connect at once, one scrypt run each; right after, with every one
    remembered, a wrong password (another charger's included) is refused, and a changed
    password (a new stored hash) makes the remembered one worthless."""
    caller = await service.live_caller()
    fleet = {f"CP-OWN-{i}": f"CP-OWN-{i}-its-own-password" for i in range(16)}
    for cp_id, password in fleet.items():
        await service.commission(caller, cp_id, password=password)
    connected = await asyncio.gather(*(_handshake(service, c, p) for c, p in fleet.items()))
    assert connected == [(101, None)] * len(fleet)
    assert checker.hashes == len(fleet)
    ids = list(fleet)
    for cp_id, other in zip(ids, ids[1:] + ids[:1], strict=True):
        assert await _handshake(service, cp_id, fleet[other]) == (401, None)
    assert await _handshake(service, ids[-1], fleet[ids[-1]] + "x") == (401, None)
    assert checker.hashes == len(fleet)  # refused against the remembered proof, no scrypt
    changed = "CP-OWN-0-a-new-password"
    async with service.container.engine.begin() as connection:
        await connection.execute(
            update(ocpp_charge_points)
            .where(ocpp_charge_points.c.charge_point_id == ids[0])
            .values(password_hash=hash_password(changed))
        )
    assert await _handshake(service, ids[0], fleet[ids[0]]) == (401, None)
    assert await _handshake(service, ids[0], changed) == (101, None)
    assert await _handshake(service, ids[1], fleet[ids[1]]) == (101, None)  # still remembered
    assert checker.hashes == len(fleet) + 2


async def test_a_charger_offering_compression_gets_plain_frames(service: Service) -> None:
    """permessage-deflate is declined: a connection that compresses would keep ~40 KB of
    zlib state for as long as it lives."""
    caller = await service.live_caller()
    await service.commission(caller, "CP-DEFLATE")
    async with connect(
        f"{service.ws_base}/CP-DEFLATE",
        subprotocols=["ocpp1.6"],  # type: ignore[list-item]
        additional_headers=basic("CP-DEFLATE", PASSWORD),
        open_timeout=WAIT,
        compression="deflate",
    ) as ws:
        assert ws.response is not None
        assert "sec-websocket-extensions" not in ws.response.headers
        assert ws.protocol.extensions == []


_POOL_MEMORY = """
import asyncio, sys
from datetime import UTC, datetime
from energyhub.domain.clock import FakeClock
from energyhub.drivers.ocpp.credentials import CredentialChecker, CredentialPolicy

def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024

async def main(hashes: list[str]) -> None:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    checker = CredentialChecker(clock, CredentialPolicy(threads=2))
    before = rss_mb()
    outcomes = await asyncio.gather(
        *(checker.check(f"CP{i}", "pool-memory-password", h, None) for i, h in enumerate(hashes))
    )
    assert all(o.verdict.value == "accepted" for o in outcomes) and checker.hashes == 8
    print(rss_mb() - before)
    await checker.close()

asyncio.run(main(sys.argv[1:]))
"""


def test_the_password_pool_threads_keep_no_scrypt_memory() -> None:
    """scrypt takes 16 MiB a run; a pool thread must give it back, not keep it in its malloc
    arena (a real process: RSS is the process's)."""
    hashes = [hash_password("pool-memory-password") for _ in range(8)]  # 8 salts
    grown = subprocess.run(
        [sys.executable, "-c", _POOL_MEMORY, *hashes],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert float(grown.stdout) < 8, f"RSS grew {grown.stdout.strip()} MB over 8 checks in 2 threads"
