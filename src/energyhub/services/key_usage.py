"""When each API key was last used, written at most once a key per `interval`, off the
request's path: the request only notes the time in memory; one background task writes the
due keys in one transaction (a read costs no write of its own)."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from energyhub.ports.storage import UnitOfWorkFactory

KEY_USE_INTERVAL = timedelta(seconds=60)

log = logging.getLogger(__name__)


class KeyUsage:
    """`seen` is called on every authenticated request; a key is due for a write when its
    stored time (as last read or written by this process) is `interval` old or more."""

    def __init__(self, uow: UnitOfWorkFactory, interval: timedelta = KEY_USE_INTERVAL) -> None:
        self._uow = uow
        self._interval = interval
        self._written: dict[str, datetime] = {}  # key id -> newest time stored
        self._due: dict[str, datetime] = {}  # key id -> time to store
        self._flushing: asyncio.Task[None] | None = None

    def seen(self, key_id: str, stored: datetime | None, now: datetime) -> None:
        """`stored`: the key's `last_used_at` as its row was last read (None: never)."""
        written = self._written.get(key_id)
        if stored is not None and (written is None or stored > written):
            self._written[key_id] = written = stored
        if written is not None and now - written < self._interval:
            return
        self._written[key_id] = now  # until the write lands, no other request asks for one
        self._due[key_id] = now
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._due:
            due, self._due = self._due, {}
            try:
                async with self._uow() as tx:
                    await tx.accounts.record_key_uses(due)
            except Exception:  # a busy database loses one interval's mark, never a request
                log.warning("could not record when %d API keys were last used", len(due))

    async def flush(self) -> None:
        """Waits for the writes under way and makes the ones still due (at shutdown)."""
        if self._flushing is not None:
            await asyncio.shield(self._flushing)
        if self._due:
            await self._flush()
