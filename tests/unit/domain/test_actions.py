"""Action states, the transition table and the retry policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain import errors
from energyhub.domain.actions import (
    CANCELLABLE_STATES,
    DEFAULT_RETRY_POLICY,
    TERMINAL_STATES,
    TRANSITIONS,
    ActionState,
    ActionTrigger,
    InvalidTransition,
    RetryPolicy,
    action_type,
    refusal_trigger,
    transition,
)
from energyhub.domain.capabilities import DeviceType

S = ActionState
T = ActionTrigger
T0 = datetime(2026, 6, 1, 10, tzinfo=UTC)


def test_state_values_are_the_spec_enum() -> None:
    assert [s.value for s in S] == [
        "acknowledged",
        "scheduled",
        "deferred",
        "cancelled",
        "completed",
        "failed",
    ]


@pytest.mark.parametrize("state", list(S))
def test_terminal_and_cancellable_flags(state: ActionState) -> None:
    assert state.terminal is (state in {S.CANCELLED, S.COMPLETED, S.FAILED})
    assert state.cancellable is (state in {S.SCHEDULED, S.DEFERRED})
    assert not (state.terminal and state.cancellable)


@pytest.mark.parametrize(
    ("state", "trigger", "expected"),
    [
        (None, T.SCHEDULE, S.SCHEDULED),
        (None, T.DISPATCH_ACCEPTED, S.ACKNOWLEDGED),
        (None, T.DISPATCH_REFUSED, S.FAILED),
        (S.SCHEDULED, T.DISPATCH_ACCEPTED, S.ACKNOWLEDGED),
        (S.SCHEDULED, T.DISPATCH_REFUSED, S.FAILED),
        (S.SCHEDULED, T.RETRYABLE_REFUSAL, S.DEFERRED),
        (S.SCHEDULED, T.RETRIES_EXHAUSTED, S.FAILED),
        (S.SCHEDULED, T.CANCEL, S.CANCELLED),
        (S.SCHEDULED, T.REPLACED, S.CANCELLED),
        (S.DEFERRED, T.DISPATCH_ACCEPTED, S.ACKNOWLEDGED),
        (S.DEFERRED, T.DISPATCH_REFUSED, S.FAILED),
        (S.DEFERRED, T.RETRYABLE_REFUSAL, S.DEFERRED),
        (S.DEFERRED, T.RETRIES_EXHAUSTED, S.FAILED),
        (S.DEFERRED, T.CANCEL, S.CANCELLED),
        (S.DEFERRED, T.REPLACED, S.CANCELLED),
        (S.ACKNOWLEDGED, T.DEVICE_COMPLETED, S.COMPLETED),
        (S.ACKNOWLEDGED, T.DEVICE_FAILED, S.FAILED),
    ],
)
def test_allowed_transitions(
    state: ActionState | None, trigger: ActionTrigger, expected: ActionState
) -> None:
    assert transition(state, trigger) is expected


def test_the_table_is_exactly_the_listed_transitions() -> None:
    assert len(TRANSITIONS) == 17


def test_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        TRANSITIONS[(S.FAILED, T.CANCEL)] = S.CANCELLED  # type: ignore[index]


@pytest.mark.parametrize("state", sorted(TERMINAL_STATES))
@pytest.mark.parametrize("trigger", [t for t in T if t is not T.CANCEL])
def test_terminal_states_never_change(state: ActionState, trigger: ActionTrigger) -> None:
    with pytest.raises(InvalidTransition) as caught:
        transition(state, trigger)
    assert caught.value.code == "INTERNAL_ERROR"
    assert state.value in str(caught.value)


@pytest.mark.parametrize("state", [s for s in S if s not in CANCELLABLE_STATES])
def test_cancel_of_a_non_cancellable_action(state: ActionState) -> None:
    with pytest.raises(errors.ActionNotCancellable) as caught:
        transition(state, T.CANCEL)
    assert caught.value.status == 409
    assert caught.value.details == {"state": state.value}


@pytest.mark.parametrize(
    ("state", "trigger"),
    [
        (None, T.CANCEL),
        (None, T.RETRYABLE_REFUSAL),
        (None, T.DEVICE_COMPLETED),
        (S.SCHEDULED, T.SCHEDULE),
        (S.SCHEDULED, T.DEVICE_COMPLETED),
        (S.ACKNOWLEDGED, T.REPLACED),
        (S.ACKNOWLEDGED, T.DISPATCH_ACCEPTED),
        (S.DEFERRED, T.DEVICE_FAILED),
    ],
)
def test_transitions_not_in_the_table(state: ActionState | None, trigger: ActionTrigger) -> None:
    with pytest.raises(InvalidTransition):
        transition(state, trigger)


def test_immediate_push_creation_reads_well_in_errors() -> None:
    with pytest.raises(InvalidTransition, match="from creation on cancel"):
        transition(None, T.CANCEL)


@pytest.mark.parametrize(
    ("state", "retryable", "next_try", "expected"),
    [
        (None, True, T0, T.DISPATCH_REFUSED),  # an immediate push is never deferred
        (None, False, None, T.DISPATCH_REFUSED),
        (S.SCHEDULED, False, T0, T.DISPATCH_REFUSED),
        (S.SCHEDULED, True, T0, T.RETRYABLE_REFUSAL),
        (S.DEFERRED, True, T0, T.RETRYABLE_REFUSAL),
        (S.DEFERRED, True, None, T.RETRIES_EXHAUSTED),
    ],
)
def test_refusal_trigger(
    state: ActionState | None,
    retryable: bool,
    next_try: datetime | None,
    expected: ActionTrigger,
) -> None:
    trigger = refusal_trigger(state, retryable, next_try)
    assert trigger is expected
    transition(state, trigger)


def test_action_type() -> None:
    assert action_type(DeviceType.BATTERY) == "battery:set_operation_mode"
    assert action_type(DeviceType.EV_CHARGER) == "ev_charger:set_operation_mode"
    with pytest.raises(ValueError, match="vehicles"):
        action_type(DeviceType.VEHICLE)


def test_default_policy_is_five_tries_over_about_thirty_minutes() -> None:
    policy = DEFAULT_RETRY_POLICY
    assert policy.max_tries == 5
    assert policy.horizon == timedelta(minutes=30)
    at, tries, schedule = T0, 1, []
    while (following := policy.next_try_at(tries, at)) is not None:
        schedule.append(following - T0)
        at, tries = following, tries + 1
    assert schedule == [timedelta(minutes=m) for m in (1, 5, 15, 30)]
    assert tries == 5


def test_retry_waits_from_the_refusal() -> None:
    late = T0 + timedelta(minutes=3)
    assert DEFAULT_RETRY_POLICY.next_try_at(1, late) == late + timedelta(minutes=1)


def test_no_retry_at_or_after_the_deadline() -> None:
    policy = RetryPolicy.from_seconds([60, 60])
    assert policy.next_try_at(1, T0, deadline=T0 + timedelta(seconds=61)) == T0 + timedelta(
        seconds=60
    )
    assert policy.next_try_at(1, T0, deadline=T0 + timedelta(seconds=60)) is None


def test_policy_from_seconds() -> None:
    policy = RetryPolicy.from_seconds([5, 10])
    assert policy.max_tries == 3
    assert policy.next_try_at(2, T0) == T0 + timedelta(seconds=10)
    assert policy.next_try_at(3, T0) is None


def test_no_tries_made_is_a_caller_bug() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        DEFAULT_RETRY_POLICY.next_try_at(0, T0)


def test_policy_without_retries_fails_at_the_first_refusal() -> None:
    policy = RetryPolicy(())
    assert policy.max_tries == 1
    next_try = policy.next_try_at(1, T0)
    assert next_try is None
    assert transition(S.SCHEDULED, refusal_trigger(S.SCHEDULED, True, next_try)) is S.FAILED
