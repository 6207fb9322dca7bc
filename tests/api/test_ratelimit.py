"""Per-key rate limits (CONTRACT 1): headers, 429 with Retry-After, exact under concurrency,
in-process and shared through Redis, and a window that slides (no double limit across a
minute's end)."""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter

import pytest
from redis.asyncio import Redis

from energyhub.api.ratelimit import BLOCK_MAX, RateLimiter
from energyhub.bootstrap import build_container
from energyhub.config import Settings
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.clock import FakeClock
from tests.support import Api, open_api


async def _limited_api(database_url: str, clock: FakeClock, redis_url: str | None, limit: int):  # type: ignore[no-untyped-def]
    settings = Settings(
        database_url=database_url,
        rate_limit_sandbox=limit,
        rate_limit_live=limit,
        redis_url=redis_url,
        key_cache_ttl_s=60,
    )
    return await build_container(settings, clock)


async def _hammer(api: Api, limit: int) -> None:
    caller = await api.caller()
    device = await api.sandbox_device(caller)  # one request of the budget
    responses = await asyncio.gather(
        *(api.get(caller, f"/battery/{device['id']}") for _ in range(100))
    )
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: limit - 1, 429: 100 - limit + 1}
    refused = next(r for r in responses if r.status_code == 429)
    assert refused.json()["error"]["code"] == "RATE_LIMITED"
    # a full minute's count weighs on for part of the next: up to 60 s + 60 s / limit
    assert 1 <= int(refused.headers["retry-after"]) <= 60 + 60 // limit
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.headers["x-ratelimit-limit"] == str(limit)
    other = await api.caller()
    assert (await api.get(other, "/battery")).status_code == 200, "limits are per key"


@pytest.mark.parametrize("backend", ["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def test_exactly_the_limit_passes_under_100_concurrent_requests(
    database_url: str, clock: FakeClock, backend: str, request: pytest.FixtureRequest
) -> None:
    redis_url = request.getfixturevalue("redis_url") if backend == "redis" else None
    container = await _limited_api(database_url, clock, redis_url, 10)
    try:
        async with open_api(container, clock) as api:
            await _hammer(api, 10)
    finally:
        await container.aclose()


async def test_limit_is_shared_between_processes_through_redis(
    database_url: str, clock: FakeClock, redis_url: str
) -> None:
    first = await _limited_api(database_url, clock, redis_url, 5)
    second = await _limited_api(database_url, clock, redis_url, 5)
    try:
        async with open_api(first, clock) as one, open_api(second, clock) as two:
            caller = await one.caller()
            statuses = [(await api.get(caller, "/battery")).status_code for api in [one, two] * 4]
        assert statuses.count(200) == 5
        assert statuses[5:] == [429, 429, 429]
    finally:
        await first.aclose()
        await second.aclose()


async def test_headers_on_every_response_with_a_valid_key(api: Api) -> None:
    caller = await api.caller()
    ok = await api.get(caller, "/battery")
    missing = await api.get(caller, "/battery/nope")
    invalid = await api.get(caller, "/battery", limit=0)
    for response in (ok, missing, invalid):
        assert response.headers["x-ratelimit-limit"] == "600"
        assert int(response.headers["x-ratelimit-reset"]) >= int(time.time())
    assert int(ok.headers["x-ratelimit-remaining"]) == 599
    assert int(invalid.headers["x-ratelimit-remaining"]) == 597
    unauthenticated = await api.client.get("/battery")
    assert "x-ratelimit-limit" not in unauthenticated.headers


def _principal(key_id: str) -> Principal:
    return Principal(account_id="acc", key_id=key_id, environment=Environment.SANDBOX)


class _Time:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_a_window_end_does_not_let_the_limit_through_twice() -> None:
    start = 60.0 * 29_000_000  # the start of a minute
    clock = _Time(start)
    limiter = RateLimiter(None, {Environment.SANDBOX: 10}, now=clock)
    key = _principal("key_1")
    first = await limiter.hit(key)
    assert (first.allowed, first.remaining) == (True, 9)
    clock.now = start + 59
    assert [(await limiter.hit(key)).allowed for _ in range(9)] == [True] * 9
    clock.now = start + 60.5  # the next minute: a fixed window would start again at 10
    burst = [await limiter.hit(key) for _ in range(10)]
    assert [d.allowed for d in burst] == [False] * 10, "10 passed 1.5 s ago"
    assert burst[0].remaining == 0
    assert burst[0].retry_after() == 6  # the last minute's 10 weigh 9 at +66 s
    clock.now = start + 65.9
    assert not (await limiter.hit(key)).allowed
    clock.now = start + 66
    assert (await limiter.hit(key)).allowed
    assert not (await limiter.hit(key)).allowed
    clock.now = start + 120  # the previous minute's 10 no longer count; this one's 1 does
    assert [(await limiter.hit(key)).allowed for _ in range(10)] == [True] * 9 + [False]
    assert int(burst[0].headers()[2][1]) == start + 120  # when nothing counted then counts


async def test_the_redis_window_slides_as_the_one_in_process(redis_url: str) -> None:
    limiter = RateLimiter(redis_url, {Environment.SANDBOX: 10}, period_s=1)
    key = _principal(f"key_{time.time_ns()}")
    try:
        for _ in range(100):  # into the first half of a 1 s window (Redis's clock is ours)
            if time.time() % 1 < 0.5:
                break
            await asyncio.sleep(0.01)
        assert [(await limiter.hit(key)).allowed for _ in range(10)] == [True] * 10
        await asyncio.sleep(1.1 - time.time() % 1)  # 0.1 s into the next window
        passed = [(await limiter.hit(key)).allowed for _ in range(10)].count(True)
        assert passed <= 3, "a fixed window would let all 10 through"
    finally:
        await limiter.aclose()


async def _script_calls(client: Redis) -> int:
    """How many scripts Redis has run (every caller's: these tests run alone on it)."""
    stats = await client.info("commandstats")
    return sum(
        int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in ("evalsha", "eval")
    )


async def test_far_from_the_limit_a_process_asks_redis_once_a_block(redis_url: str) -> None:
    limiter = RateLimiter(redis_url, {Environment.SANDBOX: 1_000_000})
    client = Redis.from_url(redis_url)
    key = _principal(f"key_{time.time_ns()}")
    try:
        before = await _script_calls(client)
        decisions = [await limiter.hit(key) for _ in range(1_000)]
        asked = await _script_calls(client) - before
        counted = await client.hget(f"energyhub:ratelimit:sandbox:{key.key_id}", "c")
    finally:
        await limiter.aclose()
        await client.aclose()
    assert all(d.allowed for d in decisions)
    # the first asks alone (how much is left is not known yet), then blocks of BLOCK_MAX
    assert asked <= 1 + math.ceil(999 / BLOCK_MAX) + 1, asked
    assert 1_000 <= int(counted) < 1_000 + BLOCK_MAX  # what passed is counted before it does
    remaining = [d.remaining for d in decisions]
    assert remaining == sorted(remaining, reverse=True)  # and the headers count down


async def test_processes_with_blocks_never_let_more_than_the_limit_through(
    redis_url: str,
) -> None:
    limit = 2_000
    processes = [RateLimiter(redis_url, {Environment.SANDBOX: limit}) for _ in range(2)]
    key = _principal(f"key_{time.time_ns()}")
    try:
        passed = 0
        for _ in range(30):  # 3,000 requests, 50 at once to each process
            decisions = await asyncio.gather(
                *(process.hit(key) for process in processes for _ in range(50))
            )
            passed += sum(d.allowed for d in decisions)
    finally:
        for process in processes:
            await process.aclose()
    # near the limit blocks shrink to one request and every request asks Redis: both
    # processes used what they had reserved, so exactly the limit passed
    assert passed == limit


async def test_a_blocks_unused_requests_are_given_back_when_its_window_ends(
    redis_url: str,
) -> None:
    limiter = RateLimiter(redis_url, {Environment.SANDBOX: 100_000}, period_s=1)
    client = Redis.from_url(redis_url)
    key = _principal(f"key_{time.time_ns()}")
    stored = f"energyhub:ratelimit:sandbox:{key.key_id}"
    try:
        for _ in range(100):  # into the first half of a 1 s window (Redis's clock is ours)
            if time.time() % 1 < 0.5:
                break
            await asyncio.sleep(0.01)
        assert all([(await limiter.hit(key)).allowed for _ in range(5)])
        reserved = int(await client.hget(stored, "c"))
        assert reserved > 5, "the second request reserved a block"
        await asyncio.sleep(1.1 - time.time() % 1)  # 0.1 s into the next window
        assert (await limiter.hit(key)).allowed
        previous = int(await client.hget(stored, "p"))
    finally:
        await limiter.aclose()
        await client.aclose()
    assert previous == 5, f"the last window counts what passed, not the {reserved} reserved"
