"""Where the energy goes: the cheapest allocation over the intervals, and among the
allocations of that cost one with the fewest separate charging blocks.

Cost: the tiers of all intervals sorted by price are filled cheapest first (the fractional
problem is a greedy fill). Every tier cheaper than the marginal price is full in any
optimal plan, tiers dearer are empty, and the rest of the energy may go anywhere in the
tiers at exactly the marginal price: that freedom is used to save blocks.

Blocks: each interval takes one of four shapes: empty, covered (one run from its start to
its end, at an average power of at least the charger's minimum), a run from its start
that ends inside it, or a run that starts inside it and lasts to its end. Partial runs go
at the tier-1 power (never below the minimum), so any amount of energy up to tier 1 fits
one. A dynamic programme over the intervals in time order keeps, per (blocks so far, does
the last run reach the interval's end), the Pareto front of (least, most) energy the
shapes chosen so far can hold; the fewest blocks whose front brackets the energy wins."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from itertools import groupby

from energyhub.domain.planning.intervals import Interval

TOLERANCE_KWH = 1e-9


class Shape(Enum):
    EMPTY = "empty"
    COVER = "cover"
    FROM_START = "from_start"
    TO_END = "to_end"


@dataclass(frozen=True, slots=True)
class Allocation:
    """Energy (kWh) and shape per interval, in the intervals' order."""

    energy: tuple[float, ...]
    shapes: tuple[Shape, ...]


@dataclass(frozen=True, slots=True)
class _Range:
    forced: float
    most: float
    partial_most: float


@dataclass(frozen=True, slots=True)
class _Node:
    least: float
    most: float
    shape: Shape
    parent: _Node | None


def allocate(intervals: Sequence[Interval], energy: float, minimum_kw: float) -> Allocation:
    """The cheapest way to put `energy` kWh (at most all capacity) into the intervals, with
    the fewest charging blocks among the cheapest."""
    ranges = _ranges(intervals, energy)
    target = min(energy, sum(r.most for r in ranges))
    if target <= TOLERANCE_KWH:
        return Allocation(tuple(0.0 for _ in intervals), tuple(Shape.EMPTY for _ in intervals))
    shapes = _fewest_blocks(intervals, ranges, target, minimum_kw)
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


def _ranges(intervals: Sequence[Interval], energy: float) -> list[_Range]:
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
        _Range(forced[i], most[i], min(most[i], iv.tier1_kw * iv.hours))
        for i, iv in enumerate(intervals)
    ]


def _options(
    interval: Interval, span: _Range, minimum_kw: float
) -> list[tuple[Shape, float, float]]:
    """The shapes an interval may take, with the least and most energy each holds."""
    options: list[tuple[Shape, float, float]] = []
    if span.forced <= TOLERANCE_KWH:
        options.append((Shape.EMPTY, 0.0, 0.0))
    if span.most <= TOLERANCE_KWH:
        return options
    least_cover = max(span.forced, minimum_kw * interval.hours)
    if least_cover <= span.most + TOLERANCE_KWH:
        options.append((Shape.COVER, least_cover, span.most))
    if span.forced < span.partial_most - TOLERANCE_KWH:
        options.append((Shape.FROM_START, span.forced, span.partial_most))
        options.append((Shape.TO_END, span.forced, span.partial_most))
    return options


_State = tuple[int, bool]  # blocks so far, does the last run reach the interval's end


def _fewest_blocks(
    intervals: Sequence[Interval], ranges: Sequence[_Range], target: float, minimum_kw: float
) -> tuple[Shape, ...]:
    fronts: dict[_State, list[_Node]] = {(0, False): [_Node(0.0, 0.0, Shape.EMPTY, None)]}
    previous_end = None
    for interval, span in zip(intervals, ranges, strict=True):
        adjacent = previous_end == interval.start
        previous_end = interval.end
        options = _options(interval, span, minimum_kw)
        if len(options) == 1 and len(fronts) == 1:  # nothing to choose: shift the one front
            fronts = _shift(fronts, options[0], adjacent, target)
            continue
        grown: dict[_State, list[_Node]] = {}
        for (blocks, reaches_end), front in fronts.items():
            continues = reaches_end and adjacent
            for shape, least, most in options:
                if shape is Shape.EMPTY:
                    state = (blocks, False)
                elif shape is Shape.TO_END:
                    state = (blocks + 1, True)
                else:
                    state = (blocks + (0 if continues else 1), shape is Shape.COVER)
                bucket = grown.setdefault(state, [])
                for node in front:
                    new_least = node.least + least
                    if new_least > target + TOLERANCE_KWH:
                        continue
                    bucket.append(_Node(new_least, min(node.most + most, target), shape, node))
        fronts = _prune({state: _pareto(nodes) for state, nodes in grown.items() if nodes})
    best = min(
        (state for state, front in fronts.items() if front[-1].most >= target - TOLERANCE_KWH),
        key=lambda s: s[0],
    )
    step: _Node | None = fronts[best][-1]
    shapes: list[Shape] = []
    while step is not None and step.parent is not None:
        shapes.append(step.shape)
        step = step.parent
    return tuple(reversed(shapes))


def _shift(
    fronts: dict[_State, list[_Node]],
    option: tuple[Shape, float, float],
    adjacent: bool,
    target: float,
) -> dict[_State, list[_Node]]:
    """The one front through an interval with one shape (what most intervals have: full in
    every cheapest plan, or empty in all)."""
    [((blocks, reaches_end), front)] = fronts.items()
    shape, least, most = option
    if shape is Shape.EMPTY:
        state = (blocks, False)
    else:  # the one shape of a full interval
        state = (blocks + (0 if reaches_end and adjacent else 1), True)
    nodes = [
        _Node(n.least + least, min(n.most + most, target), shape, n)
        for n in front
        if n.least + least <= target + TOLERANCE_KWH
    ]
    return {state: nodes} if nodes else {}


def _prune(fronts: dict[_State, list[_Node]]) -> dict[_State, list[_Node]]:
    """Fronts without the nodes a better state holds as well: fewer blocks so far, or as
    many with the last run reaching the interval's end, is never worse later on (it adds
    at most the one block the other saves by continuing a run)."""
    kept: dict[_State, list[_Node]] = {}
    better: list[_Node] = []
    for state in sorted(fronts, key=lambda s: (s[0], not s[1])):
        least = [n.least for n in better]
        nodes = [n for n in fronts[state] if not _covered(n, better, least)]
        if nodes:
            kept[state] = nodes
            better = _pareto(better + nodes)
    return kept


def _covered(node: _Node, front: list[_Node], least: list[float]) -> bool:
    """Whether a front node holds at most as little and at least as much energy."""
    index = bisect_right(least, node.least + TOLERANCE_KWH) - 1
    return index >= 0 and front[index].most >= node.most - TOLERANCE_KWH


def _pareto(nodes: list[_Node]) -> list[_Node]:
    """Nodes no other node beats on both least (lower) and most (higher) energy, sorted by
    least; the last one holds the most."""
    nodes.sort(key=lambda n: (n.least, -n.most))
    front: list[_Node] = []
    for node in nodes:
        if not front or node.most > front[-1].most + TOLERANCE_KWH:
            front.append(node)
    return front


def _trim(
    intervals: Sequence[Interval],
    ranges: Sequence[_Range],
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
    ranges: Sequence[_Range],
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
    ranges: Sequence[_Range],
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
