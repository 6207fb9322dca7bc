"""What a station needs around it: the version-specific link a charger is connected by, and
the central system's side that stores and awaits what stations report, and the error of a
call the charger does not implement. Generic over the station type, so the mixins
(`Transactions`, `StrategyProfiles`) need no import of `Station`."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, Protocol, TypeVar

from energyhub.domain.errors import DeviceRejected
from energyhub.domain.readings import DriverError
from energyhub.domain.sessions import ChargingSession
from energyhub.drivers.ocpp.mapping import ConfigWrite, Discovery, Limit
from energyhub.drivers.ocpp.profiles import ProfileSchedule

S = TypeVar("S", contravariant=True)


class CallNotSupported(DriverError):
    """The charger does not implement a call (OCPP `NotImplemented` / `NotSupported`)."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(DeviceRejected.code, message, retryable=False, details=details)


class ChargerLink(Protocol):
    """The version-specific side of a connection: what the service asks of a charger."""

    protocol: str

    async def set_limit(self, limit: Limit, purpose: str, transaction_id: str | None) -> None:
        """`purpose`: `default` (TxDefaultProfile), `tx` (TxProfile of the running
        transaction) or `max` (the charger-wide maximum)."""
        ...

    async def set_schedule(
        self, schedule: ProfileSchedule, purpose: str, transaction_id: str | None
    ) -> None:
        """A strategy's schedule above the commands' profiles: `strategy` (TxDefaultProfile)
        or `strategy_tx` (TxProfile of the running transaction)."""
        ...

    async def clear_limit(self, purpose: str) -> None:
        """Removes the service's profile of that purpose (none there is no error)."""
        ...

    async def remote_start(self, limit: Limit | None, connector_id: int) -> None: ...
    async def remote_stop(self, transaction_id: str) -> None: ...
    async def write_config(self, write: ConfigWrite) -> None: ...
    async def discover(self) -> Discovery: ...
    async def close(self, code: int, reason: str) -> None: ...


class StationEvents(Protocol[S]):
    """What a station tells the central system: something to store, something to await."""

    def changed(self, station: S, *, device: bool = True) -> None: ...
    async def persist(self, station: S, session: ChargingSession | None) -> None: ...
    def spawn(self, work: Awaitable[None], name: str) -> None: ...
    async def settings(self, station: S, reported: Mapping[str, float | bool]) -> dict[str, Any]:
        """The device's stored settings, with what the charger `reported` written over
        them first."""
        ...
