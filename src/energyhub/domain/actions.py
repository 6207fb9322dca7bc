"""Action lifecycle (spec 3.1, CONTRACT 4): states, the one transition table, retries.

Decisions where the spec and contract are silent:
- Creation is a transition from `None`: a push with `start` is `schedule`d; an immediate
  push goes straight to `acknowledged` or `failed` with the device's answer. An immediate
  push is never deferred, so `(None, retryable_refusal)` is not in the table: use
  `refusal_trigger`, which maps any refusal of an immediate push to `dispatch_refused`.
- A deferred action is dispatched again straight from `deferred` (its row is due at
  `deferredUntil`); there is no hop back through `scheduled`.
- Ending a running window early (cancel_and_replace) changes its `end`, not its state: the
  window is already `completed`, and terminal states never change.
- The first dispatch counts as the first try. Each retry waits its delay from the refusal
  that caused it, and no retry is planned at or after a deadline (the window's end, or the
  start of the device's next action), so a late retry never overrides a newer command.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from energyhub.domain import errors
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import isoformat_utc


class ActionState(StrEnum):
    ACKNOWLEDGED = "acknowledged"
    SCHEDULED = "scheduled"
    DEFERRED = "deferred"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    FAILED = "failed"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATES

    @property
    def cancellable(self) -> bool:
        """Only an action not yet dispatched (or waiting to be dispatched again)."""
        return self in CANCELLABLE_STATES


TERMINAL_STATES = frozenset({ActionState.CANCELLED, ActionState.COMPLETED, ActionState.FAILED})
CANCELLABLE_STATES = frozenset({ActionState.SCHEDULED, ActionState.DEFERRED})
IN_PLAY_STATES = frozenset(ActionState) - TERMINAL_STATES
"""The states of an action still in play; a `completed` window is too until its end
(`Action.in_play`). Storage selects the same set (`persistence/actions.in_play_sql`)."""


class ActionTrigger(StrEnum):
    SCHEDULE = "schedule"
    """A push with `start` was accepted and stored."""
    DISPATCH_ACCEPTED = "dispatch_accepted"
    DISPATCH_REFUSED = "dispatch_refused"
    """A permanent refusal at dispatch (or any refusal of an immediate push)."""
    RETRYABLE_REFUSAL = "retryable_refusal"
    RETRIES_EXHAUSTED = "retries_exhausted"
    DEVICE_COMPLETED = "device_completed"
    DEVICE_FAILED = "device_failed"
    CANCEL = "cancel"
    REPLACED = "replaced"
    """Cancelled by a newer push's cancel_and_replace."""


_S = ActionState
_T = ActionTrigger

TRANSITIONS: Mapping[tuple[ActionState | None, ActionTrigger], ActionState] = MappingProxyType(
    {
        (None, _T.SCHEDULE): _S.SCHEDULED,
        (None, _T.DISPATCH_ACCEPTED): _S.ACKNOWLEDGED,
        (None, _T.DISPATCH_REFUSED): _S.FAILED,
        (_S.SCHEDULED, _T.DISPATCH_ACCEPTED): _S.ACKNOWLEDGED,
        (_S.SCHEDULED, _T.DISPATCH_REFUSED): _S.FAILED,
        (_S.SCHEDULED, _T.RETRYABLE_REFUSAL): _S.DEFERRED,
        (_S.SCHEDULED, _T.RETRIES_EXHAUSTED): _S.FAILED,
        (_S.SCHEDULED, _T.CANCEL): _S.CANCELLED,
        (_S.SCHEDULED, _T.REPLACED): _S.CANCELLED,
        (_S.DEFERRED, _T.DISPATCH_ACCEPTED): _S.ACKNOWLEDGED,
        (_S.DEFERRED, _T.DISPATCH_REFUSED): _S.FAILED,
        (_S.DEFERRED, _T.RETRYABLE_REFUSAL): _S.DEFERRED,
        (_S.DEFERRED, _T.RETRIES_EXHAUSTED): _S.FAILED,
        (_S.DEFERRED, _T.CANCEL): _S.CANCELLED,
        (_S.DEFERRED, _T.REPLACED): _S.CANCELLED,
        (_S.ACKNOWLEDGED, _T.DEVICE_COMPLETED): _S.COMPLETED,
        (_S.ACKNOWLEDGED, _T.DEVICE_FAILED): _S.FAILED,
    }
)
"""Every allowed (from, trigger) -> to; anything else is a bug in the caller."""


class InvalidTransition(errors.InternalError):
    """A state change the table does not allow: a bug, answered as a plain 500."""

    def __init__(self, state: ActionState | None, trigger: ActionTrigger) -> None:
        super().__init__()
        self.state = state
        self.trigger = trigger

    def __str__(self) -> str:
        origin = "creation" if self.state is None else self.state.value
        return f"no transition from {origin} on {self.trigger.value}"


def transition(state: ActionState | None, trigger: ActionTrigger) -> ActionState:
    """The next state, or an error: `ActionNotCancellable` for a client's cancel that
    comes too late, `InvalidTransition` for anything else the table does not hold."""
    target = TRANSITIONS.get((state, trigger))
    if target is not None:
        return target
    if trigger is ActionTrigger.CANCEL and state is not None:
        raise errors.ActionNotCancellable(
            f"This action is {state.value}: only a scheduled or deferred action can be cancelled.",
            state=state.value,
        )
    raise InvalidTransition(state, trigger)


def refusal_trigger(
    state: ActionState | None, retryable: bool, next_try: datetime | None
) -> ActionTrigger:
    """How a refusal at dispatch moves the action, given `RetryPolicy.next_try_at`."""
    if state is None or not retryable:
        return ActionTrigger.DISPATCH_REFUSED
    if next_try is None:
        return ActionTrigger.RETRIES_EXHAUSTED
    return ActionTrigger.RETRYABLE_REFUSAL


def action_type(device_type: DeviceType) -> str:
    """The action record's `type` (CONTRACT 4)."""
    if device_type is DeviceType.VEHICLE:
        raise ValueError("vehicles take no pushes")
    return f"{device_type.event_name}:set_operation_mode"


DEFAULT_RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(minutes=1),
    timedelta(minutes=4),
    timedelta(minutes=10),
    timedelta(minutes=15),
)
"""Waits between the 5 default tries: retries at about +1, +5, +15 and +30 minutes."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When a deferred action is tried again (CONTRACT 4 "deferred")."""

    delays: tuple[timedelta, ...] = DEFAULT_RETRY_DELAYS

    @classmethod
    def from_seconds(cls, seconds: Iterable[float]) -> RetryPolicy:
        return cls(tuple(timedelta(seconds=s) for s in seconds))

    @property
    def max_tries(self) -> int:
        return len(self.delays) + 1

    @property
    def horizon(self) -> timedelta:
        """Longest time from the first try to the last one."""
        return sum(self.delays, timedelta())

    def next_try_at(
        self, tries_made: int, refused_at: datetime, deadline: datetime | None = None
    ) -> datetime | None:
        """The next try after `tries_made` tries, the last refused at `refused_at`, or None
        when the tries are used up or the next one would not come before `deadline`."""
        if tries_made < 1:
            raise ValueError("tries_made counts the dispatch that was refused: at least 1")
        if tries_made >= self.max_tries:
            return None
        at = refused_at + self.delays[tries_made - 1]
        if deadline is not None and at >= deadline:
            return None
        return at


DEFAULT_RETRY_POLICY = RetryPolicy()


class DueKind(StrEnum):
    """The next thing the dispatcher does with an action at its `due_at`."""

    DISPATCH = "dispatch"  # send the command (at start, or at a retry)
    COMPLETE = "complete"  # the device accepted it; record completion
    RESTORE = "restore"  # a window ended: restore the mode it replaced


@dataclass(frozen=True, slots=True)
class Action:
    """A push as the service tracks it (spec 2.7, CONTRACT 4)."""

    id: str
    account_id: str
    environment: str
    device_id: str
    device_type: DeviceType
    command: str
    parameters: dict[str, Any]  # as the client sent them
    device_parameters: dict[str, float]  # in the device's declared units
    state: ActionState
    start: datetime
    end: datetime | None
    on_conflict: str | None
    result: dict[str, Any] | None
    error_code: str | None
    error_message: str | None
    deferred_until: datetime | None
    acknowledged_at: datetime | None
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    tries: int = 0
    due_at: datetime | None = None
    due_kind: DueKind | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    restore: dict[str, Any] | None = None
    simulated_failure: str | None = None
    schedule_id: str | None = None  # the schedule whose occurrence this is

    def in_play(self, now: datetime) -> bool:
        """Not ended yet, or a completed window still running: what a push must place itself
        among, and what a retry must not overtake."""
        if self.state in IN_PLAY_STATES:
            return True
        return self.state is ActionState.COMPLETED and self.end is not None and self.end > now

    def in_flight(self, now: datetime) -> bool:
        """A dispatch is under way: someone holds the lease on its first call."""
        return (
            self.due_kind is DueKind.DISPATCH
            and self.lease_until is not None
            and self.lease_until > now
        )


def last_action_body(action: Action) -> dict[str, Any]:
    """`lastAction` on a device (spec 2.2), as its row keeps it."""
    return {
        "id": action.id,
        "command": action.command,
        "state": action.state.value,
        "createdAt": isoformat_utc(action.created_at),
        "updatedAt": isoformat_utc(action.updated_at),
        "links": {"self": f"/actions/{action.id}"},
    }
