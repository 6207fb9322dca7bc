"""Resource bodies as clients see them (spec 2.2-2.10, CONTRACT 3)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import Any

import orjson

from energyhub.domain.actions import Action, action_type
from energyhub.domain.capabilities import Capabilities, DeviceType
from energyhub.domain.clock import isoformat_utc
from energyhub.domain.devices import CacheType, Device, StateSource, Vehicle
from energyhub.domain.goals import public_goal
from energyhub.domain.versions import RULES, ApiVersion

_COMMANDS_BODIES: OrderedDict[int, tuple[Capabilities, dict[str, Any]]] = OrderedDict()
_LIST_ITEMS: dict[tuple[int, Vehicle | None, ApiVersion], tuple[Device, bytes]] = {}
MAX_LIST_ITEMS = 10_000


def commands_body(caps: Capabilities) -> dict[str, Any]:
    """`caps.commands_json()`, built once per capabilities object (devices of one document
    share one, `capabilities_from_text`): a list page would rebuild it for every row. The
    entry holds the object, so its id cannot name another meanwhile; never mutated."""
    found = _COMMANDS_BODIES.get(id(caps))
    if found is not None and found[0] is caps:
        return found[1]
    body = caps.commands_json()
    _COMMANDS_BODIES[id(caps)] = (caps, body)
    if len(_COMMANDS_BODIES) > 1024:
        _COMMANDS_BODIES.popitem(last=False)
    return body


def device_body(
    device: Device,
    vehicle: Vehicle | None,
    source: StateSource,
    cache_type: CacheType | None,
) -> dict[str, Any]:
    caps = device.capabilities
    metadata: dict[str, Any] = {
        "model": device.model,
        "timezone": device.timezone,
        "source": source.value,
    }
    if cache_type is not None:
        metadata["cacheType"] = cache_type.value
    body: dict[str, Any] = {
        "id": device.id,
        "type": device.type.value,
        "userId": device.user_id,
        "vendor": device.vendor,
        "sync": {
            "available": device.available,
            "lastPulledAt": (
                None if device.last_pulled_at is None else isoformat_utc(device.last_pulled_at)
            ),
        },
        "metadata": metadata,
        "state": device.state,
    }
    if caps.conflict_strategies is not None:
        body["conflictStrategies"] = [s.value for s in caps.conflict_strategies]
    body["commands"] = commands_body(caps)
    body["settings"] = caps.settings_json(device.settings)
    if device.type is DeviceType.EV_CHARGER:
        body["sessions"] = bool(caps.sessions)
        body["vehicle"] = (
            None
            if vehicle is None
            else {"id": vehicle.id, "links": {"self": vehicle_path(vehicle)}}
        )
        body["goal"] = None if device.goal is None else public_goal(device.goal)
    if device.last_action is not None:
        body["lastAction"] = device.last_action
    body["currentSchedule"] = device.current_schedule
    return body


def list_item_json(device: Device, vehicle: Vehicle | None, version: ApiVersion) -> bytes:
    """A list page's item as `version` lists it, serialised once per device object: the
    repository gives back the same object while the device's row is unchanged, so a page of
    unchanged devices costs a look-up a row. The entry holds the object, so its id cannot
    name another meanwhile; the oldest entries go first."""
    key = (id(device), vehicle, version)
    found = _LIST_ITEMS.get(key)
    if found is not None and found[0] is device:
        return found[1]
    item = device_body(device, vehicle, StateSource.CACHE, None)
    transform = RULES[version].listing_item
    serialised = orjson.dumps(item if transform is None else transform(item))
    if len(_LIST_ITEMS) >= MAX_LIST_ITEMS and key not in _LIST_ITEMS:
        _LIST_ITEMS.pop(next(iter(_LIST_ITEMS)))
    _LIST_ITEMS[key] = (device, serialised)
    return serialised


def vehicle_path(vehicle: Vehicle) -> str:
    return f"/vehicles/{vehicle.id}"


def vehicle_body(vehicle: Vehicle) -> dict[str, Any]:
    return {
        "id": vehicle.id,
        "vendor": vehicle.vendor,
        "model": vehicle.model,
        "vin": vehicle.vin,
        "batteryCapacity": (
            None
            if vehicle.battery_capacity_kwh is None
            else {"value": vehicle.battery_capacity_kwh, "unit": "kwh"}
        ),
        "stateOfCharge": vehicle.state_of_charge,
        "chargerId": vehicle.charger_id,
        "links": {"self": vehicle_path(vehicle)},
    }


def device_summary(item: Device | Vehicle) -> dict[str, Any]:
    """Spec 2.9: the short form of a user's device listing."""
    if isinstance(item, Vehicle):
        return {
            "id": item.id,
            "vendor": item.vendor,
            "type": DeviceType.VEHICLE.value,
            "model": item.model,
            "available": True,
        }
    return {
        "id": item.id,
        "vendor": item.vendor,
        "type": item.type.value,
        "model": item.model,
        "available": item.available,
    }


def pagination(offset: int, limit: int, total: int) -> dict[str, Any]:
    return {"limit": limit, "offset": offset, "total": total, "hasMore": offset + limit < total}


def action_body(action: Action) -> dict[str, Any]:
    """The action record (spec 2.7 + CONTRACT 4); nulls are sent, not omitted."""

    def at(value: datetime | None) -> str | None:
        return None if value is None else isoformat_utc(value)

    return {
        "id": action.id,
        "deviceId": action.device_id,
        "type": action_type(action.device_type),
        "state": action.state.value,
        "command": action.command,
        "parameters": action.parameters,
        "start": isoformat_utc(action.start),
        "end": at(action.end),
        "onConflict": action.on_conflict,
        "result": action.result,
        "createdAt": isoformat_utc(action.created_at),
        "updatedAt": isoformat_utc(action.updated_at),
        "deferredUntil": at(action.deferred_until),
        "errorCode": action.error_code,
        "errorMessage": action.error_message,
        "acknowledgedAt": at(action.acknowledged_at),
        "completedAt": at(action.completed_at),
        "links": {"self": f"/actions/{action.id}"},
    }
