"""`plan_push`, the push's one decision, with no I/O: a device, its actions in play, the
request and the time in; the new action, what it displaces and the device's changes out."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from energyhub.domain import errors
from energyhub.domain.accounts import Environment
from energyhub.domain.actions import (
    IN_PLAY_STATES,
    Action,
    ActionState,
    ActionTrigger,
    DueKind,
    InvalidTransition,
    last_action_body,
)
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.pushes import (
    OWN_PROGRAM,
    DeviceChanges,
    PushPlan,
    PushRequest,
    end_waiting,
    plan_push,
)
from energyhub.domain.quantities import Quantity
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for

NOW = datetime(2026, 6, 1, 10, 0, 0, 500_000, tzinfo=UTC)  # 12:00:00.5 in Berlin
LEASE_UNTIL = NOW + timedelta(seconds=5)


def battery(**changes: object) -> Device:
    device = new_sandbox_device(
        profile_for(DeviceType.BATTERY, None),
        device_id="bat-1",
        account_id="acc-1",
        environment=Environment.SANDBOX,
        user_id="user-1",
        timezone="Europe/Berlin",
        now=NOW - timedelta(days=1),
    )
    return replace(device, **changes)  # type: ignore[arg-type]


def plan(
    request: PushRequest, in_play: list[Action] | None = None, device: Device | None = None
) -> PushPlan:
    return plan_push(
        device or battery(),
        in_play or [],
        request,
        NOW,
        action_id="act-new",
        lease_owner="push:token",
        lease_until=LEASE_UNTIL,
    )


def existing(
    action_id: str,
    state: ActionState,
    start: datetime,
    end: datetime | None = None,
    **changes: object,
) -> Action:
    action = Action(
        id=action_id,
        account_id="acc-1",
        environment="sandbox",
        device_id="bat-1",
        device_type=DeviceType.BATTERY,
        command="charge",
        parameters={},
        device_parameters={},
        state=state,
        start=start,
        end=end,
        on_conflict=None,
        result=None,
        error_code=None,
        error_message=None,
        deferred_until=None,
        acknowledged_at=None,
        completed_at=None,
        created_at=NOW - timedelta(hours=1),
        updated_at=NOW - timedelta(hours=1),
        due_at=start,
        due_kind=DueKind.DISPATCH,
    )
    return replace(action, **changes)  # type: ignore[arg-type]


def test_an_immediate_push_is_leased_to_its_request_and_due_now() -> None:
    request = PushRequest("charge", {"power": Quantity(2000, "W")}, simulated_failure="X")
    made = plan(request)
    action = made.action
    assert made.immediate
    assert (action.id, action.state, action.start, action.end) == (
        "act-new",
        ActionState.SCHEDULED,
        NOW,
        None,
    )
    assert (action.due_at, action.due_kind) == (NOW, DueKind.DISPATCH)
    assert (action.lease_owner, action.lease_until) == ("push:token", LEASE_UNTIL)
    assert action.parameters == {"power": {"value": 2000, "unit": "W"}}
    assert action.device_parameters == {"power": 2.0}
    assert action.simulated_failure == "X"
    assert (made.cancelled, made.cut) == ((), ())
    assert made.device == DeviceChanges(updated_at=NOW, last_action=action)


def test_a_push_with_a_start_waits_for_it_in_the_plants_time() -> None:
    made = plan(PushRequest("charge", {}, start="2026-06-01T14:00:00", end="2026-06-01T15:00:00"))
    action = made.action
    assert not made.immediate
    assert (action.start, action.end) == (
        datetime(2026, 6, 1, 12, tzinfo=UTC),
        datetime(2026, 6, 1, 13, tzinfo=UTC),
    )
    assert (action.due_at, action.lease_owner, action.lease_until) == (action.start, None, None)


def test_a_schedules_occurrence_comes_in_utc_and_keeps_its_schedule() -> None:
    start = NOW + timedelta(hours=2)
    request = PushRequest("idle", {}, start_at=start, schedule_id="sch-1")
    action = plan(request).action
    assert (action.start, action.schedule_id, action.state) == (
        start,
        "sch-1",
        ActionState.SCHEDULED,
    )


@pytest.mark.parametrize(
    ("value", "hint"),
    [("2026-02-30T10:00:00", "that month has no day 30"), ("soon", None)],
)
def test_a_wall_clock_time_that_does_not_exist_is_the_clients_typo(
    value: str, hint: str | None
) -> None:
    with pytest.raises(errors.InvalidRequest) as refused:
        plan(PushRequest("charge", {}, start=value))
    (error,) = refused.value.details["errors"]
    assert error["path"] == "body.start"
    assert (hint in error["message"]) if hint else ("month" not in error["message"])


def test_a_vpp_lock_refuses_pushes_that_start_before_it_ends() -> None:
    locked = battery(vpp_locked_until=NOW + timedelta(hours=1))
    with pytest.raises(errors.VppLocked):
        plan(PushRequest("charge", {}), device=locked)
    later = plan(PushRequest("charge", {}, start="2026-06-01T14:00:00"), device=locked)
    assert later.action.state is ActionState.SCHEDULED


def test_the_devices_own_program_gives_way_only_to_cancel_and_replace() -> None:
    own = battery(mode_command=OWN_PROGRAM)
    with pytest.raises(errors.SchedulerActive):
        plan(PushRequest("charge", {}), device=own)
    made = plan(PushRequest("charge", {}, on_conflict="cancel_and_replace"), device=own)
    assert made.action.on_conflict == "cancel_and_replace"


def test_cancel_and_replace_cancels_what_waits_and_cuts_a_running_window() -> None:
    window = existing(
        "act-window",
        ActionState.COMPLETED,
        NOW - timedelta(minutes=10),
        NOW + timedelta(minutes=50),
        due_at=NOW + timedelta(minutes=50),
        due_kind=DueKind.RESTORE,
        restore={"command": "idle"},
    )
    waiting = existing(
        "act-waiting",
        ActionState.DEFERRED,
        NOW - timedelta(minutes=5),
        deferred_until=NOW + timedelta(minutes=20),
    )
    request = PushRequest("charge", {}, on_conflict="cancel_and_replace")
    made = plan(request, [window, waiting])
    (cancelled,) = made.cancelled
    assert (cancelled.id, cancelled.state, cancelled.updated_at) == (
        "act-waiting",
        ActionState.CANCELLED,
        NOW,
    )
    assert (cancelled.due_at, cancelled.due_kind, cancelled.deferred_until) == (None, None, None)
    (cut,) = made.cut
    assert (cut.id, cut.state, cut.end, cut.restore, cut.due_at) == (
        "act-window",
        ActionState.COMPLETED,
        NOW.replace(microsecond=0),  # a span is cut at whole seconds
        None,
        None,
    )
    assert made.immediate


def test_queue_after_waits_for_the_window_in_the_way() -> None:
    end = NOW + timedelta(minutes=30)
    window = existing("act-window", ActionState.SCHEDULED, NOW + timedelta(minutes=5), end)
    request = PushRequest(
        "charge",
        {},
        start="2026-06-01T12:10:00",
        end="2026-06-01T12:20:00",
        on_conflict="queue_after",
    )
    made = plan(request, [window])
    assert not made.immediate
    assert (made.action.start, made.action.end) == (end, end + timedelta(minutes=10))
    assert (made.cancelled, made.cut) == ((), ())


def test_a_collision_without_a_strategy_is_refused() -> None:
    waiting = existing("act-waiting", ActionState.SCHEDULED, NOW + timedelta(hours=1))
    with pytest.raises(errors.ActionConflict):
        plan(PushRequest("charge", {}, start="2026-06-01T13:00:00"), [waiting])


def test_a_dispatch_under_way_counts_as_in_execution() -> None:
    leased = existing(
        "act-leased", ActionState.SCHEDULED, NOW, lease_owner="w", lease_until=LEASE_UNTIL
    )
    with pytest.raises(errors.ConflictInExecution):
        plan(PushRequest("charge", {}, on_conflict="cancel_and_replace"), [leased])


def test_an_instant_answer_sets_the_devices_mode_only_when_accepted() -> None:
    made = plan(PushRequest("charge", {}))
    later = NOW + timedelta(milliseconds=3)
    accepted = replace(made.action, state=ActionState.ACKNOWLEDGED, updated_at=later)
    answered = made.answered(accepted, {"command": "charge"})
    assert answered.action is accepted
    assert answered.device == DeviceChanges(later, accepted, accepted, {"command": "charge"})
    failed = replace(made.action, state=ActionState.FAILED, updated_at=later)
    assert made.answered(failed).device == DeviceChanges(later, failed)


def test_only_a_waiting_action_ends_so() -> None:
    waiting = existing("act-1", ActionState.SCHEDULED, NOW, lease_owner="w", lease_until=NOW)
    ended = end_waiting(waiting, ActionTrigger.CANCEL, NOW)
    assert (ended.state, ended.lease_owner, ended.lease_until) == (
        ActionState.CANCELLED,
        None,
        None,
    )
    with pytest.raises(InvalidTransition):
        end_waiting(replace(waiting, state=ActionState.ACKNOWLEDGED), ActionTrigger.REPLACED, NOW)


@pytest.mark.parametrize("state", list(ActionState))
def test_actions_in_play_are_those_not_ended_and_windows_still_running(
    state: ActionState,
) -> None:
    instant = existing("act-1", state, NOW - timedelta(hours=1))
    window = replace(instant, end=NOW + timedelta(seconds=1))
    assert instant.in_play(NOW) is (state in IN_PLAY_STATES)
    assert window.in_play(NOW) is (state in IN_PLAY_STATES or state is ActionState.COMPLETED)
    assert replace(window, end=NOW).in_play(NOW) is (state in IN_PLAY_STATES)
    assert {s for s in ActionState if not s.terminal} == IN_PLAY_STATES


def test_the_last_action_body_links_the_action() -> None:
    action = existing("act-1", ActionState.SCHEDULED, NOW)
    assert last_action_body(action) == {
        "id": "act-1",
        "command": "charge",
        "state": "scheduled",
        "createdAt": "2026-06-01T09:00:00.500Z",
        "updatedAt": "2026-06-01T09:00:00.500Z",
        "links": {"self": "/actions/act-1"},
    }
