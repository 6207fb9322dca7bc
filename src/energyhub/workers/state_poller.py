"""The state poller loop: refreshes the live devices whose stored state is older than the
interval, and reads the sites' grid meters as often, then sleeps until the next one is due
(at most `max_sleep_s`, so devices and meters added by another process are seen). The pulls
also renew held modes of SunSpec batteries, so the interval must stay well below their
reversion timeout."""

from __future__ import annotations

from datetime import datetime

from energyhub.domain.clock import Clock
from energyhub.services.polling import BATCH, StatePolling
from energyhub.services.site_meters import SiteMeters
from energyhub.workers.loop import DueWorkLoop


class StatePollerWorker(DueWorkLoop):
    name = "energyhub-state-poller"

    def __init__(
        self,
        polling: StatePolling,
        clock: Clock,
        max_sleep_s: float,
        meters: SiteMeters | None = None,
    ) -> None:
        super().__init__(clock, max_sleep_s)
        self.polling = polling
        self.meters = meters

    async def run_pass(self) -> datetime | None:
        full = await self.polling.refresh_stale() >= BATCH
        if self.meters is not None:
            full = await self.meters.poll_due() >= BATCH or full
        if full:
            return self._clock.now()  # a full batch: more are due, go on at once
        due = [await self.polling.next_due_at()]
        if self.meters is not None:
            due.append(await self.meters.next_due_at())
        return min((d for d in due if d is not None), default=None)
