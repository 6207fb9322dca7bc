"""The push use case (`ActionService`) against fakes in memory: a push is accepted and sent
at once, refused with the device's code, stored to wait for its start, refused when it
collides, or placed by its conflict strategy (replacing or queueing), and its events are
recorded in the push's transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import Action, ActionState, DueKind, RetryPolicy
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.errors import ActionConflict, DeviceNotFound, SandboxOnly
from energyhub.domain.events import EventDelays
from energyhub.domain.pushes import PushRequest
from energyhub.domain.quantities import Quantity
from energyhub.domain.readings import DeviceReading, DriverError
from energyhub.domain.webhooks import EventType
from energyhub.services.actions import ActionService, PushFailed
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.dispatch import Dispatcher
from energyhub.services.outbox import Outbox
from tests.unit.services.fakes import FakeDatabase, FakeDriver, battery, waiting_action

NOW = datetime(2026, 11, 20, 11, 0, 0, 250_000, tzinfo=UTC)  # 12:00:00.25 in Berlin
SANDBOX = Principal("acc_1", Environment.SANDBOX, "key_1")
CHARGE = PushRequest("charge", {"power": Quantity(2, "kW")})


class World:
    def __init__(self, *, instant: bool = False) -> None:
        self.clock = FakeClock(NOW)
        self.db = FakeDatabase(self.clock)
        self.driver = FakeDriver(self.clock, instant, reading=DeviceReading(state={"soc": 40}))
        drivers = {"sandbox": self.driver}
        changes = DeviceChangeFeed()
        self.dispatcher = Dispatcher(
            self.db,
            drivers,
            self.clock,
            changes,
            RetryPolicy.from_seconds((60,)),
            immediate_backoff_s=(0, 0),
            outbox=Outbox(self.clock, EventDelays()),
        )
        self.woken: list[datetime | None] = []
        self.actions = ActionService(
            self.db, drivers, self.clock, changes, self.dispatcher, self.woken.append
        )
        self.device = battery("bat_1", NOW)
        self.db.tables.devices[self.device.id] = self.device

    async def push(self, request: PushRequest, principal: Principal = SANDBOX) -> Action:
        return await self.actions.push(principal, DeviceType.BATTERY, "bat_1", request)

    def stored(self) -> dict[str, ActionState]:
        return {a.id: a.state for a in self.db.tables.actions.values()}

    def event_types(self) -> list[EventType]:
        return [e.type for e in self.db.tables.events.values()]


@pytest.fixture
def world() -> World:
    return World()


async def test_an_immediate_push_is_sent_at_once_and_completes(world: World) -> None:
    action = await world.actions.push(SANDBOX, DeviceType.BATTERY, "bat_1", CHARGE)

    assert action.state is ActionState.COMPLETED
    assert [(d, r.command, r.parameters) for d, r in world.driver.sent] == [
        ("bat_1", "charge", {"power": 2.0})
    ]
    stored = world.db.tables.actions[action.id]
    assert (stored.state, stored.lease_owner, stored.due_at) == (ActionState.COMPLETED, None, None)
    device = world.db.tables.devices["bat_1"]
    assert (device.last_action_id, device.mode_command) == (action.id, "charge")
    assert world.event_types() == [EventType.PUSH_COMPLETED]


async def test_an_instant_driver_answers_inside_the_push(world: World) -> None:
    world = World(instant=True)

    action = await world.actions.push(SANDBOX, DeviceType.BATTERY, "bat_1", CHARGE)

    assert action.state is ActionState.COMPLETED
    assert len(world.driver.sent) == 1
    assert world.event_types() == [EventType.PUSH_COMPLETED]


async def test_an_immediate_push_the_device_refuses_fails_with_its_code(world: World) -> None:
    world.driver.refuse = DriverError("COMMAND_REJECTED", "Rejected.", retryable=False)

    with pytest.raises(PushFailed) as refused:
        await world.push(CHARGE)

    assert refused.value.code == "COMMAND_REJECTED"
    assert refused.value.status == 502
    (action,) = world.db.tables.actions.values()
    assert refused.value.details["actionId"] == action.id
    assert (action.state, action.error_code) == (ActionState.FAILED, "COMMAND_REJECTED")
    assert world.event_types() == [EventType.PUSH_FAILED]


async def test_an_immediate_push_is_not_deferred_when_the_device_is_offline(
    world: World,
) -> None:
    world.driver.refuse = DriverError("DEVICE_OFFLINE", "Offline.", retryable=True)

    with pytest.raises(PushFailed):
        await world.push(CHARGE)

    assert len(world.driver.sent) == 3, "two quick retries of a transient refusal"
    assert list(world.stored().values()) == [ActionState.FAILED]


async def test_a_push_with_a_start_waits_for_it_and_wakes_the_dispatcher(world: World) -> None:
    request = PushRequest("charge", {}, start="2026-11-20T13:00:00", end="2026-11-20T14:00:00")

    action = await world.actions.push(SANDBOX, DeviceType.BATTERY, "bat_1", request)

    start = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    assert (action.state, action.start, action.due_at) == (ActionState.SCHEDULED, start, start)
    assert action.due_kind is DueKind.DISPATCH
    assert world.driver.sent == []
    assert world.woken == [start]
    assert world.event_types() == [], "no event on create"
    assert world.db.tables.devices["bat_1"].last_action_id == action.id


async def test_a_push_that_collides_is_refused_and_changes_nothing(world: World) -> None:
    waiting = waiting_action("act_waiting", world.device, NOW + timedelta(minutes=30))
    world.db.tables.actions[waiting.id] = waiting
    commits = world.db.commits

    with pytest.raises(ActionConflict):
        await world.push(PushRequest("charge", {}, start="2026-11-20T12:30:00"))

    assert world.stored() == {"act_waiting": ActionState.SCHEDULED}
    assert world.db.commits == commits
    assert world.driver.sent == []


async def test_cancel_and_replace_cancels_the_waiting_action(world: World) -> None:
    waiting = waiting_action("act_waiting", world.device, NOW + timedelta(minutes=30))
    world.db.tables.actions[waiting.id] = waiting
    request = PushRequest(
        "charge", {}, start="2026-11-20T12:30:00", on_conflict="cancel_and_replace"
    )

    action = await world.push(request)

    assert world.stored() == {
        "act_waiting": ActionState.CANCELLED,
        action.id: ActionState.SCHEDULED,
    }
    assert world.db.tables.actions["act_waiting"].due_at is None
    assert world.event_types() == [], "a cancel sends no event"


async def test_queue_after_places_the_push_after_the_window_in_its_way(world: World) -> None:
    start, end = NOW + timedelta(minutes=5), NOW + timedelta(minutes=35)
    window = waiting_action("act_window", world.device, start, end)
    world.db.tables.actions[window.id] = window
    request = PushRequest(
        "charge",
        {},
        start="2026-11-20T12:10:00",
        end="2026-11-20T12:20:00",
        on_conflict="queue_after",
    )

    action = await world.actions.push(SANDBOX, DeviceType.BATTERY, "bat_1", request)

    assert (action.start, action.end) == (end, end + timedelta(minutes=10))
    assert world.db.tables.actions["act_window"].state is ActionState.SCHEDULED


async def test_a_simulated_failure_is_for_the_sandbox_only(world: World) -> None:
    live = Principal("acc_1", Environment.LIVE, "key_2")
    request = PushRequest("charge", {}, simulated_failure="DEVICE_OFFLINE")

    with pytest.raises(SandboxOnly):
        await world.push(request, live)

    assert world.db.tables.actions == {}


async def test_a_device_of_another_type_or_account_is_not_found(world: World) -> None:
    with pytest.raises(DeviceNotFound):
        await world.actions.push(SANDBOX, DeviceType.EV_CHARGER, "bat_1", CHARGE)
    with pytest.raises(DeviceNotFound):
        await world.push(CHARGE, Principal("acc_2", Environment.SANDBOX, "key_3"))

    assert world.db.tables.actions == {}
