"""The retention loop: prunes what is older than ENERGYHUB_RETENTION_DAYS once when it
starts, then every `interval_s` (an hour). Every process may run it: batches taken by one
are skipped by the others (PostgreSQL), and a pass with nothing old deletes nothing."""

from __future__ import annotations

from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.services.retention import Retention
from energyhub.workers.loop import DueWorkLoop

PRUNE_EVERY_S = 3600.0


class RetentionWorker(DueWorkLoop):
    name = "energyhub-retention"

    def __init__(self, retention: Retention, clock: Clock, interval_s: float = PRUNE_EVERY_S):
        super().__init__(clock, interval_s)
        self.retention = retention
        self._interval = timedelta(seconds=interval_s)

    def start(self) -> None:
        if self.retention.enabled:
            super().start()

    async def run_pass(self) -> datetime | None:
        await self.retention.prune()
        return self._clock.now() + self._interval
