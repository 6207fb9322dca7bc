"""Serialised device bodies for cache hits of single reads: a hit costs a dict lookup and a
splice instead of a query, a model and a serialisation (see docs/architecture.md).

Entries are dropped when the device changes in this process (`DeviceChangeFeed`). When
other processes can write (PostgreSQL), they are dropped too when another process says the
device changed (a `device` signal); entries also expire after `max_entry_age_s`, which is
short while that channel is down (`follow`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from energyhub.api.representations import device_body
from energyhub.domain.accounts import Principal
from energyhub.domain.capabilities import DeviceType
from energyhub.domain.devices import CacheType, Device, StateSource, Vehicle, is_fresh
from energyhub.ports.signals import Signals, Topic


@dataclass(slots=True)
class CachedDevice:
    device: Device
    vehicle: Vehicle | None
    stored_at: float
    serialised: dict[CacheType, bytes] = field(default_factory=dict)

    def data_json(self, cache_type: CacheType) -> bytes:
        found = self.serialised.get(cache_type)
        if found is None:
            body = device_body(self.device, self.vehicle, StateSource.CACHE, cache_type)
            found = self.serialised[cache_type] = orjson.dumps(body)
        return found


class DeviceReadCache:
    def __init__(self, max_entry_age_s: float | None, max_entries: int = 50_000) -> None:
        self._max_age = max_entry_age_s
        self._max_entries = max_entries
        self._entries: dict[str, CachedDevice] = {}

    def put(self, device: Device, vehicle: Vehicle | None) -> None:
        if len(self._entries) >= self._max_entries and device.id not in self._entries:
            self._entries.pop(next(iter(self._entries)))
        self._entries[device.id] = CachedDevice(device, vehicle, time.monotonic())

    def invalidate(self, device_id: str) -> None:
        self._entries.pop(device_id, None)

    def clear(self) -> None:
        self._entries.clear()

    def follow(
        self, signals: Signals, max_age_while_up_s: float, max_age_while_down_s: float
    ) -> None:
        """Other processes' changes drop entries here. While the channel is down changes go
        unheard, so entries live `max_age_while_down_s`; when it is back, every entry goes
        (changes were missed). `max_age_while_up_s` bounds a change whose writer died
        between its commit and its signal."""
        signals.subscribe(Topic.DEVICE, self.invalidate)

        def channel(up: bool) -> None:
            if up:
                self._entries.clear()
            self._max_age = max_age_while_up_s if up else max_age_while_down_s

        channel(signals.up)
        signals.on_channel(channel)

    def lookup(
        self,
        principal: Principal,
        device_type: DeviceType,
        device_id: str,
        cache_type: CacheType,
        now: datetime,
    ) -> bytes | None:
        """The `data` JSON of a cache hit, or None when the route must do the full read."""
        entry = self._entries.get(device_id)
        if entry is None:
            return None
        device = entry.device
        if (
            device.account_id != principal.account_id
            or device.environment is not principal.environment
            or device.type is not device_type
        ):
            return None
        if self._max_age is not None and time.monotonic() - entry.stored_at > self._max_age:
            self._entries.pop(device_id, None)
            return None
        if not is_fresh(device.last_pulled_at, now, cache_type):
            return None
        return entry.data_json(cache_type)
