"""Per-key rate limits with the `limits` library: in-process by default, shared through Redis
when a URL is given. A moving window, so the headers are exact on both storages."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItemPerMinute
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from energyhub.domain.accounts import Environment, Principal


@dataclass(frozen=True, slots=True)
class RateLimitDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # Unix seconds

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (b"X-RateLimit-Limit", str(self.limit).encode()),
            (b"X-RateLimit-Remaining", str(self.remaining).encode()),
            (b"X-RateLimit-Reset", str(self.reset_at).encode()),
        ]

    def retry_after(self) -> int:
        return max(1, math.ceil(self.reset_at - time.time()))


def storage_for(redis_url: str | None) -> Storage:
    if redis_url:
        uri = "async+" + redis_url if not redis_url.startswith("async+") else redis_url
        storage = storage_from_string(uri, implementation="redispy")
    else:
        storage = storage_from_string("async+memory://")
    assert isinstance(storage, Storage)
    return storage


class RateLimiter:
    def __init__(self, storage: Storage, per_minute: dict[Environment, int]) -> None:
        self._limiter = MovingWindowRateLimiter(storage)
        self._items = {env: RateLimitItemPerMinute(n) for env, n in per_minute.items()}

    async def hit(self, principal: Principal) -> RateLimitDecision:
        item = self._items[principal.environment]
        allowed = await self._limiter.hit(item, "key", principal.key_id)
        stats = await self._limiter.get_window_stats(item, "key", principal.key_id)
        return RateLimitDecision(
            allowed=allowed,
            limit=item.amount,
            remaining=max(0, stats.remaining),
            reset_at=math.ceil(stats.reset_time),
        )
