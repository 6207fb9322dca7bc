"""The webhook sender's use case against fakes in memory: an event becomes one delivery per
matching endpoint, each attempt carries the opened signing secret and the exact body under
a constant `webhook-id`, failures are retried on the schedule (with its jitter) and give up
when it runs out, and every attempt is kept. The loop (`workers/webhook_pump.py`) drives
the same steps in the last tests."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from energyhub.domain.clock import FakeClock
from energyhub.domain.deliveries import WebhookEndpoint
from energyhub.domain.delivery_slots import DeliverySlots
from energyhub.domain.events import OutboxEvent
from energyhub.domain.webhooks import DeliveryStatus, EventType
from energyhub.services.webhook_sender import LEASE, WebhookSender
from energyhub.workers.webhook_pump import run_due
from tests.unit.services.fakes import FakeAttemptSender, FakeCipher, FakeDatabase

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
SCHEDULE = (5.0, 300.0, 1800.0)
SEED = 7


class World:
    def __init__(self, statuses: list[int | None] | None = None) -> None:
        self.clock = FakeClock(NOW)
        self.db = FakeDatabase(self.clock)
        self.cipher = FakeCipher()
        self.client = FakeAttemptSender(self.clock, statuses or [200])
        self.sender = WebhookSender(
            self.db,
            self.client,
            self.clock,
            cipher=self.cipher,
            retry_schedule=SCHEDULE,
            rng=random.Random(SEED),
        )

    def endpoint(
        self,
        endpoint_id: str,
        *,
        account: str = "acc_1",
        environment: str = "sandbox",
        events: tuple[str, ...] | None = None,
        secret: str = "sealed:whsec_c2VjcmV0",
        enabled: bool = True,
    ) -> WebhookEndpoint:
        endpoint = WebhookEndpoint(
            id=endpoint_id,
            account_id=account,
            environment=environment,
            url=f"https://receiver.example/{endpoint_id}",
            description=None,
            events=events,
            secret=secret,
            enabled=enabled,
            created_at=NOW,
        )
        self.db.tables.endpoints[endpoint_id] = endpoint
        return endpoint

    def event(
        self, event_id: str = "evt_1", *, account: str = "acc_1", environment: str = "sandbox"
    ) -> OutboxEvent:
        event = OutboxEvent(
            id=event_id,
            account_id=account,
            environment=environment,
            type=EventType.PUSH_COMPLETED,
            payload={"actionId": "act_1", "deviceId": "dev_1"},
            occurred_at=self.clock.now(),
            deliver_after=self.clock.now(),
        )
        self.db.tables.events[event_id] = event
        return event

    def slots(self) -> DeliverySlots:
        return DeliverySlots(self.sender.limits)


@pytest.fixture
def world() -> World:
    return World()


async def test_an_event_becomes_one_delivery_per_matching_endpoint(world: World) -> None:
    world.endpoint("we_all")
    world.endpoint("we_completed", events=("push.completed",))
    world.endpoint("we_failed_only", events=("push.failed",))
    world.endpoint("we_live", environment="live")
    world.endpoint("we_other", account="acc_2")
    world.endpoint("we_disabled", enabled=False)
    world.event()

    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())

    tables = world.db.tables
    assert sorted(d.delivery.endpoint_id for d in fetched.leased) == ["we_all", "we_completed"]
    assert sorted(d.endpoint_id for d in tables.deliveries.values()) == ["we_all", "we_completed"]
    assert tables.fanned_out == {"evt_1": NOW}
    assert {lease.owner for lease in tables.delivery_leases.values()} == {"sender-1"}
    assert {lease.until for lease in tables.delivery_leases.values()} == {NOW + LEASE}
    assert all(d.status is DeliveryStatus.PENDING for d in tables.deliveries.values())


async def test_an_event_is_fanned_out_once(world: World) -> None:
    world.endpoint("we_1")
    world.event()
    await world.sender.fan_out("sender-1", world.slots(), 10, ())

    again = await world.sender.fan_out("sender-2", world.slots(), 10, ())

    assert again.leased == []
    assert again.dry
    assert len(world.db.tables.deliveries) == 1


async def test_an_attempt_is_signed_with_the_opened_secret_over_the_exact_body(
    world: World,
) -> None:
    world.endpoint("we_1", secret="sealed:whsec_b3BlbmVk")
    event = world.event()
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())

    outcome = await world.sender.attempt(fetched.leased[0])

    assert outcome.succeeded
    (request,) = world.client.requests
    delivery = fetched.leased[0].delivery
    assert request.secret == "whsec_b3BlbmVk", "the stored secret, opened by the cipher"
    assert request.delivery_id == delivery.id, "the webhook-id"
    assert request.body == orjson.dumps(event.payload)
    assert request.event_type == "push.completed"
    assert request.url == "https://receiver.example/we_1"
    assert request.environment == "sandbox"


async def test_a_secret_stored_before_encryption_is_used_as_it_is(world: World) -> None:
    world.endpoint("we_1", secret="whsec_cGxhaW4=")
    world.event()
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())

    await world.sender.attempt(fetched.leased[0])

    assert world.client.requests[0].secret == "whsec_cGxhaW4="
    assert world.cipher.opened == []


async def test_a_secret_is_opened_once_for_many_attempts(world: World) -> None:
    world.endpoint("we_1")
    for n in range(3):
        world.event(f"evt_{n}")
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())

    for due in fetched.leased:
        await world.sender.attempt(due)

    assert len(world.client.requests) == 3
    assert len(world.cipher.opened) == 1


async def test_a_failed_attempt_is_kept_and_retried_after_the_schedules_delay() -> None:
    world = World(statuses=[503])
    world.endpoint("we_1")
    world.event()
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())
    outcome = await world.sender.attempt(fetched.leased[0])
    world.clock.advance(1)

    assert await world.sender.record("sender-1", [(fetched.leased[0], outcome)]) == 1

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.status is DeliveryStatus.PENDING
    assert delivery.attempts == (
        {
            "at": "2026-11-20T12:00:00.000Z",
            "httpStatus": 503,
            "durationMs": 12,
            "error": "HTTP 503",
        },
    )
    delay = SCHEDULE[0] * (1 + random.Random(SEED).uniform(-0.1, 0.1))
    assert delivery.next_attempt_at == NOW + timedelta(seconds=1 + delay)
    assert world.db.tables.delivery_leases == {}, "its lease released"


async def test_a_delivery_gives_up_when_the_schedule_runs_out() -> None:
    world = World(statuses=[500])
    world.endpoint("we_1")
    world.event()

    attempted = []
    for _ in range(len(SCHEDULE) + 1):
        attempted.append(await run_due(world.sender, "sender-1"))
        world.clock.advance(timedelta(hours=2))
    assert await run_due(world.sender, "sender-1") == 0, "nothing left to try"

    (delivery,) = world.db.tables.deliveries.values()
    assert attempted == [1] * (len(SCHEDULE) + 1)
    assert delivery.status is DeliveryStatus.FAILED
    assert delivery.next_attempt_at is None
    assert [a["httpStatus"] for a in delivery.attempts] == [500] * (len(SCHEDULE) + 1)
    ids = {r.delivery_id for r in world.client.requests}
    bodies = {r.body for r in world.client.requests}
    assert len(ids) == len(bodies) == 1, "the same webhook-id and body on every retry"


async def test_a_retry_is_not_attempted_before_its_time_and_then_succeeds() -> None:
    world = World(statuses=[None, 204])
    world.endpoint("we_1")
    world.event()

    assert await run_due(world.sender, "sender-1") == 1
    world.clock.advance(SCHEDULE[0] * 0.85)
    assert await run_due(world.sender, "sender-1") == 0, "not before the jittered delay"
    world.clock.advance(SCHEDULE[0] * 0.3)
    assert await run_due(world.sender, "sender-1") == 1

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.status is DeliveryStatus.SUCCEEDED
    assert [a["httpStatus"] for a in delivery.attempts] == [None, 204]
    assert delivery.attempts[0]["error"] == "timeout"
    assert await world.sender.next_due_at() is None


async def test_an_attempt_that_crashes_is_recorded_and_keeps_the_schedule() -> None:
    world = World()
    world.client.crash = RuntimeError("a bug in the client")
    world.endpoint("we_1")
    world.event()

    assert await run_due(world.sender, "sender-1") == 1

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.status is DeliveryStatus.PENDING
    assert delivery.attempts[0]["error"] == "internal error"
    assert delivery.attempts[0]["httpStatus"] is None
    assert delivery.next_attempt_at is not None


async def test_a_delivery_whose_endpoint_went_away_ends_unsent(world: World) -> None:
    world.endpoint("we_1")
    world.event()
    await world.sender.fan_out("sender-1", world.slots(), 10, ())  # then sender-1 died
    world.endpoint("we_1", enabled=False)
    world.clock.advance(LEASE)

    assert await run_due(world.sender, "sender-2") == 1

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.status is DeliveryStatus.FAILED
    assert delivery.attempts == ()
    assert delivery.next_attempt_at is None
    assert world.client.requests == [], "nothing sent to a disabled endpoint"


async def test_a_result_is_not_recorded_for_a_delivery_another_sender_holds(
    world: World,
) -> None:
    world.endpoint("we_1")
    world.event()
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())
    outcome = await world.sender.attempt(fetched.leased[0])
    world.clock.advance(LEASE * 2)  # sender-1 stalled: its lease ran out
    claimed = await world.sender.claim("sender-2", world.slots(), 10, (), ())
    assert [d.delivery.id for d in claimed.leased] == [fetched.leased[0].delivery.id]

    await world.sender.record("sender-1", [(fetched.leased[0], outcome)])

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.attempts == (), "the late result is dropped; sender-2 attempts it"
    assert world.db.tables.delivery_leases[delivery.id].owner == "sender-2"


async def test_a_recording_that_fails_leaves_the_deliveries_to_their_leases(
    world: World,
) -> None:
    world.endpoint("we_1")
    world.event()
    fetched = await world.sender.fan_out("sender-1", world.slots(), 10, ())
    outcome = await world.sender.attempt(fetched.leased[0])
    world.db.fail_next = 1

    assert await world.sender.record("sender-1", [(fetched.leased[0], outcome)]) == 0

    (delivery,) = world.db.tables.deliveries.values()
    assert delivery.attempts == ()
    assert world.db.tables.delivery_leases[delivery.id].owner == "sender-1"
