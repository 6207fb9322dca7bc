"""Device reads: spec 4.1, 4.2, 4.9; CONTRACT 3."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import device_listing_response, success_response
from energyhub.api.representations import device_body, list_item_json, pagination, vehicle_body
from energyhub.api.schemas import BatteryDevice, Envelope, EvChargerDevice, Page, Vehicle
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType

router = APIRouter()

DeviceId = Annotated[str, Path(min_length=1, max_length=64)]
Expedite = Annotated[
    bool, Query(description="Serve state no older than 1 minute (else 15 minutes).")
]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]
Limit = Annotated[int, Query(ge=1, le=50)]
UserFilter = Annotated[str | None, Query(alias="userId", max_length=200)]


async def _read(
    services: Services,
    context: Context,
    caller: Caller,
    device_type: DeviceType,
    device_id: str,
    expedite: bool,
) -> Response:
    cache_type = CacheType.EXPEDITE if expedite else CacheType.NORMAL
    view = await services.devices.read(caller, device_type, device_id, cache_type)
    services.read_cache.put(view.device, view.vehicle)
    body = device_body(view.device, view.vehicle, view.source, cache_type)
    return success_response(body, context, caller.environment.value, services.clock)


async def _list(
    services: Services,
    context: Context,
    caller: Caller,
    device_type: DeviceType,
    user_id: str | None,
    offset: int,
    limit: int,
) -> Response:
    page = await services.devices.list_page(caller, [device_type], user_id, offset, limit)
    version = context.version
    items = [list_item_json(d, page.vehicles.get(d.id), version) for d in page.devices]
    return device_listing_response(
        items,
        pagination(offset, limit, page.total),
        context,
        caller.environment.value,
        services.clock,
    )


@router.get(
    "/battery/{deviceId}",
    response_model=Envelope[BatteryDevice],
    tags=["batteries"],
    operation_id="getBattery",
    summary="Read a battery",
)
async def get_battery(
    services: Services,
    context: Context,
    caller: Caller,
    deviceId: DeviceId,
    expedite: Expedite = False,
) -> Response:
    """A battery with its state, capabilities and settings."""
    return await _read(services, context, caller, DeviceType.BATTERY, deviceId, expedite)


@router.get(
    "/battery",
    response_model=Envelope[Page[BatteryDevice]],
    tags=["batteries"],
    operation_id="listBatteries",
    summary="List batteries",
)
async def list_batteries(
    services: Services,
    context: Context,
    caller: Caller,
    user_id: UserFilter = None,
    offset: Offset = 0,
    limit: Limit = 10,
) -> Response:
    """Batteries with their last captured state; never pulls devices."""
    return await _list(services, context, caller, DeviceType.BATTERY, user_id, offset, limit)


@router.get(
    "/ev-charger/{deviceId}",
    response_model=Envelope[EvChargerDevice],
    tags=["ev-chargers"],
    operation_id="getEvCharger",
    summary="Read an EV charger",
)
async def get_ev_charger(
    services: Services,
    context: Context,
    caller: Caller,
    deviceId: DeviceId,
    expedite: Expedite = False,
) -> Response:
    """An EV charger with its state, capabilities, sessions flag and vehicle."""
    return await _read(services, context, caller, DeviceType.EV_CHARGER, deviceId, expedite)


@router.get(
    "/ev-charger",
    response_model=Envelope[Page[EvChargerDevice]],
    tags=["ev-chargers"],
    operation_id="listEvChargers",
    summary="List EV chargers",
)
async def list_ev_chargers(
    services: Services,
    context: Context,
    caller: Caller,
    user_id: UserFilter = None,
    offset: Offset = 0,
    limit: Limit = 10,
) -> Response:
    """EV chargers with their last captured state; never pulls devices."""
    return await _list(services, context, caller, DeviceType.EV_CHARGER, user_id, offset, limit)


@router.get(
    "/vehicles/{vehicleId}",
    response_model=Envelope[Vehicle],
    tags=["vehicles"],
    operation_id="getVehicle",
    summary="Read a vehicle",
)
async def get_vehicle(
    services: Services, context: Context, caller: Caller, vehicleId: DeviceId
) -> Response:
    """The car seen through a charger; unknown values are null."""
    vehicle = await services.devices.vehicle(caller, vehicleId)
    return success_response(
        vehicle_body(vehicle), context, caller.environment.value, services.clock
    )
