"""The dispatcher: due actions are rows, claimed with a lease, and moved along the action
lifecycle by what the device answers (DESIGN "Due work is rows, not timers").

Calls to devices happen outside transactions; results are recorded only while the lease is
still held, so a crash repeats at most a call (drivers make calls idempotent), never a
state change."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.actions import (
    Action,
    ActionState,
    ActionTrigger,
    DueKind,
    RetryPolicy,
    refusal_trigger,
    transition,
)
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.conflicts import DeviceAction, retry_deadline
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceTimeout, VppLocked
from energyhub.domain.events import EventDelays
from energyhub.domain.readings import CommandReceipt, CommandRequest, DeviceReading, DriverError
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.metrics import Metrics
from energyhub.ports.storage import PushUnitOfWork, UnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.metrics import NO_METRICS
from energyhub.services.outbox import Outbox

log = logging.getLogger(__name__)

# Short, so a killed process's claims are taken over within seconds; the holder renews it
# every RENEW_EVERY_S while its device calls run (a charger may take its response timeout).
LEASE = timedelta(seconds=5)
RENEW_EVERY_S = LEASE.total_seconds() / 3
RESTORE_RETRY = timedelta(seconds=60)
RESTORE_TRIES = 5


@dataclass(frozen=True, slots=True)
class DispatchFailure:
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)


def last_action_body(action: Action) -> dict[str, Any]:
    """`lastAction` on a device (spec 2.2)."""
    return {
        "id": action.id,
        "command": action.command,
        "state": action.state.value,
        "createdAt": isoformat_utc(action.created_at),
        "updatedAt": isoformat_utc(action.updated_at),
        "links": {"self": f"/actions/{action.id}"},
    }


def as_device_action(action: Action, now: datetime) -> DeviceAction:
    """What the conflict rules see: a dispatch under way counts as in execution."""
    state = ActionState.ACKNOWLEDGED if action.in_flight(now) else action.state
    return DeviceAction(action.id, state, action.start, action.end, action.deferred_until)


async def record_action(tx: PushUnitOfWork, action: Action, **changes: Any) -> Action:
    """Stores changes to an action and keeps the device's `lastAction` on its newest one."""
    updated = _replace(action, **changes)
    await tx.actions.update(action.id, **changes)
    await _update_device_and_last_action(tx, updated, {})
    return updated


async def _update_device_and_last_action(
    tx: PushUnitOfWork, action: Action, device_changes: dict[str, Any]
) -> None:
    """`device_changes`, and `lastAction` while this action is the device's newest: one
    statement in the usual case, two when a newer action exists and there are changes."""
    if (
        not await tx.devices.update_device_if(
            action.device_id,
            {"last_action_id": action.id},
            last_action=last_action_body(action),
            **device_changes,
        )
        and device_changes
    ):
        await tx.devices.update_device(action.device_id, **device_changes)


def _replace(action: Action, **changes: Any) -> Action:
    return replace(action, **changes)


def _refused_changes(
    action: Action,
    failure: DriverError,
    now: datetime,
    next_try: datetime | None,
    *,
    immediate: bool,
) -> dict[str, Any]:
    """The action's changes when the device refused: deferred until `next_try`, or failed.
    An immediate push is never deferred: any refusal fails it at once."""
    trigger = refusal_trigger(None if immediate else action.state, failure.retryable, next_try)
    state = transition(action.state, trigger)
    changes: dict[str, Any] = dict(
        state=state, updated_at=now, tries=action.tries + 1, lease_owner=None, lease_until=None
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
    return changes


class Dispatcher:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        drivers: Mapping[str, DeviceDriver],
        clock: Clock,
        changes: DeviceChangeFeed,
        retry_policy: RetryPolicy,
        immediate_backoff_s: tuple[float, ...] = (0.2, 1.0),
        outbox: Outbox | None = None,
        renew_every_s: float = RENEW_EVERY_S,
    ) -> None:
        self._renew_every_s = renew_every_s
        self._uow = uow
        self.outbox = outbox or Outbox(clock, EventDelays())
        self._drivers = drivers
        self._clock = clock
        self._changes = changes
        self._retry = retry_policy
        self._immediate_backoff = immediate_backoff_s
        self.metrics: Metrics = NO_METRICS  # bootstrap wires Prometheus

    async def run_due(self, owner: str, limit: int = 200) -> int:
        """Claims and runs every action due now, a batch at a time; returns how many."""
        ran = 0
        while True:
            now = self._clock.now()
            async with self._uow() as tx:
                claimed = await tx.actions.claim_due(owner, now, now + LEASE, limit)
            if not claimed:
                return ran
            await self._run_batch(claimed, owner)
            ran += len(claimed)

    async def next_due_at(self) -> datetime | None:
        async with self._uow() as tx:
            return await tx.actions.next_due_at()

    @contextlib.asynccontextmanager
    async def _holding(self, owner: str | None, action_ids: Sequence[str]) -> AsyncIterator[None]:
        """Renews `owner`'s leases on these actions while the block runs."""
        if owner is None or not action_ids:
            yield
            return
        renewing = asyncio.create_task(self._renew(owner, list(action_ids)))
        try:
            yield
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing

    async def _renew(self, owner: str, action_ids: list[str]) -> None:
        while True:
            await asyncio.sleep(self._renew_every_s)
            try:
                async with self._uow() as tx:
                    await tx.actions.extend_leases(owner, action_ids, self._clock.now() + LEASE)
            except Exception:
                log.exception("renewing the leases of %d actions failed", len(action_ids))

    async def _run_batch(self, claimed: Sequence[Action], owner: str) -> None:
        """Devices read in one query, calls made side by side, outcomes recorded in one
        transaction; if that transaction fails, each action is recorded on its own."""
        async with self._holding(owner, [a.id for a in claimed]):
            await self._run_claimed(claimed, owner)

    async def _run_claimed(self, claimed: Sequence[Action], owner: str) -> None:
        claimed = await self._fail_superseded(claimed, owner)
        steps = [a for a in claimed if a.due_kind in (DueKind.DISPATCH, DueKind.COMPLETE)]
        now = self._clock.now()
        for action in steps:
            if action.due_kind is DueKind.DISPATCH and action.due_at is not None:
                self.metrics.dispatch_lateness((now - action.due_at).total_seconds())
        devices = await self._devices_of(steps)
        outcomes = await asyncio.gather(
            *(self._call(action, devices[action.device_id]) for action in steps),
            return_exceptions=True,
        )
        ready = [(a, o) for a, o in zip(steps, outcomes, strict=True) if _usable(a, o)]
        recorded: list[Action | None] = []
        try:
            async with self._uow() as tx:
                recorded = await self._record_batch(tx, ready, owner, devices)
        except Exception:
            log.exception("recording a batch of %d actions failed; one by one now", len(ready))
            recorded = []
            for action, outcome in ready:
                try:
                    async with self._uow() as tx:
                        recorded.append(await self._record(tx, action, owner, devices, outcome))
                except Exception:
                    log.exception("recording action %s failed; its lease will expire", action.id)
                    recorded.append(None)
        for (_, outcome), done in zip(ready, recorded, strict=True):
            if done is None:
                continue
            self._changes.publish(done.device_id)
            if isinstance(outcome, CommandReceipt) and outcome.completes_after <= 0:
                await self.complete(done, None)
        for action in claimed:
            if action.due_kind is DueKind.RESTORE:
                try:
                    await self.restore(action, owner)
                except Exception:
                    log.exception("restoring after window %s failed", action.id)

    async def _fail_superseded(self, claimed: Sequence[Action], owner: str) -> list[Action]:
        """A dispatch whose device has since accepted a newer action (one that starts later)
        is not sent: it would override that newer command. This happens when a process died
        holding the dispatch and its lease ran out after the newer action had run. It fails
        instead, as a retry that would come after the next action's start does. Returns
        the rest of `claimed`."""
        dispatches = [a.id for a in claimed if a.due_kind is DueKind.DISPATCH]
        if not dispatches:
            return list(claimed)
        async with self._uow() as tx:
            stale = await tx.actions.superseded(dispatches)
            for action in claimed:
                if action.id in stale:
                    await self._record_refused(
                        tx, action, owner, _superseded(), immediate=False, may_retry=False
                    )
        for device_id in {a.device_id for a in claimed if a.id in stale}:
            self._changes.publish(device_id)
        return [a for a in claimed if a.id not in stale]

    async def _devices_of(self, actions: Sequence[Action]) -> dict[str, Device]:
        if not actions:
            return {}
        async with self._uow() as tx:
            found = await tx.devices.get_devices_by_ids(list({a.device_id for a in actions}))
        return {device.id: device for device in found}

    async def _call(self, action: Action, device: Device) -> Outcome:
        """What the device says: to a dispatch, a receipt or a refusal; to a completion, its
        state now."""
        if action.due_kind is DueKind.COMPLETE:
            return await self._drivers[device.driver].read(device, self._clock.now())
        return await self.attempt(action, device, immediate=False)

    async def _record(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        devices: Mapping[str, Device],
        outcome: Outcome,
    ) -> Action | None:
        if isinstance(outcome, DeviceReading):
            return await self._record_completed(tx, action, owner, outcome)
        if isinstance(outcome, CommandReceipt):
            return await self._record_accepted(
                tx, action, owner, devices[action.device_id], outcome
            )
        assert isinstance(outcome, DriverError)  # `_usable` let no other exception through
        return await self._record_refused(tx, action, owner, outcome, immediate=False)

    async def _record_batch(
        self,
        tx: UnitOfWork,
        ready: Sequence[tuple[Action, Outcome]],
        owner: str,
        devices: Mapping[str, Device],
    ) -> list[Action | None]:
        """Acceptances and completions in a few executemany statements; refusals (rare, and
        each needs the device's other actions) one by one."""
        held = await tx.actions.held_by(owner, [a.id for a, _ in ready])
        now = self._clock.now()
        recorded: list[Action | None] = []
        batched: list[Action] = []  # refusals record their own events
        action_changes: list[tuple[str, dict[str, Any]]] = []
        device_changes: list[tuple[str, dict[str, Any]]] = []
        last_actions: list[tuple[str, str, dict[str, Any]]] = []
        for action, outcome in ready:
            if action.id not in held:
                recorded.append(None)
                continue
            if isinstance(outcome, DeviceReading):
                changes, on_device = self._completed_changes(action, outcome, now)
            elif isinstance(outcome, CommandReceipt):
                device = devices[action.device_id]
                changes, on_device = self._accepted_changes(action, device, outcome, now)
            else:
                assert isinstance(outcome, DriverError)
                recorded.append(
                    await self._record_refused(tx, action, owner, outcome, immediate=False)
                )
                continue
            updated = _replace(action, **changes)
            recorded.append(updated)
            batched.append(updated)
            action_changes.append((action.id, changes))
            device_changes.append((action.device_id, on_device))
            last_actions.append((action.device_id, action.id, last_action_body(updated)))
        await tx.actions.update_many(action_changes)
        await tx.devices.update_many(device_changes)
        await tx.devices.set_last_actions(last_actions)
        await self.record_events(tx, batched)
        return recorded

    # --- dispatch -------------------------------------------------------------------------
    async def dispatch(
        self, action: Action, owner: str, *, immediate: bool, device: Device | None = None
    ) -> tuple[Action, DispatchFailure | None]:
        """Sends one action's command and records the device's answer (while `owner` holds
        it); `device` saves a read when the caller has just loaded it."""
        if device is None:
            async with self._uow() as tx:
                device = await tx.devices.get_device_by_id(action.device_id)
        assert device is not None
        async with self._holding(owner, [action.id]):
            outcome = await self.attempt(action, device, immediate=immediate)
        async with self._uow() as tx:
            if isinstance(outcome, CommandReceipt):
                recorded = await self._record_accepted(tx, action, owner, device, outcome)
            else:
                recorded = await self._record_refused(
                    tx, action, owner, outcome, immediate=immediate
                )
        updated = recorded or action
        if recorded is not None:
            self._changes.publish(action.device_id)
        if isinstance(outcome, DriverError):
            return updated, DispatchFailure(outcome.code, outcome.message, outcome.details)
        if recorded is not None and outcome.completes_after <= 0:
            return await self.complete(recorded, None), None
        return updated, None

    async def attempt(
        self, action: Action, device: Device, *, immediate: bool
    ) -> CommandReceipt | DriverError:
        now = self._clock.now()
        if device.vpp_locked_until is not None and device.vpp_locked_until > now:
            locked = VppLocked(until=isoformat_utc(device.vpp_locked_until))
            return DriverError(locked.code, locked.message, retryable=True)
        request = CommandRequest(
            action.command, action.device_parameters, action.simulated_failure, action.id
        )
        receipt, failure = await self._send(device, request, immediate=immediate)
        if receipt is not None:
            return receipt
        assert failure is not None
        return failure

    async def _send(
        self, device: Device, request: CommandRequest, *, immediate: bool
    ) -> tuple[CommandReceipt | None, DriverError | None]:
        """One call, plus bounded quick retries of transient errors on an immediate push
        (a scheduled one is deferred instead)."""
        driver = self._drivers[device.driver]
        waits = self._immediate_backoff if immediate and request.simulated_failure is None else ()
        attempt = 0
        while True:
            try:
                return await driver.send_command(device, request, self._clock.now()), None
            except DriverError as error:
                if not error.retryable or attempt >= len(waits):
                    return None, error
                await asyncio.sleep(waits[attempt])
                attempt += 1

    async def _record_accepted(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        device: Device,
        receipt: CommandReceipt,
    ) -> Action | None:
        """None when `owner` no longer holds the action: whoever does records the outcome."""
        changes, on_device = self._accepted_changes(action, device, receipt, self._clock.now())
        if not await tx.actions.update(action.id, held_by=owner, **changes):
            return None
        updated = _replace(action, **changes)
        await _update_device_and_last_action(tx, updated, on_device)
        self.count_states(tx, [updated])
        return updated

    def _accepted_changes(
        self, action: Action, device: Device, receipt: CommandReceipt, now: datetime
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The action's and the device's changes when the device accepted the command."""
        changes: dict[str, Any] = dict(
            state=transition(action.state, ActionTrigger.DISPATCH_ACCEPTED),
            acknowledged_at=now,
            updated_at=now,
            tries=action.tries + 1,
            result={"success": True, **receipt.result},
            deferred_until=None,
            due_kind=DueKind.COMPLETE,
            due_at=now + timedelta(seconds=receipt.completes_after),
            lease_owner=None,
            lease_until=None,
            restore=_mode_in_effect(device) if action.end is not None else action.restore,
        )
        on_device: dict[str, Any] = dict(
            mode_action_id=action.id, mode_command=action.command, updated_at=now
        )
        if receipt.driver_state is not None:
            on_device["sim"] = receipt.driver_state
        return changes, on_device

    async def _record_refused(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        failure: DriverError,
        *,
        immediate: bool,
        may_retry: bool = True,
    ) -> Action | None:
        now = self._clock.now()
        next_try = None
        if may_retry and not immediate and failure.retryable:
            others = [
                as_device_action(a, now) for a in await tx.actions.in_play(action.device_id, now)
            ]
            deadline = retry_deadline(as_device_action(action, now), others, now)
            next_try = self._retry.next_try_at(action.tries + 1, now, deadline)
        changes = _refused_changes(action, failure, now, next_try, immediate=immediate)
        if not await tx.actions.update(action.id, held_by=owner, **changes):
            return None
        updated = _replace(action, **changes)
        await _update_device_and_last_action(tx, updated, {})
        await self.record_events(tx, [updated])
        return updated

    async def dispatch_inline(
        self, action: Action, device: Device
    ) -> tuple[Action, dict[str, Any], DispatchFailure | None]:
        """An immediate push to a driver that answers in process (`instant`): the call is
        made inside the push's own transaction, so the action is stored once, already
        answered. Returns the action, the device's changes, and the refusal if any."""
        outcome = await self.attempt(action, device, immediate=True)
        now = self._clock.now()
        if isinstance(outcome, DriverError):
            changes = _refused_changes(action, outcome, now, None, immediate=True)
            failure = DispatchFailure(outcome.code, outcome.message, outcome.details)
            return _replace(action, **changes), {}, failure
        changes, on_device = self._accepted_changes(action, device, outcome, now)
        return _replace(action, **changes), on_device, None

    def count_states(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`energyhub_actions_total`: the states `actions` moved to, once `tx` commits."""
        states = [action.state.value for action in actions]
        metrics = self.metrics

        def counted() -> None:
            for state in states:
                metrics.action_state(state)

        tx.after_commit(counted)

    # --- completion and window end ----------------------------------------------------------
    async def complete(self, action: Action, owner: str | None) -> Action:
        """The device has had its time: the action is `completed` and the stored state shows
        the new mode at once (CONTRACT 3)."""
        async with self._uow() as tx:
            device = await tx.devices.get_device_by_id(action.device_id)
        assert device is not None
        reading = await self._drivers[device.driver].read(device, self._clock.now())
        async with self._uow() as tx:
            recorded = await self._record_completed(tx, action, owner, reading)
        if recorded is None:
            return action
        self._changes.publish(action.device_id)
        return recorded

    async def _record_completed(
        self, tx: UnitOfWork, action: Action, owner: str | None, reading: DeviceReading
    ) -> Action | None:
        changes, on_device = self._completed_changes(action, reading, self._clock.now())
        if not await tx.actions.update(action.id, held_by=owner, **changes):
            return None
        updated = _replace(action, **changes)
        await _update_device_and_last_action(tx, updated, on_device)
        await self.record_events(tx, [updated])
        return updated

    async def record_events(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`push.completed` / `push.failed` for those of `actions` that just ended so, in
        the transaction that ended them; the sender hears of them once it commits."""
        self.count_states(tx, actions)
        events = self.outbox.push_events(actions)
        if events:
            await tx.events.add(events)
            tx.after_commit(lambda: self.outbox.announce(events))

    def _completed_changes(
        self, action: Action, reading: DeviceReading, now: datetime
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The action is `completed` (a window then waits for its end) and the device's
        stored state shows the new mode at once (CONTRACT 3)."""
        changes: dict[str, Any] = dict(
            state=transition(action.state, ActionTrigger.DEVICE_COMPLETED),
            completed_at=now,
            updated_at=now,
            lease_owner=None,
            lease_until=None,
            due_kind=None,
            due_at=None,
        )
        if action.end is not None and action.end > now:
            changes.update(due_kind=DueKind.RESTORE, due_at=action.end)
        on_device = dict(
            state=reading.state, available=reading.available, last_pulled_at=now, updated_at=now
        )
        return changes, on_device

    async def restore(self, action: Action, owner: str) -> Action:
        """At a window's end, put back the mode it replaced, unless a later action has
        replaced the window's own command since."""
        async with self._uow() as tx:
            device = await tx.devices.get_device_by_id(action.device_id)
        assert device is not None
        now = self._clock.now()
        done: dict[str, Any] = dict(
            due_kind=None, due_at=None, lease_owner=None, lease_until=None, updated_at=now
        )
        if device.mode_action_id != action.id or not action.restore:
            async with self._uow() as tx:
                await tx.actions.update(action.id, held_by=owner, **done)
            return action
        previous = action.restore
        request = CommandRequest(previous["command"], dict(previous.get("parameters", {})))
        receipt, failure = await self._send(device, request, immediate=False)
        async with self._uow() as tx:
            if failure is not None:
                attempts = int(previous.get("attempts", 0)) + 1
                retry = dict(
                    restore={**previous, "attempts": attempts},
                    lease_owner=None,
                    lease_until=None,
                    due_at=now + RESTORE_RETRY,
                )
                await tx.actions.update(
                    action.id,
                    held_by=owner,
                    **(retry if failure.retryable and attempts < RESTORE_TRIES else done),
                )
                return action
            assert receipt is not None
            result = {**(action.result or {}), "restoredAt": isoformat_utc(now)}
            if not await tx.actions.update(action.id, held_by=owner, result=result, **done):
                return action
            device_changes: dict[str, Any] = dict(
                mode_action_id=None, mode_command=previous["command"], updated_at=now
            )
            if receipt.driver_state is not None:
                device_changes["sim"] = receipt.driver_state
            await tx.devices.update_device(action.device_id, **device_changes)
        await self._refresh(device)
        return _replace(action, result=result)

    async def _refresh(self, device: Device) -> None:
        async with self._uow() as tx:
            current = await tx.devices.get_device_by_id(device.id)
        assert current is not None
        now = self._clock.now()
        reading = await self._drivers[current.driver].read(current, now)
        async with self._uow() as tx:
            await tx.devices.update_device(
                device.id,
                state=reading.state,
                available=reading.available,
                last_pulled_at=now,
                updated_at=now,
            )
        self._changes.publish(device.id)


Outcome = CommandReceipt | DriverError | DeviceReading | BaseException


def _usable(action: Action, outcome: Outcome) -> bool:
    """A call that raised leaves its action to the lease: another try claims it later."""
    if isinstance(outcome, BaseException) and not isinstance(outcome, DriverError):
        log.error("dispatcher call failed for action %s: %r", action.id, outcome)
        return False
    return True


def _superseded() -> DriverError:
    return DriverError(
        DeviceTimeout.code,
        "The device did not confirm this command in time (its dispatch was interrupted) and "
        "a newer action has taken over the device since, so it is not sent again.",
        retryable=True,
    )


def _mode_in_effect(device: Device) -> dict[str, Any]:
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
