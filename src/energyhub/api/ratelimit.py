"""Per-key rate limits: a sliding window counter, in the process by default and shared
through Redis when a URL is given.

Each key counts its requests in one-minute windows aligned to the clock, and a request is
weighed against the current window's count plus the previous window's, scaled by the part
of the previous window still inside the last 60 s. So no 60 s span lets much more than the
limit through (a fixed window let twice the limit through across a window's end), at the
cost of three numbers per key: O(1) a request, one dictionary lookup in the process.
`limits`' moving window was measured to cost ~1 ms a hit at 3k requests/s (it keeps every
hit).

Through Redis, a script (timed by Redis's own clock, so that processes agree) counts and
decides. Far from the limit a process reserves a block of requests at once and lets them
through without asking again: a block is at most 1/`ROOM_SHARE` of what the key had left
when it was reserved, and at most `BLOCK_MAX`; near the limit every request asks (a block
of one). So the limit is never exceeded (a request passes only once Redis has counted it),
and a key is refused early by at most the requests other processes reserved and have not
used yet; a block's unused requests are given back when its window ends. A round trip
costs ~150 us of a process's CPU (redis-py): at 100 a block, under 2 us a request."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # redis (and the cryptography it pulls in) loads only when configured
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

from energyhub.domain.accounts import Environment, Principal

PERIOD_S = 60

ROOM_SHARE = 16  # a block is at most this share of what the key has left
BLOCK_MAX = 100  # requests a process may let through without asking Redis again

# KEYS[1]: the key's hash {w: window, p: previous count, c: current count};
# ARGV: limit, period, wanted (a block), given back (unused), the window they were counted in.
# Counts what it grants; returns {granted, previous, current, seconds, microseconds, window}.
RESERVE = """
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local back = tonumber(ARGV[4])
local back_window = tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local window = math.floor(now / period)
local state = redis.call('HMGET', KEYS[1], 'w', 'p', 'c')
local w = tonumber(state[1]) or window
local p = tonumber(state[2]) or 0
local c = tonumber(state[3]) or 0
if back > 0 then
  if back_window == w then c = math.max(0, c - back)
  elseif back_window == w - 1 then p = math.max(0, p - back) end
end
if w ~= window then
  if w == window - 1 then p = c else p = 0 end
  c = 0
end
local granted = math.floor(limit - p * (period - (now - window * period)) / period - c)
if granted > wanted then granted = wanted end
if granted < 0 then granted = 0 end
c = c + granted
redis.call('HSET', KEYS[1], 'w', window, 'p', p, 'c', c)
redis.call('EXPIRE', KEYS[1], period * 2)
return {granted, p, c, t[1], t[2], window}
"""


@dataclass(slots=True)
class Block:
    """Requests a process reserved in Redis for one key and window, and what Redis said."""

    window: int
    left: int  # reserved, not let through yet
    previous: int  # the two windows' counts in Redis when reserved (the block included)
    current: int
    offset: float  # Redis's clock minus ours, when reserved


@dataclass(frozen=True, slots=True)
class RateLimitDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_time: float  # Unix seconds, when the key's count is back to zero
    retry_after_s: float  # from now until one more request would pass

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (b"X-RateLimit-Limit", str(self.limit).encode()),
            (b"X-RateLimit-Remaining", str(self.remaining).encode()),
            (b"X-RateLimit-Reset", str(math.ceil(self.reset_time)).encode()),
        ]

    def retry_after(self) -> int:
        return max(1, math.ceil(self.retry_after_s))


def decide(
    limit: int, period: float, now: float, previous: int, current: int, allowed: bool
) -> RateLimitDecision:
    """The headers' figures once a request was counted (or refused): `previous` and
    `current` are the two windows' counts after it, at `now`."""
    window = math.floor(now / period)
    left = period - (now - window * period)  # of the current window
    weight = previous * left / period + current
    if current:
        reset = (window + 2) * period
    elif previous:
        reset = (window + 1) * period
    else:
        reset = now
    excess = weight - (limit - 1)  # by how much the count must fall for one more to pass
    if excess <= 0:
        wait = 0.0
    elif previous and excess * period / previous <= left:
        wait = excess * period / previous  # the previous window's share runs out
    else:  # in the next window, the current count becomes the previous one
        wait = left + period * max(0.0, 1 - (limit - 1) / current) if current else left
    return RateLimitDecision(
        allowed=allowed,
        limit=limit,
        remaining=max(0, math.floor(limit - weight)),
        reset_time=reset,
        retry_after_s=wait,
    )


class RateLimiter:
    """The sliding window counter of every key, in memory or in Redis."""

    def __init__(
        self,
        redis_url: str | None,
        per_minute: dict[Environment, int],
        *,
        period_s: float = PERIOD_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._limits = per_minute
        self._period = period_s
        self._now = now
        self._counts: dict[tuple[Environment, str], list[int]] = {}  # [window, prev, cur]
        self._blocks: dict[tuple[Environment, str], Block] = {}
        self._reserving: dict[tuple[Environment, str], asyncio.Future[None]] = {}
        self._redis: Redis | None = None
        self._reserve: AsyncScript | None = None
        if redis_url:
            from redis.asyncio import Redis

            self._redis = Redis.from_url(redis_url.removeprefix("async+"))
            self._reserve = self._redis.register_script(RESERVE)

    async def aclose(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    async def hit(self, principal: Principal) -> RateLimitDecision:
        limit = self._limits[principal.environment]
        if self._reserve is not None:
            return await self._hit_shared(principal, limit)
        return self._hit_here(principal, limit)

    async def _hit_shared(self, principal: Principal, limit: int) -> RateLimitDecision:
        """From this process's block when it has one for the window; otherwise from Redis
        (a block of one near the limit, every request asking; one reservation at a time
        per key for larger blocks, which the requests waiting on it then share)."""
        slot = (principal.environment, principal.key_id)
        while True:
            block = self._blocks.get(slot)
            if block is not None:
                now = self._now() + block.offset
                if block.left and math.floor(now / self._period) == block.window:
                    block.left -= 1
                    return decide(
                        limit,
                        self._period,
                        now,
                        block.previous,
                        block.current - block.left,
                        True,
                    )
            wanted = self._wanted(limit, block)
            if wanted == 1:
                return await self._reserved(principal, slot, limit, 1)
            pending = self._reserving.get(slot)
            if pending is not None:
                await asyncio.shield(pending)
                continue
            pending = self._reserving[slot] = asyncio.get_running_loop().create_future()
            try:
                decision = await self._reserved(principal, slot, limit, wanted)
            finally:
                del self._reserving[slot]
                pending.set_result(None)
            return decision

    def _wanted(self, limit: int, block: Block | None) -> int:
        """A block's size: 1 (ask every time) until Redis has said how much is left, and
        near the limit."""
        if block is None:
            return 1
        now = self._now() + block.offset
        window = math.floor(now / self._period)
        previous, current = block.previous, block.current
        if window != block.window:
            previous, current = (current if window == block.window + 1 else 0), 0
        left = self._period - (now - window * self._period)
        room = limit - previous * left / self._period - current
        return max(1, min(BLOCK_MAX, math.floor(room / ROOM_SHARE)))

    async def _reserved(
        self, principal: Principal, slot: tuple[Environment, str], limit: int, wanted: int
    ) -> RateLimitDecision:
        assert self._reserve is not None
        old = self._blocks.get(slot)
        back, back_window = (old.left, old.window) if old is not None else (0, 0)
        if old is not None:
            old.left = 0  # given back now, whatever the answer
        key = f"energyhub:ratelimit:{principal.environment.value}:{principal.key_id}"
        granted, previous, current, seconds, micros, window = await self._reserve(
            keys=[key], args=[limit, self._period, wanted, back, back_window]
        )
        now = int(seconds) + int(micros) / 1_000_000
        left = max(0, int(granted) - 1)
        self._blocks[slot] = Block(
            int(window), left, int(previous), int(current), now - self._now()
        )
        return decide(limit, self._period, now, previous, current - left, bool(granted))

    def _hit_here(self, principal: Principal, limit: int) -> RateLimitDecision:
        """The same as the Redis script, in this process (no await: nothing interleaves)."""
        now = self._now()
        window = math.floor(now / self._period)
        slot = (principal.environment, principal.key_id)
        counts = self._counts.get(slot)
        if counts is None:
            counts = self._counts[slot] = [window, 0, 0]
        elif counts[0] != window:
            counts[1] = counts[2] if counts[0] == window - 1 else 0
            counts[0], counts[2] = window, 0
        previous, current = counts[1], counts[2]
        left = self._period - (now - window * self._period)
        allowed = previous * left / self._period + current + 1 <= limit
        if allowed:
            counts[2] = current = current + 1
        return decide(limit, self._period, now, previous, current, allowed)
