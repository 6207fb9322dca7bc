"""The unit of work commissioning runs in: a live device, its protocol's record (a charge
point or a SunSpec endpoint) and its `device.connected`, written in one transaction."""

from __future__ import annotations

from typing import Protocol

from energyhub.ports.ocpp import ChargePointRepository
from energyhub.ports.storage import UnitOfWork
from energyhub.ports.sunspec import SunspecRepository


class CommissioningUnitOfWork(UnitOfWork, Protocol):
    @property
    def charge_points(self) -> ChargePointRepository: ...

    @property
    def sunspec(self) -> SunspecRepository: ...


class CommissioningUnitOfWorkFactory(Protocol):
    def __call__(self) -> CommissioningUnitOfWork: ...
