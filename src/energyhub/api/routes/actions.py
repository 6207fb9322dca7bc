"""Pushes, settings writes and actions: spec 4.3-4.6; CONTRACT 4 and 5."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.representations import action_body, pagination
from energyhub.api.routes.devices import DeviceId, Limit, Offset
from energyhub.api.routes.docs import errors
from energyhub.api.schemas import (
    ActionRecord,
    Envelope,
    Page,
    PushBody,
    SettingIn,
    SettingsData,
)
from energyhub.domain.actions import Action, ActionState
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.quantities import Quantity
from energyhub.services.actions import PushRequest

router = APIRouter()

ActionId = Annotated[str, Path(min_length=1, max_length=64)]
PUSH_ERRORS = errors(403, 409, 422, 423, 502)
ActionStateName = Literal[
    "acknowledged", "scheduled", "deferred", "cancelled", "completed", "failed"
]


async def _push(
    services: Services,
    context: Context,
    caller: Caller,
    kind: DeviceType,
    device_id: str,
    body: PushBody,
) -> Response:
    action = await services.actions.push(caller, kind, device_id, push_request(body))
    return success_response(
        action_body(action), context, caller.environment.value, services.clock, push_status(action)
    )


def push_request(body: PushBody) -> PushRequest:
    """The push as the service takes it (also used by the gateway's fast path)."""
    return PushRequest(
        command=body.action.command,
        parameters={k: Quantity(q.value, q.unit) for k, q in body.action.parameters.items()},
        start=body.start,
        end=body.end,
        on_conflict=body.onConflict,
        simulated_failure=None if body.sandbox is None else body.sandbox.errorCode,
    )


def push_status(action: Action) -> int:
    """202 for a push that waits for its start, 200 otherwise."""
    return 202 if action.state is ActionState.SCHEDULED else 200


@router.post(
    "/battery/{deviceId}",
    response_model=Envelope[ActionRecord],
    responses={202: {"model": Envelope[ActionRecord]}, **PUSH_ERRORS},
    tags=["batteries"],
    operation_id="pushBatteryCommand",
    summary="Send a command to a battery",
)
async def push_battery(
    body: PushBody, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Send a command now (200, `acknowledged`), at `start` (202, `scheduled`) or for a window
    `start`-`end`; times are plant-local. Conflicts follow `onConflict`."""
    return await _push(services, context, caller, DeviceType.BATTERY, deviceId, body)


@router.post(
    "/ev-charger/{deviceId}",
    response_model=Envelope[ActionRecord],
    responses={202: {"model": Envelope[ActionRecord]}, **PUSH_ERRORS},
    tags=["ev-chargers"],
    operation_id="pushEvChargerCommand",
    summary="Send a command to an EV charger",
)
async def push_ev_charger(
    body: PushBody, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Send a command to a charger; the same rules as for batteries."""
    return await _push(services, context, caller, DeviceType.EV_CHARGER, deviceId, body)


async def _settings(
    services: Services,
    context: Context,
    caller: Caller,
    kind: DeviceType,
    device_id: str,
    body: dict[str, SettingIn],
) -> Response:
    values: dict[str, Quantity | bool] = {
        key: item.value if isinstance(item.value, bool) else Quantity(item.value, item.unit or "")
        for key, item in body.items()
    }
    device = await services.actions.write_settings(caller, kind, device_id, values)
    data = {"settings": device.capabilities.settings_json(device.settings)}
    return success_response(data, context, caller.environment.value, services.clock)


@router.post(
    "/battery/{deviceId}/settings",
    response_model=Envelope[SettingsData],
    responses=errors(422, 502),
    tags=["batteries"],
    operation_id="writeBatterySettings",
    summary="Write a battery's settings",
)
async def battery_settings(
    body: dict[str, SettingIn],
    services: Services,
    context: Context,
    caller: Caller,
    deviceId: DeviceId,
) -> Response:
    """Write a sparse map of settings, all or nothing; answers the whole map after it."""
    return await _settings(services, context, caller, DeviceType.BATTERY, deviceId, body)


@router.post(
    "/ev-charger/{deviceId}/settings",
    response_model=Envelope[SettingsData],
    responses=errors(422, 502),
    tags=["ev-chargers"],
    operation_id="writeEvChargerSettings",
    summary="Write an EV charger's settings",
)
async def ev_charger_settings(
    body: dict[str, SettingIn],
    services: Services,
    context: Context,
    caller: Caller,
    deviceId: DeviceId,
) -> Response:
    """Write a sparse map of charger settings, all or nothing."""
    return await _settings(services, context, caller, DeviceType.EV_CHARGER, deviceId, body)


@router.get(
    "/actions/{actionId}",
    response_model=Envelope[ActionRecord],
    tags=["actions"],
    operation_id="getAction",
    summary="Read an action",
)
async def get_action(
    services: Services, context: Context, caller: Caller, actionId: ActionId
) -> Response:
    """One action, for polling its state."""
    action = await services.actions.get(caller, actionId)
    return success_response(action_body(action), context, caller.environment.value, services.clock)


@router.get(
    "/actions",
    response_model=Envelope[Page[ActionRecord]],
    tags=["actions"],
    operation_id="listActions",
    summary="List actions",
)
async def list_actions(
    services: Services,
    context: Context,
    caller: Caller,
    device_id: Annotated[str | None, Query(alias="deviceId", max_length=64)] = None,
    state: ActionStateName | None = None,
    offset: Offset = 0,
    limit: Limit = 10,
) -> Response:
    """Actions, newest first, optionally of one device or in one state."""
    found, total = await services.actions.list(caller, device_id, state, offset, limit)
    data = {
        "items": [action_body(a) for a in found],
        "pagination": pagination(offset, limit, total),
    }
    return success_response(data, context, caller.environment.value, services.clock)


async def _cancel(
    services: Services, context: Context, caller: Caller, action_id: str, kind: DeviceType | None
) -> Response:
    action = await services.actions.cancel(caller, action_id, kind)
    return success_response(action_body(action), context, caller.environment.value, services.clock)


@router.post(
    "/actions/{actionId}/cancel",
    response_model=Envelope[ActionRecord],
    responses=errors(409),
    tags=["actions"],
    operation_id="cancelAction",
    summary="Cancel an action",
)
async def cancel_action(
    services: Services, context: Context, caller: Caller, actionId: ActionId
) -> Response:
    """Cancel a scheduled or deferred action (409 ACTION_NOT_CANCELLABLE otherwise)."""
    return await _cancel(services, context, caller, actionId, None)


@router.post(
    "/battery/actions/{actionId}/cancel",
    response_model=Envelope[ActionRecord],
    responses=errors(409),
    tags=["batteries"],
    operation_id="cancelBatteryAction",
    summary="Cancel a battery's action",
)
async def cancel_battery_action(
    services: Services, context: Context, caller: Caller, actionId: ActionId
) -> Response:
    """Cancel a battery's scheduled or deferred action."""
    return await _cancel(services, context, caller, actionId, DeviceType.BATTERY)


@router.post(
    "/ev-charger/actions/{actionId}/cancel",
    response_model=Envelope[ActionRecord],
    responses=errors(409),
    tags=["ev-chargers"],
    operation_id="cancelEvChargerAction",
    summary="Cancel an EV charger's action",
)
async def cancel_ev_charger_action(
    services: Services, context: Context, caller: Caller, actionId: ActionId
) -> Response:
    """Cancel a charger's scheduled or deferred action."""
    return await _cancel(services, context, caller, actionId, DeviceType.EV_CHARGER)
