"""The webhook sender loop: sleeps until the next due event or delivery (waking early when
an event is written or a delivery resent) and sends what is due. Several processes may run
it on PostgreSQL: leases and `SKIP LOCKED` keep them from sending the same attempt."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import uuid
from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.services.webhook_sender import WebhookSender

log = logging.getLogger(__name__)


class WebhookSenderWorker:
    def __init__(self, sender: WebhookSender, clock: Clock, max_sleep_s: float) -> None:
        """`max_sleep_s`: the longest nap; short on PostgreSQL, where other processes may
        write events this one is not told about."""
        self._sender = sender
        self._clock = clock
        self._max_sleep_s = max_sleep_s
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sleeping_until: datetime | None = None
        self.owner = f"webhooks:{socket.gethostname()}:{uuid.uuid4().hex[:8]}"

    def wake(self, due_at: datetime | None = None) -> None:
        """Something may be due before the loop would wake: look again. An event due after
        the loop wakes anyway (a delayed sandbox event) does not interrupt it."""
        until = self._sleeping_until
        if due_at is None or until is None or due_at < until:
            self._wakeup.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="energyhub-webhook-sender")

    async def stop(self) -> None:
        """Stops at once; attempts under way are abandoned to their leases (at least once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run(self) -> None:
        while True:
            self._wakeup.clear()
            try:
                await self._sender.run_due(self.owner, self._wakeup)
                next_due = await self._sender.next_due_at()
            except Exception:
                log.exception("webhook sender loop failed; retrying in 1 s")
                next_due, delay = None, 1.0
            else:
                delay = self._max_sleep_s
            if next_due is not None:
                delay = min(delay, max(0.0, (next_due - self._clock.now()).total_seconds()))
            self._sleeping_until = self._clock.now() + timedelta(seconds=delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), delay)
            self._sleeping_until = None
