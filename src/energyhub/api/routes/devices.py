"""Device reads: spec 4.1, 4.2, 4.9; CONTRACT 3."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import device_listing_response, listing_json, success_response
from energyhub.api.representations import device_body, list_item_json, pagination, vehicle_body
from energyhub.api.schemas import BatteryDevice, Envelope, EvChargerDevice, Page, Vehicle
from energyhub.domain.accounts import Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType
from energyhub.domain.versions import ApiVersion
from energyhub.services.devices import DeviceService

router = APIRouter()

DeviceId = Annotated[str, Path(min_length=1, max_length=64)]
Expedite = Annotated[
    bool, Query(description="Serve state no older than 1 minute (else 15 minutes).")
]
MAX_OFFSET = 1_000_000
MAX_LIMIT = 50
DEFAULT_LIMIT = 10
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
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


async def device_page_json(
    devices: DeviceService,
    principal: Principal,
    device_type: DeviceType,
    user_id: str | None,
    offset: int,
    limit: int,
    version: ApiVersion,
) -> bytes:
    """A device list page's `data` JSON in `version`: the route's, and the gateway's for a
    plain query (`gateway.list_query`)."""
    page = await devices.list_page(principal, [device_type], user_id, offset, limit)
    items = [list_item_json(d, page.vehicles.get(d.id), version) for d in page.devices]
    return listing_json(items, pagination(offset, limit, page.total))


async def _list(
    services: Services,
    context: Context,
    caller: Caller,
    device_type: DeviceType,
    user_id: str | None,
    offset: int,
    limit: int,
) -> Response:
    data = await device_page_json(
        services.devices, caller, device_type, user_id, offset, limit, context.version
    )
    return device_listing_response(data, context, caller.environment.value, services.clock)


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
    limit: Limit = DEFAULT_LIMIT,
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
    limit: Limit = DEFAULT_LIMIT,
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
