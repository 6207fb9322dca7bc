"""Devices, users and vehicles as the service stores them, and the cache rules of CONTRACT 3."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from energyhub.domain.accounts import Environment
from energyhub.domain.capabilities import Capabilities, DeviceType

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
