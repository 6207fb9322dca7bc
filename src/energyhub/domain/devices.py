"""Devices, users and vehicles as the service stores them, and the cache rules of CONTRACT 3."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import Capabilities, DeviceType
from energyhub.domain.errors import DeviceNotFound

NORMAL_CACHE_AGE = timedelta(minutes=15)
EXPEDITE_CACHE_AGE = timedelta(minutes=1)


class CacheType(StrEnum):
    NORMAL = "normal"
    EXPEDITE = "expedite"


class StateSource(StrEnum):
    CACHE = "cache"
    LIVE = "live"


@dataclass(frozen=True, slots=True)
class User:
    id: str
    email: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Device:
    id: str
    account_id: str
    environment: Environment
    user_id: str
    type: DeviceType
    vendor: str
    model: str
    driver: str
    profile: str | None
    timezone: str
    capabilities: Capabilities
    settings: dict[str, Any]
    state: dict[str, Any]
    sim: dict[str, Any] | None
    available: bool
    last_pulled_at: datetime | None
    last_action: dict[str, Any] | None
    current_schedule: dict[str, Any] | None
    vehicle_id: str | None
    created_at: datetime
    updated_at: datetime
    vpp_locked_until: datetime | None = None
    mode_action_id: str | None = None
    mode_command: str | None = None
    last_action_id: str | None = None
    # when the manufacturer credentials stopped working (sandbox: the disconnect route)
    disconnected_at: datetime | None = None
    # chargers: the charging goal's record (strategies), shown as `goal` in the body
    goal: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Vehicle:
    id: str
    user_id: str
    charger_id: str | None
    vendor: str | None
    model: str | None
    vin: str | None
    battery_capacity_kwh: float | None
    state_of_charge: float | None


def cache_age_limit(cache_type: CacheType) -> timedelta:
    return EXPEDITE_CACHE_AGE if cache_type is CacheType.EXPEDITE else NORMAL_CACHE_AGE


def is_fresh(last_pulled_at: datetime | None, now: datetime, cache_type: CacheType) -> bool:
    """Whether the stored state may be served instead of pulling the device."""
    return last_pulled_at is not None and now - last_pulled_at < cache_age_limit(cache_type)


DEVICE_PATHS = {
    DeviceType.BATTERY: "/battery",
    DeviceType.EV_CHARGER: "/ev-charger",
    DeviceType.VEHICLE: "/vehicles",
}
_KINDS = {
    DeviceType.BATTERY: "a battery",
    DeviceType.EV_CHARGER: "an EV charger",
    DeviceType.VEHICLE: "a vehicle",
}


def device_not_found(device_id: str, found: DeviceType | None, asked: DeviceType) -> DeviceNotFound:
    """404 `DEVICE_NOT_FOUND` for an id that is not the caller's device of type `asked`. When
    it is the caller's device of another type (`found`), the message names the path that
    serves it: the client only took the wrong path."""
    if found is None or found is asked:
        return DeviceNotFound(device_id)
    path = f"{DEVICE_PATHS[found]}/{device_id}"
    return DeviceNotFound(
        device_id,
        f"Device {device_id!r} is {_KINDS[found]}, not {_KINDS[asked]}: use {path}.",
        path=path,
    )
