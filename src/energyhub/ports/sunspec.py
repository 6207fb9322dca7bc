"""What commissioning SunSpec batteries needs: a probe that finds the SunSpec models at a
Modbus TCP address, and a repository of commissioned endpoints. Plain values: the use cases never
see Modbus types; the SunSpec driver and the persistence layer implement the Protocols."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from energyhub.domain.capabilities import Capabilities


@dataclass(frozen=True, slots=True)
class ModelLocation:
    """One SunSpec model on a device: its id, the address of its `ID` register, its `L`."""

    id: int
    address: int
    length: int

    def to_json(self) -> dict[str, int]:
        return {"id": self.id, "address": self.address, "length": self.length}

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> ModelLocation:
        return cls(int(body["id"]), int(body["address"]), int(body["length"]))


@dataclass(frozen=True, slots=True)
class SunspecDiscovery:
    """What a SunSpec device said about itself: where its models are, who made it, and what
    its registers let the service do (commands and settings, with current setting values)."""

    host: str
    port: int
    unit_id: int
    base_address: int
    models: tuple[ModelLocation, ...]
    manufacturer: str
    model: str
    serial: str
    version: str
    capabilities: Capabilities
    settings: dict[str, float | bool]

    @property
    def model_ids(self) -> list[int]:
        return [m.id for m in self.models]


@dataclass(frozen=True, slots=True)
class SunspecEndpoint:
    """A commissioned battery: how to reach it and where its models are."""

    device_id: str
    host: str
    port: int
    unit_id: int
    base_address: int
    models: tuple[ModelLocation, ...]
    manufacturer: str
    model: str
    serial: str
    commissioned_at: datetime


class SunspecProbe(Protocol):
    async def discover(self, host: str, port: int, unit_id: int) -> SunspecDiscovery:
        """Raises `DriverError` when nothing SunSpec answers there."""
        ...


class SunspecRepository(Protocol):
    async def add(self, endpoint: SunspecEndpoint) -> None: ...
    async def get(self, device_id: str) -> SunspecEndpoint | None: ...
    async def find(self, host: str, port: int, unit_id: int) -> SunspecEndpoint | None: ...
