"""Per-key rate limits (CONTRACT 1): headers, 429 with Retry-After, exact under concurrency,
in-process and shared through Redis."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest

from energyhub.bootstrap import build_container
from energyhub.config import Settings
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
    assert 1 <= int(refused.headers["retry-after"]) <= 60
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
