"""The push's one decision (CONTRACT 4): where a push goes among its device's actions in
play, what it displaces, and what its device's row must show.

`plan_push` is pure: the units of work read the device and its actions in play, the service
calls it, and the units of work store the `PushPlan` it returns (an immediate push to an
instant driver is answered first, `PushPlan.answered`). Every entry, the gateway's fast path
and the FastAPI route, a client's push and a schedule's occurrence, goes through it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.actions import Action, ActionState, ActionTrigger, DueKind, transition
from energyhub.domain.capabilities import ConflictStrategy, Execution
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.conflicts import Resolution, resolve_conflicts
from energyhub.domain.devices import Device
from energyhub.domain.dispatch import as_device_action
from energyhub.domain.errors import InvalidRequest, SchedulerActive, VppLocked
from energyhub.domain.quantities import Quantity
from energyhub.domain.validation import (
    ValidatedPush,
    check_window_order,
    execution_for,
    resolve_window,
    validate_push,
    window_from_utc,
)

OWN_PROGRAM = "auto.schedule"
"""The mode a device's own program runs in: only `cancel_and_replace` may take over."""


@dataclass(frozen=True, slots=True)
class PushRequest:
    """A push as the client sent it; `start`/`end` are plant-local `YYYY-MM-DDTHH:MM:SS`."""

    command: str
    parameters: dict[str, Quantity]
    start: str | None = None
    end: str | None = None
    on_conflict: str | None = None
    simulated_failure: str | None = None
    # a schedule's occurrence comes as UTC instants instead of `start`/`end`
    start_at: datetime | None = None
    end_at: datetime | None = None
    schedule_id: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceChanges:
    """What a push changes on its device's row: its newest action (`lastAction`), and when
    the device has already accepted the command, its mode and the simulator's state."""

    updated_at: datetime
    last_action: Action
    mode_from: Action | None = None
    sim: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PushPlan:
    """A push decided: the new action (not stored yet), the waiting actions it cancels and
    the running windows it ends early (each as it becomes), and its device's changes."""

    action: Action
    cancelled: tuple[Action, ...]
    cut: tuple[Action, ...]
    device: DeviceChanges

    @property
    def immediate(self) -> bool:
        """Dispatched by the request itself, which holds the new action's lease."""
        return self.action.lease_owner is not None

    def answered(self, action: Action, sim: Mapping[str, Any] | None = None) -> PushPlan:
        """The plan once an instant driver answered inside the push's transaction: the action
        acknowledged (it sets the device's mode) or failed."""
        accepted = action.state is ActionState.ACKNOWLEDGED
        device = DeviceChanges(
            updated_at=action.updated_at,
            last_action=action,
            mode_from=action if accepted else None,
            sim=sim,
        )
        return replace(self, action=action, device=device)


WAITING_ENDS = (
    "state",
    "updated_at",
    "due_at",
    "due_kind",
    "lease_owner",
    "lease_until",
    "deferred_until",
)
"""The fields `end_waiting` sets."""


def end_waiting(action: Action, trigger: ActionTrigger, now: datetime) -> Action:
    """A scheduled or deferred action ends (cancelled, or replaced): nothing more is due."""
    return replace(
        action,
        state=transition(action.state, trigger),
        updated_at=now,
        due_at=None,
        due_kind=None,
        lease_owner=None,
        lease_until=None,
        deferred_until=None,
    )


def plan_push(
    device: Device,
    in_play: Sequence[Action],
    request: PushRequest,
    now: datetime,
    *,
    action_id: str,
    lease_owner: str,
    lease_until: datetime,
) -> PushPlan:
    """The push checked in the contract's order and placed among `in_play` (the device's
    actions in play, `Action.in_play`); raises the push's errors. An immediate push's action
    is leased to `lease_owner` until `lease_until`: its request dispatches it."""
    if request.start_at is not None:
        window = window_from_utc(request.start_at, request.end_at, now)
        valid = _validate(device, request, window.execution)
    else:
        tz = ZoneInfo(device.timezone)
        start_local = _wall_clock(request.start, "start")
        end_local = _wall_clock(request.end, "end")
        check_window_order(start_local, end_local, tz, now)
        valid = _validate(device, request, execution_for(start_local, end_local))
        window = resolve_window(start_local, end_local, tz, now)
    if device.vpp_locked_until is not None and window.start < device.vpp_locked_until:
        raise VppLocked(until=isoformat_utc(device.vpp_locked_until))
    if (
        device.mode_command == OWN_PROGRAM
        and valid.on_conflict is not ConflictStrategy.CANCEL_AND_REPLACE
    ):
        raise SchedulerActive(currentMode=OWN_PROGRAM)
    placed = resolve_conflicts(
        [as_device_action(a, now) for a in in_play],
        window.start,
        window.end,
        valid.on_conflict,
        device.capabilities.conflict_strategies,
        now,
    )
    cancelled: list[Action] = []
    cut: list[Action] = []
    if placed.kind is Resolution.REPLACE:
        cuts = {c.action_id: c.end for c in placed.cut}
        for other in in_play:
            if other.id in placed.cancel:
                cancelled.append(end_waiting(other, ActionTrigger.REPLACED, now))
            elif other.id in cuts:  # a running window ends early, with no restore
                cut.append(
                    replace(
                        other,
                        end=cuts[other.id],
                        updated_at=now,
                        due_at=None,
                        due_kind=None,
                        restore=None,
                    )
                )
    immediate = placed.start <= now and placed.kind is not Resolution.QUEUE
    action = Action(
        id=action_id,
        account_id=device.account_id,
        environment=device.environment.value,
        device_id=device.id,
        device_type=device.type,
        command=valid.command,
        parameters={k: q.to_json() for k, q in request.parameters.items()},
        device_parameters={k: q.value for k, q in valid.parameters.items()},
        state=transition(None, ActionTrigger.SCHEDULE),
        start=now if immediate else placed.start,
        end=placed.end,
        on_conflict=None if valid.on_conflict is None else valid.on_conflict.value,
        result=None,
        error_code=None,
        error_message=None,
        deferred_until=None,
        acknowledged_at=None,
        completed_at=None,
        created_at=now,
        updated_at=now,
        due_at=now if immediate else placed.start,
        due_kind=DueKind.DISPATCH,
        lease_owner=lease_owner if immediate else None,
        lease_until=lease_until if immediate else None,
        simulated_failure=request.simulated_failure,
        schedule_id=request.schedule_id,
    )
    return PushPlan(
        action, tuple(cancelled), tuple(cut), DeviceChanges(updated_at=now, last_action=action)
    )


def _validate(device: Device, request: PushRequest, execution: Execution) -> ValidatedPush:
    return validate_push(
        device.capabilities, request.command, request.parameters, execution, request.on_conflict
    )


def _wall_clock(value: str | None, field: str) -> datetime | None:
    """A plant-local time as sent; a day that is not in the calendar is the client's typo."""
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        message = f"{value!r} is not a calendar time"
        if _parses(f"{value[:8]}01{value[10:]}"):  # only the day is wrong: 2026-02-30
            message += f": that month has no day {value[8:10]}"
        raise InvalidRequest(errors=[{"path": f"body.{field}", "message": message}]) from None


def _parses(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True
