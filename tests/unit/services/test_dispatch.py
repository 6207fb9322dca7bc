"""The dispatcher's use case against fakes in memory: a due action is claimed, sent through
its device's driver and moved on by the answer (completed, deferred to the retry policy,
or failed with `push.failed`), and an answer that comes after the lease was lost changes
nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain.actions import ActionState, DueKind, RetryPolicy
from energyhub.domain.clock import FakeClock
from energyhub.domain.devices import Device
from energyhub.domain.events import EventDelays
from energyhub.domain.readings import CommandRequest, DeviceReading, DriverError
from energyhub.domain.webhooks import EventType
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.dispatch import Dispatcher
from energyhub.services.outbox import Outbox
from tests.unit.services.fakes import FakeDatabase, FakeDriver, battery, waiting_action

START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
RETRY = RetryPolicy.from_seconds((60, 240))
OFFLINE = DriverError("DEVICE_OFFLINE", "The device is offline.", retryable=True)
REFUSED = DriverError("COMMAND_REJECTED", "The device rejected the command.", retryable=False)


class World:
    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.db = FakeDatabase(self.clock)
        self.driver = FakeDriver(self.clock, reading=DeviceReading(state={"soc": 50}))
        self.changes = DeviceChangeFeed()
        self.changed: list[str] = []
        self.changes.subscribe(self.changed.append)
        self.outbox = Outbox(self.clock, EventDelays())
        self.announced: list[datetime] = []
        self.outbox.subscribe(self.announced.append)
        self.dispatcher = Dispatcher(
            self.db,
            {"sandbox": self.driver},
            self.clock,
            self.changes,
            RETRY,
            immediate_backoff_s=(0, 0),
            outbox=self.outbox,
        )
        self.device: Device = battery("bat_1", START)
        self.db.tables.devices[self.device.id] = self.device

    def schedule(self, action_id: str = "act_1", end: datetime | None = None) -> None:
        action = waiting_action(action_id, self.device, START, end)
        self.db.tables.actions[action.id] = action

    def event_types(self) -> list[EventType]:
        return [e.type for e in self.db.tables.events.values()]


@pytest.fixture
def world() -> World:
    return World()


async def test_nothing_is_sent_before_the_actions_start(world: World) -> None:
    world.schedule()
    world.clock.set(START - timedelta(seconds=1))

    assert await world.dispatcher.run_due("worker") == 0

    assert world.driver.sent == []
    assert await world.dispatcher.next_due_at() == START


async def test_a_due_action_is_sent_through_its_driver_and_completes(world: World) -> None:
    world.schedule()

    assert await world.dispatcher.run_due("worker") == 1

    assert world.driver.sent == [("bat_1", CommandRequest("charge", {"power": 2.0}, None, "act_1"))]
    action = world.db.tables.actions["act_1"]
    assert action.state is ActionState.COMPLETED
    assert (action.tries, action.lease_owner, action.due_at) == (1, None, None)
    device = world.db.tables.devices["bat_1"]
    assert (device.mode_command, device.mode_action_id) == ("charge", "act_1")
    assert device.state == {"soc": 50}, "the completion's pull is stored"
    assert world.event_types() == [EventType.PUSH_COMPLETED]
    assert world.announced, "announced once committed"
    assert "bat_1" in world.changed


async def test_an_action_the_device_takes_time_for_completes_later(world: World) -> None:
    world.driver.completes_after = 30
    world.schedule()

    await world.dispatcher.run_due("worker")
    acknowledged = world.db.tables.actions["act_1"]
    world.clock.advance(30)
    await world.dispatcher.run_due("worker")

    assert acknowledged.state is ActionState.ACKNOWLEDGED
    assert (acknowledged.due_kind, acknowledged.due_at) == (
        DueKind.COMPLETE,
        START + timedelta(seconds=30),
    )
    assert world.db.tables.actions["act_1"].state is ActionState.COMPLETED
    assert len(world.driver.sent) == 1


async def test_a_transient_refusal_defers_the_action_to_the_retry_policy(world: World) -> None:
    world.driver.refuse, world.driver.refusals_left = OFFLINE, 1
    world.schedule()

    await world.dispatcher.run_due("worker")
    deferred = world.db.tables.actions["act_1"]
    world.clock.advance(59)
    assert await world.dispatcher.run_due("worker") == 0, "not before the retry's time"
    world.clock.advance(1)
    await world.dispatcher.run_due("worker")

    assert deferred.state is ActionState.DEFERRED
    assert deferred.deferred_until == deferred.due_at == START + timedelta(seconds=60)
    assert (deferred.tries, deferred.lease_owner) == (1, None)
    assert world.db.tables.actions["act_1"].state is ActionState.COMPLETED
    assert len(world.driver.sent) == 2
    assert world.event_types() == [EventType.PUSH_COMPLETED]


async def test_a_permanent_refusal_fails_the_action_with_push_failed(world: World) -> None:
    world.driver.refuse = REFUSED
    world.schedule()

    await world.dispatcher.run_due("worker")

    action = world.db.tables.actions["act_1"]
    assert action.state is ActionState.FAILED
    assert (action.error_code, action.due_at) == ("COMMAND_REJECTED", None)
    assert action.result == {"success": False, "errorCode": "COMMAND_REJECTED"}
    assert world.event_types() == [EventType.PUSH_FAILED]
    assert len(world.driver.sent) == 1


async def test_an_action_fails_once_its_retries_are_used_up(world: World) -> None:
    world.driver.refuse = OFFLINE
    world.schedule()

    for _ in range(RETRY.max_tries):
        await world.dispatcher.run_due("worker")
        world.clock.advance(timedelta(minutes=5))

    action = world.db.tables.actions["act_1"]
    assert action.state is ActionState.FAILED
    assert action.error_code == "DEVICE_OFFLINE"
    assert len(world.driver.sent) == RETRY.max_tries
    assert await world.dispatcher.run_due("worker") == 0


async def test_an_answer_after_the_lease_was_lost_records_nothing(world: World) -> None:
    world.schedule()
    db = world.db

    def another_takes_over() -> None:
        # this holder stalled: its lease ran out and another worker claimed the action
        db.tables.actions["act_1"] = replace(db.tables.actions["act_1"], lease_owner="other")

    world.driver.during_send = another_takes_over
    world.driver.refuse = OFFLINE

    assert await world.dispatcher.run_due("worker") == 1

    action = db.tables.actions["act_1"]
    assert action.state is ActionState.SCHEDULED, "the other worker records the outcome"
    assert (action.lease_owner, action.tries) == ("other", 0)
    assert db.tables.events == {}
    assert "bat_1" not in world.changed


async def test_a_dispatch_overtaken_by_a_newer_accepted_action_is_not_sent(
    world: World,
) -> None:
    world.schedule()  # its holder died; meanwhile a later action ran
    newer = waiting_action(
        "act_2",
        world.device,
        START + timedelta(seconds=1),
        state=ActionState.ACKNOWLEDGED,
        acknowledged_at=START,
        due_at=None,
        due_kind=None,
    )
    world.db.tables.actions[newer.id] = newer
    world.clock.advance(2)

    await world.dispatcher.run_due("worker")

    assert world.driver.sent == []
    assert world.db.tables.actions["act_1"].state is ActionState.FAILED
    assert world.db.tables.actions["act_1"].error_code == "DEVICE_TIMEOUT"


async def test_a_window_puts_back_the_mode_it_replaced_at_its_end(world: World) -> None:
    end = START + timedelta(hours=1)
    world.db.tables.devices["bat_1"] = replace(world.device, mode_command="idle")
    world.schedule(end=end)

    await world.dispatcher.run_due("worker")
    window = world.db.tables.actions["act_1"]
    world.clock.set(end)
    await world.dispatcher.run_due("worker")

    assert (window.state, window.due_kind, window.due_at) == (
        ActionState.COMPLETED,
        DueKind.RESTORE,
        end,
    )
    assert window.restore == {"command": "idle", "parameters": {}}
    assert [r.command for _, r in world.driver.sent] == ["charge", "idle"]
    device = world.db.tables.devices["bat_1"]
    assert (device.mode_command, device.mode_action_id) == ("idle", None)
    assert world.db.tables.actions["act_1"].due_at is None
