"""A device's state over the last 24 hours, for the dashboard's chart.

The chart is drawn from the samples every pull stored (`DevicePull.keep`), so it shows
what the device's state was, including what pushed commands and sandbox holds changed, and
its newest point is the stored state the device page shows beside it. Where the driver can
compute the past (the sandbox's simulator), the time before the device was added is filled
with what it would have read then, so a new sandbox device has a day to show."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from energyhub.domain.accounts import Principal
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceNotFound
from energyhub.domain.history import (
    HISTORY_SPAN,
    SAMPLE_STEP,
    History,
    StateSample,
    metric_for,
    sample_of,
)
from energyhub.ports.storage import UnitOfWorkFactory

# (device, start, end, step) -> samples: a driver whose devices' past can be computed
HistorySource = Callable[[Device, datetime, datetime, timedelta], list[StateSample]]


class HistoryService:
    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, computed: Mapping[str, HistorySource]
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._computed = computed

    async def last_day(self, principal: Principal, device_id: str) -> tuple[Device, History]:
        """The caller's device (any type) and its last 24 hours."""
        end = self._clock.now()
        start = end - HISTORY_SPAN
        async with self._uow() as tx:
            device = await tx.devices.get_device(
                principal.account_id, principal.environment, device_id
            )
            if device is None:
                raise DeviceNotFound(device_id)
            samples = await tx.samples.samples(device_id, start, end)
        samples = [*samples, *_stored_state(device, samples, start, end)]
        source = self._computed.get(device.driver)
        added = min(device.created_at, samples[0].at if samples else end)
        if source is not None and start < added:
            before = source(device, start, added, SAMPLE_STEP)
            samples = [s for s in before if s.at < added] + list(samples)
        return device, History(metric_for(device.type), start, end, tuple(samples))


def _stored_state(
    device: Device, samples: list[StateSample], start: datetime, end: datetime
) -> list[StateSample]:
    """The device's stored state as the newest point, when a writer other than a pull (the
    strategy runner steering a sandbox charger) stored it after the newest sample."""
    at = device.last_pulled_at
    if not device.available or at is None or not start <= at <= end:
        return []
    if samples and samples[-1].at >= at:
        return []
    return [sample_of(device.type, device.state, at)]
