"""The scheduler loop: plans the schedules that are due (occurrences become actions a day
ahead; a record's `nextFireAt` moves on after each start), then sleeps until the next due
schedule, waking early when a schedule is set. Several processes may run it on PostgreSQL:
claims move `due_at` forward as a lease, under `SKIP LOCKED`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.services.schedules import SchedulePlanner

log = logging.getLogger(__name__)


class SchedulerWorker:
    def __init__(self, planner: SchedulePlanner, clock: Clock, max_sleep_s: float) -> None:
        self.planner = planner
        self._clock = clock
        self._max_sleep_s = max_sleep_s
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: datetime | None = None
        self._asked_for: datetime | None = None  # the earliest wake-up asked during a pass

    def wake(self, due_at: datetime | None = None) -> None:
        """A schedule may be due before the loop would look again (during a pass, the
        pass's sleep ends by then)."""
        until = self._sleeping_until
        if due_at is None or (until is not None and due_at < until):
            self._wakeup.set()
        elif until is None and (self._asked_for is None or due_at < self._asked_for):
            self._asked_for = due_at

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="energyhub-scheduler")

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
                await self.planner.plan_due()
                next_due = await self.planner.next_due_at()
            except Exception:
                log.exception("scheduler loop failed; retrying in 1 s")
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
