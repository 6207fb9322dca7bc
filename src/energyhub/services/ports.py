"""What services need from the outside world, as Protocols: persistence and drivers implement
them; tests pass fakes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self

from energyhub.domain.accounts import Account, ApiKey, Environment
from energyhub.domain.actions import Action
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device, User, Vehicle
from energyhub.drivers.base import CommandReceipt, CommandRequest, DeviceReading

__all__ = [
    "AccountRepository",
    "ActionRepository",
    "Clock",
    "DeviceDriver",
    "DeviceRepository",
    "UnitOfWork",
    "UnitOfWorkFactory",
]


class DeviceDriver(Protocol):
    """One protocol family (sandbox, OCPP, SunSpec) behind one interface."""

    async def read(self, device: Device, now: datetime) -> DeviceReading: ...

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        """The device accepted the command; a refusal raises `DriverError`."""
        ...

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None: ...


class AccountRepository(Protocol):
    async def add_account(self, account: Account) -> None: ...
    async def get_account(self, account_id: str) -> Account | None: ...
    async def count_accounts(self) -> int: ...
    async def add_key(self, key: ApiKey, key_hash: str) -> None: ...
    async def key_by_hash(self, key_hash: str) -> ApiKey | None: ...
    async def get_key(self, key_id: str) -> ApiKey | None: ...
    async def list_keys(self, account_id: str) -> Sequence[ApiKey]: ...
    async def revoke_key(self, key_id: str, at: datetime) -> bool: ...


class DeviceRepository(Protocol):
    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None: ...
    async def get_device_by_id(self, device_id: str) -> Device | None: ...
    async def get_devices_by_ids(self, device_ids: Sequence[str]) -> Sequence[Device]: ...
    async def list_devices(
        self,
        account_id: str,
        environment: Environment,
        types: Sequence[DeviceType],
        user_id: str | None,
        offset: int,
        limit: int,
    ) -> tuple[Sequence[Device], int]: ...
    async def add_device(self, device: Device) -> None: ...
    async def update_device(self, device_id: str, **values: Any) -> None: ...
    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool: ...
    async def update_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> None: ...
    async def set_last_actions(self, bodies: Sequence[tuple[str, str, dict[str, Any]]]) -> None: ...
    async def get_user(
        self, account_id: str, environment: Environment, ref: str
    ) -> User | None: ...
    async def ensure_user(
        self,
        account_id: str,
        environment: Environment,
        user_id: str,
        email: str | None,
        now: datetime,
    ) -> User: ...
    async def get_vehicle(
        self, account_id: str, environment: Environment, vehicle_id: str
    ) -> Vehicle | None: ...
    async def vehicles_for_chargers(self, charger_ids: Sequence[str]) -> dict[str, Vehicle]: ...
    async def upsert_vehicle(
        self, vehicle: Vehicle, account_id: str, environment: Environment, now: datetime
    ) -> None: ...


class ActionRepository(Protocol):
    async def lock_device(self, device_id: str) -> None: ...
    async def add(self, action: Action) -> None: ...
    async def get(self, account_id: str, environment: str, action_id: str) -> Action | None: ...
    async def get_by_id(self, action_id: str) -> Action | None: ...
    async def list(
        self,
        account_id: str,
        environment: str,
        device_id: str | None,
        state: str | None,
        offset: int,
        limit: int,
    ) -> tuple[Sequence[Action], int]: ...
    async def in_play(self, device_id: str, now: datetime) -> Sequence[Action]: ...
    async def update(
        self, action_id: str, *, held_by: str | None = None, **values: Any
    ) -> bool: ...
    async def held_by(self, owner: str, action_ids: Sequence[str]) -> set[str]: ...
    async def update_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> None: ...
    async def claim_due(
        self, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> Sequence[Action]: ...
    async def next_due_at(self) -> datetime | None: ...


class UnitOfWork(Protocol):
    """One transaction: everything done through its repositories commits or rolls back."""

    @property
    def accounts(self) -> AccountRepository: ...
    @property
    def devices(self) -> DeviceRepository: ...
    @property
    def actions(self) -> ActionRepository: ...

    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self) -> UnitOfWork: ...
