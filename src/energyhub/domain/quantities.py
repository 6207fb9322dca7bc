"""Quantities: a number that travels with its unit (spec 1.5), and unit conversions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Units a client may send for a declared unit, with the factor that converts to it.
CONVERSIONS: dict[tuple[str, str], float] = {
    ("w", "kw"): 0.001,
    ("kw", "w"): 1000.0,
    ("wh", "kwh"): 0.001,
    ("kwh", "wh"): 1000.0,
}


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "unit": self.unit}


def convert(quantity: Quantity, unit: str) -> Quantity | None:
    """The quantity in `unit`, or None when the units do not convert."""
    given = quantity.unit.lower()
    if given == unit:
        return Quantity(quantity.value, unit)
    factor = CONVERSIONS.get((given, unit))
    if factor is None:
        return None
    return Quantity(round(quantity.value * factor, 9), unit)
