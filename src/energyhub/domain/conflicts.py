"""Occupancy spans and collisions of pushes on one device (spec 3.1, 4.6; CONTRACT 4).

A span is a half-open UTC interval `[lo, hi)` cut at whole seconds: a window occupies
`[start, end)`, an action without `end` the one second its start falls in, so two instants
collide when they share a second.

Decisions where the contract is silent (each the conservative choice):
- Callers pass the device's non-terminal actions and its `completed` windows; a completed
  window still occupies `[start, end)` until its end (a "running window"). Other terminal
  actions occupy nothing.
- An action whose dispatch has begun or is due (`acknowledged`, `deferred`, or `scheduled`
  with its start come) blocks new pushes up to now, and a `deferred` one up to its
  `deferredUntil` too, so a late dispatch never overrides a newer command. Likewise a new
  push whose start has come (immediate, or up to 60 s past) collides with anything up to
  now. These stretches count for collisions only; `occupied_span` is the contract's span.
- Several actions collide with one push: `CONFLICT_IN_EXECUTION` wins when any of them is
  `acknowledged`; errors name the earliest conflicting action; `cancel_and_replace`
  cancels every scheduled or deferred one and cuts every running window at the new start.
- `queue_after` chains past every action in the way; an action without `end` anywhere in
  the chain refuses with `conflicting_action_not_windowed`, naming that action. A queued
  start more than 30 days ahead is refused as `START_OUT_OF_RANGE`
  (`reason: queued_start_too_far_ahead`). A queued immediate push becomes a scheduled one.
- `on_conflict` is taken as already checked against the device (`validate_push`);
  `strategies` only decides which ones a 409 offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from energyhub.domain import errors
from energyhub.domain.actions import ActionState
from energyhub.domain.capabilities import ConflictStrategy
from energyhub.domain.clock import ensure_utc
from energyhub.domain.validation import MAX_START_AHEAD

SECOND = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class Span:
    lo: datetime
    hi: datetime

    def overlaps(self, other: Span) -> bool:
        return self.lo < other.hi and other.lo < self.hi


@dataclass(frozen=True, slots=True)
class DeviceAction:
    """What the conflict rules need to know of an action already on the device."""

    id: str
    state: ActionState
    start: datetime
    end: datetime | None = None
    deferred_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class WindowCut:
    """A running window ended early by cancel_and_replace: its end moves, no restore."""

    action_id: str
    end: datetime


class Resolution(StrEnum):
    NO_CONFLICT = "no_conflict"
    REPLACE = "replace"
    QUEUE = "queue"


@dataclass(frozen=True, slots=True)
class ConflictResolution:
    """Where the new push goes, and what it displaces."""

    kind: Resolution
    start: datetime
    end: datetime | None
    cancel: tuple[str, ...] = ()
    cut: tuple[WindowCut, ...] = ()


def floor_second(instant: datetime) -> datetime:
    return ensure_utc(instant).replace(microsecond=0)


def push_span(start: datetime, end: datetime | None) -> Span:
    lo = floor_second(start)
    return Span(lo, lo + SECOND if end is None else ensure_utc(end))


def occupied_span(action: DeviceAction, now: datetime) -> Span | None:
    """The contract's span: a window until its end, an instant until the action is terminal."""
    if action.state is ActionState.COMPLETED:
        if action.end is not None and ensure_utc(action.end) > ensure_utc(now):
            return push_span(action.start, action.end)
        return None
    if action.state.terminal:
        return None
    return push_span(action.start, action.end)


def blocking_span(action: DeviceAction, now: datetime) -> Span | None:
    """What a new push collides with: the span, stretched over a dispatch due or under way."""
    span = occupied_span(action, now)
    if span is None or action.state.terminal:
        return span
    hi = span.hi
    if action.state is ActionState.DEFERRED and action.deferred_until is not None:
        hi = max(hi, floor_second(action.deferred_until) + SECOND)
    if span.lo <= ensure_utc(now):
        hi = max(hi, floor_second(now) + SECOND)
    return Span(span.lo, hi)


def retry_deadline(
    action: DeviceAction, actions: Iterable[DeviceAction], now: datetime
) -> datetime | None:
    """The latest a refused action may be tried again: before its window's end and before
    the next action on the device starts, so retries never reorder commands."""
    own = push_span(action.start, action.end)
    limits = [own.hi] if action.end is not None else []
    for other in actions:
        span = occupied_span(other, now)
        if other.id != action.id and span is not None and span.lo >= own.lo:
            limits.append(span.lo)
    return min(limits, default=None)


def resolve_conflicts(
    actions: Iterable[DeviceAction],
    start: datetime,
    end: datetime | None,
    on_conflict: ConflictStrategy | None,
    strategies: Sequence[ConflictStrategy] | None,
    now: datetime,
) -> ConflictResolution:
    """Place a push among the device's actions, or refuse it with the contract's 409."""
    now = ensure_utc(now)
    new = push_span(start, end)
    reach = _stretch(new, now)
    blocking = _blocking(actions, now)
    hits = [(a, s) for a, s in blocking if s.overlaps(reach)]
    if not hits:
        return ConflictResolution(Resolution.NO_CONFLICT, ensure_utc(start), _utc(end))
    for action, _ in hits:
        if action.state is ActionState.ACKNOWLEDGED:
            raise errors.ConflictInExecution(conflictingActionId=action.id, supportedStrategies=[])
    if on_conflict is ConflictStrategy.CANCEL_AND_REPLACE:
        return _replace(hits, start, end)
    queued = _queue(blocking, new, reach, windowed=end is not None)
    too_far = isinstance(queued, Span) and queued.lo > now + MAX_START_AHEAD
    if on_conflict is not ConflictStrategy.QUEUE_AFTER:
        raise errors.ActionConflict(
            conflictingActionId=hits[0][0].id,
            reason="conflicting_action",
            supportedStrategies=_working(
                strategies, queue_works=isinstance(queued, Span) and not too_far
            ),
        )
    if isinstance(queued, DeviceAction):
        if queued.state is ActionState.ACKNOWLEDGED:
            raise errors.ConflictInExecution(conflictingActionId=queued.id, supportedStrategies=[])
        raise errors.ActionConflict(
            "The conflicting action has no end, so nothing can queue after it: resend with "
            "another onConflict from details.supportedStrategies, or pick another time.",
            conflictingActionId=queued.id,
            reason="conflicting_action_not_windowed",
            supportedStrategies=_working(strategies, queue_works=False),
        )
    if too_far:
        raise errors.StartOutOfRange(
            "Queued behind the actions in the way, the push would start more than 30 days "
            "ahead: pick another time or replace them.",
            reason="queued_start_too_far_ahead",
        )
    return ConflictResolution(Resolution.QUEUE, queued.lo, None if end is None else queued.hi)


def _blocking(actions: Iterable[DeviceAction], now: datetime) -> list[tuple[DeviceAction, Span]]:
    spans = [(a, blocking_span(a, now)) for a in actions]
    found = [(a, s) for a, s in spans if s is not None]
    return sorted(found, key=lambda pair: (pair[1].lo, pair[0].id))


def _replace(
    hits: Sequence[tuple[DeviceAction, Span]], start: datetime, end: datetime | None
) -> ConflictResolution:
    lo = floor_second(start)
    cancel: list[str] = []
    cut: list[WindowCut] = []
    for action, _ in hits:
        if action.state is ActionState.COMPLETED:
            cut.append(WindowCut(action.id, max(lo, floor_second(action.start))))
        else:
            cancel.append(action.id)
    return ConflictResolution(
        Resolution.REPLACE, ensure_utc(start), _utc(end), cancel=tuple(cancel), cut=tuple(cut)
    )


def _queue(
    blocking: Sequence[tuple[DeviceAction, Span]], new: Span, reach: Span, *, windowed: bool
) -> Span | DeviceAction:
    """The first free span behind every action in the way, keeping the duration; or the
    action (without end, or in execution) that nothing can queue behind."""
    duration = new.hi - new.lo if windowed else SECOND
    candidate = reach
    while True:
        hits = [(a, s) for a, s in blocking if s.overlaps(candidate)]
        if not hits:
            return candidate
        for action, _ in hits:
            if action.end is None or action.state is ActionState.ACKNOWLEDGED:
                return action
        lo = max(s.hi for _, s in hits)
        candidate = Span(lo, lo + duration)


def _stretch(span: Span, now: datetime) -> Span:
    """A push whose start has come fires now: it collides with anything up to now."""
    if span.lo <= now:
        return Span(span.lo, max(span.hi, floor_second(now) + SECOND))
    return span


def _utc(instant: datetime | None) -> datetime | None:
    return None if instant is None else ensure_utc(instant)


def _working(strategies: Sequence[ConflictStrategy] | None, *, queue_works: bool) -> list[str]:
    return [
        s.value for s in strategies or () if s is not ConflictStrategy.QUEUE_AFTER or queue_works
    ]
