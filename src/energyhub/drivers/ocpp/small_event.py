"""An event for a connection that lives for days: the uvicorn protocol's `writable`, a
station's `ready` and a link's `closed`. An `asyncio.Event` holds a deque (~620 bytes, most
of it outside Python's small-object allocator) for its whole life, waited on or not; a fleet
of 1,000 chargers holds 3,000 of them."""

from __future__ import annotations

import asyncio
import contextlib


class SmallEvent:
    """`set`, `clear`, `is_set` and `wait`, as on an `asyncio.Event`; the waiters are kept
    only while someone waits."""

    __slots__ = ("_value", "_waiters")

    def __init__(self) -> None:
        self._value = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        if self._value:
            return
        self._value = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> bool:
        if self._value:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            if self._waiters is not None:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
                if not self._waiters:
                    self._waiters = None
