"""Sandbox-only routes: CONTRACT 8."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import SkipValidation
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.representations import device_body
from energyhub.api.routes.devices import DeviceId
from energyhub.api.routes.docs import errors
from energyhub.api.routes.linking import public_base
from energyhub.api.schemas import (
    BatteryDevice,
    Envelope,
    EvChargerDevice,
    SandboxConnection,
    SandboxDeviceRequest,
    SimulateBody,
    VppLock,
    VppLockBody,
)
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.clock import DEFAULT_TIMEZONE, isoformat_utc
from energyhub.domain.devices import Device

router = APIRouter(prefix="/sandbox", tags=["sandbox"])
SimulateJson = Annotated[SimulateBody, SkipValidation]  # the domain words every problem


@router.post(
    "/devices",
    status_code=201,
    response_model=Envelope[BatteryDevice | EvChargerDevice],
    responses=errors(403),
    operation_id="createSandboxDevice",
    summary="Create a simulated device",
)
async def create_sandbox_device(
    body: SandboxDeviceRequest, services: Services, context: Context, caller: Caller
) -> Response:
    """A simulated battery or charger for a user (created on first use); SANDBOX_ONLY with a
    live key."""
    view = await services.sandbox.create_device(
        caller,
        DeviceType(body.type),
        body.userId,
        body.email,
        body.profile,
        body.timezone or DEFAULT_TIMEZONE,
    )
    services.read_cache.put(view.device, view.vehicle)
    data = device_body(view.device, view.vehicle, view.source, None)
    return success_response(data, context, caller.environment.value, services.clock, 201)


@router.post(
    "/devices/{deviceId}/simulate",
    response_model=Envelope[BatteryDevice | EvChargerDevice],
    responses=errors(400, 403, 422),
    summary="Plug the simulated car in or out, set a state of charge or a level",
    operation_id="simulateSandboxDevice",
)
async def simulate_sandbox_device(
    body: SimulateJson, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Set a simulated device's state and hold it: `pluggedIn` and `vehicleSoc` on an EV
    charger (vehicleSoc where the charger reads the car), `level` on a battery, in percent.
    The device's daily time pattern stops moving what is held; commands still run from it
    (`charge` fills the car from the level set). `{"reset": true}` ends the hold. Answers
    the device as read now."""
    view = await services.sandbox.simulate(caller, deviceId, body)
    services.read_cache.put(view.device, view.vehicle)
    data = device_body(view.device, view.vehicle, view.source, None)
    return success_response(data, context, caller.environment.value, services.clock)


@router.post(
    "/devices/{deviceId}/vpp-lock",
    response_model=Envelope[VppLock],
    responses=errors(403),
    operation_id="lockSandboxDevice",
    summary="Lock a simulated device for a virtual power plant",
)
async def lock_for_vpp(
    body: VppLockBody, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Put a sandbox device under a virtual power plant's lock until `until`: pushes that
    would run before then get 423 VPP_LOCKED; scheduled ones due then are deferred."""
    device = await services.actions.lock_for_vpp(caller, deviceId, body.until)
    data = {"deviceId": device.id, "vppLockedUntil": isoformat_utc(body.until)}
    return success_response(data, context, caller.environment.value, services.clock)


@router.post(
    "/devices/{deviceId}/disconnect",
    response_model=Envelope[SandboxConnection],
    responses=errors(403),
    operation_id="disconnectSandboxDevice",
    summary="Disconnect a simulated device",
)
async def disconnect_sandbox_device(
    request: Request, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """The simulated manufacturer stops accepting the device's credentials: the device is
    unavailable from its next pull, pushes fail with CREDENTIALS_INVALID, and
    `device.disconnected` is sent."""
    base = public_base(request, services.settings)
    device = await services.sandbox.disconnect(caller, deviceId, base)
    return success_response(_connection(device), context, caller.environment.value, services.clock)


@router.post(
    "/devices/{deviceId}/reconnect",
    response_model=Envelope[SandboxConnection],
    responses=errors(403),
    operation_id="reconnectSandboxDevice",
    summary="Reconnect a simulated device",
)
async def reconnect_sandbox_device(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """The user linked the device again: it works from its next pull, and
    `device.reconnected` is sent."""
    device = await services.sandbox.reconnect(caller, deviceId)
    return success_response(_connection(device), context, caller.environment.value, services.clock)


def _connection(device: Device) -> dict[str, Any]:
    return {
        "deviceId": device.id,
        "connected": device.disconnected_at is None,
        "disconnectedAt": None
        if device.disconnected_at is None
        else isoformat_utc(device.disconnected_at),
    }
