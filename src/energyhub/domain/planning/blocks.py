"""Where the energy goes: the cheapest allocation over the intervals, and among the
allocations of that cost one with the fewest separate charging blocks.

Cost: the tiers of all intervals sorted by price are filled cheapest first (the fractional
problem is a greedy fill). Every tier cheaper than the marginal price is full in any
optimal plan, tiers dearer are empty, and the rest of the energy may go anywhere in the
tiers at exactly the marginal price: that freedom is used to save blocks.

Blocks: `fronts.fewest_blocks` picks each interval's shape; then intervals the plan can
do without are left out, and partial runs that can cover their interval do."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from energyhub.domain.planning.fronts import (
    TOLERANCE_KWH,
    EnergyRange,
    Shape,
    fewest_blocks,
)
from energyhub.domain.planning.intervals import Interval


@dataclass(frozen=True, slots=True)
class Allocation:
    """Energy (kWh) and shape per interval, in the intervals' order."""

    energy: tuple[float, ...]
    shapes: tuple[Shape, ...]


def allocate(intervals: Sequence[Interval], energy: float, minimum_kw: float) -> Allocation:
    """The cheapest way to put `energy` kWh (at most all capacity) into the intervals, with
    the fewest charging blocks among the cheapest."""
    ranges = _ranges(intervals, energy)
    target = min(energy, sum(r.most for r in ranges))
    if target <= TOLERANCE_KWH:
        return Allocation(tuple(0.0 for _ in intervals), tuple(Shape.EMPTY for _ in intervals))
    shapes = fewest_blocks(intervals, ranges, target, minimum_kw)
    shapes = _trim(intervals, ranges, shapes, target, minimum_kw)
    amounts = _fill(intervals, ranges, shapes, target, minimum_kw)
    return Allocation(amounts, _evenly(intervals, shapes, amounts, minimum_kw))


def _evenly(
    intervals: Sequence[Interval],
    shapes: Sequence[Shape],
    energy: Sequence[float],
    minimum_kw: float,
) -> tuple[Shape, ...]:
    """A partial run whose energy could cover its whole interval at or above the minimum
    power does so: the same energy at the same cost, no block more (a covered interval
    touches both neighbours), at a gentler power; a re-plan inside the interval keeps the
    same power, and "the 01:00-05:00 period" reads as the tariff's period. Only a remainder
    too small for the minimum runs at full power for part of its interval."""
    return tuple(
        Shape.COVER
        if shape in (Shape.FROM_START, Shape.TO_END)
        and e >= minimum_kw * interval.hours - TOLERANCE_KWH
        else shape
        for interval, shape, e in zip(intervals, shapes, energy, strict=True)
    )


def _ranges(intervals: Sequence[Interval], energy: float) -> list[EnergyRange]:
    """Per interval: the energy every cheapest plan puts there, and the most it may take."""
    tiers = []
    for index, interval in enumerate(intervals):
        hours = interval.hours
        if interval.tier1_kw > 0:
            tiers.append((interval.tier1_price, index, interval.tier1_kw * hours))
        if interval.tier2_kw > 0:
            tiers.append((interval.import_price, index, interval.tier2_kw * hours))
    forced = [0.0] * len(intervals)
    most = [0.0] * len(intervals)
    left = energy
    for _price, group in groupby(sorted(tiers), key=lambda t: t[0]):
        members = list(group)
        size = sum(t[2] for t in members)
        if left <= TOLERANCE_KWH:
            break
        full = size <= left + TOLERANCE_KWH
        for _, index, amount in members:
            most[index] += amount
            if full:
                forced[index] += amount
        left -= min(size, left)
    return [
        EnergyRange(forced[i], most[i], min(most[i], iv.tier1_kw * iv.hours))
        for i, iv in enumerate(intervals)
    ]


def _trim(
    intervals: Sequence[Interval],
    ranges: Sequence[EnergyRange],
    shapes: tuple[Shape, ...],
    target: float,
    minimum_kw: float,
) -> tuple[Shape, ...]:
    """Leave out the intervals the plan can do without, latest first, as long as the rest
    still holds the energy in no more blocks: the programme picks any of the plans with the
    fewest blocks, and one that charges in fewer intervals (at fuller power) reads better."""
    blocks = _count_blocks(intervals, shapes)
    for index in reversed(range(len(shapes))):
        if shapes[index] is Shape.EMPTY or ranges[index].forced > TOLERANCE_KWH:
            continue
        trial = (*shapes[:index], Shape.EMPTY, *shapes[index + 1 :])
        bounds = _bounds(intervals, ranges, trial, minimum_kw)
        least = sum(lo for lo, _ in bounds)
        most = sum(hi for _, hi in bounds)
        fits = least <= target + TOLERANCE_KWH and most >= target - TOLERANCE_KWH
        if fits and _count_blocks(intervals, trial) <= blocks:
            shapes = trial
    return shapes


def _count_blocks(intervals: Sequence[Interval], shapes: Sequence[Shape]) -> int:
    blocks = 0
    reaches: datetime | None = None  # where the last run ended, if at an interval's end
    for interval, shape in zip(intervals, shapes, strict=True):
        if shape is Shape.EMPTY:
            reaches = None
            continue
        continues = shape is not Shape.TO_END and reaches == interval.start
        blocks += 0 if continues else 1
        reaches = interval.end if shape in (Shape.COVER, Shape.TO_END) else None
    return blocks


def _bounds(
    intervals: Sequence[Interval],
    ranges: Sequence[EnergyRange],
    shapes: Sequence[Shape],
    minimum_kw: float,
) -> list[tuple[float, float]]:
    """The least and most energy each interval holds in its shape."""
    bounds = []
    for interval, span, shape in zip(intervals, ranges, shapes, strict=True):
        if shape is Shape.EMPTY:
            bounds.append((0.0, 0.0))
        elif shape is Shape.COVER:
            bounds.append((max(span.forced, minimum_kw * interval.hours), span.most))
        else:
            bounds.append((span.forced, span.partial_most))
    return bounds


def _fill(
    intervals: Sequence[Interval],
    ranges: Sequence[EnergyRange],
    shapes: Sequence[Shape],
    target: float,
    minimum_kw: float,
) -> tuple[float, ...]:
    """Energies within each shape's bounds that add up to the target: every interval at its
    least, then the rest from the earliest on."""
    bounds = _bounds(intervals, ranges, shapes, minimum_kw)
    energy = [least for least, _ in bounds]
    left = target - sum(energy)
    for index, (least, most) in enumerate(bounds):
        if left <= 0:
            break
        extra = min(most - least, left)
        energy[index] += extra
        left -= extra
    return tuple(energy)
