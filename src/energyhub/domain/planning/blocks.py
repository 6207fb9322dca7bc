"""Where the energy goes: the cheapest allocation over the intervals, and among the
allocations of that cost one with the fewest separate charging blocks.

Cost: the tiers of all intervals sorted by price are filled cheapest first (the fractional
problem is a greedy fill). Every tier cheaper than the marginal price is full in any
optimal plan, tiers dearer are empty, and the rest of the energy may go anywhere in the
tiers at exactly the marginal price: that freedom is used to save blocks.

Blocks: `fronts.fewest_blocks` picks each interval's shape; then intervals the plan can
do without are left out, and partial runs that can cover their interval do.

Only the intervals the greedy fill reaches (the "steps") can hold energy: the others stay
empty in every cheapest plan, so each pass below looks at the steps alone (an empty
interval adds 0 to every sum, so the sums are the same)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from energyhub.domain.planning.fronts import TOLERANCE_KWH, Shape, fewest_blocks
from energyhub.domain.planning.intervals import Interval

_EMPTY = Shape.EMPTY
_COVER = Shape.COVER
_TO_END = Shape.TO_END


@dataclass(frozen=True, slots=True)
class Allocation:
    """Energy (kWh) and shape per interval, in the intervals' order."""

    energy: tuple[float, ...]
    shapes: tuple[Shape, ...]
    used: tuple[int, ...] = ()
    """The indices of the intervals that may hold energy, in order (every other interval
    is empty)."""


@dataclass(frozen=True, slots=True)
class Window:
    """Intervals with what every plan over them shares, whatever its energy: their price
    tiers sorted cheapest first, as (price, interval index, kWh), and each interval's
    hours and tier-1 energy."""

    intervals: Sequence[Interval]
    tiers: list[tuple[float, int, float]]
    hours: list[float]
    tier1_kwh: list[float]
    adjacent: list[bool]
    """Whether each interval starts where the one before ends."""

    @classmethod
    def of(cls, intervals: Sequence[Interval]) -> Window:
        tiers: list[tuple[float, int, float]] = []
        hours: list[float] = []
        tier1_kwh: list[float] = []
        adjacent: list[bool] = []
        previous_end = None
        for index, interval in enumerate(intervals):
            adjacent.append(previous_end == interval.start)
            previous_end = interval.end
            length = interval.hours
            tier1 = interval.tier1_kw
            hours.append(length)
            tier1_kwh.append(tier1 * length)
            if tier1 > 0:
                tiers.append((interval.tier1_price, index, tier1 * length))
            tier2 = interval.capacity_kw - tier1
            if tier2 > 0:
                tiers.append((interval.import_price, index, tier2 * length))
        tiers.sort()
        return cls(intervals, tiers, hours, tier1_kwh, adjacent)


@dataclass(slots=True)
class _Ranges:
    """Per interval: the energy every cheapest plan puts there (`forced`), the most it may
    take, and the most a partial run may take; `steps`: the intervals whose most is above
    0, in order."""

    forced: list[float]
    most: list[float]
    partial: list[float]
    steps: list[int]


def allocate(window: Window, energy: float, minimum_kw: float) -> Allocation:
    """The cheapest way to put `energy` kWh (at most all capacity) into the intervals, with
    the fewest charging blocks among the cheapest."""
    intervals = window.intervals
    ranges = _ranges(window, energy)
    target = min(energy, sum(ranges.most))
    if target <= TOLERANCE_KWH:
        count = len(intervals)
        return Allocation((0.0,) * count, (_EMPTY,) * count)
    shapes = fewest_blocks(
        intervals,
        window.hours,
        window.adjacent,
        ranges.forced,
        ranges.most,
        ranges.partial,
        ranges.steps,
        target,
        minimum_kw,
    )
    shapes = _trim(window, ranges, shapes, target, minimum_kw)
    amounts = _fill(window, ranges, shapes, target, minimum_kw)
    _evenly(window, ranges.steps, shapes, amounts, minimum_kw)
    return Allocation(tuple(amounts), tuple(shapes), tuple(ranges.steps))


def _evenly(
    window: Window,
    steps: Sequence[int],
    shapes: list[Shape],
    energy: Sequence[float],
    minimum_kw: float,
) -> None:
    """A partial run whose energy could cover its whole interval at or above the minimum
    power does so: the same energy at the same cost, no block more (a covered interval
    touches both neighbours), at a gentler power; a re-plan inside the interval keeps the
    same power, and "the 01:00-05:00 period" reads as the tariff's period. Only a remainder
    too small for the minimum runs at full power for part of its interval."""
    hours = window.hours
    for index in steps:
        shape = shapes[index]
        if (
            shape is not _EMPTY
            and shape is not _COVER
            and energy[index] >= minimum_kw * hours[index] - TOLERANCE_KWH
        ):
            shapes[index] = _COVER


def _ranges(window: Window, energy: float) -> _Ranges:
    """Per interval: the energy every cheapest plan puts there, and the most it may take."""
    count = len(window.intervals)
    forced = [0.0] * count
    most = [0.0] * count
    partial = [0.0] * count  # min(0.0, tier-1 energy) where the fill does not reach
    touched: list[int] = []
    tiers = window.tiers
    size_of = len(tiers)
    left = energy
    first = 0
    while first < size_of:
        if left <= TOLERANCE_KWH:
            break
        price, index, amount = tiers[first]
        after = first + 1
        while after < size_of and tiers[after][0] == price:
            after += 1
        if after == first + 1:  # one tier at this price (the common case)
            size = amount  # as sum() of the one (positive) amount
            full = size <= left + TOLERANCE_KWH
            most[index] += amount
            if full:
                forced[index] += amount
            touched.append(index)
        else:
            members = tiers[first:after]
            size = sum(t[2] for t in members)
            full = size <= left + TOLERANCE_KWH
            for _, index, amount in members:
                most[index] += amount
                if full:
                    forced[index] += amount
                touched.append(index)
        left -= min(size, left)
        first = after
    steps = sorted(set(touched))
    tier1_kwh = window.tier1_kwh
    for index in steps:
        partial[index] = min(most[index], tier1_kwh[index])
    return _Ranges(forced, most, partial, steps)


def _trim(
    window: Window,
    ranges: _Ranges,
    shapes: list[Shape],
    target: float,
    minimum_kw: float,
) -> list[Shape]:
    """Leave out the intervals the plan can do without, latest first, as long as the rest
    still holds the energy in no more blocks: the programme picks any of the plans with the
    fewest blocks, and one that charges in fewer intervals (at fuller power) reads better."""
    intervals = window.intervals
    steps = ranges.steps
    forced = ranges.forced
    blocks = _count_blocks(intervals, shapes, steps)
    lows: list[float] | None = None
    highs: list[float] = []
    for index in reversed(steps):
        if shapes[index] is _EMPTY or forced[index] > TOLERANCE_KWH:
            continue
        if lows is None:
            lows, highs = _bounds(window, ranges, shapes, minimum_kw)
        trial_lows = lows.copy()
        trial_highs = highs.copy()
        trial_lows[index] = 0.0
        trial_highs[index] = 0.0
        least = sum(trial_lows)
        most = sum(trial_highs)
        fits = least <= target + TOLERANCE_KWH and most >= target - TOLERANCE_KWH
        if not fits:
            continue
        trial = shapes.copy()
        trial[index] = _EMPTY
        if _count_blocks(intervals, trial, steps) <= blocks:
            shapes, lows, highs = trial, trial_lows, trial_highs
    return shapes


def _count_blocks(
    intervals: Sequence[Interval], shapes: Sequence[Shape], steps: Sequence[int]
) -> int:
    blocks = 0
    reaches = None  # where the last run ended, if at an interval's end
    previous = -2
    for index in steps:
        shape = shapes[index]
        if shape is _EMPTY:
            continue
        interval = intervals[index]
        if index != previous + 1:  # an empty interval lies between
            reaches = None
        previous = index
        continues = shape is not _TO_END and reaches == interval.start
        blocks += 0 if continues else 1
        reaches = interval.end if shape is _COVER or shape is _TO_END else None
    return blocks


def _bounds(
    window: Window, ranges: _Ranges, shapes: Sequence[Shape], minimum_kw: float
) -> tuple[list[float], list[float]]:
    """The least and most energy each interval holds in its shape."""
    count = len(shapes)
    lows = [0.0] * count
    highs = [0.0] * count
    hours = window.hours
    forced, most, partial = ranges.forced, ranges.most, ranges.partial
    for index in ranges.steps:
        shape = shapes[index]
        if shape is _EMPTY:
            continue
        if shape is _COVER:
            lows[index] = max(forced[index], minimum_kw * hours[index])
            highs[index] = most[index]
        else:
            lows[index] = forced[index]
            highs[index] = partial[index]
    return lows, highs


def _fill(
    window: Window,
    ranges: _Ranges,
    shapes: Sequence[Shape],
    target: float,
    minimum_kw: float,
) -> list[float]:
    """Energies within each shape's bounds that add up to the target: every interval at its
    least, then the rest from the earliest on."""
    energy, highs = _bounds(window, ranges, shapes, minimum_kw)
    left = target - sum(energy)
    for index in ranges.steps:
        if left <= 0:
            break
        least = energy[index]
        extra = min(highs[index] - least, left)
        energy[index] += extra
        left -= extra
    return energy
