"""The search for the fewest charging blocks among the cheapest allocations.

Each interval takes one of four shapes: empty, covered (one run from its start to its end,
at an average power of at least the charger's minimum), a run from its start that ends
inside it, or a run that starts inside it and lasts to its end. Partial runs go at the
tier-1 power (never below the minimum), so any amount of energy up to tier 1 fits one. A
dynamic programme over the intervals in time order keeps, per (blocks so far, does the
last run reach the interval's end), the Pareto front of (least, most) energy the shapes
chosen so far can hold; the fewest blocks whose front brackets the energy wins."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from energyhub.domain.planning.intervals import Interval

TOLERANCE_KWH = 1e-9


class Shape(Enum):
    EMPTY = "empty"
    COVER = "cover"
    FROM_START = "from_start"
    TO_END = "to_end"


@dataclass(slots=True)
class _Node:
    """A step of the search (not frozen, as the search makes hundreds per plan and a
    frozen dataclass is several times slower to make). Changed only while it is the one
    node of the one front and no step has grown from it yet: then it takes a step whose
    one shape is a cover itself (its energy moves on; the step is kept aside)."""

    least: float
    most: float
    shape: Shape
    parent: _Node | None
    index: int = -1
    """The interval this step shapes; intervals no step names stay empty."""


_State = tuple[int, bool]  # blocks so far, does the last run reach the interval's end


def fewest_blocks(
    intervals: Sequence[Interval],
    hours: Sequence[float],
    adjacent: Sequence[bool],
    forced: Sequence[float],
    most: Sequence[float],
    partial: Sequence[float],
    steps: Sequence[int],
    target: float,
    minimum_kw: float,
) -> list[Shape]:
    """Each interval's shape. Per interval: its hours, whether it starts where the one
    before ends, the energy every cheapest plan puts there (`forced`), the most it may
    take, and the most a partial run may take; `steps`: the intervals that may take any,
    in order (every other one can only stay empty)."""
    fronts: dict[_State, list[_Node]] = {(0, False): [_Node(0.0, 0.0, _EMPTY, None)]}
    previous = -1
    top = target + TOLERANCE_KWH
    covered: list[int] = []  # steps covered in every path, taken by a front's one node
    for index in steps:
        if index != previous + 1 and previous >= 0:  # intervals that can only stay empty
            fronts = _end_runs(fronts)
        previous = index
        held, most_kwh = forced[index], most[index]
        if held > TOLERANCE_KWH and most_kwh > TOLERANCE_KWH and len(fronts) == 1:
            # Full in every cheapest plan: when covering is its one shape (no partial run
            # fits), nothing to choose: shift the one front (as _options and _shift would).
            least = max(held, minimum_kw * hours[index])
            if least <= most_kwh + TOLERANCE_KWH and not held < partial[index] - TOLERANCE_KWH:
                [((blocks, reaches_end), front)] = fronts.items()
                state = (blocks + (0 if reaches_end and adjacent[index] else 1), True)
                if len(front) == 1:  # the usual case: the one node takes the step itself
                    node = front[0]
                    if node.least + least > top:
                        fronts = {}
                        continue
                    node.least = node.least + least
                    reach = node.most + most_kwh
                    node.most = reach if reach < target else target
                    covered.append(index)
                    fronts = {state: front}
                    continue
                nodes = [
                    _Node(
                        n.least + least,
                        n.most + most_kwh if n.most + most_kwh < target else target,
                        _COVER,
                        n,
                        index,
                    )
                    for n in front
                    if n.least + least <= top
                ]
                fronts = {state: nodes} if nodes else {}
                continue
        options = _options(hours[index], held, most_kwh, partial[index], minimum_kw)
        if options is _ONLY_EMPTY:  # no step, every run ends here
            fronts = _end_runs(fronts)
            continue
        if len(options) == 1 and len(fronts) == 1:  # nothing to choose: shift the one front
            fronts = _shift(fronts, options[0], adjacent[index], target, index)
            continue
        grown: dict[_State, list[_Node]] = {}
        for (blocks, reaches_end), front in fronts.items():
            continues = reaches_end and adjacent[index]
            for shape, least, option_most in options:
                if shape is _EMPTY:
                    state = (blocks, False)
                elif shape is _TO_END:
                    state = (blocks + 1, True)
                else:
                    state = (blocks + (0 if continues else 1), shape is _COVER)
                bucket = grown.setdefault(state, [])
                for node in front:
                    new_least = node.least + least
                    if new_least > top:
                        continue
                    new_most = node.most + option_most
                    if new_most > target:
                        new_most = target
                    bucket.append(_Node(new_least, new_most, shape, node, index))
        fronts = _prune({state: _pareto(nodes) for state, nodes in grown.items() if nodes})
    if 0 <= previous < len(intervals) - 1:  # the intervals after the last step
        fronts = _end_runs(fronts)
    best = min(
        (state for state, front in fronts.items() if front[-1].most >= target - TOLERANCE_KWH),
        key=lambda s: s[0],
    )
    step: _Node | None = fronts[best][-1]
    shapes = [_EMPTY] * len(intervals)
    for index in covered:
        shapes[index] = _COVER
    while step is not None and step.parent is not None:
        shapes[step.index] = step.shape
        step = step.parent
    return shapes


def _options(
    hours: float, forced: float, most: float, partial: float, minimum_kw: float
) -> list[tuple[Shape, float, float]]:
    """The shapes an interval may take, with the least and most energy each holds."""
    if most <= TOLERANCE_KWH:
        return _ONLY_EMPTY if forced <= TOLERANCE_KWH else []
    options: list[tuple[Shape, float, float]] = []
    if forced <= TOLERANCE_KWH:
        options.append(_EMPTY_OPTION)
    least_cover = max(forced, minimum_kw * hours)
    if least_cover <= most + TOLERANCE_KWH:
        options.append((_COVER, least_cover, most))
    if forced < partial - TOLERANCE_KWH:
        options.append((_FROM_START, forced, partial))
        options.append((_TO_END, forced, partial))
    if options == _ONLY_EMPTY:
        return _ONLY_EMPTY
    return options


_EMPTY = Shape.EMPTY
_COVER = Shape.COVER
_FROM_START = Shape.FROM_START
_TO_END = Shape.TO_END
_EMPTY_OPTION = (Shape.EMPTY, 0.0, 0.0)
_ONLY_EMPTY = [_EMPTY_OPTION]


def _end_runs(fronts: dict[_State, list[_Node]]) -> dict[_State, list[_Node]]:
    """The fronts through an interval that can only stay empty: the nodes hold what they
    held (an empty step adds nothing), and no run reaches the interval's end."""
    if len(fronts) == 1:
        [((blocks, _), front)] = fronts.items()
        return {(blocks, False): front}
    if not any(reaches_end for _, reaches_end in fronts):  # already so, and pruned
        return fronts
    merged: dict[_State, list[_Node]] = {}
    for (blocks, _), front in fronts.items():
        merged.setdefault((blocks, False), []).extend(front)
    return _prune({state: _pareto(nodes) for state, nodes in merged.items()})


def _shift(
    fronts: dict[_State, list[_Node]],
    option: tuple[Shape, float, float],
    adjacent: bool,
    target: float,
    index: int,
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
        _Node(n.least + least, n.most + most if n.most + most < target else target, shape, n, index)
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
