"""Occupancy spans and collision rules (CONTRACT 4)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain import errors
from energyhub.domain.actions import ActionState
from energyhub.domain.capabilities import BOTH_STRATEGIES, ConflictStrategy
from energyhub.domain.conflicts import (
    ConflictResolution,
    DeviceAction,
    Resolution,
    Span,
    WindowCut,
    blocking_span,
    occupied_span,
    push_span,
    resolve_conflicts,
    retry_deadline,
)

S = ActionState
CANCEL = ConflictStrategy.CANCEL_AND_REPLACE
QUEUE = ConflictStrategy.QUEUE_AFTER
NOW = datetime(2026, 6, 1, 10, 0, 0, 400_000, tzinfo=UTC)


def at(minutes: float) -> datetime:
    """Whole-second instants relative to NOW's second."""
    return NOW.replace(microsecond=0) + timedelta(minutes=minutes)


def scheduled(action_id: str, start: float, end: float | None = None) -> DeviceAction:
    return DeviceAction(action_id, S.SCHEDULED, at(start), None if end is None else at(end))


def resolve(
    actions: Sequence[DeviceAction],
    start: datetime,
    end: datetime | None = None,
    on_conflict: ConflictStrategy | None = None,
    strategies: Sequence[ConflictStrategy] | None = BOTH_STRATEGIES,
) -> ConflictResolution:
    return resolve_conflicts(actions, start, end, on_conflict, strategies, NOW)


# --- spans ---------------------------------------------------------------------------------
def test_a_window_is_half_open_and_an_instant_is_its_second() -> None:
    assert push_span(at(10), at(20)) == Span(at(10), at(20))
    assert push_span(NOW, None) == Span(at(0), at(0) + timedelta(seconds=1))


@pytest.mark.parametrize("state", [S.CANCELLED, S.FAILED])
def test_cancelled_and_failed_actions_occupy_nothing(state: ActionState) -> None:
    assert occupied_span(DeviceAction("a", state, at(10), at(20)), NOW) is None


def test_completed_window_occupies_until_its_end() -> None:
    running = DeviceAction("w", S.COMPLETED, at(-10), at(10))
    assert occupied_span(running, NOW) == Span(at(-10), at(10))
    assert occupied_span(running, at(10)) is None


def test_completed_action_without_end_occupies_nothing() -> None:
    assert occupied_span(DeviceAction("a", S.COMPLETED, at(0)), NOW) is None


def test_future_scheduled_action_blocks_only_its_span() -> None:
    action = scheduled("a", 5)
    assert blocking_span(action, NOW) == occupied_span(action, NOW)


def test_in_flight_and_due_actions_block_up_to_now() -> None:
    second = timedelta(seconds=1)
    for state in (S.ACKNOWLEDGED, S.SCHEDULED, S.DEFERRED):
        action = DeviceAction("a", state, at(-2))
        assert occupied_span(action, NOW) == Span(at(-2), at(-2) + second)
        assert blocking_span(action, NOW) == Span(at(-2), at(0) + second)


def test_deferred_action_blocks_up_to_its_next_try() -> None:
    action = DeviceAction("a", S.DEFERRED, at(-1), deferred_until=at(4))
    assert blocking_span(action, NOW) == Span(at(-1), at(4) + timedelta(seconds=1))


# --- no conflict ---------------------------------------------------------------------------
def test_empty_device() -> None:
    assert resolve([], NOW) == ConflictResolution(Resolution.NO_CONFLICT, NOW, None)


@pytest.mark.parametrize(
    ("existing", "start", "end"),
    [
        (scheduled("a", 10, 20), at(20), None),  # an instant at a window's end
        (scheduled("a", 10, 20), at(20), at(30)),  # back-to-back windows
        (scheduled("a", 10, 20), at(0), at(10)),
        (scheduled("a", 10), at(10) + timedelta(seconds=1), None),  # the next second
        (DeviceAction("a", S.COMPLETED, at(-10), at(0)), NOW, None),  # a window just ended
        (DeviceAction("a", S.FAILED, at(0)), NOW, None),
    ],
)
def test_spans_that_do_not_overlap(
    existing: DeviceAction, start: datetime, end: datetime | None
) -> None:
    assert resolve([existing], start, end, CANCEL).kind is Resolution.NO_CONFLICT


# --- collisions without onConflict --------------------------------------------------------
@pytest.mark.parametrize(
    ("existing", "start", "end"),
    [
        (scheduled("a", 10), at(10) + timedelta(milliseconds=999), None),  # same second
        (scheduled("a", 10, 20), at(10), None),
        (scheduled("a", 10, 20), at(19), None),
        (scheduled("a", 10, 20), at(5), at(11)),
        (scheduled("a", 10, 20), at(5), at(30)),
        (scheduled("a", 10), at(5), at(11)),  # an instant inside the new window
        (DeviceAction("a", S.COMPLETED, at(-10), at(10)), NOW, None),  # a running window
    ],
)
def test_overlaps_are_conflicts(
    existing: DeviceAction, start: datetime, end: datetime | None
) -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([existing], start, end)
    assert caught.value.status == 409
    assert caught.value.details["conflictingActionId"] == "a"
    assert caught.value.details["reason"] == "conflicting_action"


def test_supported_strategies_behind_a_window() -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", 10, 20)], at(15))
    assert caught.value.details == {
        "conflictingActionId": "a",
        "reason": "conflicting_action",
        "supportedStrategies": ["cancel_and_replace", "queue_after"],
    }


def test_no_queue_after_offered_behind_an_action_without_end() -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", 10)], at(10))
    assert caught.value.details["supportedStrategies"] == ["cancel_and_replace"]


def test_only_the_device_strategies_are_offered() -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", 10, 20)], at(15), strategies=(QUEUE,))
    assert caught.value.details["supportedStrategies"] == ["queue_after"]
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", 10, 20)], at(15), strategies=None)
    assert caught.value.details["supportedStrategies"] == []


def test_the_earliest_conflicting_action_is_named() -> None:
    actions = [scheduled("late", 20, 30), scheduled("early", 5, 15)]
    with pytest.raises(errors.ActionConflict) as caught:
        resolve(actions, at(0), at(25))
    assert caught.value.details["conflictingActionId"] == "early"


def test_an_immediate_push_collides_with_a_due_scheduled_action() -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", -0.5)], NOW)
    assert caught.value.details["conflictingActionId"] == "a"


def test_a_start_in_the_past_fires_now_and_collides_like_an_immediate_push() -> None:
    with pytest.raises(errors.ActionConflict):
        resolve([scheduled("a", -0.5)], at(-0.9))


def test_a_deferred_action_blocks_until_its_next_try() -> None:
    deferred = DeviceAction("d", S.DEFERRED, at(-1), deferred_until=at(4))
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([deferred], at(3))
    assert caught.value.details["supportedStrategies"] == ["cancel_and_replace"]
    assert resolve([deferred], at(5)).kind is Resolution.NO_CONFLICT


# --- in execution --------------------------------------------------------------------------
@pytest.mark.parametrize("on_conflict", [None, CANCEL, QUEUE])
def test_acknowledged_action_is_in_execution(on_conflict: ConflictStrategy | None) -> None:
    in_flight = DeviceAction("a", S.ACKNOWLEDGED, at(-0.5))
    with pytest.raises(errors.ConflictInExecution) as caught:
        resolve([in_flight], NOW, on_conflict=on_conflict)
    assert caught.value.status == 409
    assert caught.value.details == {"conflictingActionId": "a", "supportedStrategies": []}


def test_in_execution_wins_over_other_conflicts() -> None:
    actions = [scheduled("s", 1, 5), DeviceAction("ack", S.ACKNOWLEDGED, at(-1), at(1))]
    with pytest.raises(errors.ConflictInExecution) as caught:
        resolve(actions, NOW, at(3), CANCEL)
    assert caught.value.details["conflictingActionId"] == "ack"


def test_acknowledged_action_does_not_block_a_later_push() -> None:
    in_flight = DeviceAction("a", S.ACKNOWLEDGED, at(-0.5))
    assert resolve([in_flight], at(5)).kind is Resolution.NO_CONFLICT


# --- cancel_and_replace --------------------------------------------------------------------
def test_cancel_and_replace_cancels_scheduled_and_deferred_actions() -> None:
    actions = [
        scheduled("s", 10),
        DeviceAction("d", S.DEFERRED, at(-1), deferred_until=at(2)),
        scheduled("untouched", 40, 50),
    ]
    result = resolve(actions, at(0), at(30), CANCEL)
    assert result == ConflictResolution(Resolution.REPLACE, at(0), at(30), cancel=("d", "s"))


def test_cancel_and_replace_ends_a_running_window_early() -> None:
    running = DeviceAction("w", S.COMPLETED, at(-10), at(10))
    result = resolve([running], NOW, None, CANCEL)
    assert result.kind is Resolution.REPLACE
    assert result.cancel == ()
    assert result.cut == (WindowCut("w", at(0)),)
    assert result.start == NOW


def test_cancel_and_replace_cuts_a_running_window_at_a_later_start() -> None:
    running = DeviceAction("w", S.COMPLETED, at(-10), at(10))
    result = resolve([running], at(5), None, CANCEL)
    assert result.cut == (WindowCut("w", at(5)),)


# --- queue_after ---------------------------------------------------------------------------
def test_queue_after_moves_a_window_keeping_its_duration() -> None:
    result = resolve([scheduled("a", 10, 20)], at(15), at(45), QUEUE)
    assert result == ConflictResolution(Resolution.QUEUE, at(20), at(50))


def test_queue_after_moves_an_instant_to_the_end() -> None:
    result = resolve([scheduled("a", 10, 20)], at(15), None, QUEUE)
    assert result == ConflictResolution(Resolution.QUEUE, at(20), None)


def test_queue_after_a_running_window_turns_an_immediate_push_into_a_scheduled_one() -> None:
    running = DeviceAction("w", S.COMPLETED, at(-10), at(10))
    assert resolve([running], NOW, None, QUEUE) == ConflictResolution(
        Resolution.QUEUE, at(10), None
    )


def test_queue_after_chains_behind_actions_waiting_in_turn() -> None:
    actions = [scheduled("a", 10, 20), scheduled("b", 25, 30), scheduled("c", 40, 50)]
    # 10 minutes do not fit in the 5-minute gap at 20; they fit at 30.
    result = resolve(actions, at(12), at(22), QUEUE)
    assert (result.start, result.end) == (at(30), at(40))
    # 15 minutes do not fit at 30 either: behind c.
    result = resolve(actions, at(12), at(27), QUEUE)
    assert (result.start, result.end) == (at(50), at(65))
    # an instant fits in the first gap.
    assert resolve(actions, at(12), None, QUEUE).start == at(20)


def test_queue_after_an_action_without_end_is_refused() -> None:
    with pytest.raises(errors.ActionConflict) as caught:
        resolve([scheduled("a", 10)], at(10), None, QUEUE)
    assert caught.value.details == {
        "conflictingActionId": "a",
        "reason": "conflicting_action_not_windowed",
        "supportedStrategies": ["cancel_and_replace"],
    }


def test_queue_after_names_the_open_ended_action_in_the_chain() -> None:
    actions = [scheduled("a", 10, 20), scheduled("open", 25)]
    with pytest.raises(errors.ActionConflict) as caught:
        resolve(actions, at(12), at(22), QUEUE)
    assert caught.value.details["reason"] == "conflicting_action_not_windowed"
    assert caught.value.details["conflictingActionId"] == "open"


def test_no_queue_after_offered_when_the_chain_hits_an_action_without_end() -> None:
    actions = [scheduled("a", 10, 20), scheduled("open", 25)]
    with pytest.raises(errors.ActionConflict) as caught:
        resolve(actions, at(12), at(22))
    assert caught.value.details["conflictingActionId"] == "a"
    assert caught.value.details["supportedStrategies"] == ["cancel_and_replace"]


def test_queue_after_past_30_days_is_refused() -> None:
    long_window = scheduled("a", 10, 60 * 24 * 31)
    with pytest.raises(errors.StartOutOfRange) as caught:
        resolve([long_window], at(15), None, QUEUE)
    assert caught.value.details == {"reason": "queued_start_too_far_ahead"}
    with pytest.raises(errors.ActionConflict) as conflict:
        resolve([long_window], at(15))
    assert conflict.value.details["supportedStrategies"] == ["cancel_and_replace"]


# --- retry deadline ------------------------------------------------------------------------
def test_retry_deadline_is_the_next_action_start() -> None:
    deferred = DeviceAction("d", S.DEFERRED, at(-1), deferred_until=at(1))
    others = [deferred, scheduled("next", 7), scheduled("later", 9, 12)]
    assert retry_deadline(deferred, others, NOW) == at(7)


def test_retry_deadline_of_a_window_is_its_end() -> None:
    deferred = DeviceAction("d", S.DEFERRED, at(-1), at(5))
    assert retry_deadline(deferred, [deferred, scheduled("next", 7)], NOW) == at(5)


def test_retry_deadline_of_a_lone_open_action_is_none() -> None:
    deferred = DeviceAction("d", S.DEFERRED, at(-1))
    finished = DeviceAction("old", S.FAILED, at(3))
    assert retry_deadline(deferred, [deferred, finished], NOW) is None
