"""The dispatcher loop: sleeps until the next due action (waking early when a push adds an
earlier one) and runs what is due. Several processes may run it on PostgreSQL: leases and
`SKIP LOCKED` keep them from doing the same work."""

from __future__ import annotations

import socket
import uuid
from datetime import datetime

from energyhub.domain.clock import Clock
from energyhub.services.dispatch import Dispatcher
from energyhub.workers.loop import DueWorkLoop


class DispatcherWorker(DueWorkLoop):
    name = "energyhub-dispatcher"

    def __init__(self, dispatcher: Dispatcher, clock: Clock, max_sleep_s: float) -> None:
        super().__init__(clock, max_sleep_s, hold_wakeups_during_pass=True)
        self._dispatcher = dispatcher
        self.owner = f"worker:{socket.gethostname()}:{uuid.uuid4().hex[:8]}"

    async def run_pass(self) -> datetime | None:
        await self._dispatcher.run_due(self.owner)
        return await self._dispatcher.next_due_at()
