"""What the use cases need from storage: repositories, and the units of work (one
transaction each) that hold them. `persistence/` implements them; unit tests pass fakes."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self

from energyhub.domain.accounts import Account, ApiKey, Environment
from energyhub.domain.actions import Action
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.deliveries import DueDelivery, WebhookDelivery, WebhookEndpoint
from energyhub.domain.devices import Device, User, Vehicle
from energyhub.domain.dispatch import ActionStep, DeviceChange
from energyhub.domain.events import OutboxEvent
from energyhub.domain.history import StateSample
from energyhub.domain.linking import LinkedAccount, LinkSession
from energyhub.domain.pushes import PushPlan
from energyhub.domain.schedules import ScheduleState
from energyhub.domain.session_costs import SessionLedger
from energyhub.domain.sessions import ChargingSession, SessionPage, SessionQuery
from energyhub.domain.strategy_runs import StrategyRun
from energyhub.domain.versions import ApiVersion


class AccountRepository(Protocol):
    async def add_account(self, account: Account) -> None: ...
    async def get_account(self, account_id: str) -> Account | None: ...
    async def count_accounts(self) -> int: ...
    async def list_accounts(self, now: datetime) -> list[tuple[Account, int]]: ...
    async def add_key(self, key: ApiKey, key_hash: str) -> None: ...
    async def key_by_hash(self, key_hash: str) -> ApiKey | None: ...
    async def get_key(self, key_id: str) -> ApiKey | None: ...
    async def list_keys(self, account_id: str) -> Sequence[ApiKey]: ...
    async def set_key_version(self, key_id: str, version: ApiVersion) -> None: ...
    async def revoke_key(self, key_id: str, at: datetime) -> bool: ...
    async def record_key_uses(self, uses: Mapping[str, datetime]) -> None: ...


class PushDevices(Protocol):
    """What a push does to devices: the full repository has it, and so has the lean
    PostgreSQL one of the push hot path."""

    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None: ...
    async def update_device(self, device_id: str, **values: Any) -> None: ...
    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool: ...


class PushActions(Protocol):
    async def in_play(self, device_id: str, now: datetime) -> Sequence[Action]: ...
    async def update(
        self, action_id: str, *, held_by: str | None = None, **values: Any
    ) -> bool: ...


class DeviceRepository(PushDevices, Protocol):
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
    async def update_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> None: ...
    async def set_last_actions(self, bodies: Sequence[tuple[str, str, dict[str, Any]]]) -> None: ...
    async def get_user(
        self, account_id: str, environment: Environment, ref: str
    ) -> User | None: ...
    async def first_device_timezone(
        self, account_id: str, environment: Environment, user_id: str
    ) -> str | None: ...
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


class ActionRepository(PushActions, Protocol):
    async def lock_device(self, device_id: str) -> None: ...
    async def add(self, action: Action) -> None: ...
    async def get(self, account_id: str, environment: str, action_id: str) -> Action | None: ...
    async def get_by_id(self, action_id: str) -> Action | None: ...
    async def waiting_for_schedule(self, schedule_id: str) -> Sequence[Action]: ...
    async def list(
        self,
        account_id: str,
        environment: str,
        device_id: str | None,
        state: str | None,
        offset: int,
        limit: int,
    ) -> tuple[Sequence[Action], int]: ...
    async def held_by(self, owner: str, action_ids: Sequence[str]) -> set[str]: ...
    async def superseded(self, action_ids: Sequence[str]) -> set[str]: ...
    async def extend_leases(
        self, owner: str, action_ids: Sequence[str], lease_until: datetime
    ) -> None: ...
    async def update_many(self, changes: Sequence[tuple[str, dict[str, Any]]]) -> None: ...
    async def claim_due(
        self, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> Sequence[Action]: ...
    async def next_due_at(self) -> datetime | None: ...


class ActionStepRepository(Protocol):
    """Where the dispatcher's decisions are stored: an action's changed fields, its
    device's changes, and the device's `lastAction` while the action is its newest."""

    async def record(self, step: ActionStep, *, held_by: str | None) -> bool:
        """Stores one step; with `held_by`, only while that owner still holds the lease
        (False, and nothing stored, when it does not)."""
        ...

    async def record_many(self, steps: Sequence[ActionStep]) -> None:
        """Many steps in a few statements; the caller has checked (and locked) the leases."""
        ...

    async def change_device(self, device_id: str, change: DeviceChange) -> None: ...


class EventRepository(Protocol):
    """The webhook outbox: events written in the transaction of the change that causes them."""

    async def add(self, events: Sequence[OutboxEvent]) -> None: ...


class WebhookRepository(Protocol):
    """Webhook endpoints, the outbox's fan-out and the delivery queue (CONTRACT 9)."""

    async def add_endpoint(self, endpoint: WebhookEndpoint) -> None: ...
    async def get_endpoint(
        self, account_id: str, environment: str, endpoint_id: str
    ) -> WebhookEndpoint | None: ...
    async def list_endpoints(self, account_id: str, environment: str) -> list[WebhookEndpoint]: ...
    async def count_endpoints(self, account_id: str, environment: str) -> int: ...
    async def set_secret(self, endpoint_id: str, secret: str) -> None: ...
    async def set_previous_secret(
        self, endpoint_id: str, previous: str | None, expires_at: datetime | None
    ) -> None: ...
    async def secrets_page(
        self, after_pk: int, limit: int
    ) -> list[tuple[int, str, str, str | None, datetime | None]]: ...
    async def delete_endpoint(
        self, account_id: str, environment: str, endpoint_id: str, at: datetime
    ) -> bool: ...
    async def due_events(
        self, now: datetime, limit: int, skip_accounts: Collection[str] = ()
    ) -> list[OutboxEvent]: ...
    async def active_endpoints(self, account_ids: Sequence[str]) -> list[WebhookEndpoint]: ...
    async def add_deliveries(
        self,
        deliveries: Sequence[WebhookDelivery],
        lease_owner: str | None = None,
        lease_until: datetime | None = None,
    ) -> None: ...
    async def mark_fanned_out(self, event_ids: Sequence[str], at: datetime) -> None: ...
    async def due_deliveries(
        self,
        now: datetime,
        limit: int,
        skip_accounts: Collection[str] = (),
        skip_endpoints: Collection[str] = (),
    ) -> list[DueDelivery]: ...
    async def lease_deliveries(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None: ...
    async def extend_leases(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None: ...
    async def record_attempts(self, owner: str, results: Sequence[dict[str, Any]]) -> None: ...
    async def next_due_at(self) -> datetime | None: ...
    async def get_delivery(
        self, account_id: str, environment: str, delivery_id: str
    ) -> WebhookDelivery | None: ...
    async def list_deliveries(
        self,
        account_id: str,
        environment: str,
        endpoint_id: str | None,
        status: str | None,
        offset: int,
        limit: int,
    ) -> tuple[list[WebhookDelivery], int]: ...
    async def request_attempt(self, delivery_id: str, at: datetime) -> None: ...


class SessionRepository(Protocol):
    """Charging sessions by id, as chargers report them (spec 2.6, 4.8)."""

    async def get_many(self, session_ids: Sequence[str]) -> dict[str, ChargingSession]: ...
    async def active(self, device_id: str) -> Sequence[ChargingSession]: ...
    async def upsert(self, sessions: Sequence[ChargingSession], now: datetime) -> None: ...
    async def page(self, device_id: str, query: SessionQuery) -> SessionPage: ...


@dataclass(frozen=True, slots=True)
class StoredSchedule:
    """A schedule as stored: the accepted body (`spec`, as `schedule_body` renders it) and
    how far its occurrences have been made into actions. `due_at`: when the scheduler
    looks at it next (plan ahead, or move `nextFireAt` on); it doubles as a lease."""

    id: str
    device_id: str
    account_id: str
    environment: str
    state: ScheduleState
    spec: dict[str, Any]
    planned_until: datetime | None
    skipped: list[dict[str, Any]]
    created_at: datetime
    updated_at: datetime
    due_at: datetime | None = None


class ScheduleRepository(Protocol):
    async def add(self, schedule: StoredSchedule) -> None: ...
    async def current(self, device_id: str) -> StoredSchedule | None: ...
    async def update(
        self, schedule_id: str, expected: Mapping[str, Any] | None = None, **values: Any
    ) -> bool: ...
    async def claim_due(
        self, now: datetime, lease_until: datetime, limit: int
    ) -> Sequence[StoredSchedule]: ...
    async def next_due_at(self) -> datetime | None: ...
    async def occurrence_starts(
        self, schedule_id: str, start: datetime, end: datetime
    ) -> Sequence[datetime]: ...


@dataclass(frozen=True, slots=True)
class StoredSite:
    """A user's site (strategies): what the planner reads of the home."""

    account_id: str
    environment: Environment
    user_id: str
    timezone: str | None
    grid_import_limit_kw: float | None
    tariff: dict[str, Any] | None
    last_reading: dict[str, Any] | None
    updated_at: datetime


class SiteRepository(Protocol):
    async def get(
        self, account_id: str, environment: Environment, user_id: str, *, lock: bool = False
    ) -> StoredSite | None: ...
    async def ensure(self, site: StoredSite) -> None: ...
    async def save(self, site: StoredSite) -> None: ...


class StrategyRunRepository(Protocol):
    """The strategy runner's record per charger (its one writer is the runner)."""

    async def running(self) -> list[tuple[Device, StrategyRun | None]]: ...
    async def ended(self) -> list[StrategyRun]: ...
    async def get(self, device_id: str) -> StrategyRun | None: ...
    async def sites_of(
        self, owners: Sequence[tuple[str, Environment, str]]
    ) -> dict[tuple[str, Environment, str], StoredSite]: ...
    async def save(self, run: StrategyRun) -> None: ...
    async def save_many(self, runs: Sequence[StrategyRun]) -> None: ...
    async def remove(self, device_ids: Sequence[str]) -> None: ...
    async def save_ledgers(self, ledgers: Sequence[tuple[str, SessionLedger | None]]) -> None: ...
    async def keep_costs(self, device_id: str, ledgers: Sequence[SessionLedger]) -> None: ...
    async def costs_of(self, device_id: str, since: datetime) -> list[SessionLedger]: ...


class SampleRepository(Protocol):
    """Live devices' recorded state (the dashboard's chart)."""

    async def add_sample(
        self, device_id: str, sample: StateSample, keep_after: datetime
    ) -> None: ...
    async def samples(
        self, device_id: str, start: datetime, end: datetime
    ) -> list[StateSample]: ...


class LinkingRepository(Protocol):
    """Link sessions and linked accounts (spec 1.6, CONTRACT 8)."""

    async def add_session(self, session: LinkSession, token_hash: str) -> None: ...
    async def session_by_token_hash(self, token_hash: str) -> LinkSession | None: ...
    async def advance_session(self, session: LinkSession, expected_nonce: str) -> bool: ...
    async def add_linked_account(self, account: LinkedAccount) -> None: ...
    async def get_linked_account(
        self, account_id: str, environment: Environment, linked_account_id: str
    ) -> LinkedAccount | None: ...
    async def active_linked_account(
        self, account_id: str, environment: Environment, user_id: str, vendor: str, external_id: str
    ) -> LinkedAccount | None: ...
    async def list_linked_accounts(
        self, account_id: str, environment: Environment, user_id: str
    ) -> list[LinkedAccount]: ...
    async def update_linked_account(self, linked_account_id: str, **values: Any) -> None: ...
    async def credentials_page(self, after_pk: int, limit: int) -> list[tuple[int, str, str]]: ...
    async def device_ids_of(self, linked_account_ids: Sequence[str]) -> dict[str, list[str]]: ...
    async def find_linked_device(
        self,
        account_id: str,
        environment: Environment,
        user_id: str,
        vendor: str,
        vendor_device_id: str,
    ) -> str | None: ...
    async def attach_device(
        self, device_id: str, linked_account_id: str, vendor_device_id: str, now: datetime
    ) -> None: ...


class StaleRead(Exception):
    """What a push read without a lock changed before its write: nothing was written; run
    the push again in a unit of work that locks."""


class PushUnitOfWork(Protocol):
    """One transaction with what a push needs."""

    @property
    def devices(self) -> PushDevices: ...
    @property
    def actions(self) -> PushActions: ...
    @property
    def events(self) -> EventRepository: ...

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Runs `callback` once the transaction has committed."""
        ...

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, Sequence[Action]] | None:
        """The device, locked until the transaction ends, with its actions in play; or read
        without the lock, and then the write checks that neither changed meanwhile (raising
        `StaleRead` if they did, so the push runs again under the lock)."""
        ...

    async def add_action(self, plan: PushPlan) -> None:
        """A decided push: the actions it cancels and the windows it cuts, the new action,
        and its device's changes."""
        ...

    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class UnitOfWork(PushUnitOfWork, Protocol):
    """One transaction: everything done through its repositories commits or rolls back."""

    @property
    def accounts(self) -> AccountRepository: ...
    @property
    def devices(self) -> DeviceRepository: ...
    @property
    def actions(self) -> ActionRepository: ...
    @property
    def steps(self) -> ActionStepRepository: ...
    @property
    def webhooks(self) -> WebhookRepository: ...
    @property
    def sessions(self) -> SessionRepository: ...
    @property
    def schedules(self) -> ScheduleRepository: ...
    @property
    def linking(self) -> LinkingRepository: ...
    @property
    def samples(self) -> SampleRepository: ...
    @property
    def sites(self) -> SiteRepository: ...
    @property
    def strategy_runs(self) -> StrategyRunRepository: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self) -> UnitOfWork: ...

    def single_read(self) -> UnitOfWork:
        """For one statement that writes nothing (a worker's next-due poll): no transaction
        around it where opening one costs round trips (PostgreSQL's BEGIN and COMMIT)."""
        ...


class PushUnitOfWorkFactory(Protocol):
    def __call__(self) -> PushUnitOfWork: ...
