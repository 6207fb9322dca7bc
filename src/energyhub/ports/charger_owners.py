"""Which process holds each live charger's connection, fenced by a generation: the store
command routing needs (`persistence/charger_owners.py` implements it on the charge point
rows). A process that takes a charger's connection claims it (the generation goes up by
one); it renews the lease of everything it holds while it can be reached; a claim whose
lease ran out is nobody's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ChargerOwner:
    charge_point_id: str
    process: str  # the owner's name on the channel between processes
    generation: int


class ChargerOwners(Protocol):
    async def claim(self, charge_point_id: str, process: str, lease_until: datetime) -> int:
        """`process` holds the charger from now on; its new generation."""
        ...

    async def renew(self, process: str, lease_until: datetime) -> dict[str, int]:
        """Extends the lease of every charger `process` still holds; those chargers and
        their generations (one a newer connection claimed elsewhere is not among them)."""
        ...

    async def release(self, charge_point_id: str, process: str, generation: int) -> None:
        """The connection of that generation ended (a newer claim stays untouched)."""
        ...

    async def release_all(self, process: str) -> None: ...

    async def owner_of(self, device_id: str, now: datetime) -> ChargerOwner | None:
        """The live holder of the device's charger (None: nobody, or its lease ran out)."""
        ...
