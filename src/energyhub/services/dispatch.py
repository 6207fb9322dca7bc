"""The dispatcher: due actions are rows, claimed with a lease, and moved along the action
lifecycle by what the device answers (DESIGN "Due work is rows, not timers").

Calls to devices happen outside transactions; results are recorded only while the lease is
still held, so a crash repeats at most a call (drivers make calls idempotent), never a
state change. What each answer changes is decided in `domain/dispatch.py`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from energyhub.domain import dispatch as decide
from energyhub.domain.actions import Action, DueKind, RetryPolicy, last_action_body
from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.dispatch import as_device_action
from energyhub.domain.events import EventDelays
from energyhub.domain.readings import CommandReceipt, DriverError
from energyhub.ports.devices import DeviceDriver
from energyhub.ports.metrics import Metrics
from energyhub.ports.storage import PushUnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.device_commands import CommandSender
from energyhub.services.device_pull import DevicePull
from energyhub.services.dispatch_leases import LEASE, RENEW_EVERY_S, LeaseKeeper, LeaseLost
from energyhub.services.dispatch_outcomes import (
    DispatchFailure,
    Outcome,
    OutcomeRecorder,
    record_action,
)
from energyhub.services.outbox import Outbox

__all__ = [
    "LEASE",
    "DispatchFailure",
    "Dispatcher",
    "as_device_action",
    "last_action_body",
    "record_action",
]

log = logging.getLogger(__name__)


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
        self._uow = uow
        self._clock = clock
        self._changes = changes
        self._pull = DevicePull(drivers)
        self._commands = CommandSender(drivers, clock, immediate_backoff_s)
        self._leases = LeaseKeeper(uow, clock, renew_every_s)
        self._record = OutcomeRecorder(
            clock, retry_policy, outbox or Outbox(clock, EventDelays()), self._pull
        )

    @property
    def outbox(self) -> Outbox:
        return self._record.outbox

    @property
    def metrics(self) -> Metrics:
        return self._record.metrics

    @metrics.setter
    def metrics(self, metrics: Metrics) -> None:
        """Bootstrap wires Prometheus; a no-op until then."""
        self._record.metrics = metrics

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
        async with self._uow.single_read() as tx:
            return await tx.actions.next_due_at()

    async def _run_batch(self, claimed: Sequence[Action], owner: str) -> None:
        """Devices read in one query, calls made side by side, outcomes recorded in one
        transaction; if that transaction fails, each action is recorded on its own."""
        try:
            await self._leases.held(owner, claimed, self._run_claimed(claimed, owner))
        except LeaseLost:
            log.warning("a batch of %d actions stopped: its leases ran short", len(claimed))

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
                recorded = await self._record.batch(tx, ready, owner, devices)
        except Exception:
            log.exception("recording a batch of %d actions failed; one by one now", len(ready))
            recorded = []
            for action, outcome in ready:
                device = devices[action.device_id]
                try:
                    async with self._uow() as tx:
                        recorded.append(await self._record.one(tx, action, owner, device, outcome))
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
                    refusal = decide.superseded_refusal()
                    await self._record.refused(
                        tx, action, owner, refusal, immediate=False, may_retry=False
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
        state now (the one pull: a device that fails to answer shows as unavailable)."""
        if action.due_kind is DueKind.COMPLETE:
            return await self._pull.read(device, self._clock.now())
        return await self.attempt(action, device, immediate=False)

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
        try:
            attempt = self.attempt(action, device, immediate=immediate)
            outcome = await self._leases.held(owner, [action], attempt)
        except LeaseLost as lost:
            outcome = lost
        async with self._uow() as tx:
            if isinstance(outcome, CommandReceipt):
                recorded = await self._record.accepted(tx, action, owner, device, outcome)
            else:
                recorded = await self._record.refused(
                    tx, action, owner, outcome, immediate=immediate
                )
        updated = recorded or action
        if recorded is not None:
            self._changes.publish(action.device_id)
        if isinstance(outcome, DriverError):
            return updated, DispatchFailure.of(outcome)
        if recorded is not None and outcome.completes_after <= 0:
            return await self.complete(recorded, None), None
        return updated, None

    async def attempt(
        self, action: Action, device: Device, *, immediate: bool
    ) -> CommandReceipt | DriverError:
        return await self._commands.attempt(action, device, immediate=immediate)

    async def dispatch_inline(
        self, action: Action, device: Device
    ) -> tuple[Action, dict[str, Any], DispatchFailure | None]:
        """An immediate push to a driver that answers in process (`instant`): the call is
        made inside the push's own transaction, so the action is stored once, already
        answered. Returns the action, the driver's state to keep on the device (`sim`,
        when it gave one), and the refusal if any."""
        outcome = await self.attempt(action, device, immediate=True)
        now = self._clock.now()
        if isinstance(outcome, DriverError):
            step = decide.refused(action, outcome, now, None, immediate=True)
            return step.action, {}, DispatchFailure.of(outcome)
        step = decide.accepted(action, device, outcome, now)
        sim = step.device.driver_state if step.device is not None else None
        return step.action, ({} if sim is None else {"sim": dict(sim)}), None

    def count_states(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`energyhub_actions_total`: the states `actions` moved to, once `tx` commits."""
        self._record.count_states(tx, actions)

    async def record_events(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`push.completed` / `push.failed` for those of `actions` that just ended so."""
        await self._record.record_events(tx, actions)

    # --- completion and window end ----------------------------------------------------------
    async def complete(self, action: Action, owner: str | None) -> Action:
        """The device has had its time: the action is `completed` and the stored state shows
        the new mode at once (CONTRACT 3)."""
        async with self._uow() as tx:
            device = await tx.devices.get_device_by_id(action.device_id)
        assert device is not None
        reading = await self._pull.read(device, self._clock.now())
        async with self._uow() as tx:
            recorded = await self._record.completed(tx, action, owner, device, reading)
        if recorded is None:
            return action
        self._changes.publish(action.device_id)
        return recorded

    async def restore(self, action: Action, owner: str) -> Action:
        """At a window's end, put back the mode it replaced, unless a later action has
        replaced the window's own command since; then pull the device."""
        async with self._uow() as tx:
            device = await tx.devices.get_device_by_id(action.device_id)
        assert device is not None
        now = self._clock.now()
        request = decide.restore_request(action, device)
        if request is None:
            async with self._uow() as tx:
                await tx.steps.record(decide.restore_ended(action, now), held_by=owner)
            return action
        answer = await self._commands.send(device, request, immediate=False)
        async with self._uow() as tx:
            if isinstance(answer, DriverError):
                await tx.steps.record(decide.restore_refused(action, answer, now), held_by=owner)
                return action
            step = decide.restored(action, answer, now)
            if not await tx.steps.record(step, held_by=owner):
                return action
        await self._refresh(device.id)
        return step.action

    async def _refresh(self, device_id: str) -> None:
        async with self._uow() as tx:
            current = await tx.devices.get_device_by_id(device_id)
        assert current is not None
        reading = await self._pull.read(current, self._clock.now())
        now = self._clock.now()
        async with self._uow() as tx:
            await self._pull.store(tx, current, reading, now)
        self._changes.publish(device_id)


def _usable(action: Action, outcome: Outcome) -> bool:
    """A call that raised leaves its action to the lease: another try claims it later."""
    if isinstance(outcome, BaseException) and not isinstance(outcome, DriverError):
        log.error("dispatcher call failed for action %s: %r", action.id, outcome)
        return False
    return True
