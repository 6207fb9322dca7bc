"""Handshake password checks that a reconnect storm cannot turn into a long queue: a stored
hash with a proof by a key held here is checked by its proof (an HMAC, `auth.ProofKeys`);
otherwise scrypt runs in a small thread pool (hashlib releases the GIL, so the event loop
keeps serving and the cores share the work); a password verified recently is remembered per
charge point, so its reconnects cost no scrypt; a charge point id or a source address that
keeps failing is refused for a while without hashing, so wrong passwords cannot pin the
cores."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import hashlib
import hmac
import math
import os
import secrets
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from energyhub.domain.clock import Clock
from energyhub.drivers.ocpp.auth import ProofKeys, verify_password

ADDRESS_FACTOR = 10  # a source address may fail this many times more than one charge point
_MAX_KEYS = 10_000  # failure records kept before stale ones are swept
_M_MMAP_THRESHOLD = -3  # glibc mallopt parameter


class Verdict(Enum):
    ACCEPTED = "accepted"
    REFUSED = "refused"  # wrong password
    THROTTLED = "throttled"  # too many failures: not checked at all


@dataclass(frozen=True, slots=True)
class CredentialPolicy:
    cache_s: float = 300.0  # a verified password is remembered this long per charge point
    failures: int = 5  # failed handshakes per charge point id within the window
    window_s: float = 60.0
    threads: int = 0  # scrypt runs at once (16 MiB each); 0: one per core


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: Verdict
    retry_after_s: int = 0  # THROTTLED: when the next try is checked again
    proof: str | None = None  # ACCEPTED by scrypt: the proof to store beside the hash


@dataclass(frozen=True, slots=True)
class _Verified:
    mark: bytes  # HMAC of the password under the process's key: never the password
    stored: str  # the hash it matched: a new password (a new hash) forgets it
    at: datetime


class FailureWindow:
    """At most `limit` failures per key within `window`: it keeps the times of the last
    `limit` ones, and a key whose oldest of them is younger than the window waits."""

    def __init__(self, limit: int, window: timedelta) -> None:
        self._limit = max(1, limit)
        self._window = window
        self._seen: dict[str, deque[datetime]] = {}

    def wait_s(self, key: str, now: datetime) -> float:
        times = self._seen.get(key)
        if times is None or len(times) < self._limit:
            return 0.0
        return max(0.0, (times[0] + self._window - now).total_seconds())

    def hit(self, key: str, now: datetime) -> None:
        times = self._seen.get(key)
        if times is None:
            if len(self._seen) >= _MAX_KEYS:
                self._sweep(now)
            times = self._seen[key] = deque(maxlen=self._limit)
        times.append(now)

    def forget(self, key: str) -> None:
        self._seen.pop(key, None)

    def _sweep(self, now: datetime) -> None:
        for key in [k for k, t in self._seen.items() if t[-1] <= now - self._window]:
            del self._seen[key]


class CredentialChecker:
    """Checks the password a charger presents against its stored hash (read from the
    database at every handshake, so a changed or removed charge point is never let in on
    an old proof). `hashes` counts scrypt runs (tests and benches read it).

    The remembered proofs: one per charge point id, at most one per charger that passed a
    handshake in this process (so no more than the chargers commissioned). A password is
    accepted without scrypt only when the charge point id, the HMAC of the presented
    password and the stored hash it matched are all the same as now, within `cache_s` of
    the scrypt run that verified it; a removed charge point is refused before (its row is
    gone), and a changed password changes the stored hash."""

    def __init__(
        self,
        clock: Clock,
        policy: CredentialPolicy | None = None,
        proofs: ProofKeys | None = None,
    ) -> None:
        self.policy = policy or CredentialPolicy()
        self.proofs = proofs
        self._clock = clock
        self._key = secrets.token_bytes(32)
        self._ttl = timedelta(seconds=self.policy.cache_s)
        window = timedelta(seconds=self.policy.window_s)
        self._by_id = FailureWindow(self.policy.failures, window)
        self._by_address = FailureWindow(self.policy.failures * ADDRESS_FACTOR, window)
        self._verified: dict[str, _Verified] = {}
        self._running: dict[tuple[str, bytes], asyncio.Task[bool]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.hashes = 0

    async def check(
        self, charge_point_id: str, password: str, stored: str, address: str | None
    ) -> Outcome:
        now = self._clock.now()
        mark = hmac.new(self._key, password.encode(), hashlib.sha256).digest()
        known = self._verified.get(charge_point_id)
        if known is not None and (known.stored != stored or now - known.at >= self._ttl):
            del self._verified[charge_point_id]
            known = None
        if known is not None and hmac.compare_digest(known.mark, mark):
            return Outcome(Verdict.ACCEPTED)  # even while throttled: it proved itself
        wait = self._by_id.wait_s(charge_point_id, now)
        if address is not None:
            wait = max(wait, self._by_address.wait_s(address, now))
        if wait > 0:
            return Outcome(Verdict.THROTTLED, max(1, math.ceil(wait)))
        if known is not None:  # this hash matched another password: no scrypt needed
            self._failed(charge_point_id, address, now)
            return Outcome(Verdict.REFUSED)
        proven = None if self.proofs is None else self.proofs.proven(password, stored)
        if proven is not None:
            self._settle(charge_point_id, stored, mark, address, now, ok=proven)
            return Outcome(Verdict.ACCEPTED if proven else Verdict.REFUSED)
        ok = await self._verify(charge_point_id, password, stored, mark, address)
        if not ok:
            return Outcome(Verdict.REFUSED)
        proof = None if self.proofs is None else self.proofs.proof(password)
        return Outcome(Verdict.ACCEPTED, proof=proof)

    async def _verify(
        self, charge_point_id: str, password: str, stored: str, mark: bytes, address: str | None
    ) -> bool:
        """One scrypt run per (hash, password) at a time; it completes and is remembered
        even when the charger gave up waiting (its retry then finds it)."""
        key = (stored, mark)
        task = self._running.get(key)
        if task is None:
            task = asyncio.ensure_future(
                self._hash(charge_point_id, password, stored, mark, address)
            )
            self._running[key] = task
            task.add_done_callback(lambda _done: self._running.pop(key, None))
        return await asyncio.shield(task)

    async def _hash(
        self, charge_point_id: str, password: str, stored: str, mark: bytes, address: str | None
    ) -> bool:
        self.hashes += 1
        loop = asyncio.get_running_loop()
        ok = await loop.run_in_executor(self._executor(), verify_password, password, stored)
        self._settle(charge_point_id, stored, mark, address, self._clock.now(), ok=ok)
        return ok

    def _settle(
        self,
        charge_point_id: str,
        stored: str,
        mark: bytes,
        address: str | None,
        now: datetime,
        *,
        ok: bool,
    ) -> None:
        """A check's outcome: a proven password remembered, a wrong one counted."""
        if ok:
            self._verified[charge_point_id] = _Verified(mark, stored, now)
            self._by_id.forget(charge_point_id)
        else:
            self._failed(charge_point_id, address, now)

    def _failed(self, charge_point_id: str, address: str | None, now: datetime) -> None:
        self._by_id.hit(charge_point_id, now)
        if address is not None:
            self._by_address.hit(address, now)

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            _release_large_blocks()
            threads = self.policy.threads or os.cpu_count() or 1
            self._pool = ThreadPoolExecutor(threads, thread_name_prefix="ocpp-scrypt")
        return self._pool

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _release_large_blocks() -> None:
    """Blocks of 1 MiB and more are mapped and unmapped by themselves (glibc). Without this,
    glibc raises its mapping threshold after the first such block is freed, and every
    thread that ran scrypt keeps its 16 MiB in its malloc arena for good: 16 MiB of RSS per
    pool thread. A no-op on other C libraries."""
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, 1024 * 1024)
