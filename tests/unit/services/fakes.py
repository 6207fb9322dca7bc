"""In-memory fakes of the ports the use cases need (`energyhub.ports`), for unit tests of
services: a unit of work whose writes show only once it commits, a device driver that
records commands and can refuse or time out, a webhook attempt sender, and a cipher. The
clock is `energyhub.domain.clock.FakeClock`. Each fake keeps to its port's promises that
the use cases rely on (leases, commit or roll back), and no more."""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action, ActionState, DueKind, last_action_body
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.deliveries import DueDelivery, WebhookDelivery, WebhookEndpoint
from energyhub.domain.devices import Device, Vehicle
from energyhub.domain.dispatch import ActionStep, DeviceChange
from energyhub.domain.events import OutboxEvent
from energyhub.domain.history import StateSample
from energyhub.domain.pushes import PushPlan
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from energyhub.domain.retention import PrunedBatch
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for
from energyhub.domain.webhooks import DeliveryStatus
from energyhub.ports.webhooks import AttemptOutcome, WebhookRequest


# --- storage ----------------------------------------------------------------------------------
@dataclass
class Lease:
    owner: str
    until: datetime


@dataclass
class Tables:
    """What is committed. A unit of work works on a deep copy and puts it back on commit."""

    endpoints: dict[str, WebhookEndpoint] = field(default_factory=dict)
    events: dict[str, OutboxEvent] = field(default_factory=dict)
    fanned_out: dict[str, datetime] = field(default_factory=dict)
    deliveries: dict[str, WebhookDelivery] = field(default_factory=dict)
    delivery_leases: dict[str, Lease] = field(default_factory=dict)
    devices: dict[str, Device] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    samples: list[tuple[str, StateSample]] = field(default_factory=list)
    vehicles: dict[str, Vehicle] = field(default_factory=dict)


class FakeEvents:
    """`ports.storage.EventRepository`: the outbox."""

    def __init__(self, t: Tables) -> None:
        self.t = t

    async def add(self, events: Sequence[OutboxEvent]) -> None:
        for event in events:
            self.t.events[event.id] = event


class FakeWebhooks:
    """The part of `ports.storage.WebhookRepository` the webhook sender uses."""

    def __init__(self, t: Tables) -> None:
        self.t = t

    async def due_events(
        self, now: datetime, limit: int, skip_accounts: Collection[str] = ()
    ) -> list[OutboxEvent]:
        due = [
            e
            for e in self.t.events.values()
            if e.id not in self.t.fanned_out
            and e.deliver_after <= now
            and e.account_id not in skip_accounts
        ]
        return sorted(due, key=lambda e: e.deliver_after)[:limit]

    async def active_endpoints(self, account_ids: Sequence[str]) -> list[WebhookEndpoint]:
        return [
            e
            for e in self.t.endpoints.values()
            if e.account_id in account_ids and e.enabled and e.deleted_at is None
        ]

    async def add_deliveries(
        self,
        deliveries: Sequence[WebhookDelivery],
        lease_owner: str | None = None,
        lease_until: datetime | None = None,
    ) -> None:
        for delivery in deliveries:
            self.t.deliveries[delivery.id] = delivery
            if lease_owner is not None and lease_until is not None:
                self.t.delivery_leases[delivery.id] = Lease(lease_owner, lease_until)

    async def mark_fanned_out(self, event_ids: Sequence[str], at: datetime) -> None:
        for event_id in event_ids:
            self.t.fanned_out[event_id] = at

    async def due_deliveries(
        self,
        now: datetime,
        limit: int,
        skip_accounts: Collection[str] = (),
        skip_endpoints: Collection[str] = (),
    ) -> list[DueDelivery]:
        due = []
        for d in self.t.deliveries.values():
            lease = self.t.delivery_leases.get(d.id)
            if d.next_attempt_at is None or d.next_attempt_at > now:
                continue
            if lease is not None and lease.until > now:
                continue
            if d.account_id in skip_accounts or d.endpoint_id in skip_endpoints:
                continue
            endpoint = self.t.endpoints[d.endpoint_id]
            deliverable = endpoint.enabled and endpoint.deleted_at is None
            due.append(DueDelivery(d, endpoint.url, endpoint.secret, deliverable))
        return sorted(due, key=lambda x: x.delivery.next_attempt_at or now)[:limit]

    async def lease_deliveries(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None:
        for delivery_id in delivery_ids:
            self.t.delivery_leases[delivery_id] = Lease(owner, lease_until)

    async def extend_leases(
        self, owner: str, delivery_ids: Sequence[str], lease_until: datetime
    ) -> None:
        for delivery_id in delivery_ids:
            lease = self.t.delivery_leases.get(delivery_id)
            if lease is not None and lease.owner == owner:
                lease.until = lease_until

    async def record_attempts(self, owner: str, results: Sequence[dict[str, Any]]) -> None:
        """Stores each result and releases its lease, skipping rows `owner` does not hold."""
        for result in results:
            delivery_id = result["row_id"]
            lease = self.t.delivery_leases.get(delivery_id)
            if lease is None or lease.owner != owner:
                continue
            del self.t.delivery_leases[delivery_id]
            self.t.deliveries[delivery_id] = replace(
                self.t.deliveries[delivery_id],
                status=DeliveryStatus(result["status"]),
                attempts=tuple(result["attempts"]),
                next_attempt_at=result["next_attempt_at"],
                updated_at=result["updated_at"],
            )

    async def next_due_at(self) -> datetime | None:
        events = [e.deliver_after for e in self.t.events.values() if e.id not in self.t.fanned_out]
        deliveries = []
        for d in self.t.deliveries.values():
            if d.next_attempt_at is None:
                continue
            lease = self.t.delivery_leases.get(d.id)
            held = lease.until if lease is not None else d.next_attempt_at
            deliveries.append(max(held, d.next_attempt_at))
        found = [*events, *deliveries]
        return min(found) if found else None


class FakeDevices:
    """The part of `ports.storage.DeviceRepository` the push and the dispatcher use."""

    def __init__(self, t: Tables) -> None:
        self.t = t

    async def get_device(
        self, account_id: str, environment: Environment, device_id: str, *, lock: bool = False
    ) -> Device | None:
        device = self.t.devices.get(device_id)
        if device is None or (device.account_id, device.environment) != (account_id, environment):
            return None
        return device

    async def get_device_by_id(self, device_id: str) -> Device | None:
        return self.t.devices.get(device_id)

    async def get_devices_by_ids(self, device_ids: Sequence[str]) -> Sequence[Device]:
        return [self.t.devices[i] for i in device_ids if i in self.t.devices]

    async def update_device(self, device_id: str, **values: Any) -> None:
        self.t.devices[device_id] = replace(self.t.devices[device_id], **values)

    async def update_device_if(
        self, device_id: str, expected: dict[str, Any], **values: Any
    ) -> bool:
        device = self.t.devices[device_id]
        if any(getattr(device, name) != value for name, value in expected.items()):
            return False
        await self.update_device(device_id, **values)
        return True

    async def vehicles_for_chargers(self, charger_ids: Sequence[str]) -> dict[str, Vehicle]:
        found = {}
        for vehicle in self.t.vehicles.values():
            if vehicle.charger_id is not None and vehicle.charger_id in charger_ids:
                found[vehicle.charger_id] = vehicle
        return found

    async def upsert_vehicle(
        self, vehicle: Vehicle, account_id: str, environment: Environment, now: datetime
    ) -> None:
        self.t.vehicles[vehicle.id] = vehicle


class FakeActions:
    """The part of `ports.storage.ActionRepository` the push and the dispatcher use; leases
    as the SQL one keeps them (a claim takes what is due and not held, or whose lease ran
    out)."""

    def __init__(self, t: Tables, clock: FakeClock) -> None:
        self.t = t
        self.clock = clock

    async def in_play(self, device_id: str, now: datetime) -> Sequence[Action]:
        return [a for a in self.t.actions.values() if a.device_id == device_id and a.in_play(now)]

    async def add(self, action: Action) -> None:
        self.t.actions[action.id] = action

    async def update(self, action_id: str, *, held_by: str | None = None, **values: Any) -> bool:
        action = self.t.actions.get(action_id)
        if action is None or (held_by is not None and action.lease_owner != held_by):
            return False
        self.t.actions[action_id] = replace(action, **values)
        return True

    async def get_by_id(self, action_id: str) -> Action | None:
        return self.t.actions.get(action_id)

    async def claim_due(
        self, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> Sequence[Action]:
        due = [
            a
            for a in self.t.actions.values()
            if a.due_at is not None
            and a.due_at <= now
            and (a.lease_until is None or a.lease_until <= now)
        ]
        claimed = []
        for action in sorted(due, key=lambda a: a.due_at or now)[:limit]:
            leased = replace(action, lease_owner=owner, lease_until=lease_until)
            self.t.actions[action.id] = leased
            claimed.append(leased)
        return claimed

    async def next_due_at(self) -> datetime | None:
        due = [a.lease_until or a.due_at for a in self.t.actions.values() if a.due_at]
        return min((d for d in due if d is not None), default=None)

    async def held_by(self, owner: str, action_ids: Sequence[str]) -> set[str]:
        return {i for i in action_ids if self.t.actions[i].lease_owner == owner}

    async def superseded(self, action_ids: Sequence[str]) -> set[str]:
        """Those whose device has since accepted an action that starts later."""
        found = set()
        for action_id in action_ids:
            action = self.t.actions[action_id]
            if any(
                other.device_id == action.device_id
                and other.start > action.start
                and other.acknowledged_at is not None
                for other in self.t.actions.values()
            ):
                found.add(action_id)
        return found

    async def extend_leases(
        self, owner: str, action_ids: Sequence[str], lease_until: datetime
    ) -> None:
        for action_id in action_ids:
            if self.t.actions[action_id].lease_owner == owner:
                await self.update(action_id, lease_until=lease_until)


class FakeSteps:
    """`ports.storage.ActionStepRepository`: a step's changed fields, its device's change,
    and `lastAction` while the action is the device's newest."""

    def __init__(self, t: Tables) -> None:
        self.t = t

    async def record(self, step: ActionStep, *, held_by: str | None) -> bool:
        action = self.t.actions.get(step.action.id)
        if action is None or (held_by is not None and action.lease_owner != held_by):
            return False
        self.t.actions[action.id] = replace(action, **step.stored())
        device = self.t.devices[action.device_id]
        if step.last_action is not None and device.last_action_id in (None, action.id):
            device = replace(device, last_action_id=action.id, last_action=dict(step.last_action))
        self.t.devices[device.id] = device
        if step.device is not None:
            await self.change_device(device.id, step.device)
        return True

    async def record_many(self, steps: Sequence[ActionStep]) -> None:
        for step in steps:
            await self.record(step, held_by=None)

    async def change_device(self, device_id: str, change: DeviceChange) -> None:
        values: dict[str, Any] = {"updated_at": change.at}
        if change.mode is not None:
            values.update(mode_action_id=change.mode.action_id, mode_command=change.mode.command)
        if change.driver_state is not None:
            values["sim"] = dict(change.driver_state)
        if change.reading is not None:
            values.update(
                state=change.reading.state,
                available=change.reading.available,
                last_pulled_at=change.at,
            )
        self.t.devices[device_id] = replace(self.t.devices[device_id], **values)


class FakeSamples:
    def __init__(self, t: Tables) -> None:
        self.t = t

    async def add_sample(self, device_id: str, sample: StateSample, keep_after: datetime) -> None:
        self.t.samples.append((device_id, sample))

    async def samples(self, device_id: str, start: datetime, end: datetime) -> list[StateSample]:
        found = [s for d, s in self.t.samples if d == device_id and start <= s.at <= end]
        return sorted(found, key=lambda s: s.at)


class FakeUnitOfWork:
    """One transaction over `FakeDatabase`: reads and writes go to a copy of the committed
    tables, which replaces them when the block ends without an exception; callbacks given
    to `after_commit` run then, and not at all on a rollback."""

    def __init__(self, db: FakeDatabase) -> None:
        self._db = db
        self._callbacks: list[Callable[[], None]] = []
        self.t = Tables()

    async def __aenter__(self) -> Self:
        if self._db.fail_next:
            self._db.fail_next -= 1
            raise ConnectionError("the fake database is down")
        self.t = copy.deepcopy(self._db.tables)
        self.events = FakeEvents(self.t)
        self.webhooks = FakeWebhooks(self.t)
        self.devices = FakeDevices(self.t)
        self.actions = FakeActions(self.t, self._db.clock)
        self.steps = FakeSteps(self.t)
        self.samples = FakeSamples(self.t)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            return
        self._db.tables = self.t
        self._db.commits += 1
        for callback in self._callbacks:
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, Sequence[Action]] | None:
        device = await self.devices.get_device(account_id, environment, device_id, lock=True)
        if device is None:
            return None
        return device, await self.actions.in_play(device_id, now)

    async def add_action(self, plan: PushPlan) -> None:
        """As `persistence.uow`: the displaced actions as they become, the new one, and the
        device's `lastAction` (and its mode, when the device already took the command)."""
        for ended in (*plan.cancelled, *plan.cut):
            self.t.actions[ended.id] = ended
        await self.actions.add(plan.action)
        change = plan.device
        values: dict[str, Any] = {
            "updated_at": change.updated_at,
            "last_action_id": change.last_action.id,
            "last_action": last_action_body(change.last_action),
        }
        if change.mode_from is not None:
            values.update(mode_action_id=change.mode_from.id, mode_command=change.mode_from.command)
        if change.sim is not None:
            values["sim"] = dict(change.sim)
        await self.devices.update_device(plan.action.device_id, **values)


class FakeDatabase:
    """The committed tables; called, it opens a unit of work (a `UnitOfWorkFactory`).
    `fail_next`: how many of the next units of work fail to open."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.tables = Tables()
        self.commits = 0
        self.fail_next = 0

    def __call__(self) -> Any:  # a UnitOfWork for the parts the use cases under test use
        return FakeUnitOfWork(self)

    single_read = __call__


# --- devices ----------------------------------------------------------------------------------
@dataclass
class FakeDriver:
    """`ports.devices.DeviceDriver`: records every command; `refuse` (a `DriverError`)
    makes the next commands fail with it (a timeout is `DriverError("DEVICE_TIMEOUT", ...,
    retryable=True)`); `readings` answers reads."""

    clock: FakeClock
    instant: bool = False
    sent: list[tuple[str, CommandRequest]] = field(default_factory=list)
    refuse: DriverError | None = None
    refusals_left: int | None = None  # None: every command while `refuse` is set
    reading: DeviceReading | None = None
    completes_after: float = 0.0  # seconds until an accepted command counts as done
    during_send: Callable[[], None] | None = None  # what else happens while a command runs
    settings_written: list[tuple[str, Mapping[str, float | bool]]] = field(default_factory=list)

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        if self.reading is None:
            raise DriverError("DEVICE_OFFLINE", "no reading", retryable=True)
        return self.reading

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        self.sent.append((device.id, request))
        if self.during_send is not None:
            self.during_send()
        if self.refuse is not None and self.refusals_left != 0:
            if self.refusals_left is not None:
                self.refusals_left -= 1
            raise self.refuse
        return CommandReceipt(
            result={"command": request.command}, completes_after=self.completes_after
        )

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        self.settings_written.append((device.id, values))


# --- webhooks and secrets ---------------------------------------------------------------------
@dataclass
class FakeAttemptSender:
    """`ports.webhooks.AttemptSender`: answers each request with the next status of
    `statuses` (the last one repeats), keeps every request, and raises `crash` if set."""

    clock: FakeClock
    statuses: list[int | None] = field(default_factory=lambda: [200])
    requests: list[WebhookRequest] = field(default_factory=list)
    crash: Exception | None = None

    async def send(self, request: WebhookRequest) -> AttemptOutcome:
        self.requests.append(request)
        if self.crash is not None:
            raise self.crash
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        error = None if status is not None and 200 <= status < 300 else f"HTTP {status}"
        return AttemptOutcome(self.clock.now(), status, 12, error if status else "timeout")


class FakeCipher:
    """`ports.secrets.Cipher`: a reversible wrapping, enough to tell sealed from clear."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def encrypt(self, credentials: Mapping[str, Any]) -> str:
        return "sealed:" + repr(dict(credentials))

    def decrypt(self, token: str) -> dict[str, Any]:
        raise NotImplementedError("the use cases tested here only open text")

    def seal_text(self, text: str) -> str:
        return "sealed:" + text

    def open_text(self, token: str) -> str:
        if not token.startswith("sealed:"):
            raise ValueError("not a token of this cipher")
        self.opened.append(token)
        return token.removeprefix("sealed:")

    def rotate(self, token: str) -> str:
        return token


# --- a world of devices -------------------------------------------------------------------
def battery(device_id: str, now: datetime, **changes: Any) -> Device:
    """A sandbox battery of account `acc_1` (its driver name is `sandbox`; tests map it to a
    `FakeDriver`)."""
    device = new_sandbox_device(
        profile_for(DeviceType.BATTERY, None),
        device_id=device_id,
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="user_1",
        timezone="Europe/Berlin",
        now=now - timedelta(days=1),
    )
    return replace(device, **changes)


def waiting_action(
    action_id: str, device: Device, start: datetime, end: datetime | None = None, **changes: Any
) -> Action:
    """An action scheduled for `start`, due then for its dispatch."""
    action = Action(
        id=action_id,
        account_id=device.account_id,
        environment=device.environment.value,
        device_id=device.id,
        device_type=device.type,
        command="charge",
        parameters={"power": {"value": 2, "unit": "kW"}},
        device_parameters={"power": 2.0},
        state=ActionState.SCHEDULED,
        start=start,
        end=end,
        on_conflict=None,
        result=None,
        error_code=None,
        error_message=None,
        deferred_until=None,
        acknowledged_at=None,
        completed_at=None,
        created_at=start - timedelta(hours=1),
        updated_at=start - timedelta(hours=1),
        due_at=start,
        due_kind=DueKind.DISPATCH,
    )
    return replace(action, **changes)


class FakeHistoryPruner:
    """The `HistoryPruner` port over rows given as (kind, time, prunable); a batch deletes
    the oldest prunable rows older than the cutoff, as the SQL one does."""

    def __init__(self, rows: Sequence[tuple[str, datetime, bool]] = ()) -> None:
        self.rows = list(rows)
        self.batches: list[tuple[str, int]] = []
        self.since: list[datetime | None] = []

    async def prune_batch(
        self, kind: str, before: datetime, now: datetime, limit: int, since: datetime | None = None
    ) -> PrunedBatch:
        old = sorted(
            (
                r
                for r in self.rows
                if r[0] == kind and r[2] and r[1] < before and (since is None or r[1] >= since)
            ),
            key=lambda r: r[1],
        )[:limit]
        for row in old:
            self.rows.remove(row)
        self.batches.append((kind, len(old)))
        self.since.append(since)
        return PrunedBatch(len(old), max((r[1] for r in old), default=None))
