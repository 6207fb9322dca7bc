"""A queue for a connection that holds a message or two at a time, for days: uvicorn's
receive queue (it stops reading after each message until the application takes it) and
the `ocpp` ChargePoint's answers to our calls. An `asyncio.Queue` costs three or four
deques and an event (~2.3 KB) per connection."""

from __future__ import annotations

import asyncio
from typing import Any


class SmallQueue:
    """`put_nowait`, `empty` and `get`, as those users call them on an `asyncio.Queue`."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)
