"""The scheduler loop: plans the schedules that are due (occurrences become actions a day
ahead; a record's `nextFireAt` moves on after each start), then sleeps until the next due
schedule, waking early when a schedule is set. Several processes may run it on PostgreSQL:
claims move `due_at` forward as a lease, under `SKIP LOCKED`."""

from __future__ import annotations

from datetime import datetime

from energyhub.domain.clock import Clock
from energyhub.services.schedules import SchedulePlanner
from energyhub.workers.loop import DueWorkLoop


class SchedulerWorker(DueWorkLoop):
    name = "energyhub-scheduler"

    def __init__(self, planner: SchedulePlanner, clock: Clock, max_sleep_s: float) -> None:
        super().__init__(clock, max_sleep_s, hold_wakeups_during_pass=True)
        self.planner = planner

    async def run_pass(self) -> datetime | None:
        await self.planner.plan_due()
        return await self.planner.next_due_at()
