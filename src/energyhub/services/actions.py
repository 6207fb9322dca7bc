"""Pushes, actions, settings writes and device locks (spec 4.3-4.6, CONTRACT 4 and 5).

A push is checked in the contract's order, placed among the device's actions under a device
lock (one action at a time, also under concurrency), stored, and for an immediate push sent
at once through the dispatcher. PostgreSQL's push unit of work reads without the lock and
checks at the write instead; when the device changed meanwhile, the push runs again in a
unit of work that locks (`StaleRead`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from energyhub.domain.accounts import Environment, Principal
from energyhub.domain.actions import Action, ActionState, ActionTrigger
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device, device_not_found
from energyhub.domain.errors import (
    ActionNotCancellable,
    ActionNotFound,
    ApiError,
    DeviceFailure,
    DeviceNotFound,
    SandboxOnly,
    device_failure_for,
)
from energyhub.domain.pushes import WAITING_ENDS, PushRequest, end_waiting, plan_push
from energyhub.domain.quantities import Quantity
from energyhub.domain.readings import DriverError
from energyhub.domain.setting_effects import paired_settings, state_after_settings
from energyhub.domain.validation import validate_settings
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.storage import (
    PushUnitOfWork,
    PushUnitOfWorkFactory,
    StaleRead,
    UnitOfWorkFactory,
)
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import visible_device
from energyhub.services.dispatch import LEASE, Dispatcher, DispatchFailure, record_action
from energyhub.services.ids import new_id

__all__ = ["ActionService", "PushFailed", "PushRequest"]  # PushRequest: the entries build it


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
            command=command,
            parameters=dict(parameters),
            start_at=start,
            end_at=end,
            schedule_id=schedule_id,
        )
        return await self._push(
            device.account_id, device.environment, device.type, device.id, request
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
    ) -> Action:
        token = "push:" + new_id()
        placed = (account_id, environment, device_type, device_id, request, token)
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
        token: str,
    ) -> tuple[Device, Action, bool, DispatchFailure | None]:
        """The push decided (`plan_push`) and stored in one unit of work (an instant driver's
        answer too): the device, the action, whether it was dispatched inline, and the
        refusal if any."""
        failure = None
        now = self._clock.now()
        async with uow() as tx:
            found = await tx.device_for_push(account_id, environment, device_id, now)
            if found is None or found[0].type is not device_type:
                raise device_not_found(device_id, found[0].type if found else None, device_type)
            device, in_play = found
            plan = plan_push(
                device,
                in_play,
                request,
                now,
                action_id=new_id(),
                lease_owner=token,
                lease_until=now + LEASE,
            )
            inline = plan.immediate and self._drivers[device.driver].instant
            if inline:
                action, on_device, failure = await self._dispatcher.dispatch_inline(
                    plan.action, device
                )
                plan = plan.answered(action, on_device.get("sim"))
            await tx.add_action(plan)
            if plan.cancelled:
                self._dispatcher.count_states(tx, plan.cancelled)
            await self._dispatcher.record_events(tx, [plan.action])
        return device, plan.action, inline, failure

    async def _after_inline(self, action: Action, failure: DispatchFailure | None) -> Action:
        """The worker completes the action when its time comes, unless that is now."""
        if failure is not None:
            raise PushFailed(failure.code, failure.message, action.id, failure.details)
        if action.due_at is not None and action.due_at <= self._clock.now():
            return await self._dispatcher.complete(action, None)
        self._wake(action.due_at)
        return action

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
        """All or nothing: every key checked first, then one call to the device, then stored,
        with the other unit of a ceiling written in one and the state fields that report a
        setting (`domain/setting_effects.py`)."""
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id)
        valid = validate_settings(device.capabilities, values)
        now = self._clock.now()
        try:
            await self._drivers[device.driver].write_settings(device, valid, now)
        except DriverError as error:
            failure = device_failure_for(error.code) or DeviceFailure
            raise _device_error(failure, error) from None
        stored = {**valid, **paired_settings(device.capabilities, valid)}
        async with self._uow() as tx:
            current = await visible_device(tx, principal, device_type, device_id)
            merged = {**current.settings, **stored}
            state = state_after_settings(current.state, stored)
            await tx.devices.update_device(device.id, settings=merged, state=state, updated_at=now)
        self._changes.publish(device.id)
        return replace(current, settings=merged, state=state)

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
    """A scheduled or deferred action ends (cancel, or replaced): the domain's `end_waiting`,
    stored."""
    ended = end_waiting(action, trigger, now)
    return await record_action(tx, action, **{name: getattr(ended, name) for name in WAITING_ENDS})


def _device_error(failure: type[DeviceFailure], error: DriverError) -> ApiError:
    made = failure(error.message, **error.details)
    made.code = error.code  # type: ignore[misc]
    return made
