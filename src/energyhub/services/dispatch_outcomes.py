"""Recording what a device answered: the domain decides each step (`domain/dispatch.py`),
this stores it while the caller still holds the action's lease, with its event (outbox)
and its metrics, once the transaction commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from energyhub.domain import dispatch as decide
from energyhub.domain.actions import Action, RetryPolicy, last_action_body
from energyhub.domain.clock import Clock
from energyhub.domain.conflicts import retry_deadline
from energyhub.domain.devices import Device
from energyhub.domain.dispatch import ActionStep, as_device_action
from energyhub.domain.readings import CommandReceipt, DeviceReading, DriverError
from energyhub.ports.metrics import Metrics
from energyhub.ports.storage import PushUnitOfWork, UnitOfWork
from energyhub.services.device_pull import DevicePull
from energyhub.services.metrics import NO_METRICS
from energyhub.services.outbox import Outbox

Outcome = CommandReceipt | DriverError | DeviceReading | BaseException
"""What a call to a device came to: to a dispatch, a receipt or a refusal; to a
completion, its state now; or an exception that leaves the action to its lease."""


@dataclass(frozen=True, slots=True)
class DispatchFailure:
    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, error: DriverError) -> DispatchFailure:
        return cls(error.code, error.message, error.details)


class OutcomeRecorder:
    def __init__(
        self, clock: Clock, retry_policy: RetryPolicy, outbox: Outbox, pull: DevicePull
    ) -> None:
        self._clock = clock
        self._retry = retry_policy
        self.outbox = outbox
        self._pull = pull
        self.metrics: Metrics = NO_METRICS

    async def accepted(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        device: Device,
        receipt: CommandReceipt,
    ) -> Action | None:
        """None when `owner` no longer holds the action: whoever does records the outcome."""
        return await self._store(tx, decide.accepted(action, device, receipt, self._now()), owner)

    async def refused(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        failure: DriverError,
        *,
        immediate: bool,
        may_retry: bool = True,
    ) -> Action | None:
        """Deferred to the retry policy's next try, unless the push was immediate, the
        refusal permanent, or the next try would overtake the device's next action."""
        now = self._now()
        next_try = None
        if may_retry and not immediate and failure.retryable:
            in_play = await tx.actions.in_play(action.device_id, now)
            others = [as_device_action(a, now) for a in in_play]
            deadline = retry_deadline(as_device_action(action, now), others, now)
            next_try = self._retry.next_try_at(action.tries + 1, now, deadline)
        step = decide.refused(action, failure, now, next_try, immediate=immediate)
        return await self._store(tx, step, owner)

    async def completed(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        device: Device,
        reading: DeviceReading,
    ) -> Action | None:
        """The action completed, and the pull that saw it kept like any other."""
        now = self._now()
        recorded = await self._store(tx, decide.completed(action, reading, now), owner)
        if recorded is not None:
            await self._pull.keep(tx, device, reading, now)
        return recorded

    async def one(
        self,
        tx: UnitOfWork,
        action: Action,
        owner: str | None,
        device: Device,
        outcome: Outcome,
    ) -> Action | None:
        if isinstance(outcome, DeviceReading):
            return await self.completed(tx, action, owner, device, outcome)
        if isinstance(outcome, CommandReceipt):
            return await self.accepted(tx, action, owner, device, outcome)
        assert isinstance(outcome, DriverError)  # no other exception is recorded
        return await self.refused(tx, action, owner, outcome, immediate=False)

    async def batch(
        self,
        tx: UnitOfWork,
        ready: Sequence[tuple[Action, Outcome]],
        owner: str,
        devices: Mapping[str, Device],
    ) -> list[Action | None]:
        """Acceptances and completions in a few executemany statements; refusals (rare, and
        each needs the device's other actions) one by one."""
        held = await tx.actions.held_by(owner, [a.id for a, _ in ready])
        now = self._now()
        recorded: list[Action | None] = []
        steps: list[ActionStep] = []  # refusals record their own
        pulls: list[tuple[Device, DeviceReading]] = []
        for action, outcome in ready:
            device = devices[action.device_id]
            if action.id not in held:
                recorded.append(None)
                continue
            if isinstance(outcome, DeviceReading):
                step = decide.completed(action, outcome, now)
                pulls.append((device, outcome))
            elif isinstance(outcome, CommandReceipt):
                step = decide.accepted(action, device, outcome, now)
            else:
                assert isinstance(outcome, DriverError)
                recorded.append(await self.refused(tx, action, owner, outcome, immediate=False))
                continue
            recorded.append(step.action)
            steps.append(step)
        await tx.steps.record_many(steps)
        for device, reading in pulls:
            await self._pull.keep(tx, device, reading, now)
        await self._recorded(tx, steps)
        return recorded

    async def _store(self, tx: UnitOfWork, step: ActionStep, owner: str | None) -> Action | None:
        if not await tx.steps.record(step, held_by=owner):
            return None
        await self._recorded(tx, [step])
        return step.action

    async def _recorded(self, tx: PushUnitOfWork, steps: Sequence[ActionStep]) -> None:
        self.count_states(tx, [s.action for s in steps])
        events = [
            self.outbox.event(s.action.account_id, s.action.environment, *s.event)
            for s in steps
            if s.event is not None
        ]
        await self.outbox.record(tx, events)

    async def record_events(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`push.completed` / `push.failed` for those of `actions` that just ended so, in
        the transaction that ended them; the sender hears of them once it commits."""
        self.count_states(tx, actions)
        await self.outbox.record(tx, self.outbox.push_events(actions))

    def count_states(self, tx: PushUnitOfWork, actions: Sequence[Action]) -> None:
        """`energyhub_actions_total`: the states `actions` moved to, once `tx` commits."""
        states = [action.state.value for action in actions]
        metrics = self.metrics

        def counted() -> None:
            for state in states:
                metrics.action_state(state)

        tx.after_commit(counted)

    def _now(self) -> datetime:
        return self._clock.now()


async def record_action(tx: PushUnitOfWork, action: Action, **changes: Any) -> Action:
    """Stores changes to an action and keeps the device's `lastAction` on its newest one
    (a waiting action ended by a cancel or a replacing push)."""
    updated = replace(action, **changes)
    await tx.actions.update(action.id, **changes)
    await tx.devices.update_device_if(
        action.device_id, {"last_action_id": action.id}, last_action=last_action_body(updated)
    )
    return updated
