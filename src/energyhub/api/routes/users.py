"""A user's devices: spec 4.10; CONTRACT 3."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.representations import device_summary, pagination
from energyhub.api.routes.devices import Limit, Offset
from energyhub.api.schemas import Envelope, UserDevices

router = APIRouter()

DeviceTypeName = Literal["battery", "hvac", "ev-charger", "solar-inverter", "vehicle"]


@router.get(
    "/users/{userIdOrEmail}/devices",
    response_model=Envelope[UserDevices],
    tags=["users"],
    operation_id="listUserDevices",
    summary="List a user's devices",
)
async def user_devices(
    services: Services,
    context: Context,
    caller: Caller,
    userIdOrEmail: Annotated[str, Path(min_length=1, max_length=320)],
    type: Annotated[list[DeviceTypeName] | None, Query()] = None,
    offset: Offset = 0,
    limit: Limit = 10,
) -> Response:
    """A user's devices by user id or e-mail address; `type` may be repeated."""
    _user, items, total = await services.devices.user_devices(
        caller, userIdOrEmail, frozenset(type or ()), offset, limit
    )
    data = {
        "devices": [device_summary(item) for item in items],
        "pagination": pagination(offset, limit, total),
    }
    return success_response(data, context, caller.environment.value, services.clock)
