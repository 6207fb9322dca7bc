"""Rate limits and revocation across two `energyhub serve` processes sharing PostgreSQL and
Redis (`ENERGYHUB_REDIS_URL`), with real processes:

- a key's per-minute limit holds for the key whatever process answers: N requests split
  over both processes let exactly L through (200) and refuse the other N - L with 429
  `RATE_LIMITED` (counters kept in each process would let up to 2 L through);
- a key revoked in one process (through its dashboard, as a member would) is refused by that
  process at once and by the other within 1 s, while requests keep coming to both; once
  refused, never accepted again. (tests/integration/test_revocation.py: the CLI and one
  process on SQLite.)"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet

from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from tests.conftest import reset_postgres
from tests.processes import Service, start_service

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]

LIMIT = 20  # requests per minute per sandbox key
REQUESTS = 3 * LIMIT
AT_ONCE = 10  # requests under way at a time (each may hold a database connection)
BURST_S = 3.0  # the sliding window lets one more through only once LIMIT * s / 60 >= 1
REVOKED_WITHIN_S = 1.0  # CONTRACT: every process refuses a revoked key within 1 s
WARM = 20  # requests each process answers 200 before the key is revoked
EMAIL = "ops@example.com"
PASSWORD = "a long enough password"


@dataclass(frozen=True)
class Made:
    account_id: str
    keys: list[tuple[str, str]]  # (key id, key)


async def _account(database_url: str, secret: str, keys: int, member: bool = False) -> Made:
    """An account with `keys` sandbox keys (and a dashboard member), made by the service's
    own code on the shared database."""
    container = await build_container(Settings(database_url=database_url, secret_key=secret))
    try:
        account = await container.services.accounts.create_account("limits")
        made = []
        for _ in range(keys):
            created = await container.services.accounts.create_key(account.id, Environment.SANDBOX)
            made.append((created.api_key.id, created.key))
        if member:
            await container.members.add_member(account.id, EMAIL, PASSWORD)
        return Made(account.id, made)
    finally:
        await container.aclose()


def _two_services(
    postgres_url: str, redis_url: str, tmp_path: Path, secret: str, limit: int
) -> list[Service]:
    env = {
        "ENERGYHUB_REDIS_URL": redis_url,
        "ENERGYHUB_SECRET_KEY": secret,  # processes sharing a database share the key
        "ENERGYHUB_RATE_LIMIT_SANDBOX": str(limit),
    }
    services: list[Service] = []
    try:
        for _ in range(2):
            services.append(start_service(postgres_url, tmp_path, "--no-demo", env=env))
    except BaseException:
        for service in services:
            service.stop()
        raise
    return services


async def test_a_keys_limit_holds_across_two_processes(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    await reset_postgres(postgres_url)
    secret = Fernet.generate_key().decode()
    made = await _account(postgres_url, secret, keys=1)
    key = made.keys[0][1]
    services = _two_services(postgres_url, redis_url, tmp_path, secret, LIMIT)
    clients = [
        httpx.AsyncClient(base_url=s.base, headers={"x-api-key": key}, timeout=20) for s in services
    ]
    try:
        gate = asyncio.Semaphore(AT_ONCE)

        async def ask(n: int) -> httpx.Response:
            async with gate:
                return await clients[n % 2].get("/battery")  # half to each process

        began = time.monotonic()
        answers = await asyncio.gather(*(ask(n) for n in range(REQUESTS)))
        took = time.monotonic() - began
    finally:
        for client in clients:
            await client.aclose()
        for service in services:
            service.stop()
    by_process = [Counter(a.status_code for a in answers[n::2]) for n in range(2)]
    print(f"{REQUESTS} requests in {took:.2f} s, statuses by process: {by_process}")
    assert took < BURST_S, f"the burst took {took:.2f} s: the window may have let more through"
    statuses = Counter(a.status_code for a in answers)
    assert statuses == {200: LIMIT, 429: REQUESTS - LIMIT}, (statuses, by_process)
    for refused in (a for a in answers if a.status_code == 429):
        error = refused.json()["error"]
        assert error["code"] == "RATE_LIMITED", refused.text
        assert error["message"], refused.text
        assert int(refused.headers["retry-after"]) >= 1, refused.headers
        assert refused.headers["x-ratelimit-limit"] == str(LIMIT), refused.headers


@dataclass(frozen=True)
class Asked:
    sent: float  # time.monotonic() when the request went out
    status: int
    code: str | None  # the error's code, if refused
    message: str | None


def _keep_asking(base: str, key: str, seen: list[Asked], stop: threading.Event) -> None:
    """One request after the other to `base` (so sent times order the answers)."""
    with httpx.Client(base_url=base, headers={"x-api-key": key}, timeout=10) as client:
        while not stop.is_set():
            sent = time.monotonic()
            answer = client.get("/battery")
            error = answer.json()["error"] if answer.status_code >= 400 else {}
            seen.append(Asked(sent, answer.status_code, error.get("code"), error.get("message")))


def _form_field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, f"no {name} field in the page"
    return found.group(1)


def _signed_in(base: str) -> tuple[httpx.Client, str]:
    """A browser signed in to the process's dashboard as the account's member, and the
    keys page's form token."""
    browser = httpx.Client(base_url=base, timeout=20)
    form = browser.get("/dashboard/sign-in")
    assert form.status_code == 200, form.text
    signed_in = browser.post(
        "/dashboard/sign-in",
        data={
            "email": EMAIL,
            "password": PASSWORD,
            "sign_in_token": _form_field(form.text, "sign_in_token"),
            "next": "",
        },
    )
    assert signed_in.status_code == 303, signed_in.text
    keys = browser.get("/dashboard/sandbox/keys")
    assert keys.status_code == 200, keys.text
    return browser, _form_field(keys.text, "csrf")


def _revoke(browser: httpx.Client, csrf: str, key_id: str) -> None:
    """The keys page's Revoke button."""
    revoked = browser.post(f"/dashboard/sandbox/keys/{key_id}/revoke", data={"csrf": csrf})
    assert revoked.status_code == 303, revoked.text
    assert "done=key-revoked" in revoked.headers["location"], revoked.headers


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_key_revoked_in_one_process_is_refused_by_the_other_within_a_second(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    asyncio.run(reset_postgres(postgres_url))
    secret = Fernet.generate_key().decode()
    made = asyncio.run(_account(postgres_url, secret, keys=1, member=True))
    key_id, key = made.keys[0]
    revoking, other = _two_services(postgres_url, redis_url, tmp_path, secret, 1_000_000)
    seen: dict[str, list[Asked]] = {"revoking": [], "other": []}
    stop = threading.Event()
    try:
        with ThreadPoolExecutor(2) as askers:
            asking = [
                askers.submit(_keep_asking, s.base, key, seen[name], stop)
                for name, s in (("revoking", revoking), ("other", other))
            ]
            try:
                _wait(
                    lambda: (
                        min(len(s) for s in seen.values()) >= WARM or any(a.done() for a in asking)
                    ),
                    20,
                    "the processes did not answer the key",
                )
                browser, csrf = _signed_in(revoking.base)
                asked_at = time.monotonic()
                try:
                    _revoke(browser, csrf, key_id)
                finally:
                    browser.close()
                revoked_at = time.monotonic()  # the revoking process has answered
                _wait(  # requests keep coming to both past the promised second
                    lambda: (
                        all(
                            any(a.sent > revoked_at + REVOKED_WITHIN_S + 0.2 for a in s)
                            for s in seen.values()
                        )
                        or any(a.done() for a in asking)
                    ),
                    20,
                    "requests stopped coming",
                )
            finally:
                stop.set()
            for future in asking:
                future.result()  # an asker that failed says why
    finally:
        revoking.stop()
        other.stop()
    report = {
        name: {
            "before": Counter(a.status for a in s if a.sent < asked_at),
            "during": Counter(a.status for a in s if asked_at <= a.sent < revoked_at),
            "after": Counter(a.status for a in s if a.sent >= revoked_at),
            "last 200 after the revocation (s)": max(
                (round(a.sent - revoked_at, 3) for a in s if a.status == 200), default=None
            ),
        }
        for name, s in seen.items()
    }
    print(f"revocation took {revoked_at - asked_at:.3f} s in the dashboard; {report}")
    for name, asked in seen.items():
        statuses = [a.status for a in asked]
        assert set(statuses) <= {200, 401}, (name, Counter(statuses))
        passed = statuses.count(200)
        assert statuses == [200] * passed + [401] * (len(statuses) - passed), (
            f"{name}: the key was accepted again after a refusal"
        )
        before = [a for a in asked if a.sent < asked_at]
        assert len(before) >= WARM, (name, report)
        assert all(a.status == 200 for a in before), (name, report)
        codes = Counter(a.code for a in asked if a.status == 401)
        assert set(codes) <= {"EXPIRED_TOKEN"}, (name, codes)  # revoked, not unknown
        assert all(a.message for a in asked if a.status == 401), name
    # the revoking process refuses from its own answer on
    assert all(a.status == 401 for a in seen["revoking"] if a.sent >= revoked_at), report
    # the other within a second of it, and every request sent after that second is refused
    late = [a for a in seen["other"] if a.sent >= revoked_at + REVOKED_WITHIN_S]
    assert late, report
    assert all(a.status == 401 for a in late), report
