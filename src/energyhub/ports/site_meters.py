"""What a site's grid meter needs: a probe that finds a SunSpec meter model (201-204) at a
Modbus TCP address and reads its power, and a repository of the meters commissioned, one per
site. Plain values: the use cases never see Modbus types."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from energyhub.domain.accounts import Environment
from energyhub.ports.storage import UnitOfWork
from energyhub.ports.sunspec import ModelLocation


@dataclass(frozen=True, slots=True)
class MeterAddress:
    """Where a meter answers, and where its meter model is."""

    host: str
    port: int
    unit_id: int
    model: ModelLocation


@dataclass(frozen=True, slots=True)
class MeterDiscovery:
    """What a meter said about itself, and the grid power it measured then (kW, positive
    while the site imports)."""

    address: MeterAddress
    manufacturer: str
    model: str
    serial: str
    grid_power_kw: float


@dataclass(frozen=True, slots=True)
class SiteMeter:
    """A commissioned grid meter: the site (account, environment, user) it measures."""

    account_id: str
    environment: Environment
    user_id: str
    address: MeterAddress
    manufacturer: str
    model: str
    serial: str
    commissioned_at: datetime
    polled_at: datetime | None = None


class MeterProbe(Protocol):
    async def discover_meter(self, host: str, port: int, unit_id: int) -> MeterDiscovery:
        """Raises `DriverError` when nothing answers there or it has no meter model."""
        ...

    async def grid_power(self, address: MeterAddress) -> float:
        """kW, positive while importing from the grid; raises `DriverError`."""
        ...


class SiteMeterRepository(Protocol):
    async def save(self, meter: SiteMeter) -> None:
        """Adds the site's meter, or replaces the one it had."""
        ...

    async def for_site(
        self, account_id: str, environment: Environment, user_id: str
    ) -> SiteMeter | None: ...
    async def at_address(self, host: str, port: int, unit_id: int) -> SiteMeter | None: ...
    async def claim_due(
        self, polled_before: datetime, now: datetime, limit: int
    ) -> Sequence[SiteMeter]:
        """Meters last polled before `polled_before` (or never), oldest first, marked as
        polled `now` so another poller skips them."""
        ...

    async def oldest_poll(self) -> tuple[bool, datetime | None]:
        """Whether any meter is commissioned, and the oldest poll (None: one never polled)."""
        ...


class SiteMeterUnitOfWork(UnitOfWork, Protocol):
    @property
    def site_meters(self) -> SiteMeterRepository: ...


class SiteMeterUnitOfWorkFactory(Protocol):
    def __call__(self) -> SiteMeterUnitOfWork: ...
