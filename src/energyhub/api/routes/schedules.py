"""Recurring schedules: spec 4.7; CONTRACT 7 (beyond the spec: implemented).

`ENERGYHUB_SCHEDULES=off` swaps in routes of the same paths that answer the spec's 501
`NOT_IMPLEMENTED` to everything, before a body is even read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import SkipValidation
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.routes.devices import DeviceId
from energyhub.api.routes.docs import errors
from energyhub.api.schedule_schemas import ScheduleBody, ScheduleRecord
from energyhub.api.schemas import Envelope
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.errors import NotImplementedYet

router = APIRouter()
disabled_router = APIRouter()

# Documented by the model, parsed by the domain (`parse_schedule`), which words every error
# as the contract's 400 with `details.errors`: the route receives the decoded JSON as is.
ScheduleJson = Annotated[ScheduleBody, SkipValidation]
TAGS = {DeviceType.BATTERY: "batteries", DeviceType.EV_CHARGER: "ev-chargers"}
PUT_ERRORS = errors(422, 501)


def router_for(enabled: bool) -> APIRouter:
    return router if enabled else disabled_router


async def _put(
    services: Services,
    context: Context,
    caller: Caller,
    kind: DeviceType,
    device_id: str,
    body: object,
) -> Response:
    record = await services.schedules.put(caller, kind, device_id, body)
    return success_response(record, context, caller.environment.value, services.clock)


async def _get(
    services: Services, context: Context, caller: Caller, kind: DeviceType, device_id: str
) -> Response:
    record = await services.schedules.get(caller, kind, device_id)
    return success_response(record, context, caller.environment.value, services.clock)


async def _delete(
    services: Services, context: Context, caller: Caller, kind: DeviceType, device_id: str
) -> Response:
    record = await services.schedules.delete(caller, kind, device_id)
    return success_response(record, context, caller.environment.value, services.clock)


@router.put(
    "/battery/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=PUT_ERRORS,
    tags=["batteries"],
    operation_id="setBatterySchedule",
    summary="Set a battery's recurring schedule",
)
async def put_battery_schedule(
    body: ScheduleJson, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Set the battery's recurring schedule, replacing any (its waiting actions are
    cancelled). Occurrences become actions a day ahead, visible in `GET /actions`; one that
    cannot be placed is listed in `skipped`."""
    return await _put(services, context, caller, DeviceType.BATTERY, deviceId, body)


@router.get(
    "/battery/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=errors(501),
    tags=["batteries"],
    operation_id="getBatterySchedule",
    summary="Read a battery's recurring schedule",
)
async def get_battery_schedule(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """The battery's schedule; 404 SCHEDULE_NOT_FOUND when none is set."""
    return await _get(services, context, caller, DeviceType.BATTERY, deviceId)


@router.delete(
    "/battery/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=errors(501),
    tags=["batteries"],
    operation_id="deleteBatterySchedule",
    summary="Clear a battery's recurring schedule",
)
async def delete_battery_schedule(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Clear the battery's schedule: its waiting actions are cancelled; answers the record
    in state `deleted`."""
    return await _delete(services, context, caller, DeviceType.BATTERY, deviceId)


@router.put(
    "/ev-charger/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=PUT_ERRORS,
    tags=["ev-chargers"],
    operation_id="setEvChargerSchedule",
    summary="Set an EV charger's recurring schedule",
)
async def put_ev_charger_schedule(
    body: ScheduleJson, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Set the charger's recurring schedule; the same rules as for batteries."""
    return await _put(services, context, caller, DeviceType.EV_CHARGER, deviceId, body)


@router.get(
    "/ev-charger/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=errors(501),
    tags=["ev-chargers"],
    operation_id="getEvChargerSchedule",
    summary="Read an EV charger's recurring schedule",
)
async def get_ev_charger_schedule(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """The charger's schedule; 404 SCHEDULE_NOT_FOUND when none is set."""
    return await _get(services, context, caller, DeviceType.EV_CHARGER, deviceId)


@router.delete(
    "/ev-charger/{deviceId}/schedule",
    response_model=Envelope[ScheduleRecord],
    responses=errors(501),
    tags=["ev-chargers"],
    operation_id="deleteEvChargerSchedule",
    summary="Clear an EV charger's recurring schedule",
)
async def delete_ev_charger_schedule(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Clear the charger's schedule; answers the record in state `deleted`."""
    return await _delete(services, context, caller, DeviceType.EV_CHARGER, deviceId)


async def schedules_turned_off(caller: Caller, deviceId: DeviceId) -> Response:
    """Schedules are turned off on this server (ENERGYHUB_SCHEDULES=off): 501."""
    raise NotImplementedYet(
        "Schedules are turned off on this server: send one push per desired moment "
        "(with start, or start and end) instead."
    )


# Turned off, the operations keep the names they have when on: a generated client's calls
# stay the same and answer 501.
_VERBS = {"PUT": "set", "GET": "get", "DELETE": "delete"}
_NOUNS = {DeviceType.BATTERY: "Battery", DeviceType.EV_CHARGER: "EvCharger"}
for _kind, _tag in TAGS.items():
    for _method, _verb in _VERBS.items():
        disabled_router.add_api_route(
            f"/{_kind.value}/{{deviceId}}/schedule",
            schedules_turned_off,
            methods=[_method],
            responses=errors(501),
            tags=[_tag],
            operation_id=f"{_verb}{_NOUNS[_kind]}Schedule",
            summary=f"{_verb.capitalize()} a schedule (turned off on this server: 501)",
        )
