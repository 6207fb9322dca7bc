"""Actions driven at random through the real services on SQLite, checked against a model of
the action lifecycle written here, independently of `domain/actions.py`.

Pushes (random start, end and onConflict), cancels, clock advances that let the real
`Dispatcher` run what is due, and a worker that dies in the middle of a device call: its
lease runs out, a second worker takes the work over, and the first one's late answer must
change nothing. The device is a scripted driver whose answer the test picks per action.

After every step each action's stored state, tries and `deferredUntil` must be what the
model predicts from `LIFECYCLE` (a state change the table lacks is a failure, and so is a
missing one), each device call counted where the model expects one, each final state
reached once (one `push.completed` / `push.failed` event), no two occupied spans of a
device overlapping, and no retry planned after a newer action's start.
"""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count, pairwise
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import select

from energyhub.bootstrap import Container, build_container
from energyhub.config import Settings
from energyhub.domain import errors
from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import RetryPolicy
from energyhub.domain.capabilities import ConflictStrategy, DeviceType
from energyhub.domain.clock import FakeClock
from energyhub.domain.devices import Device
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.tables import actions, webhook_events
from energyhub.services.actions import PushFailed, PushRequest
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.dispatch import LEASE, Dispatcher

# --- the model: the lifecycle as the test understands it ---------------------------------
LIFECYCLE: dict[tuple[str | None, str], str] = {
    (None, "scheduled_push"): "scheduled",
    (None, "device_accepted"): "acknowledged",
    (None, "device_refused"): "failed",  # an immediate push is never deferred
    ("scheduled", "device_accepted"): "acknowledged",
    ("scheduled", "device_refused"): "failed",
    ("scheduled", "retry_later"): "deferred",
    ("scheduled", "out_of_tries"): "failed",
    ("scheduled", "cancel"): "cancelled",
    ("scheduled", "replaced"): "cancelled",
    ("deferred", "device_accepted"): "acknowledged",
    ("deferred", "device_refused"): "failed",
    ("deferred", "retry_later"): "deferred",
    ("deferred", "out_of_tries"): "failed",
    ("deferred", "cancel"): "cancelled",
    ("deferred", "replaced"): "cancelled",
    ("acknowledged", "device_completed"): "completed",
}
ENDED = {"completed", "failed", "cancelled"}
RETRY_DELAYS = (timedelta(seconds=60), timedelta(seconds=300), timedelta(seconds=900))
MAX_TRIES = len(RETRY_DELAYS) + 1
QUICK_RETRIES = 2  # an immediate push's quick retries of a transient refusal
COMPLETES_AFTER = timedelta(seconds=2)
SECOND = timedelta(seconds=1)
STARTS = (
    datetime(2026, 3, 29, 0, 45, tzinfo=UTC),  # a quarter of an hour before the DST gap
    datetime(2026, 10, 25, 0, 15, tzinfo=UTC),  # shortly before the DST fold
)
BERLIN = ZoneInfo("Europe/Berlin")
T = TypeVar("T")
ANSWERS = st.sampled_from(["accepted", "retryable", "refused", "retryable"])


def floor_second(instant: datetime) -> datetime:
    return instant.replace(microsecond=0)


# --- the device -------------------------------------------------------------------------
class ScriptedDevice:
    """Answers each action's calls from the list the test set for it (then `accepted`); a
    call can be held until the test releases it, as a device that has not answered yet."""

    def __init__(self, instant: bool) -> None:
        self.instant = instant
        self.answers: dict[str, list[str]] = {}
        self.next_push: list[str] = []  # for the next action the test cannot name yet
        self.calls: Counter[str] = Counter()
        self.hold: asyncio.Event | None = None
        self.holding = asyncio.Event()

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        return DeviceReading(state=device.state, pulled_at=now)

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        if request.action_id is None:  # a window's restore: not an action's call
            return CommandReceipt({"accepted": True})
        self.calls[request.action_id] += 1
        if request.action_id not in self.answers:
            self.answers[request.action_id], self.next_push = self.next_push, []
        script = self.answers[request.action_id]
        answer = script.pop(0) if script else "accepted"
        if self.hold is not None:
            hold, self.hold = self.hold, None
            self.holding.set()
            await hold.wait()
        if answer == "retryable":
            raise DriverError("DEVICE_BUSY", "The device is busy.", retryable=True)
        if answer == "refused":
            raise DriverError("DEVICE_REJECTED", "The device refused.", retryable=False)
        return CommandReceipt({"accepted": True}, COMPLETES_AFTER.total_seconds())

    async def write_settings(self, device: Device, values: Any, now: datetime) -> None:
        raise AssertionError("not used")


@dataclass
class Expected:
    """One action as the model sees it."""

    id: str
    device_id: str
    start: datetime
    end: datetime | None
    state: str | None = None  # None: just made, not yet placed in the lifecycle
    tries: int = 0
    calls: int = 0
    deferred_until: datetime | None = None
    completes_at: datetime | None = None
    path: list[str | None] = field(default_factory=lambda: [None])

    def due_at(self) -> datetime | None:
        if self.state == "scheduled":
            return self.start
        if self.state == "deferred":
            return self.deferred_until
        if self.state == "acknowledged":
            return self.completes_at
        return None

    def occupies(self, now: datetime) -> tuple[datetime, datetime] | None:
        lo = floor_second(self.start)
        hi = self.end if self.end is not None else lo + SECOND
        if self.state == "completed":
            return (lo, hi) if self.end is not None and self.end > now else None
        return None if self.state in ENDED else (lo, hi)


class ActionsOnSqlite(RuleBasedStateMachine):
    def __init__(self, template: Path, workdir: Path) -> None:
        super().__init__()
        self.runner = asyncio.Runner()
        self.workdir = workdir
        shutil.copy(template, workdir / "energyhub.db")
        self.clock = FakeClock(STARTS[0])
        self.container: Container | None = None
        self.expected: dict[str, Expected] = {}
        self.devices: list[str] = []
        self.device = ScriptedDevice(instant=True)

    def run(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
        return self.runner.run(work())

    @property
    def app(self) -> Container:
        assert self.container is not None
        return self.container

    def teardown(self) -> None:
        if self.container is not None:
            self.run(self.container.aclose)
        self.runner.close()

    @initialize(start=st.sampled_from(STARTS), instant=st.booleans())
    def open_service(self, start: datetime, instant: bool) -> None:
        self.clock.set(start)
        self.device = ScriptedDevice(instant)
        self.run(lambda: self._open(instant))

    async def _open(self, instant: bool) -> None:
        url = f"sqlite+aiosqlite:///{self.workdir / 'energyhub.db'}"
        settings = Settings(
            database_url=url,
            key_cache_ttl_s=0,
            immediate_retry_backoff_s=(0,) * QUICK_RETRIES,
            deferral_retry_s=tuple(d.total_seconds() for d in RETRY_DELAYS),
        )
        self.container = await build_container(settings, self.clock, run_migrations=False)
        self.container.drivers["scripted"] = self.device
        account = await self.app.services.accounts.create_account("model")
        key = await self.app.services.accounts.create_key(account.id, Environment.SANDBOX)
        self.principal = Principal(account.id, Environment.SANDBOX, key.api_key.id)
        for _ in range(2):
            made = await self.app.services.sandbox.create_device(
                self.principal, DeviceType.BATTERY, "user-1", timezone="Europe/Berlin"
            )
            async with self.app.uow() as tx:
                await tx.devices.update_device(made.device.id, driver="scripted")
            self.devices.append(made.device.id)

    # --- what the model expects ----------------------------------------------------------
    def move(self, action: Expected, happening: str) -> None:
        """The one place the model changes a state: by its own table, or not at all."""
        target = LIFECYCLE.get((action.state, happening))
        assert target is not None, f"the model has no {happening} from {action.state}"
        action.state = target
        action.path.append(target)
        if target in ENDED:
            action.deferred_until = None
        event(f"{action.path[-2]} --{happening}--> {target}")

    def next_try(self, action: Expected, tries_made: int, now: datetime) -> datetime | None:
        """When a refused action is tried again: after its delay, before its window ends and
        before the device's next action starts; None when out of tries."""
        if tries_made >= MAX_TRIES:
            return None
        at = now + RETRY_DELAYS[tries_made - 1]
        lo = floor_second(action.start)
        limits = [action.end] if action.end is not None else []
        for other in self.expected.values():
            span = other.occupies(now)
            mine = other is not action and other.device_id == action.device_id
            if mine and span is not None and span[0] >= lo:
                limits.append(span[0])
        return None if limits and at >= min(limits) else at

    def answered(self, action: Expected, answer: str, now: datetime) -> None:
        """A scheduled or deferred action's dispatch, as the device answered it."""
        action.calls += 1
        action.tries += 1
        if answer == "accepted":
            self.move(action, "device_accepted")
            action.deferred_until = None
            action.completes_at = now + COMPLETES_AFTER
        elif answer == "refused":
            self.move(action, "device_refused")
            action.deferred_until = None
        else:
            retry = self.next_try(action, action.tries, now)
            self.move(action, "out_of_tries" if retry is None else "retry_later")
            action.deferred_until = retry

    def expect_due_work(self, now: datetime, answers: dict[str, str]) -> None:
        """Everything due at `now` is done, each as of `now`, in due order."""
        due = [
            (at, n, a)
            for n, a in enumerate(self.expected.values())
            if (at := a.due_at()) is not None and at <= now
        ]
        batch = [a for _, _, a in sorted(due, key=lambda d: d[:2])]
        completing = [a for a in batch if a.state == "acknowledged"]
        for action in batch:  # refusals are stored one by one, in due order
            if action.state != "acknowledged":
                self.answered(action, answers[action.id], now)
        for action in completing:  # completions are stored together, after them
            self.move(action, "device_completed")
            action.completes_at = None

    def stored(self) -> tuple[dict[str, Any], Counter[tuple[str, str]]]:
        async def read() -> tuple[dict[str, Any], Counter[tuple[str, str]]]:
            async with self.app.engine.connect() as connection:
                rows = {r.id: r for r in await connection.execute(select(actions))}
                found = await connection.execute(
                    select(webhook_events.c.type, webhook_events.c.payload)
                )
                events = Counter(
                    (e.payload["actionId"], e.type) for e in found if "actionId" in e.payload
                )
            return rows, events

        return self.run(read)

    def adopt(self, action_id: str) -> Expected:
        """A new action: where the push placed it is the conflict rules' business."""
        row = self.stored()[0][action_id]
        made = Expected(action_id, row.device_id, row.start, row.end)
        self.expected[action_id] = made
        return made

    # --- rules ------------------------------------------------------------------------------
    @rule(
        device=st.integers(0, 1),
        offset=st.none() | st.integers(-75, 120) | st.integers(-75, 4 * 3600),
        duration=st.none() | st.integers(1, 600) | st.integers(1, 3600),
        on_conflict=st.sampled_from([None, *ConflictStrategy]),
        answers=st.lists(ANSWERS, max_size=QUICK_RETRIES + 1),
    )
    def push(
        self,
        device: int,
        offset: int | None,
        duration: int | None,
        on_conflict: ConflictStrategy | None,
        answers: list[str],
    ) -> None:
        now = self.clock.now()
        local_now = now.astimezone(BERLIN).replace(tzinfo=None, microsecond=0)
        start = None if offset is None else local_now + timedelta(seconds=offset)
        end = None if duration is None else (start or local_now) + timedelta(seconds=duration)
        request = PushRequest(
            "charge",
            {},
            start=None if start is None else start.isoformat(),
            end=None if end is None else end.isoformat(),
            on_conflict=None if on_conflict is None else on_conflict.value,
        )
        self.device.next_push = list(answers)
        before = {a.id: a.state for a in self.expected.values()}
        try:
            pushed = self.run(
                lambda: self.app.services.actions.push(
                    self.principal, DeviceType.BATTERY, self.devices[device], request
                )
            )
            action_id = pushed.id
        except PushFailed as failed:
            action_id = failed.details["actionId"]
        except (
            errors.ActionConflict,
            errors.ConflictInExecution,
            errors.StartOutOfRange,
            errors.InvalidRequest,
        ) as refusal:
            event(f"push refused: {refusal.code}")
            self.device.next_push = []
            return
        self.device.next_push = []
        made = self.adopt(action_id)
        if made.start > now:
            self.move(made, "scheduled_push")
        else:
            made.calls = 1
            for answer in answers[:QUICK_RETRIES]:
                if answer != "retryable":
                    break
                made.calls += 1
            final = answers[made.calls - 1] if len(answers) >= made.calls else "accepted"
            made.tries = 1
            self.move(made, "device_accepted" if final == "accepted" else "device_refused")
            if final == "accepted":
                made.completes_at = now + COMPLETES_AFTER
        rows = self.stored()[0]
        for other_id, state in before.items():
            other = self.expected[other_id]
            if rows[other_id].state != state:  # only a replace may end another action
                assert on_conflict is ConflictStrategy.CANCEL_AND_REPLACE, other_id
                self.move(other, "replaced")
            other.start, other.end = rows[other_id].start, rows[other_id].end

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        if not self.expected:
            return
        action = data.draw(st.sampled_from(list(self.expected.values())))  # in creation order
        allowed = (action.state, "cancel") in LIFECYCLE
        try:
            self.run(lambda: self.app.services.actions.cancel(self.principal, action.id))
        except errors.ActionNotCancellable:
            assert not allowed, f"{action.id}: cancel refused while {action.state}"
            return
        assert allowed, f"{action.id}: cancelled while {action.state}"
        self.move(action, "cancel")

    @rule(
        milliseconds=st.integers(1, 5_000)
        | st.integers(1, 180_000)
        | st.integers(1, 45 * 60 * 1000),
        data=st.data(),
    )
    def advance(self, milliseconds: int, data: st.DataObject) -> None:
        """The clock moves on; at each due time on the way the dispatcher runs."""
        self.run_due_until(self.clock.now() + timedelta(milliseconds=milliseconds), data)

    def run_due_until(self, target: datetime, data: st.DataObject) -> None:
        while True:
            due = [at for a in self.expected.values() if (at := a.due_at()) is not None]
            if not due or min(due) > target:
                break
            self.clock.set(max(self.clock.now(), min(due)))
            self.dispatch_due(data, "worker-b")
        self.clock.set(max(self.clock.now(), target))

    def dispatch_due(self, data: st.DataObject, owner: str) -> None:
        now = self.clock.now()
        answers = self.script_due(data, now)
        self.run(lambda: self.app.dispatcher.run_due(owner))
        self.expect_due_work(now, answers)

    def script_due(self, data: st.DataObject, now: datetime) -> dict[str, str]:
        answers = {}
        for action in self.expected.values():
            at = action.due_at()
            if at is not None and at <= now and action.state != "acknowledged":
                answers[action.id] = data.draw(ANSWERS, label=f"answer to {action.id}")
                self.device.answers[action.id] = [answers[action.id]]
        return answers

    @rule(data=st.data(), late_answer=ANSWERS)
    def a_worker_dies_mid_call(self, data: st.DataObject, late_answer: str) -> None:
        """Worker A, another process, claims the next due work and calls the device, then
        stalls (paused, or cut off from the database: it renews no lease); its lease runs out,
        worker B does the work, then A's answer arrives: it must change nothing."""
        waiting = [
            at
            for a in self.expected.values()
            if a.state in ("scheduled", "deferred") and (at := a.due_at()) is not None
        ]
        if not waiting:
            return
        self.run_due_until(min(waiting) - timedelta(microseconds=1), data)
        self.clock.set(max(self.clock.now(), min(waiting)))
        stalled_at = self.clock.now()
        in_batch = [
            a for a in self.expected.values() if (at := a.due_at()) is not None and at <= stalled_at
        ]
        for action in in_batch:
            self.device.answers[action.id] = [late_answer]
        hold = asyncio.Event()
        paused = Dispatcher(
            self.app.uow,
            self.app.drivers,
            self.clock,
            DeviceChangeFeed(),
            RetryPolicy(RETRY_DELAYS),
            renew_every_s=3600,
        )

        async def start_worker_a() -> asyncio.Task[int]:
            self.device.hold = hold
            self.device.holding.clear()
            task = asyncio.create_task(paused.run_due("worker-a"))
            await self.device.holding.wait()
            return task

        worker_a = self.run(start_worker_a)
        for action in in_batch:
            if action.state != "acknowledged":
                action.calls += 1  # A's call; its answer is never recorded
        self.clock.set(stalled_at + LEASE + SECOND)
        self.dispatch_due(data, "worker-b")
        hold.set()

        async def finish_worker_a() -> int:
            return await worker_a

        self.run(finish_worker_a)
        event(f"worker A died holding {len(in_batch)} actions")

    # --- invariants ------------------------------------------------------------------------
    @invariant()
    def stored_actions_are_as_the_model_expects(self) -> None:
        if self.container is None:
            return
        rows, events = self.stored()
        assert set(rows) == set(self.expected), "an action appeared or vanished"
        for action in self.expected.values():
            row = rows[action.id]
            seen = (row.state, row.tries, row.deferred_until)
            assert seen == (action.state, action.tries, action.deferred_until), (
                f"{action.id}: stored {seen}, the model says "
                f"{(action.state, action.tries, action.deferred_until)} after {action.path}"
            )
            assert self.device.calls[action.id] == action.calls, (
                f"{action.id}: the device got {self.device.calls[action.id]} calls, "
                f"the model expects {action.calls} ({action.path})"
            )
            ended = {"completed": "push.completed", "failed": "push.failed"}.get(action.state)
            for kind in ("push.completed", "push.failed"):
                assert events[(action.id, kind)] == (kind == ended), (
                    f"{action.id}: {events[(action.id, kind)]} {kind} events, {action.path}"
                )

    @invariant()
    def occupied_spans_never_overlap(self) -> None:
        now = self.clock.now()
        for device in self.devices:
            spans = sorted(
                (*span, a.id)
                for a in self.expected.values()
                if a.device_id == device and (span := a.occupies(now)) is not None
            )
            for (_, hi, first), (lo, _, second) in pairwise(spans):
                assert hi <= lo, f"{first} and {second} overlap"

    @invariant()
    def a_retry_never_overtakes_a_newer_action(self) -> None:
        now = self.clock.now()
        for action in self.expected.values():
            if action.state != "deferred":
                continue
            assert action.deferred_until is not None
            for other in self.expected.values():
                span = other.occupies(now)
                mine = other is not action and other.device_id == action.device_id
                if mine and span is not None and span[0] > action.start:
                    assert action.deferred_until < span[0], f"{action.id} retries after {other.id}"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated database each example starts from a copy of (migrating takes longer)."""
    path = tmp_path_factory.mktemp("template") / "energyhub.db"

    async def make() -> None:
        engine = create_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(make())
    return path


def test_actions_follow_the_lifecycle(template: Path, tmp_path: Path) -> None:
    examples = count()

    def machine() -> ActionsOnSqlite:
        workdir = tmp_path / f"example-{next(examples)}"
        workdir.mkdir()
        return ActionsOnSqlite(template, workdir)

    run_state_machine_as_test(
        machine, settings=settings(max_examples=60, stateful_step_count=30, deadline=None)
    )
