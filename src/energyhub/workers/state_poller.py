"""The state poller loop: refreshes the live devices whose stored state is older than the
interval, then sleeps until the next one is due (at most `max_sleep_s`, so devices added
by another process are seen). The pulls also renew held modes of SunSpec batteries, so the
interval must stay well below their reversion timeout."""

from __future__ import annotations

from datetime import datetime

from energyhub.domain.clock import Clock
from energyhub.services.polling import BATCH, StatePolling
from energyhub.workers.loop import DueWorkLoop


class StatePollerWorker(DueWorkLoop):
    name = "energyhub-state-poller"

    def __init__(self, polling: StatePolling, clock: Clock, max_sleep_s: float) -> None:
        super().__init__(clock, max_sleep_s)
        self.polling = polling

    async def run_pass(self) -> datetime | None:
        if await self.polling.refresh_stale() >= BATCH:
            return self._clock.now()  # a full batch: more are due, go on at once
        return await self.polling.next_due_at()
