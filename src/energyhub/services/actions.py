"""Pushes, actions, settings writes and device locks (spec 4.3-4.6, CONTRACT 4 and 5).

A push is checked in the contract's order, placed among the device's actions under a device
lock (one action at a time, also under concurrency), stored, and for an immediate push sent
at once through the dispatcher. PostgreSQL's push unit of work reads without the lock and
checks at the write instead; when the device changed meanwhile, the push runs again in a
unit of work that locks (`StaleRead`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import (
    Action,
    ActionState,
    ActionTrigger,
    DueKind,
    transition,
)
from energyhub.domain.capabilities import ConflictStrategy, DeviceType
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.conflicts import Resolution, resolve_conflicts
from energyhub.domain.devices import Device
from energyhub.domain.errors import (
    ActionNotCancellable,
    ActionNotFound,
    ApiError,
    DeviceFailure,
    DeviceNotFound,
    InvalidRequest,
    SandboxOnly,
    SchedulerActive,
    VppLocked,
    device_failure_for,
)
from energyhub.domain.quantities import Quantity
from energyhub.domain.readings import DriverError
from energyhub.domain.validation import (
    check_window_order,
    execution_for,
    resolve_window,
    validate_push,
    validate_settings,
    window_from_utc,
)
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.storage import (
    PushUnitOfWork,
    PushUnitOfWorkFactory,
    StaleRead,
    UnitOfWorkFactory,
)
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import visible_device
from energyhub.services.dispatch import (
    LEASE,
    Dispatcher,
    DispatchFailure,
    as_device_action,
    last_action_body,
    record_action,
)
from energyhub.services.ids import new_id

OWN_PROGRAM = "auto.schedule"


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


class PushFailed(ApiError):
    """The device refused an immediate push: the failure envelope with the device's code,
    HTTP 502, `details.actionId` (CONTRACT 4)."""

    status = 502

    def __init__(
        self, code: str, message: str, action_id: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, **(details or {}), actionId=action_id)
        self.code = code  # type: ignore[misc]


class ActionService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        drivers: Mapping[str, DeviceDriver],
        clock: Clock,
        changes: DeviceChangeFeed,
        dispatcher: Dispatcher,
        wake: Callable[[datetime | None], None],
        push_uow: PushUnitOfWorkFactory | None = None,
    ) -> None:
        self._uow = uow
        self._drivers = drivers
        self._clock = clock
        self._changes = changes
        self._dispatcher = dispatcher
        self._wake = wake
        self._push_uow: PushUnitOfWorkFactory = push_uow or uow

    async def push(
        self, principal: Principal, device_type: DeviceType, device_id: str, request: PushRequest
    ) -> Action:
        if (
            request.simulated_failure is not None
            and principal.environment is not Environment.SANDBOX
        ):
            raise SandboxOnly("The sandbox block simulates failures only in the sandbox.")
        return await self._push(
            principal.account_id, principal.environment, device_type, device_id, request
        )

    async def push_occurrence(
        self,
        device: Device,
        schedule_id: str,
        command: str,
        parameters: Mapping[str, Quantity],
        start: datetime,
        end: datetime | None,
    ) -> Action:
        """One occurrence of a schedule as a scheduled push (or a window with `end`), under
        the same rules as a client's push; raises the push's errors when it cannot be placed."""
        request = PushRequest(
            command=command, parameters=dict(parameters), start_at=start, end_at=end
        )
        return await self._push(
            device.account_id, device.environment, device.type, device.id, request, schedule_id
        )

    async def cancel_schedule_actions(self, schedule_id: str) -> int:
        """A replaced or deleted schedule: its actions still waiting are cancelled."""
        now = self._clock.now()
        cancelled = 0
        async with self._uow() as tx:
            waiting = await tx.actions.waiting_for_schedule(schedule_id)
            for device_id in sorted({a.device_id for a in waiting}):
                await tx.actions.lock_device(device_id)
            for action in waiting:
                current = await tx.actions.get_by_id(action.id)
                if current is None or current.in_flight(now) or not current.state.cancellable:
                    continue
                ended = await _end_waiting(tx, current, ActionTrigger.CANCEL, now)
                self._dispatcher.count_states(tx, [ended])
                cancelled += 1
        for device_id in {a.device_id for a in waiting}:
            self._changes.publish(device_id)
        return cancelled

    async def _push(
        self,
        account_id: str,
        environment: Environment,
        device_type: DeviceType,
        device_id: str,
        request: PushRequest,
        schedule_id: str | None = None,
    ) -> Action:
        token = "push:" + new_id()
        placed = (account_id, environment, device_type, device_id, request, schedule_id, token)
        try:
            device, action, inline, failure = await self._store(self._push_uow, *placed)
        except StaleRead:  # a concurrent change to the device: again, under its lock
            device, action, inline, failure = await self._store(self._uow, *placed)
        self._changes.publish(device.id)
        if inline:
            return await self._after_inline(action, failure)
        if action.state is ActionState.SCHEDULED and action.lease_owner is None:
            self._wake(action.due_at)
            return action
        dispatched, failure = await self._dispatcher.dispatch(
            action, token, immediate=True, device=device
        )
        if failure is not None:
            raise PushFailed(failure.code, failure.message, action.id, failure.details)
        self._wake(dispatched.due_at)  # its completion, earlier than the worker may sleep
        return dispatched

    async def _store(
        self,
        uow: PushUnitOfWorkFactory,
        account_id: str,
        environment: Environment,
        device_type: DeviceType,
        device_id: str,
        request: PushRequest,
        schedule_id: str | None,
        token: str,
    ) -> tuple[Device, Action, bool, DispatchFailure | None]:
        """The push placed and stored in one unit of work (an instant driver's answer too):
        the device, the action, whether it was dispatched inline, and the refusal if any."""
        failure = None
        now = self._clock.now()
        async with uow() as tx:
            found = await tx.device_for_push(account_id, environment, device_id, now)
            if found is None or found[0].type is not device_type:
                raise DeviceNotFound(device_id)
            device, in_play = found
            action = await self._place(tx, device, in_play, request, token, now)
            if schedule_id is not None:
                action = replace(action, schedule_id=schedule_id)
            inline = action.lease_owner is not None and self._drivers[device.driver].instant
            on_device: dict[str, Any] = {}
            if inline:
                action, on_device, failure = await self._dispatcher.dispatch_inline(action, device)
            await tx.add_action(
                action,
                {
                    "updated_at": action.updated_at,
                    **on_device,
                    "last_action_id": action.id,
                    "last_action": last_action_body(action),
                },
            )
            await self._dispatcher.record_events(tx, [action])
        return device, action, inline, failure

    async def _after_inline(self, action: Action, failure: DispatchFailure | None) -> Action:
        """The worker completes the action when its time comes, unless that is now."""
        if failure is not None:
            raise PushFailed(failure.code, failure.message, action.id, failure.details)
        if action.due_at is not None and action.due_at <= self._clock.now():
            return await self._dispatcher.complete(action, None)
        self._wake(action.due_at)
        return action

    async def _place(
        self,
        tx: PushUnitOfWork,
        device: Device,
        in_play: Sequence[Action],
        request: PushRequest,
        token: str,
        now: datetime,
    ) -> Action:
        """The action this push becomes, not stored yet; what it replaces is ended."""
        if request.start_at is not None:
            window = window_from_utc(request.start_at, request.end_at, now)
            valid = validate_push(
                device.capabilities,
                request.command,
                request.parameters,
                window.execution,
                request.on_conflict,
            )
        else:
            tz = ZoneInfo(device.timezone)
            start_local = _wall_clock(request.start, "start")
            end_local = _wall_clock(request.end, "end")
            check_window_order(start_local, end_local, tz, now)
            execution = execution_for(start_local, end_local)
            valid = validate_push(
                device.capabilities,
                request.command,
                request.parameters,
                execution,
                request.on_conflict,
            )
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
        if placed.kind is Resolution.REPLACE:
            await self._replace(
                tx, in_play, placed.cancel, {c.action_id: c.end for c in placed.cut}
            )
        immediate = placed.start <= now and placed.kind is not Resolution.QUEUE
        action = Action(
            id=new_id(),
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
            lease_owner=token if immediate else None,
            lease_until=now + LEASE if immediate else None,
            simulated_failure=request.simulated_failure,
        )
        return action

    async def _replace(
        self,
        tx: PushUnitOfWork,
        in_play: Sequence[Action],
        cancel: Sequence[str],
        cuts: dict[str, datetime],
    ) -> None:
        """cancel_and_replace: cancel what waits, end running windows early (no restore)."""
        now = self._clock.now()
        for action in in_play:
            if action.id in cancel:
                ended = await _end_waiting(tx, action, ActionTrigger.REPLACED, now)
                self._dispatcher.count_states(tx, [ended])
            elif action.id in cuts:
                await tx.actions.update(
                    action.id,
                    end=cuts[action.id],
                    updated_at=now,
                    due_at=None,
                    due_kind=None,
                    restore=None,
                )

    async def get(self, principal: Principal, action_id: str) -> Action:
        async with self._uow() as tx:
            found = await tx.actions.get(
                principal.account_id, principal.environment.value, action_id
            )
        if found is None:
            raise ActionNotFound(f"No action {action_id!r} is visible to this API key.")
        return found

    async def list(
        self,
        principal: Principal,
        device_id: str | None,
        state: str | None,
        offset: int,
        limit: int,
    ) -> tuple[Sequence[Action], int]:
        async with self._uow() as tx:
            return await tx.actions.list(
                principal.account_id, principal.environment.value, device_id, state, offset, limit
            )

    async def cancel(
        self, principal: Principal, action_id: str, device_type: DeviceType | None = None
    ) -> Action:
        """Cancels a scheduled or deferred action; 409 ACTION_NOT_CANCELLABLE otherwise."""
        now = self._clock.now()
        async with self._uow() as tx:
            found = await tx.actions.get(
                principal.account_id, principal.environment.value, action_id
            )
            if found is None or (device_type is not None and found.device_type is not device_type):
                raise ActionNotFound(f"No action {action_id!r} is visible to this API key.")
            await tx.actions.lock_device(found.device_id)
            action = await tx.actions.get_by_id(action_id)
            assert action is not None
            if action.in_flight(now):
                raise ActionNotCancellable(
                    "This action is being dispatched now: only a scheduled or deferred action "
                    "can be cancelled.",
                    state=ActionState.ACKNOWLEDGED.value,
                )
            cancelled = await _end_waiting(tx, action, ActionTrigger.CANCEL, now)
            self._dispatcher.count_states(tx, [cancelled])
        self._changes.publish(action.device_id)
        return cancelled

    async def write_settings(
        self,
        principal: Principal,
        device_type: DeviceType,
        device_id: str,
        values: Mapping[str, Quantity | bool],
    ) -> Device:
        """All or nothing: every key checked first, then one call to the device, then stored."""
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id)
        valid = validate_settings(device.capabilities, values)
        now = self._clock.now()
        try:
            await self._drivers[device.driver].write_settings(device, valid, now)
        except DriverError as error:
            failure = device_failure_for(error.code) or DeviceFailure
            raise _device_error(failure, error) from None
        async with self._uow() as tx:
            current = await visible_device(tx, principal, device_type, device_id)
            merged = {**current.settings, **valid}
            await tx.devices.update_device(device.id, settings=merged, updated_at=now)
        self._changes.publish(device.id)
        return replace(current, settings=merged)

    async def lock_for_vpp(self, principal: Principal, device_id: str, until: datetime) -> Device:
        """Sandbox: a virtual power plant holds the device until `until` (423 on pushes)."""
        if principal.environment is not Environment.SANDBOX:
            raise SandboxOnly()
        async with self._uow() as tx:
            device = await tx.devices.get_device(
                principal.account_id, principal.environment, device_id
            )
            if device is None or device.type is DeviceType.VEHICLE:
                raise DeviceNotFound(device_id)
            await tx.devices.update_device(
                device_id, vpp_locked_until=until, updated_at=self._clock.now()
            )
        self._changes.publish(device_id)
        return replace(device, vpp_locked_until=until)


async def _end_waiting(
    tx: PushUnitOfWork, action: Action, trigger: ActionTrigger, now: datetime
) -> Action:
    """A scheduled or deferred action ends (cancel, or replaced): nothing more is due."""
    return await record_action(
        tx,
        action,
        state=transition(action.state, trigger),
        updated_at=now,
        due_at=None,
        due_kind=None,
        lease_owner=None,
        lease_until=None,
        deferred_until=None,
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


def _device_error(failure: type[DeviceFailure], error: DriverError) -> ApiError:
    made = failure(error.message, **error.details)
    made.code = error.code  # type: ignore[misc]
    return made
