"""The dispatcher loop: sleeps until the next due action (waking early when a push adds an
earlier one) and runs what is due. Several processes may run it on PostgreSQL: leases and
`SKIP LOCKED` keep them from doing the same work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import uuid
from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.services.dispatch import Dispatcher

log = logging.getLogger(__name__)


class DispatcherWorker:
    def __init__(self, dispatcher: Dispatcher, clock: Clock, max_sleep_s: float) -> None:
        self._dispatcher = dispatcher
        self._clock = clock
        self._max_sleep_s = max_sleep_s
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: datetime | None = None
        self._asked_for: datetime | None = None  # the earliest wake-up asked during a pass
        self.owner = f"worker:{socket.gethostname()}:{uuid.uuid4().hex[:8]}"

    def wake(self, due_at: datetime | None = None) -> None:
        """Something may be due earlier than the loop sleeps: look again. Work due after
        the loop wakes anyway does not interrupt it (a push a millisecond must not), nor
        does work with a time that arrives during a pass: the pass's sleep ends by then."""
        until = self._sleeping_until
        if due_at is None or (until is not None and due_at < until):
            self._wakeup.set()
        elif until is None and (self._asked_for is None or due_at < self._asked_for):
            self._asked_for = due_at

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="energyhub-dispatcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run(self) -> None:
        while True:
            self._wakeup.clear()
            try:
                await self._dispatcher.run_due(self.owner)
                next_due = await self._dispatcher.next_due_at()
            except Exception:
                log.exception("dispatcher loop failed; retrying in 1 s")
                next_due, delay = None, 1.0
            else:
                delay = self._max_sleep_s
            asked, self._asked_for = self._asked_for, None
            for due in (next_due, asked):
                if due is not None:
                    delay = min(delay, max(0.0, (due - self._clock.now()).total_seconds()))
            self._sleeping_until = self._clock.now() + timedelta(seconds=delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), delay)
            self._sleeping_until = None
