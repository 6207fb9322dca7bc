"""What every background worker does: a pass over the work that is due, then sleep until
the next due time (at most `max_sleep_s`: a safety poll, short on PostgreSQL while the
channel that carries other processes' wake-ups is down), waking early when told something
is due sooner."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from datetime import datetime, timedelta

from energyhub.domain.clock import Clock

log = logging.getLogger(__name__)

RETRY_AFTER_FAILURE_S = 1.0


class DueWorkLoop(ABC):
    """One loop per worker. `hold_wakeups_during_pass`: a wake-up with a time that comes
    while a pass runs only bounds the sleep after it (under load every push wakes the
    dispatcher; re-running its queries for each would cost more than the pushes); without
    it, the wake-up is seen at once (`_wakeup` is set, for a pass that watches it)."""

    name = "energyhub-worker"  # the asyncio task's name, and the log's

    def __init__(
        self, clock: Clock, max_sleep_s: float, *, hold_wakeups_during_pass: bool = False
    ) -> None:
        self._clock = clock
        self._max_sleep_s = max_sleep_s
        self._hold = hold_wakeups_during_pass
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: datetime | None = None
        self._asked_for: datetime | None = None  # the earliest wake-up held during a pass

    @abstractmethod
    async def run_pass(self) -> datetime | None:
        """Does what is due; returns when more will be (None: nothing known)."""

    def wake(self, due_at: datetime | None = None) -> None:
        """Something may be due (at `due_at`; None: now) before the loop would look again.
        Work due after the loop wakes anyway does not interrupt it."""
        until = self._sleeping_until
        if due_at is None or (until is not None and due_at < until):
            self._wakeup.set()
        elif until is None:
            if not self._hold:
                self._wakeup.set()
            elif self._asked_for is None or due_at < self._asked_for:
                self._asked_for = due_at

    def poll_every(self, max_sleep_s: float) -> None:
        """From now on look at least this often (the sleep under way is cut to it)."""
        self._max_sleep_s = max_sleep_s
        until = self._sleeping_until
        if until is not None and until - self._clock.now() > timedelta(seconds=max_sleep_s):
            self._wakeup.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name=self.name)

    async def stop(self) -> None:
        """Stops at once; work under way is left to its leases."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run(self) -> None:
        while True:
            self._wakeup.clear()
            try:
                next_due = await self.run_pass()
            except Exception:
                log.exception("%s: a pass failed; retrying in 1 s", self.name)
                next_due, delay = None, RETRY_AFTER_FAILURE_S
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
