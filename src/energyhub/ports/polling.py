"""What the state poller needs from storage: live devices whose state is stale, claimed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from energyhub.domain.devices import Device
from energyhub.ports.storage import UnitOfWork


class PollingRepository(Protocol):
    async def claim_stale(
        self, drivers: Sequence[str], pulled_before: datetime, now: datetime, limit: int
    ) -> Sequence[Device]: ...
    async def oldest_pull(self, drivers: Sequence[str]) -> tuple[bool, datetime | None]: ...


class PollingUnitOfWork(UnitOfWork, Protocol):
    @property
    def polling(self) -> PollingRepository: ...


class PollingUnitOfWorkFactory(Protocol):
    def __call__(self) -> PollingUnitOfWork: ...
