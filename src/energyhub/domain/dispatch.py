"""What a device's answer changes (DESIGN "Due work is rows, not timers"): the dispatcher
calls the device, and these pure functions decide what its action becomes, what the stored
device shows, and which event to record. Storage turns the records into columns.

Every step ends the caller's lease on the action (`lease_owner`, `lease_until` cleared), so
the next due time (`due_at`, `due_kind`) is what brings it back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.actions import (
    Action,
    ActionState,
    ActionTrigger,
    DueKind,
    last_action_body,
    refusal_trigger,
    transition,
)
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.conflicts import DeviceAction
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceTimeout
from energyhub.domain.events import push_event
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from energyhub.domain.webhooks import EventType

RESTORE_RETRY = timedelta(seconds=60)
RESTORE_TRIES = 5

_ACTION_FIELDS = frozenset(f.name for f in fields(Action))
_LEASE_ENDS: dict[str, Any] = {"lease_owner": None, "lease_until": None}


@dataclass(frozen=True, slots=True)
class ModeSet:
    """The command now in effect on the device, and the action that set it (None when a
    window's end put back the mode it replaced: no action holds the device then)."""

    command: str | None
    action_id: str | None


@dataclass(frozen=True, slots=True)
class DeviceChange:
    """What an answer changes on the stored device, at `at`: the mode in effect, the
    driver's own state for its next call, and the state the device reported."""

    at: datetime
    mode: ModeSet | None = None
    driver_state: Mapping[str, Any] | None = None
    reading: DeviceReading | None = None


@dataclass(frozen=True, slots=True)
class ActionStep:
    """One action moved along by its device's answer.

    `action` is what the action becomes and `changed` names the fields of it that the step
    set (the ones to store). `device`: what the stored device becomes (None: untouched).
    `last_action`: the device's `lastAction` body, shown while this action is its newest
    (None: the step leaves it as it is). `event`: the push event to record, for a step
    that ended the action (`push.completed` / `push.failed`)."""

    action: Action
    changed: frozenset[str]
    device: DeviceChange | None = None
    last_action: Mapping[str, Any] | None = None
    event: tuple[EventType, dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        unknown = self.changed - _ACTION_FIELDS
        if unknown:
            raise ValueError(f"not fields of an action: {sorted(unknown)}")

    def stored(self) -> dict[str, Any]:
        """The changed fields and their new values, by field name."""
        return {name: getattr(self.action, name) for name in sorted(self.changed)}


def as_device_action(action: Action, now: datetime) -> DeviceAction:
    """What the conflict rules see: a dispatch under way counts as in execution."""
    state = ActionState.ACKNOWLEDGED if action.in_flight(now) else action.state
    return DeviceAction(action.id, state, action.start, action.end, action.deferred_until)


def mode_in_effect(device: Device) -> dict[str, Any]:
    """The command a window will restore: what the service last set, else what the device
    reports (`currentMode` / `activeControlMode`)."""
    if device.sim and device.sim.get("command"):
        return {"command": device.sim["command"], "parameters": device.sim.get("parameters", {})}
    mode = (
        device.mode_command
        or device.state.get("currentMode")
        or device.state.get("activeControlMode")
    )
    return {"command": mode, "parameters": {}} if mode else {}


def superseded_refusal() -> DriverError:
    """The refusal recorded for a dispatch claimed again after its device accepted a newer
    action: sending it would override that newer command."""
    return DriverError(
        DeviceTimeout.code,
        "The device did not confirm this command in time (its dispatch was interrupted) and "
        "a newer action has taken over the device since, so it is not sent again.",
        retryable=True,
    )


def _step(
    action: Action,
    changes: dict[str, Any],
    device: DeviceChange | None = None,
    *,
    shows_last_action: bool = True,
) -> ActionStep:
    updated = replace(action, **changes)
    return ActionStep(
        action=updated,
        changed=frozenset(changes),
        device=device,
        last_action=last_action_body(updated) if shows_last_action else None,
        event=push_event(updated) if "state" in changes else None,
    )


def accepted(action: Action, device: Device, receipt: CommandReceipt, now: datetime) -> ActionStep:
    """The device took the command: the action is acknowledged until `completes_after`, it
    holds the device's mode, and a window keeps the mode it replaces for its end."""
    changes: dict[str, Any] = dict(
        state=transition(action.state, ActionTrigger.DISPATCH_ACCEPTED),
        acknowledged_at=now,
        updated_at=now,
        tries=action.tries + 1,
        result={"success": True, **receipt.result},
        deferred_until=None,
        due_kind=DueKind.COMPLETE,
        due_at=now + timedelta(seconds=receipt.completes_after),
        restore=mode_in_effect(device) if action.end is not None else action.restore,
        **_LEASE_ENDS,
    )
    on_device = DeviceChange(
        at=now, mode=ModeSet(action.command, action.id), driver_state=receipt.driver_state
    )
    return _step(action, changes, on_device)


def refused(
    action: Action,
    failure: DriverError,
    now: datetime,
    next_try: datetime | None,
    *,
    immediate: bool,
) -> ActionStep:
    """The device refused: deferred until `next_try`, or failed. An immediate push is
    never deferred: any refusal fails it at once."""
    trigger = refusal_trigger(None if immediate else action.state, failure.retryable, next_try)
    state = transition(action.state, trigger)
    changes: dict[str, Any] = dict(
        state=state, updated_at=now, tries=action.tries + 1, **_LEASE_ENDS
    )
    if state is ActionState.DEFERRED:
        changes.update(deferred_until=next_try, due_at=next_try, due_kind=DueKind.DISPATCH)
    else:
        changes.update(
            due_at=None,
            due_kind=None,
            deferred_until=None,
            error_code=failure.code,
            error_message=failure.message,
            result={"success": False, "errorCode": failure.code},
        )
    return _step(action, changes)


def completed(action: Action, reading: DeviceReading, now: datetime) -> ActionStep:
    """The device has had its time: the action is `completed` (a window then waits for its
    end) and the stored device shows the new state at once (CONTRACT 3)."""
    changes: dict[str, Any] = dict(
        state=transition(action.state, ActionTrigger.DEVICE_COMPLETED),
        completed_at=now,
        updated_at=now,
        due_kind=None,
        due_at=None,
        **_LEASE_ENDS,
    )
    if action.end is not None and action.end > now:
        changes.update(due_kind=DueKind.RESTORE, due_at=action.end)
    return _step(action, changes, DeviceChange(at=now, reading=reading))


def restore_request(action: Action, device: Device) -> CommandRequest | None:
    """The command that puts back what a window replaced; None when there is nothing to
    restore or a later action has replaced the window's own command since."""
    if device.mode_action_id != action.id or not action.restore:
        return None
    previous = action.restore
    return CommandRequest(previous["command"], dict(previous.get("parameters", {})))


def restore_ended(action: Action, now: datetime) -> ActionStep:
    """Nothing (more) to restore: the window's row is done."""
    changes: dict[str, Any] = dict(due_kind=None, due_at=None, updated_at=now, **_LEASE_ENDS)
    return _step(action, changes, shows_last_action=False)


def restored(action: Action, receipt: CommandReceipt, now: datetime) -> ActionStep:
    """The device took back the mode the window replaced; no action holds it now."""
    assert action.restore is not None
    changes: dict[str, Any] = dict(
        result={**(action.result or {}), "restoredAt": isoformat_utc(now)},
        due_kind=None,
        due_at=None,
        updated_at=now,
        **_LEASE_ENDS,
    )
    on_device = DeviceChange(
        at=now,
        mode=ModeSet(action.restore["command"], None),
        driver_state=receipt.driver_state,
    )
    return _step(action, changes, on_device, shows_last_action=False)


def restore_refused(action: Action, failure: DriverError, now: datetime) -> ActionStep:
    """The device refused the restore: tried again in `RESTORE_RETRY` while the error is
    retryable and tries remain, else given up."""
    assert action.restore is not None
    attempts = int(action.restore.get("attempts", 0)) + 1
    if not failure.retryable or attempts >= RESTORE_TRIES:
        return restore_ended(action, now)
    changes: dict[str, Any] = dict(
        restore={**action.restore, "attempts": attempts},
        due_at=now + RESTORE_RETRY,
        **_LEASE_ENDS,
    )
    return _step(action, changes, shows_last_action=False)
