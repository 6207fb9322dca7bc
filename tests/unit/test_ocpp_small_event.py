"""`SmallEvent`: an `asyncio.Event` for connections that live for days, keeping its waiters
only while someone waits."""

from __future__ import annotations

import asyncio

import pytest

from energyhub.drivers.ocpp.small_event import SmallEvent


async def test_a_set_event_is_waited_for_at_once_and_cleared_it_blocks_again() -> None:
    event = SmallEvent()
    assert not event.is_set()
    event.set()
    assert event.is_set()
    assert await event.wait() is True
    event.clear()
    assert not event.is_set()
    waiting = asyncio.ensure_future(event.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    event.set()
    assert await waiting is True


async def test_set_wakes_every_waiter_and_keeps_none() -> None:
    event = SmallEvent()
    waiters = [asyncio.ensure_future(event.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    event.set()
    assert await asyncio.gather(*waiters) == [True, True, True]
    assert event._waiters is None  # nothing held between waits: the point of the class


async def test_a_cancelled_waiter_leaves_and_the_others_still_wake() -> None:
    event = SmallEvent()
    leaving = asyncio.ensure_future(event.wait())
    staying = asyncio.ensure_future(event.wait())
    await asyncio.sleep(0)
    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    assert event._waiters is not None
    assert len(event._waiters) == 1
    event.set()
    assert await staying is True
    lone = SmallEvent()
    alone = asyncio.ensure_future(lone.wait())
    await asyncio.sleep(0)
    alone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await alone
    assert lone._waiters is None
