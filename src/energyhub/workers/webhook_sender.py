"""The webhook sender loop: sleeps until the next due event or delivery (waking early when
an event is written or a delivery resent) and sends what is due. Several processes may run
it on PostgreSQL: leases and `SKIP LOCKED` keep them from sending the same attempt."""

from __future__ import annotations

import socket
import uuid
from datetime import datetime

from energyhub.domain.clock import Clock
from energyhub.services.webhook_sender import WebhookSender
from energyhub.workers.loop import DueWorkLoop
from energyhub.workers.webhook_pump import run_due


class WebhookSenderWorker(DueWorkLoop):
    """A wake-up during a pass is seen at once: the pass watches for it and takes the new
    event while its attempts are under way."""

    name = "energyhub-webhook-sender"

    def __init__(self, sender: WebhookSender, clock: Clock, max_sleep_s: float) -> None:
        super().__init__(clock, max_sleep_s)
        self._sender = sender
        self.owner = f"webhooks:{socket.gethostname()}:{uuid.uuid4().hex[:8]}"

    async def run_pass(self) -> datetime | None:
        await run_due(self._sender, self.owner, self._wakeup)
        return await self._sender.next_due_at()
