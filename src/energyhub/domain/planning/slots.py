"""A plan's slots: time ranges at one power, and how they group into charging blocks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from energyhub.domain.planning.blocks import Allocation
from energyhub.domain.planning.fronts import Shape
from energyhub.domain.planning.intervals import Interval

Source = Literal["grid", "surplus"]
_SAME = 1e-9
_EMPTY = Shape.EMPTY
_COVER = Shape.COVER
_FROM_START = Shape.FROM_START


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
    same power, source and price are merged (each slot is made once, when its run ends)."""
    runs: list[list[Any]] = []  # [start, end, power, source, price]
    last: list[Any] | None = None
    energies, shapes = allocation.energy, allocation.shapes
    for index in allocation.used:  # every other interval is empty
        energy, shape = energies[index], shapes[index]
        if shape is _EMPTY or energy <= 0:
            continue
        interval = intervals[index]
        tier1_kw = interval.tier1_kw
        if shape is _COVER:
            start, end, power = interval.start, interval.end, energy / interval.hours
        else:
            power = tier1_kw
            length = timedelta(hours=energy / power)
            if shape is _FROM_START:
                start, end = interval.start, interval.start + length
            else:
                start, end = interval.end - length, interval.end
        # Interval.surplus_energy and Interval.cost, inline (they run for every slot)
        first = min(energy, tier1_kw * interval.hours)
        surplus = 0.0 if tier1_kw <= 0 else first * interval.surplus_kw / tier1_kw
        source: Source = "surplus" if surplus >= energy - _SAME else "grid"
        price = (first * interval.tier1_price + (energy - first) * interval.import_price) / energy
        if (
            last is not None
            and last[1] == start
            and abs(last[2] - power) <= _SAME
            and last[3] == source
            and abs(last[4] - price) <= _SAME
        ):
            last[1] = end
        else:
            last = [start, end, power, source, price]
            runs.append(last)
    return [Slot(*run) for run in runs]


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
