"""One device's actions driven at random through the domain rules.

Pushes (random start, end and onConflict), cancels and clock advances that dispatch due
actions with random device answers; after every step no two occupied spans overlap and
every action's history is a path through the transition table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from energyhub.domain import errors
from energyhub.domain.actions import (
    TRANSITIONS,
    ActionState,
    ActionTrigger,
    RetryPolicy,
    refusal_trigger,
    transition,
)
from energyhub.domain.capabilities import STANDARD_BATTERY, ConflictStrategy
from energyhub.domain.conflicts import (
    DeviceAction,
    Resolution,
    occupied_span,
    resolve_conflicts,
    retry_deadline,
)
from energyhub.domain.validation import check_window_order, resolve_window, validate_push

BERLIN = ZoneInfo("Europe/Berlin")
STARTS = (
    datetime(2026, 3, 29, 0, 45, tzinfo=UTC),  # a quarter of an hour before the DST gap
    datetime(2026, 10, 25, 0, 15, tzinfo=UTC),  # shortly before the DST fold
)
POLICY = RetryPolicy.from_seconds([60, 300, 900])
COMPLETION_DELAY = timedelta(seconds=2)
EDGES = {(origin, target) for (origin, _), target in TRANSITIONS.items()}
ANSWERS = st.sampled_from(["accepted", "retryable", "refused", "retryable"])


@dataclass
class ModelAction:
    id: str
    start: datetime
    end: datetime | None
    history: list[ActionState | None] = field(default_factory=lambda: [None])
    deferred_until: datetime | None = None
    tries: int = 0
    completes_at: datetime | None = None

    @property
    def state(self) -> ActionState:
        state = self.history[-1]
        assert state is not None
        return state

    def view(self) -> DeviceAction:
        return DeviceAction(self.id, self.state, self.start, self.end, self.deferred_until)

    def due_at(self) -> datetime | None:
        if self.state is ActionState.SCHEDULED:
            return self.start
        if self.state is ActionState.DEFERRED:
            return self.deferred_until
        if self.state is ActionState.ACKNOWLEDGED:
            return self.completes_at
        return None


class OneDevice(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.now = STARTS[0]
        self.actions: dict[str, ModelAction] = {}

    @initialize(start=st.sampled_from(STARTS))
    def set_clock(self, start: datetime) -> None:
        self.now = start

    # --- helpers -----------------------------------------------------------------------
    def apply(self, action: ModelAction, trigger: ActionTrigger) -> None:
        action.history.append(transition(action.history[-1], trigger))

    def views(self) -> list[DeviceAction]:
        return [a.view() for a in self.actions.values()]

    def dispatch(self, action: ModelAction, answer: str) -> None:
        action.tries += 1
        if answer == "accepted":
            self.apply(action, ActionTrigger.DISPATCH_ACCEPTED)
            action.completes_at = self.now + COMPLETION_DELAY
            action.deferred_until = None
            return
        state = None if action.history[-1] is None else action.state
        next_try = None
        if answer == "retryable" and state is not None:
            deadline = retry_deadline(action.view(), self.views(), self.now)
            next_try = POLICY.next_try_at(action.tries, self.now, deadline)
        self.apply(action, refusal_trigger(state, answer == "retryable", next_try))
        event(f"refused: {state} -> {action.state}")
        action.deferred_until = next_try

    # --- rules -------------------------------------------------------------------------
    @rule(
        offset=st.none() | st.integers(-75, 120) | st.integers(-75, 4 * 3600),
        duration=st.none() | st.integers(1, 600) | st.integers(1, 3600),
        on_conflict=st.sampled_from([None, *ConflictStrategy]),
        answer=ANSWERS,
    )
    def push(
        self,
        offset: int | None,
        duration: int | None,
        on_conflict: ConflictStrategy | None,
        answer: str,
    ) -> None:
        local_now = self.now.astimezone(BERLIN).replace(tzinfo=None, microsecond=0)
        start = None if offset is None else local_now + timedelta(seconds=offset)
        end = None if duration is None else (start or local_now) + timedelta(seconds=duration)
        try:
            check_window_order(start, end, BERLIN, self.now)
            window = resolve_window(start, end, BERLIN, self.now)
        except (errors.InvalidRequest, errors.StartOutOfRange):
            return
        validated = validate_push(STANDARD_BATTERY, "charge", {}, window.execution, on_conflict)
        try:
            placed = resolve_conflicts(
                self.views(),
                window.start,
                window.end,
                validated.on_conflict,
                STANDARD_BATTERY.conflict_strategies,
                self.now,
            )
        except errors.ActionConflict as conflict:
            event(f"{conflict.details['reason']} with onConflict {on_conflict}")
            self.check_offered_strategies(conflict, window.start, window.end)
            return
        except (errors.StartOutOfRange, errors.ConflictInExecution) as refusal:
            event(refusal.code)
            return
        event(f"placed: {placed.kind}, cancels {len(placed.cancel)}, cuts {len(placed.cut)}")
        for action_id in placed.cancel:
            self.apply(self.actions[action_id], ActionTrigger.REPLACED)
        for cut in placed.cut:
            running = self.actions[cut.action_id]
            assert running.state is ActionState.COMPLETED
            running.end = cut.end
        action = ModelAction(f"a{len(self.actions)}", placed.start, placed.end)
        self.actions[action.id] = action
        if start is None and placed.kind is not Resolution.QUEUE:
            self.dispatch(action, answer)
        else:
            self.apply(action, ActionTrigger.SCHEDULE)

    @rule(
        data=st.data(),
        duration=st.none() | st.integers(1, 600),
        on_conflict=st.sampled_from([None, *ConflictStrategy]),
        answer=ANSWERS,
    )
    def push_before_a_retry(
        self,
        data: st.DataObject,
        duration: int | None,
        on_conflict: ConflictStrategy | None,
        answer: str,
    ) -> None:
        """A push aimed at or just after a deferred action's next try."""
        retries = [
            a.deferred_until
            for a in self.actions.values()
            if a.state is ActionState.DEFERRED and a.deferred_until is not None
        ]
        if not retries:
            return
        gap = int((max(retries) - self.now).total_seconds()) + 2
        offset = data.draw(st.integers(0, max(gap, 0)), label="offset")
        self.push(offset, duration, on_conflict, answer)

    def check_offered_strategies(
        self, conflict: errors.ActionConflict, start: datetime, end: datetime | None
    ) -> None:
        """Each strategy a 409 offers must work when the client resends with it."""
        for offered in conflict.details["supportedStrategies"]:
            resolve_conflicts(
                self.views(),
                start,
                end,
                ConflictStrategy(offered),
                STANDARD_BATTERY.conflict_strategies,
                self.now,
            )

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        if not self.actions:
            return
        action = self.actions[data.draw(st.sampled_from(sorted(self.actions)))]
        try:
            self.apply(action, ActionTrigger.CANCEL)
        except errors.ActionNotCancellable:
            assert not action.state.cancellable

    @rule(
        milliseconds=st.integers(1, 5_000)
        | st.integers(1, 180_000)
        | st.integers(1, 45 * 60 * 1000),
        data=st.data(),
    )
    def advance(self, milliseconds: int, data: st.DataObject) -> None:
        target = self.now + timedelta(milliseconds=milliseconds)
        while True:
            due = [(at, a.id) for a in self.actions.values() if (at := a.due_at()) is not None]
            if not due or min(due)[0] > target:
                break
            at, action_id = min(due)
            self.now = max(self.now, at)
            action = self.actions[action_id]
            if action.state is ActionState.ACKNOWLEDGED:
                ok = data.draw(st.booleans(), label="device completed")
                self.apply(
                    action,
                    ActionTrigger.DEVICE_COMPLETED if ok else ActionTrigger.DEVICE_FAILED,
                )
            else:
                self.dispatch(action, data.draw(ANSWERS, label="dispatch answer"))
        self.now = target

    # --- invariants --------------------------------------------------------------------
    @invariant()
    def occupied_spans_never_overlap(self) -> None:
        spans = sorted(
            (span.lo, span.hi, a.id)
            for a in self.actions.values()
            if (span := occupied_span(a.view(), self.now)) is not None
        )
        for (_, hi, first), (lo, _, second) in pairwise(spans):
            assert hi <= lo, f"{first} and {second} overlap"

    @invariant()
    def every_state_change_is_in_the_table(self) -> None:
        for action in self.actions.values():
            path = action.history
            assert path[0] is None
            assert len(path) >= 2
            for origin, target in pairwise(path):
                assert (origin, target) in EDGES, f"{action.id}: {origin} -> {target}"
                assert origin is None or not origin.terminal

    @invariant()
    def a_retry_never_overtakes_a_newer_action(self) -> None:
        for action in self.actions.values():
            if action.state is not ActionState.DEFERRED:
                continue
            assert action.deferred_until is not None
            for other in self.actions.values():
                span = occupied_span(other.view(), self.now)
                if other is not action and span is not None and span.lo > action.start:
                    assert action.deferred_until < span.lo


OneDevice.TestCase.settings = settings(max_examples=200, stateful_step_count=50, deadline=None)
TestOneDevice = OneDevice.TestCase
