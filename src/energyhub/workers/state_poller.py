"""The state poller loop: refreshes the live devices whose stored state is older than the
interval, then sleeps until the next one is due (at most `max_sleep_s`, so devices added
by another process are seen). The pulls also renew held modes of SunSpec batteries, so the
interval must stay well below their reversion timeout."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from energyhub.domain.clock import Clock
from energyhub.services.polling import BATCH, StatePolling

log = logging.getLogger(__name__)


class StatePollerWorker:
    def __init__(self, polling: StatePolling, clock: Clock, max_sleep_s: float) -> None:
        self.polling = polling
        self._clock = clock
        self._max_sleep_s = max_sleep_s
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Look now (a device was added)."""
        self._wakeup.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="energyhub-state-poller")

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
                pulled = await self.polling.refresh_stale()
                next_due = await self.polling.next_due_at()
            except Exception:
                log.exception("state poller failed; retrying in 1 s")
                pulled, next_due, delay = 0, None, 1.0
            else:
                delay = self._max_sleep_s
            if pulled >= BATCH:
                delay = 0.0  # more are due: go on at once
            elif next_due is not None:
                delay = min(delay, max(0.0, (next_due - self._clock.now()).total_seconds()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), delay)
