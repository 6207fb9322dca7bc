"""Actions driven at random through the domain's decisions, checked against a model of the
action lifecycle written here, independently of `domain/actions.py`.

The system under test is what decides a push and a device's answer: `plan_push`
(`domain/pushes.py`), `end_waiting` for a cancel, and `domain/dispatch.py`'s steps
(accepted, refused with `retry_deadline` and the retry policy, completed, restored), over
actions kept in memory. `Harness` is only the glue the services are (store what a decision
returns, call the device, take due work in due order); storage, leases and crashes are the
integration tests' business (`test_dispatch_leases`, `test_crash_safety`).

Pushes (random start, end and onConflict), cancels, and clock advances that run what is
due; the device's answers are drawn per call. After every step each action's state, tries
and `deferredUntil` must be what the model predicts from `LIFECYCLE` (a state change the
table lacks is a failure, and so is a missing one), each final state reached once (one
`push.completed` / `push.failed` event), no two occupied spans of a device overlapping, and
no retry planned after a newer action's start.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import count, pairwise
from zoneinfo import ZoneInfo

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from energyhub.domain import dispatch as decide
from energyhub.domain import errors
from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action, ActionTrigger, DueKind, RetryPolicy
from energyhub.domain.capabilities import ConflictStrategy, DeviceType
from energyhub.domain.conflicts import retry_deadline
from energyhub.domain.devices import Device
from energyhub.domain.dispatch import ActionStep, as_device_action
from energyhub.domain.pushes import PushRequest, end_waiting, plan_push
from energyhub.domain.readings import CommandReceipt, DeviceReading, DriverError
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for

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
LEASE = timedelta(seconds=5)
STARTS = (
    datetime(2026, 3, 29, 0, 45, tzinfo=UTC),  # a quarter of an hour before the DST gap
    datetime(2026, 10, 25, 0, 15, tzinfo=UTC),  # shortly before the DST fold
)
BERLIN = ZoneInfo("Europe/Berlin")
ANSWERS = st.sampled_from(["accepted", "retryable", "refused", "retryable"])
REFUSED = (
    errors.ActionConflict,
    errors.ConflictInExecution,
    errors.StartOutOfRange,
    errors.InvalidRequest,
)


def floor_second(instant: datetime) -> datetime:
    return instant.replace(microsecond=0)


# --- the system: the domain's decisions over actions kept in memory -----------------------
@dataclass
class Harness:
    """What the services do around the decisions, and no more: read the actions in play,
    store what a decision returns, call the device (an immediate push retries a transient
    refusal quickly), and run due work in due order."""

    devices: dict[str, Device]
    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(RETRY_DELAYS))
    actions: dict[str, Action] = field(default_factory=dict)  # in creation order
    events: Counter[tuple[str, str]] = field(default_factory=Counter)
    ids: count[int] = field(default_factory=count)

    def in_play(self, device_id: str, now: datetime) -> list[Action]:
        return [a for a in self.actions.values() if a.device_id == device_id and a.in_play(now)]

    def push(
        self, device_id: str, request: PushRequest, now: datetime, script: list[str]
    ) -> Action:
        plan = plan_push(
            self.devices[device_id],
            self.in_play(device_id, now),
            request,
            now,
            action_id=f"act-{next(self.ids)}",
            lease_owner="push:request",
            lease_until=now + LEASE,
        )
        for displaced in (*plan.cancelled, *plan.cut):
            self.actions[displaced.id] = displaced
        self.actions[plan.action.id] = plan.action
        if plan.immediate:
            self.dispatch(plan.action, now, script, immediate=True)
        return self.actions[plan.action.id]

    def cancel(self, action_id: str, now: datetime) -> None:
        action = self.actions[action_id]
        if action.in_flight(now):
            raise errors.ActionNotCancellable("being dispatched")
        self.actions[action_id] = end_waiting(action, ActionTrigger.CANCEL, now)

    def call(self, script: list[str], immediate: bool) -> CommandReceipt | DriverError:
        """The device's answer; an immediate push's transient refusals are retried."""
        for attempt in count():
            answer = script.pop(0) if script else "accepted"
            if answer != "retryable" or not immediate or attempt >= QUICK_RETRIES:
                break
        if answer == "accepted":
            return CommandReceipt({"accepted": True}, COMPLETES_AFTER.total_seconds())
        retryable = answer == "retryable"
        code = "DEVICE_BUSY" if retryable else "DEVICE_REJECTED"
        return DriverError(code, f"The device answered {answer}.", retryable=retryable)

    def dispatch(self, action: Action, now: datetime, script: list[str], immediate: bool) -> None:
        device = self.devices[action.device_id]
        outcome = self.call(script, immediate)
        if isinstance(outcome, CommandReceipt):
            self.store(decide.accepted(action, device, outcome, now))
            return
        next_try = None
        if outcome.retryable and not immediate:
            others = [as_device_action(a, now) for a in self.in_play(action.device_id, now)]
            deadline = retry_deadline(as_device_action(action, now), others, now)
            next_try = self.retry.next_try_at(action.tries + 1, now, deadline)
        self.store(decide.refused(action, outcome, now, next_try, immediate=immediate))

    def run_due(self, now: datetime, answers: dict[str, str]) -> None:
        """Due dispatches in due order, each answered as `answers` says; then completions
        and window ends."""
        due = sorted(
            (a for a in self.actions.values() if a.due_at is not None and a.due_at <= now),
            key=lambda a: a.due_at or now,
        )
        for action in due:
            if action.due_kind is DueKind.DISPATCH:
                self.dispatch(action, now, [answers[action.id]], immediate=False)
        for action in due:
            device = self.devices[action.device_id]
            if action.due_kind is DueKind.COMPLETE:
                reading = DeviceReading(state=device.state, pulled_at=now)
                self.store(decide.completed(action, reading, now))
            elif action.due_kind is DueKind.RESTORE:
                restore = decide.restore_request(action, device)
                if restore is None:
                    self.store(decide.restore_ended(action, now))
                else:
                    self.store(decide.restored(action, CommandReceipt({}), now))

    def store(self, step: ActionStep) -> None:
        self.actions[step.action.id] = step.action
        if step.device is not None and step.device.mode is not None:
            device = self.devices[step.action.device_id]
            mode = step.device.mode
            self.devices[device.id] = replace(
                device, mode_command=mode.command, mode_action_id=mode.action_id
            )
        if step.event is not None:
            self.events[(step.action.id, step.event[0].value)] += 1


# --- the model ------------------------------------------------------------------------------
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


class ActionLifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.now = STARTS[0]
        self.expected: dict[str, Expected] = {}
        self.devices: list[str] = []
        self.system = Harness({})

    @initialize(start=st.sampled_from(STARTS))
    def open_service(self, start: datetime) -> None:
        self.now = start
        for n in range(2):
            device = new_sandbox_device(
                profile_for(DeviceType.BATTERY, None),
                device_id=f"bat-{n}",
                account_id="acc-1",
                environment=Environment.SANDBOX,
                user_id="user-1",
                timezone="Europe/Berlin",
                now=start,
            )
            self.system.devices[device.id] = device
            self.devices.append(device.id)

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

    def adopt(self, action_id: str) -> Expected:
        """A new action: where the push placed it is the conflict rules' business."""
        stored = self.system.actions[action_id]
        made = Expected(action_id, stored.device_id, stored.start, stored.end)
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
        now = self.now
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
        before = {a.id: a.state for a in self.expected.values()}
        try:
            pushed = self.system.push(self.devices[device], request, now, list(answers))
        except REFUSED as refusal:
            event(f"push refused: {refusal.code}")
            return
        made = self.adopt(pushed.id)
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
        actions = self.system.actions
        for other_id, state in before.items():
            other = self.expected[other_id]
            if actions[other_id].state.value != state:  # only a replace may end another action
                assert on_conflict is ConflictStrategy.CANCEL_AND_REPLACE, other_id
                self.move(other, "replaced")
            other.start, other.end = actions[other_id].start, actions[other_id].end

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        if not self.expected:
            return
        action = data.draw(st.sampled_from(list(self.expected.values())))  # in creation order
        allowed = (action.state, "cancel") in LIFECYCLE
        try:
            self.system.cancel(action.id, self.now)
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
        """The clock moves on; at each due time on the way the due work runs."""
        target = self.now + timedelta(milliseconds=milliseconds)
        while True:
            due = [at for a in self.expected.values() if (at := a.due_at()) is not None]
            if not due or min(due) > target:
                break
            self.now = max(self.now, min(due))
            answers = self.script_due(data, self.now)
            self.system.run_due(self.now, answers)
            self.expect_due_work(self.now, answers)
        self.now = max(self.now, target)

    def script_due(self, data: st.DataObject, now: datetime) -> dict[str, str]:
        answers = {}
        for action in self.expected.values():
            at = action.due_at()
            if at is not None and at <= now and action.state != "acknowledged":
                answers[action.id] = data.draw(ANSWERS, label=f"answer to {action.id}")
        return answers

    # --- invariants ------------------------------------------------------------------------
    @invariant()
    def actions_are_as_the_model_expects(self) -> None:
        actions, events = self.system.actions, self.system.events
        assert set(actions) == set(self.expected), "an action appeared or vanished"
        for action in self.expected.values():
            stored = actions[action.id]
            seen = (stored.state.value, stored.tries, stored.deferred_until)
            assert seen == (action.state, action.tries, action.deferred_until), (
                f"{action.id}: stored {seen}, the model says "
                f"{(action.state, action.tries, action.deferred_until)} after {action.path}"
            )
            ended = {"completed": "push.completed", "failed": "push.failed"}.get(action.state)
            for kind in ("push.completed", "push.failed"):
                assert events[(action.id, kind)] == (kind == ended), (
                    f"{action.id}: {events[(action.id, kind)]} {kind} events, {action.path}"
                )

    @invariant()
    def occupied_spans_never_overlap(self) -> None:
        for device in self.devices:
            spans = sorted(
                (*span, a.id)
                for a in self.expected.values()
                if a.device_id == device and (span := a.occupies(self.now)) is not None
            )
            for (_, hi, first), (lo, _, second) in pairwise(spans):
                assert hi <= lo, f"{first} and {second} overlap"

    @invariant()
    def a_retry_never_overtakes_a_newer_action(self) -> None:
        for action in self.expected.values():
            if action.state != "deferred":
                continue
            assert action.deferred_until is not None
            for other in self.expected.values():
                span = other.occupies(self.now)
                mine = other is not action and other.device_id == action.device_id
                if mine and span is not None and span[0] > action.start:
                    assert action.deferred_until < span[0], f"{action.id} retries after {other.id}"


def test_actions_follow_the_lifecycle() -> None:
    run_state_machine_as_test(
        ActionLifecycle,
        settings=settings(max_examples=200, stateful_step_count=40, deadline=None),
    )
