"""Keeping live devices' stored state fresh: the state poller pulls, through the device's
driver, every live device whose state is older than the interval (CONTRACT 0: the state
poller is one of the background workers). Generic over drivers: the ones that talk to
hardware (`instant` False) are polled."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta

from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.polling import PollingUnitOfWorkFactory
from energyhub.services.devices import DeviceService

log = logging.getLogger(__name__)

DEFAULT_POLL_INTERVAL = timedelta(seconds=60)
BATCH = 100
CONCURRENCY = 16  # devices pulled side by side


class StatePolling:
    def __init__(
        self,
        uow: PollingUnitOfWorkFactory,
        devices: DeviceService,
        drivers: Mapping[str, DeviceDriver],
        clock: Clock,
        interval: timedelta = DEFAULT_POLL_INTERVAL,
    ) -> None:
        self._uow = uow
        self._devices = devices
        self._drivers = drivers
        self._clock = clock
        self.interval = interval

    def polled_drivers(self) -> list[str]:
        return sorted(name for name, driver in self._drivers.items() if not driver.instant)

    async def refresh_stale(self, limit: int = BATCH) -> int:
        """Pulls the live devices due now (a batch); returns how many were pulled."""
        now = self._clock.now()
        async with self._uow() as tx:
            due = await tx.polling.claim_stale(
                self.polled_drivers(), now - self.interval, now, limit
            )
        gate = asyncio.Semaphore(CONCURRENCY)

        async def pull(device: Device) -> None:
            async with gate:
                try:
                    await self._devices.pull(device)
                except Exception:
                    log.exception("polling device %s failed", device.id)

        await asyncio.gather(*(pull(d) for d in due))
        return len(due)

    async def next_due_at(self) -> datetime | None:
        """When the next device is due (None: no live device to poll)."""
        async with self._uow() as tx:
            any_polled, oldest = await tx.polling.oldest_pull(self.polled_drivers())
        if not any_polled:
            return None
        return self._clock.now() if oldest is None else oldest + self.interval
