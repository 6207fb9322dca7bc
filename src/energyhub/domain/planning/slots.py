"""A plan's slots: time ranges at one power, and how they group into charging blocks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from energyhub.domain.planning.blocks import Allocation
from energyhub.domain.planning.fronts import Shape
from energyhub.domain.planning.intervals import Interval

Source = Literal["grid", "surplus"]
_SAME = 1e-9


@dataclass(frozen=True, slots=True)
class Slot:
    start: datetime
    end: datetime
    power_kw: float
    source: Source
    price: float
    """What a kWh of this slot costs (the import price, or for surplus what exporting it
    would have earned)."""

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    @property
    def energy_kwh(self) -> float:
        return self.power_kw * self.hours


def blocks_of(slots: Sequence[Slot]) -> list[list[Slot]]:
    """Slots grouped into runs of charging without a pause."""
    blocks: list[list[Slot]] = []
    for slot in slots:
        if blocks and blocks[-1][-1].end == slot.start:
            blocks[-1].append(slot)
        else:
            blocks.append([slot])
    return blocks


def slots_for(intervals: Sequence[Interval], allocation: Allocation) -> list[Slot]:
    """The allocation as slots: a covered interval runs at its average power throughout, a
    partial one at its tier-1 power from its start or up to its end. Neighbours with the
    same power, source and price are merged."""
    slots: list[Slot] = []
    for interval, energy, shape in zip(
        intervals, allocation.energy, allocation.shapes, strict=True
    ):
        if shape is Shape.EMPTY or energy <= 0:
            continue
        if shape is Shape.COVER:
            start, end, power = interval.start, interval.end, energy / interval.hours
        else:
            power = interval.tier1_kw
            length = timedelta(hours=energy / power)
            if shape is Shape.FROM_START:
                start, end = interval.start, interval.start + length
            else:
                start, end = interval.end - length, interval.end
        surplus = interval.surplus_energy(energy)
        source: Source = "surplus" if surplus >= energy - _SAME else "grid"
        append_merged(slots, Slot(start, end, power, source, interval.cost(energy) / energy))
    return slots


def append_merged(slots: list[Slot], slot: Slot) -> None:
    """Add a slot, merged into the last one when it continues it unchanged."""
    last = slots[-1] if slots else None
    if (
        last is not None
        and last.end == slot.start
        and abs(last.power_kw - slot.power_kw) <= _SAME
        and last.source == slot.source
        and abs(last.price - slot.price) <= _SAME
    ):
        slots[-1] = Slot(last.start, slot.end, last.power_kw, last.source, last.price)
    else:
        slots.append(slot)
