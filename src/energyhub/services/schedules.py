"""Recurring schedules (spec 2.8, 4.7, CONTRACT 7): set, read and delete one per device, and
the planner that turns occurrences into actions ahead of time.

Decisions the contract leaves open:
- Occurrences become actions up to `HORIZON` (24 h) ahead, so they show in `GET /actions`
  and can be cancelled there; the planner extends the horizon every `REPLAN_EVERY` (1 h).
- An occurrence that cannot be placed (a conflict, a VPP lock, ...) is not lost silently:
  it is appended to the record's `skipped` list as `{slot, start, end, errorCode,
  errorMessage, details}` (the newest `MAX_SKIPPED`), and the schedule carries on.
- Every slot is checked as a push when the schedule is set (422 with `details.slot`); an
  `at` slot more than 60 s in the past is refused like a push's `start` (422
  `START_OUT_OF_RANGE`). A slot's command takes a window when its `execution` allows
  `windowed`, else it is a scheduled push at the slot start (its duration unused).
- Replacing or deleting a schedule cancels its actions that are still scheduled or
  deferred; a window already running runs to its end.
- `scheduler_enabled` is true while the device has a schedule set (also once it has
  completed), and `currentSchedule` is its record, refreshed when it plans or fires.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from energyhub.domain.accounts import Principal
from energyhub.domain.actions import Action
from energyhub.domain.capabilities import DeviceType, Execution
from energyhub.domain.clock import Clock, isoformat_utc
from energyhub.domain.devices import Device
from energyhub.domain.errors import ApiError, ScheduleNotFound, StartOutOfRange
from energyhub.domain.quantities import Quantity
from energyhub.domain.schedules import (
    AtSlot,
    Occurrence,
    ScheduleSpec,
    ScheduleState,
    next_occurrence,
    occurrences,
    parse_schedule,
    schedule_body,
)
from energyhub.domain.validation import PAST_TOLERANCE, validate_push
from energyhub.ports.storage import StoredSchedule, UnitOfWork, UnitOfWorkFactory
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import visible_device
from energyhub.services.ids import prefixed_id

log = logging.getLogger(__name__)

HORIZON = timedelta(hours=24)
REPLAN_EVERY = timedelta(hours=1)
LEASE = timedelta(seconds=60)
AFTER_FIRE = timedelta(milliseconds=1)
"""The record's `nextFireAt` moves on this long after an occurrence starts."""
MAX_SKIPPED = 100
CLAIM_BATCH = 50
SCHEDULER_SETTING = "scheduler_enabled"


class OccurrenceActions(Protocol):
    """What the planner needs from the action service."""

    async def push_occurrence(
        self,
        device: Device,
        schedule_id: str,
        command: str,
        parameters: Mapping[str, Quantity],
        start: datetime,
        end: datetime | None,
    ) -> Action: ...

    async def cancel_schedule_actions(self, schedule_id: str) -> int: ...


def schedule_record(
    schedule: StoredSchedule, device_type: DeviceType, now: datetime
) -> dict[str, Any]:
    """The schedule record (spec 2.8, CONTRACT 7) plus `createdAt` and `skipped`."""
    spec = parse_schedule(schedule.spec)
    upcoming = None if schedule.state is ScheduleState.DELETED else next_occurrence(spec, now)
    state = schedule.state
    if state is ScheduleState.ACTIVE and upcoming is None:
        state = ScheduleState.COMPLETED
    return {
        "id": schedule.id,
        "deviceId": schedule.device_id,
        "deviceType": device_type.event_name,
        "state": state.value,
        **schedule_body(spec),
        "createdAt": isoformat_utc(schedule.created_at),
        "updatedAt": isoformat_utc(schedule.updated_at),
        "nextFireAt": None if upcoming is None else isoformat_utc(upcoming.start),
        "skipped": schedule.skipped,
    }


def _execution(device: Device, command: str) -> Execution:
    spec = device.capabilities.commands.get(command)
    return (
        Execution.WINDOWED
        if spec is not None and Execution.WINDOWED in spec.execution
        else Execution.SCHEDULED
    )


def check_slots(device: Device, spec: ScheduleSpec, now: datetime) -> None:
    """Each slot as the push it will become, first failing slot wins; `details.slot`."""
    for index, slot in enumerate(spec.slots):
        try:
            validate_push(
                device.capabilities,
                slot.command,
                slot.parameters,
                _execution(device, slot.command),
                None,
            )
            if isinstance(slot, AtSlot) and slot.at < now - PAST_TOLERANCE:
                raise StartOutOfRange(
                    "This at slot is in the past: send a time from now on.",
                    reason="start_in_past",
                )
        except ApiError as error:
            error.message = f"Slot {index}: {error.message}"
            error.details["slot"] = index
            raise


def _settings_with(device: Device, enabled: bool) -> dict[str, Any]:
    if SCHEDULER_SETTING not in device.capabilities.settings:
        return device.settings
    return {**device.settings, SCHEDULER_SETTING: enabled}


class SchedulePlanner:
    """Makes due occurrences into actions, and keeps each record (`nextFireAt`, `state`,
    `skipped`) current on its device. Due work is rows: a schedule's `due_at` is when it
    needs a look, and a claim moves it on by `LEASE`."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        actions: OccurrenceActions,
        changes: DeviceChangeFeed,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._actions = actions
        self._changes = changes

    async def plan_due(self, limit: int = CLAIM_BATCH) -> int:
        """Plans every schedule due now; returns how many it looked at."""
        now = self._clock.now()
        lease_until = now + LEASE
        async with self._uow() as tx:
            claimed = await tx.schedules.claim_due(now, lease_until, limit)
        for schedule in claimed:
            try:
                await self.advance(schedule, lease_until)
            except Exception:
                log.exception("planning schedule %s failed; retried after its lease", schedule.id)
        return len(claimed)

    async def next_due_at(self) -> datetime | None:
        async with self._uow.single_read() as tx:
            return await tx.schedules.next_due_at()

    async def advance(self, schedule: StoredSchedule, lease_until: datetime) -> StoredSchedule:
        """Plans the schedule's occurrences up to `HORIZON` ahead and stores the outcome,
        while it still holds the lease (`due_at == lease_until`) and is still active."""
        now = self._clock.now()
        spec = parse_schedule(schedule.spec)
        low = schedule.planned_until or schedule.created_at
        high = max(low, now + HORIZON)
        due = occurrences(spec, low, high)
        async with self._uow() as tx:
            device = await tx.devices.get_device_by_id(schedule.device_id)
            made = set(await tx.schedules.occurrence_starts(schedule.id, low, high + LEASE))
        assert device is not None, "devices are never deleted"
        seen = {(s["slot"], s["start"]) for s in schedule.skipped}
        skipped: list[dict[str, Any]] = []
        placed = 0
        for occurrence in due:
            if _made(occurrence, made, now) or (
                (occurrence.slot, isoformat_utc(occurrence.start)) in seen
            ):
                continue
            error = await self._place(device, schedule.id, spec, occurrence, now)
            if error is None:
                placed += 1
            else:
                skipped.append(_skip_entry(occurrence, error))
        upcoming = next_occurrence(spec, now)
        state = ScheduleState.ACTIVE if upcoming is not None else ScheduleState.COMPLETED
        wake = [] if upcoming is None else [upcoming.start + AFTER_FIRE]
        if next_occurrence(spec, high) is not None:
            wake.append(now + REPLAN_EVERY)
        changed = bool(skipped) or state is not schedule.state
        updated = replace(
            schedule,
            state=state,
            planned_until=high,
            skipped=(schedule.skipped + skipped)[-MAX_SKIPPED:],
            updated_at=now if changed else schedule.updated_at,
            due_at=min(wake) if wake else None,
        )
        async with self._uow() as tx:
            current = await tx.devices.get_device(
                device.account_id, device.environment, device.id, lock=True
            )
            kept = await tx.schedules.update(
                schedule.id,
                {"due_at": lease_until, "state": ScheduleState.ACTIVE},
                state=updated.state,
                planned_until=updated.planned_until,
                skipped=updated.skipped,
                updated_at=updated.updated_at,
                due_at=updated.due_at,
            )
            if kept and current is not None:
                await tx.devices.update_device(
                    device.id, current_schedule=schedule_record(updated, device.type, now)
                )
        if kept:
            self._changes.publish(device.id)
        elif placed:
            # replaced or deleted meanwhile: what was just placed must not outlive it
            await self._actions.cancel_schedule_actions(schedule.id)
        return updated

    async def _place(
        self,
        device: Device,
        schedule_id: str,
        spec: ScheduleSpec,
        occurrence: Occurrence,
        now: datetime,
    ) -> ApiError | None:
        """One occurrence as an action; the error when it cannot be placed."""
        if occurrence.start < now - PAST_TOLERANCE:
            return StartOutOfRange(
                "The scheduler did not run at this occurrence's start: it was missed.",
                reason="missed",
            )
        slot = spec.slots[occurrence.slot]
        windowed = _execution(device, slot.command) is Execution.WINDOWED
        try:
            await self._actions.push_occurrence(
                device,
                schedule_id,
                slot.command,
                slot.parameters,
                occurrence.start,
                occurrence.end if windowed else None,
            )
        except ApiError as error:
            return error
        return None


def _made(occurrence: Occurrence, made: set[datetime], now: datetime) -> bool:
    """Whether the occurrence is an action already. One placed within its start tolerance
    fired at once, with the placing time as its start."""
    if occurrence.start in made:
        return True
    if occurrence.start >= now:
        return False
    return any(occurrence.start <= start <= occurrence.start + PAST_TOLERANCE for start in made)


def _skip_entry(occurrence: Occurrence, error: ApiError) -> dict[str, Any]:
    return {
        "slot": occurrence.slot,
        "start": isoformat_utc(occurrence.start),
        "end": isoformat_utc(occurrence.end),
        "errorCode": error.code,
        "errorMessage": error.message,
        "details": error.details or None,
    }


class ScheduleService:
    """The schedule routes' use cases (CONTRACT 7)."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        actions: OccurrenceActions,
        changes: DeviceChangeFeed,
        planner: SchedulePlanner,
        wake: Callable[[datetime | None], None],
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._actions = actions
        self._changes = changes
        self.planner = planner
        self._wake = wake

    async def put(
        self, principal: Principal, device_type: DeviceType, device_id: str, body: object
    ) -> dict[str, Any]:
        """Sets the device's schedule (replacing any), plans what is due within the
        horizon at once, and answers its record. Checked in this order: the device (404),
        the body (400, every problem at once), each slot as a push (422, `details.slot`)."""
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id)
        spec = parse_schedule(body)
        check_slots(device, spec, now)
        schedule = StoredSchedule(
            id=prefixed_id("sch"),
            device_id=device.id,
            account_id=device.account_id,
            environment=device.environment.value,
            state=ScheduleState.ACTIVE,
            spec=schedule_body(spec),
            planned_until=now - PAST_TOLERANCE,
            skipped=[],
            created_at=now,
            updated_at=now,
            due_at=now + LEASE,  # held by this request, which plans it below
        )
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id, lock=True)
            previous = await self._end_current(tx, device.id, now)
            await tx.schedules.add(schedule)
            await tx.devices.update_device(
                device.id,
                current_schedule=schedule_record(schedule, device.type, now),
                settings=_settings_with(device, True),
                updated_at=now,
            )
        self._changes.publish(device.id)
        if previous is not None:
            await self._actions.cancel_schedule_actions(previous.id)
        planned = await self.planner.advance(schedule, schedule.due_at or now)
        self._wake(planned.due_at)
        return schedule_record(planned, device.type, self._clock.now())

    async def get(
        self, principal: Principal, device_type: DeviceType, device_id: str
    ) -> dict[str, Any]:
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id)
            current = await tx.schedules.current(device.id)
        if current is None:
            raise ScheduleNotFound()
        return schedule_record(current, device.type, self._clock.now())

    async def delete(
        self, principal: Principal, device_type: DeviceType, device_id: str
    ) -> dict[str, Any]:
        """Clears the schedule: its waiting actions are cancelled, `scheduler_enabled`
        goes back to false; answers the record in state `deleted`."""
        now = self._clock.now()
        async with self._uow() as tx:
            device = await visible_device(tx, principal, device_type, device_id, lock=True)
            ended = await self._end_current(tx, device.id, now)
            if ended is None:
                raise ScheduleNotFound()
            await tx.devices.update_device(
                device.id,
                current_schedule=None,
                settings=_settings_with(device, False),
                updated_at=now,
            )
        self._changes.publish(device.id)
        await self._actions.cancel_schedule_actions(ended.id)
        return schedule_record(ended, device.type, now)

    async def _end_current(
        self, tx: UnitOfWork, device_id: str, now: datetime
    ) -> StoredSchedule | None:
        """Marks the device's schedule deleted (in the caller's transaction, which holds
        the device's lock); returns it as it is now."""
        current = await tx.schedules.current(device_id)
        if current is None:
            return None
        await tx.schedules.update(
            current.id, state=ScheduleState.DELETED, due_at=None, updated_at=now
        )
        return replace(current, state=ScheduleState.DELETED, due_at=None, updated_at=now)
