"""What a device's answer changes (`domain/dispatch.py`): pure steps, one test per branch."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from energyhub.domain import dispatch
from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action, ActionState, DueKind, last_action_body
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import Device
from energyhub.domain.dispatch import ActionStep, DeviceChange, ModeSet
from energyhub.domain.readings import CommandReceipt, DeviceReading, DriverError
from energyhub.domain.sandbox_profiles import new_sandbox_device, profile_for
from energyhub.domain.webhooks import EventType

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
LEASED: dict[str, Any] = {"lease_owner": "worker", "lease_until": NOW + timedelta(seconds=5)}
OFFLINE = DriverError("DEVICE_OFFLINE", "The device is offline.", retryable=True)
REFUSED = DriverError("COMMAND_REJECTED", "The device refused.", retryable=False)


def device(**changes: Any) -> Device:
    made = new_sandbox_device(
        profile_for(DeviceType.BATTERY, None),
        device_id="dev_1",
        account_id="acc_1",
        environment=Environment.SANDBOX,
        user_id="user_1",
        timezone="Europe/Berlin",
        now=NOW - timedelta(days=1),
    )
    return replace(made, **{"sim": None, "state": {}, **changes})


def action(**changes: Any) -> Action:
    made = Action(
        id="act_1",
        account_id="acc_1",
        environment="sandbox",
        device_id="dev_1",
        device_type=DeviceType.BATTERY,
        command="charge",
        parameters={"power": {"value": 2, "unit": "kW"}},
        device_parameters={"power": 2.0},
        state=ActionState.SCHEDULED,
        start=NOW,
        end=None,
        on_conflict=None,
        result=None,
        error_code=None,
        error_message=None,
        deferred_until=None,
        acknowledged_at=None,
        completed_at=None,
        created_at=NOW - timedelta(hours=1),
        updated_at=NOW - timedelta(hours=1),
        due_at=NOW,
        due_kind=DueKind.DISPATCH,
        **LEASED,
    )
    return replace(made, **changes)


def assert_lease_ended(step: ActionStep) -> None:
    assert step.action.lease_owner is None
    assert step.action.lease_until is None
    assert {"lease_owner", "lease_until"} <= step.changed


# --- the record ---------------------------------------------------------------------------------
def test_a_step_names_only_fields_of_an_action() -> None:
    with pytest.raises(ValueError, match="not fields of an action: \\['colour'\\]"):
        ActionStep(action(), frozenset({"state", "colour"}))


def test_a_step_stores_its_changed_fields_with_their_new_values() -> None:
    step = ActionStep(action(tries=3), frozenset({"tries", "state"}))
    assert step.stored() == {"state": ActionState.SCHEDULED, "tries": 3}


# --- what the conflict rules and a window see ----------------------------------------------------
def test_a_dispatch_under_way_counts_as_in_execution() -> None:
    assert dispatch.as_device_action(action(), NOW).state is ActionState.ACKNOWLEDGED
    idle = action(lease_owner=None, lease_until=None)
    seen = dispatch.as_device_action(idle, NOW)
    assert (seen.id, seen.state, seen.start, seen.end) == (
        "act_1",
        ActionState.SCHEDULED,
        NOW,
        None,
    )


@pytest.mark.parametrize(
    ("changes", "restored"),
    [
        ({"sim": {"command": "discharge", "parameters": {"power": 1.0}}, "mode_command": "x"},
         {"command": "discharge", "parameters": {"power": 1.0}}),
        ({"sim": {"command": "idle"}}, {"command": "idle", "parameters": {}}),
        ({"sim": {}, "mode_command": "charge"}, {"command": "charge", "parameters": {}}),
        ({"state": {"currentMode": "self_consumption"}},
         {"command": "self_consumption", "parameters": {}}),
        ({"state": {"activeControlMode": "auto.schedule"}},
         {"command": "auto.schedule", "parameters": {}}),
        ({}, {}),
    ],
)  # fmt: skip
def test_a_window_restores_the_mode_in_effect(
    changes: dict[str, Any], restored: dict[str, Any]
) -> None:
    assert dispatch.mode_in_effect(device(**changes)) == restored


def test_a_superseded_dispatch_fails_as_a_timeout() -> None:
    refusal = dispatch.superseded_refusal()
    assert (refusal.code, refusal.retryable) == ("DEVICE_TIMEOUT", True)
    assert "newer action" in refusal.message


# --- accepted ----------------------------------------------------------------------------------
def test_an_accepted_command_acknowledges_the_action_and_sets_the_mode() -> None:
    receipt = CommandReceipt({"applied": True}, completes_after=30, driver_state={"k": 1})
    step = dispatch.accepted(action(tries=1), device(), receipt, NOW)

    done = step.action
    assert done.state is ActionState.ACKNOWLEDGED
    assert (done.acknowledged_at, done.updated_at, done.tries) == (NOW, NOW, 2)
    assert done.result == {"success": True, "applied": True}
    assert (done.due_kind, done.due_at) == (DueKind.COMPLETE, NOW + timedelta(seconds=30))
    assert done.restore is None
    assert_lease_ended(step)
    assert step.device == DeviceChange(NOW, ModeSet("charge", "act_1"), {"k": 1})
    assert step.last_action == last_action_body(done)
    assert step.event is None


def test_an_accepted_window_keeps_the_mode_it_replaces() -> None:
    window = action(end=NOW + timedelta(hours=1), deferred_until=NOW)
    step = dispatch.accepted(window, device(mode_command="idle"), CommandReceipt({}), NOW)
    assert step.action.restore == {"command": "idle", "parameters": {}}
    assert step.action.deferred_until is None
    assert step.action.due_at == NOW
    assert step.device is not None
    assert step.device.driver_state is None


# --- refused -------------------------------------------------------------------------------------
def test_a_retryable_refusal_defers_the_action_to_its_next_try() -> None:
    next_try = NOW + timedelta(minutes=1)
    step = dispatch.refused(action(), OFFLINE, NOW, next_try, immediate=False)

    done = step.action
    assert done.state is ActionState.DEFERRED
    assert (done.deferred_until, done.due_at, done.due_kind) == (
        next_try,
        next_try,
        DueKind.DISPATCH,
    )
    assert (done.tries, done.updated_at, done.error_code) == (1, NOW, None)
    assert_lease_ended(step)
    assert step.device is None
    assert step.last_action == last_action_body(done)
    assert step.event is None


@pytest.mark.parametrize(
    ("failure", "next_try", "immediate"),
    [
        (REFUSED, NOW + timedelta(minutes=1), False),  # permanent
        (OFFLINE, None, False),  # retries used up
        (OFFLINE, NOW + timedelta(minutes=1), True),  # an immediate push is never deferred
    ],
)
def test_other_refusals_fail_the_action_with_push_failed(
    failure: DriverError, next_try: datetime | None, immediate: bool
) -> None:
    waiting = action(deferred_until=NOW, state=ActionState.DEFERRED)
    step = dispatch.refused(waiting, failure, NOW, next_try, immediate=immediate)

    done = step.action
    assert done.state is ActionState.FAILED
    assert (done.due_at, done.due_kind, done.deferred_until) == (None, None, None)
    assert (done.error_code, done.error_message) == (failure.code, failure.message)
    assert done.result == {"success": False, "errorCode": failure.code}
    assert_lease_ended(step)
    assert step.event is not None
    event, payload = step.event
    assert event is EventType.PUSH_FAILED
    assert payload["errorCode"] == failure.code


# --- completed -----------------------------------------------------------------------------------
def test_a_completion_ends_the_action_and_stores_the_reading() -> None:
    reading = DeviceReading({"level": 50}, available=True)
    running = action(state=ActionState.ACKNOWLEDGED, due_kind=DueKind.COMPLETE)
    step = dispatch.completed(running, reading, NOW)

    done = step.action
    assert done.state is ActionState.COMPLETED
    assert (done.completed_at, done.updated_at, done.due_at, done.due_kind) == (
        NOW,
        NOW,
        None,
        None,
    )
    assert_lease_ended(step)
    assert step.device == DeviceChange(NOW, reading=reading)
    assert step.last_action == last_action_body(done)
    assert step.event is not None
    assert step.event[0] is EventType.PUSH_COMPLETED


def test_a_completed_window_waits_for_its_end() -> None:
    end = NOW + timedelta(hours=2)
    running = action(state=ActionState.ACKNOWLEDGED, end=end)
    step = dispatch.completed(running, DeviceReading({}), NOW)
    assert (step.action.due_kind, step.action.due_at) == (DueKind.RESTORE, end)


# --- a window's end ------------------------------------------------------------------------------
WINDOW = {"state": ActionState.COMPLETED, "end": NOW, "due_kind": DueKind.RESTORE}
PREVIOUS = {"command": "discharge", "parameters": {"power": 1.5}}


def test_a_window_restores_what_it_replaced_while_it_holds_the_mode() -> None:
    window = action(**WINDOW, restore=PREVIOUS)
    request = dispatch.restore_request(window, device(mode_action_id="act_1"))
    assert request is not None
    assert (request.command, request.parameters) == ("discharge", {"power": 1.5})


@pytest.mark.parametrize(
    ("restore", "holder"), [(PREVIOUS, "act_2"), (None, "act_1"), ({}, "act_1")]
)
def test_nothing_is_restored_after_a_later_command_or_without_a_mode(
    restore: dict[str, Any] | None, holder: str
) -> None:
    window = action(**WINDOW, restore=restore)
    assert dispatch.restore_request(window, device(mode_action_id=holder)) is None


def test_a_window_with_nothing_to_restore_is_done() -> None:
    step = dispatch.restore_ended(action(**WINDOW), NOW)
    assert step.changed == {"due_kind", "due_at", "updated_at", "lease_owner", "lease_until"}
    assert (step.action.due_at, step.action.due_kind, step.action.updated_at) == (None, None, NOW)
    assert (step.device, step.last_action, step.event) == (None, None, None)


def test_a_restored_mode_belongs_to_no_action() -> None:
    window = action(**WINDOW, restore=PREVIOUS, result={"success": True})
    receipt = CommandReceipt({}, driver_state={"command": "discharge"})
    step = dispatch.restored(window, receipt, NOW)

    assert step.action.result == {"success": True, "restoredAt": "2026-11-25T12:00:00.000Z"}
    assert step.action.state is ActionState.COMPLETED
    assert (step.action.due_at, step.action.due_kind) == (None, None)
    assert_lease_ended(step)
    assert step.device == DeviceChange(NOW, ModeSet("discharge", None), {"command": "discharge"})
    assert (step.last_action, step.event) == (None, None)


def test_a_refused_restore_is_tried_again_later() -> None:
    window = action(**WINDOW, restore={**PREVIOUS, "attempts": 1})
    step = dispatch.restore_refused(window, OFFLINE, NOW)

    assert step.action.restore == {**PREVIOUS, "attempts": 2}
    assert step.action.due_at == NOW + dispatch.RESTORE_RETRY
    assert step.action.due_kind is DueKind.RESTORE
    assert "updated_at" not in step.changed
    assert_lease_ended(step)
    assert (step.device, step.last_action, step.event) == (None, None, None)


@pytest.mark.parametrize(
    ("failure", "attempts"), [(REFUSED, 0), (OFFLINE, dispatch.RESTORE_TRIES - 1)]
)
def test_a_restore_is_given_up_when_refused_for_good_or_too_often(
    failure: DriverError, attempts: int
) -> None:
    window = action(**WINDOW, restore={**PREVIOUS, "attempts": attempts})
    step = dispatch.restore_refused(window, failure, NOW)
    assert step == dispatch.restore_ended(window, NOW)
