"""The planner against an independent solver: seeded scenario days, each planned and solved
again by HiGHS (`highspy`) from the raw inputs.

The reference model is written here from the physics, not from the planner's tiers: the
horizon is cut on a 15-minute UTC grid (prices of a time-of-use day read off the site's
wall clock at each grid point), and in each segment the charger runs `a` hours at a
constant power between its minimum and its capacity (its ceiling, within the site's
import limit less the forecast load), taking surplus only while it runs:
    e <= cap * a,  e >= minimum * a,  surplus <= forecast surplus * a,  surplus <= e,
    cost = import price * (e - surplus) + min(export price, import price) * surplus.
The LP gives the optimum cost. The block count is a MIP on top: per segment, binaries for
"charges", "touches the start", "touches the end" and "runs throughout" (then a = length);
a block starts where a segment touches its start and the one before did not touch its end,
and inside a segment that charges without touching its start, or touches both ends
without running throughout. Its minimum number of starts, subject to cost <= optimum + a
tiny epsilon, is the fewest blocks any optimal plan can have; the minimum power is modelled
(not ignored), in both the planner and the MIP.

Set ENERGYHUB_PLANNING_SEED to replay a run; the seed is printed."""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import highspy
import numpy as np

from energyhub.domain.planning import (
    ChargerLimits,
    Goal,
    LoadPeriod,
    Plan,
    PricePeriod,
    PriceSchedule,
    Site,
    Slot,
    Tariff,
    TimeOfUsePeriod,
    plan_charging,
)

SCENARIOS = 240
SEED = int(os.environ.get("ENERGYHUB_PLANNING_SEED", "20261125"))
BERLIN = ZoneInfo("Europe/Berlin")
QUARTER = timedelta(minutes=15)
RELATIVE_GAP = 0.005
ABSOLUTE_GAP = 1e-4  # currency units: for optimums at or near zero


@dataclass(frozen=True)
class Scenario:
    name: str
    now: datetime
    ready_by: datetime
    need: float
    charger: ChargerLimits
    limit: float | None
    tariff: Tariff
    forecast: tuple[LoadPeriod, ...]


@dataclass(frozen=True)
class Segment:
    start: datetime
    end: datetime
    price: float
    load: float
    export: float

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600


# --- scenario generation ----------------------------------------------------------------


def _local_midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=BERLIN).astimezone(UTC)


def _dynamic(rng: random.Random, start: datetime, end: datetime, step: timedelta) -> PriceSchedule:
    periods = []
    at = start
    negative_from = rng.randrange(10, 14) if rng.random() < 0.35 else None
    hourly = 0.0
    while at < end:
        hour = at.astimezone(BERLIN).hour
        if at.minute == 0 or step == timedelta(hours=1):
            evening = 0.12 if 17 <= hour <= 21 else 0.0
            night = -0.08 if hour <= 5 else 0.0
            hourly = round(0.22 + evening + night + rng.gauss(0, 0.04), 2)
            if negative_from is not None and negative_from <= hour < negative_from + 3:
                hourly = round(-rng.uniform(0.0, 0.06), 2)
        price = hourly if rng.random() < 0.6 else round(hourly + rng.gauss(0, 0.02), 3)
        periods.append(PricePeriod(at, at + step, price))
        at += step
    return PriceSchedule(periods=tuple(periods))


def _time_of_use(rng: random.Random) -> PriceSchedule:
    cuts = sorted(rng.sample(range(1, 48), rng.randrange(1, 5)))
    edges = [0, *cuts, 48]
    levels = [0.09, 0.18, 0.25, 0.32, 0.09, -0.02]
    periods = []
    for lo, hi in pairwise(edges):
        to = "24:00" if hi == 48 else f"{hi // 2:02d}:{30 * (hi % 2):02d}"
        periods.append(
            TimeOfUsePeriod(f"{lo // 2:02d}:{30 * (lo % 2):02d}", to, rng.choice(levels))
        )
    # Some tariffs wrap over midnight: rotate so that the first period starts late.
    if rng.random() < 0.3 and len(periods) > 1:
        last = periods.pop()
        first = periods.pop(0)
        periods.insert(0, TimeOfUsePeriod(last.start, first.end, last.price))
    return PriceSchedule(time_of_use=tuple(periods))


def _forecast(rng: random.Random, start: datetime, end: datetime) -> tuple[LoadPeriod, ...]:
    step = rng.choice([QUARTER, timedelta(hours=1)])
    peak = rng.uniform(0, 9)
    periods = []
    at = start
    while at < end:
        local = at.astimezone(BERLIN)
        hour = local.hour + local.minute / 60
        house = rng.uniform(0.2, 1.5) + (2.0 if 18 <= hour <= 21 else 0.0)
        solar = max(0.0, peak * (1 - abs(hour - 13) / 5)) * rng.uniform(0.6, 1.0)
        periods.append(LoadPeriod(at, at + step, round(house - solar, 2)))
        at += step
    return tuple(periods)


def _scenario(rng: random.Random, index: int) -> Scenario:
    if rng.random() < 0.2:
        day = rng.choice(
            [date(2026, 3, 29), date(2026, 10, 25), date(2026, 3, 28), date(2026, 10, 24)]
        )
    else:
        day = date(2026, 1, 1) + timedelta(days=rng.randrange(365))
    midnight = _local_midnight(day)
    now = midnight + timedelta(minutes=rng.randrange(0, 24 * 60))
    if rng.random() < 0.3:
        now += timedelta(seconds=rng.randrange(1, 60))
    ready_by = now + timedelta(hours=rng.uniform(1.5, 22))
    ready_by = ready_by.replace(minute=ready_by.minute // 15 * 15, second=0, microsecond=0)
    grid_from = midnight - timedelta(hours=2)
    kind = rng.choice(["hourly", "quarter", "time_of_use"])
    prices_end = ready_by + timedelta(hours=2)
    if rng.random() < 0.1:
        prices_end = now + (ready_by - now) * rng.uniform(0.3, 0.9)
        prices_end = prices_end.replace(minute=0, second=0, microsecond=0)
    if kind == "time_of_use":
        prices = _time_of_use(rng)
    else:
        step = timedelta(hours=1) if kind == "hourly" else QUARTER
        prices = _dynamic(rng, grid_from, max(prices_end, grid_from + step), step)
    forecast: tuple[LoadPeriod, ...] = ()
    export = None
    if rng.random() < 0.5:
        forecast = _forecast(rng, grid_from, ready_by + timedelta(hours=1))
        if rng.random() < 0.4:
            export = PriceSchedule(
                periods=(PricePeriod(grid_from, ready_by, rng.choice([0.0, 0.08, 0.3])),)
            )
    ceiling = rng.choice([3.7, 7.4, 11.0, 22.0])
    hours = (ready_by - now).total_seconds() / 3600
    need = rng.choice(
        [
            rng.uniform(0.05, 1.5),  # less than the minimum power fills in one period
            rng.uniform(1, 75),  # often more than fits: an unmeetable goal
            rng.uniform(1, 0.6 * ceiling * hours),
            rng.uniform(1, 0.6 * ceiling * hours),
        ]
    )
    minimum = rng.choice([1.38, 1.4, 4.14])
    limit = None if rng.random() < 0.4 else round(rng.uniform(3, 25), 1)
    return Scenario(
        f"#{index} {kind} {day} now={now:%H:%M:%S}Z ready={ready_by:%d %H:%M}Z need={need:.2f} "
        f"ceil={ceiling} min={minimum} limit={limit} forecast={bool(forecast)} "
        f"export={export is not None}",
        now,
        ready_by,
        need,
        ChargerLimits(ceiling, minimum),
        limit,
        Tariff("EUR", prices, export),
        forecast,
    )


# --- the scenario read independently -----------------------------------------------------


def _tou_price(schedule: PriceSchedule, instant: datetime) -> float:
    local = instant.astimezone(BERLIN)
    minute = local.hour * 60 + local.minute
    for period in schedule.time_of_use:
        lo = int(period.start[:2]) * 60 + int(period.start[3:])
        hi = int(period.end[:2]) * 60 + int(period.end[3:])
        inside = lo <= minute < hi if lo < hi else (minute >= lo or minute < hi)
        if inside:
            return period.price
    raise AssertionError(f"no time-of-use period at {local}")


def _periodic(
    periods: tuple[PricePeriod, ...] | tuple[LoadPeriod, ...], instant: datetime
) -> float | None:
    for period in periods:
        if period.start <= instant < period.end:
            return period.price if isinstance(period, PricePeriod) else period.power_kw
    return None


def _segments(s: Scenario) -> list[Segment]:
    """15-minute grid segments over [now, ready_by) with a known price, merged where
    nothing changes."""
    grid = s.now.replace(minute=s.now.minute // 15 * 15, second=0, microsecond=0)
    segments: list[Segment] = []
    while grid < s.ready_by:
        start, end = max(grid, s.now), min(grid + QUARTER, s.ready_by)
        grid += QUARTER
        schedule = s.tariff.import_prices
        price = (
            _tou_price(schedule, start)
            if schedule.time_of_use
            else _periodic(schedule.periods, start)
        )
        if price is None or start >= end:
            continue
        load = _periodic(s.forecast, start) or 0.0
        export = 0.0
        if s.tariff.export_prices is not None:
            export = _periodic(s.tariff.export_prices.periods, start) or 0.0
        last = segments[-1] if segments else None
        if (
            last
            and last.end == start
            and (last.price, last.load, last.export) == (price, load, export)
        ):
            segments[-1] = Segment(last.start, end, price, load, export)
        else:
            segments.append(Segment(start, end, price, load, export))
    return segments


def _raw_capacity(s: Scenario, seg: Segment) -> float:
    return (
        s.charger.ceiling_kw if s.limit is None else min(s.charger.ceiling_kw, s.limit - seg.load)
    )


def _capacity(s: Scenario, seg: Segment) -> float:
    cap = _raw_capacity(s, seg)
    return cap if cap >= s.charger.minimum_kw and cap > 0 else 0.0


# --- the reference models ----------------------------------------------------------------


class _Model:
    """Columns and rows for one HiGHS model, passed in one call."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.integer: list[bool] = []
        self.rows: list[tuple[float, float, list[int], list[float]]] = []

    def var(self, lo: float, hi: float, cost: float = 0.0, integer: bool = False) -> int:
        self.lower.append(lo)
        self.upper.append(hi)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lower) - 1

    def row(self, lo: float, hi: float, terms: dict[int, float]) -> None:
        self.rows.append((lo, hi, list(terms), list(terms.values())))

    def solve(self) -> tuple[float, list[float]]:
        lp = highspy.HighsLp()
        lp.num_col_ = len(self.lower)
        lp.num_row_ = len(self.rows)
        lp.col_cost_ = np.array(self.cost)
        lp.col_lower_ = np.array(self.lower)
        lp.col_upper_ = np.array(self.upper)
        lp.row_lower_ = np.array([r[0] for r in self.rows])
        lp.row_upper_ = np.array([r[1] for r in self.rows])
        starts, index, value = [0], [], []
        for _, _, cols, vals in self.rows:
            index += cols
            value += vals
            starts.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(starts)
        lp.a_matrix_.index_ = np.array(index)
        lp.a_matrix_.value_ = np.array(value)
        if any(self.integer):
            lp.integrality_ = [
                highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                for i in self.integer
            ]
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("primal_feasibility_tolerance", 1e-9)
        h.setOptionValue("mip_feasibility_tolerance", 1e-9)
        h.passModel(lp)
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.getModelStatus()
        return h.getInfo().objective_function_value, list(h.getSolution().col_value)


def _charging_model(
    s: Scenario, segments: list[Segment], energy: float, *, price: bool
) -> tuple[_Model, list[tuple[int, int, int]], dict[int, float]]:
    """Energy, surplus energy and running hours per segment, with the energy sum fixed."""
    model = _Model()
    columns = []
    cost: dict[int, float] = {}
    for seg in segments:
        cap, hours = _capacity(s, seg), seg.hours
        surplus = min(max(0.0, -seg.load), cap)
        surplus_price = min(seg.export, seg.price)
        e = model.var(0, cap * hours, seg.price if price else 0.0)
        g = model.var(0, surplus * hours, -(seg.price - surplus_price) if price else 0.0)
        a = model.var(0, hours if cap > 0 else 0.0)
        cost[e], cost[g] = seg.price, -(seg.price - surplus_price)
        model.row(-np.inf, 0, {g: 1, e: -1})
        model.row(-np.inf, 0, {e: 1, a: -cap})
        model.row(0, np.inf, {e: 1, a: -s.charger.minimum_kw})
        model.row(-np.inf, 0, {g: 1, a: -surplus})
        columns.append((e, g, a))
    model.row(energy, energy, {e: 1.0 for e, _, _ in columns})
    return model, columns, cost


def optimum_cost(s: Scenario, segments: list[Segment], energy: float) -> float:
    model, _, _ = _charging_model(s, segments, energy, price=True)
    return model.solve()[0]


def fewest_blocks(s: Scenario, segments: list[Segment], energy: float, cost_cap: float) -> int:
    model, columns, cost = _charging_model(s, segments, energy, price=False)
    model.row(-np.inf, cost_cap, cost)
    previous_end: tuple[datetime, int] | None = None
    for seg, (_, _, a) in zip(segments, columns, strict=True):
        hours = seg.hours
        charges = model.var(0, 1, integer=True)
        touches_start = model.var(0, 1, integer=True)
        touches_end = model.var(0, 1, integer=True)
        throughout = model.var(0, 1, integer=True)
        starts_here = model.var(0, np.inf, 1.0)
        starts_inside = model.var(0, np.inf, 1.0)
        model.row(-np.inf, 0, {a: 1, charges: -hours})
        model.row(-np.inf, 0, {touches_start: 1, charges: -1})
        model.row(-np.inf, 0, {touches_end: 1, charges: -1})
        model.row(-np.inf, 0, {throughout: 1, touches_start: -1})
        model.row(-np.inf, 0, {throughout: 1, touches_end: -1})
        model.row(0, np.inf, {a: 1, throughout: -hours})
        before = {previous_end[1]: 1.0} if previous_end and previous_end[0] == seg.start else {}
        model.row(0, np.inf, {starts_here: 1, touches_start: -1, **before})
        model.row(0, np.inf, {starts_inside: 1, charges: -1, touches_start: 1})
        model.row(-1, np.inf, {starts_inside: 1, touches_start: -1, touches_end: -1, throughout: 1})
        previous_end = (seg.end, touches_end)
    return round(model.solve()[0])


# --- reading a plan ----------------------------------------------------------------------


def _blocks(slots: tuple[Slot, ...]) -> int:
    return sum(1 for i, slot in enumerate(slots) if i == 0 or slots[i - 1].end != slot.start)


def _check_slots(s: Scenario, segments: list[Segment], plan: Plan) -> tuple[float, float]:
    """Energy and cost of the plan's slots, recomputed from the physics; every slot within
    the horizon, the ceiling, the site limit and above the minimum."""
    energy = cost = 0.0
    for i, slot in enumerate(plan.slots):
        assert s.now <= slot.start < slot.end <= s.ready_by, (s.name, slot)
        assert i == 0 or plan.slots[i - 1].end <= slot.start, (s.name, slot)
        assert slot.power_kw >= s.charger.minimum_kw - 1e-9, (s.name, slot)
        covered = timedelta()
        for seg in segments:
            lo, hi = max(seg.start, slot.start), min(seg.end, slot.end)
            if lo >= hi:
                continue
            covered += hi - lo
            assert slot.power_kw <= _raw_capacity(s, seg) + 1e-9, (s.name, slot, seg)
            hours = (hi - lo).total_seconds() / 3600
            surplus = min(slot.power_kw, max(0.0, -seg.load)) * hours
            grid = slot.power_kw * hours - surplus
            energy += slot.power_kw * hours
            cost += grid * seg.price + surplus * min(seg.export, seg.price)
        assert covered == slot.end - slot.start, (s.name, slot, "slot outside the priced time")
    return energy, cost


def test_plans_are_optimal_and_have_the_fewest_blocks() -> None:
    print(f"\nplanning optimality: seed {SEED} (ENERGYHUB_PLANNING_SEED), {SCENARIOS} scenarios")
    rng = random.Random(SEED)
    began = time.perf_counter()
    worst_gap = planning = 0.0
    unmeetable = negative = several_blocks = no_prices = 0
    for index in range(SCENARIOS):
        s = _scenario(rng, index)
        segments = _segments(s)
        site = Site(BERLIN, s.limit, s.tariff, s.forecast)
        planning_began = time.perf_counter()
        plan = plan_charging(now=s.now, site=site, charger=s.charger, goal=Goal(s.need, s.ready_by))
        planning += time.perf_counter() - planning_began
        if not segments:  # the prices end before now: the planner charges now, and says so
            assert plan.explanation.startswith("No prices are known before"), s.name
            no_prices += 1
            continue
        most = sum(_capacity(s, seg) * seg.hours for seg in segments)
        target = min(s.need, most)
        energy, cost = _check_slots(s, segments, plan)
        assert abs(energy - target) <= 1e-6 * max(1.0, target), (s.name, energy, target)
        assert abs(plan.expected_energy_kwh - target) <= 1e-6 * max(1.0, target), s.name
        assert abs(plan.expected_cost - cost) <= 1e-6 * max(1.0, abs(cost)), (
            s.name,
            plan.expected_cost,
            cost,
        )
        if s.need > most + 0.05:  # a smaller shortfall is not worth a warning
            unmeetable += 1
            assert "cannot be met" in plan.explanation, (s.name, plan.explanation)
            assert plan.shortfall_kwh > 0
        if target <= 1e-9:
            continue
        best = optimum_cost(s, segments, target)
        negative += best < 0
        gap = cost - best
        assert gap <= max(RELATIVE_GAP * abs(best), ABSOLUTE_GAP), (s.name, cost, best)
        worst_gap = max(worst_gap, gap / max(abs(best), 1e-9) if abs(best) > 1e-6 else 0.0)
        fewest = fewest_blocks(s, segments, target, best + 1e-7 + 1e-9 * abs(best))
        blocks = _blocks(plan.slots)
        assert blocks <= fewest, (s.name, blocks, fewest, plan.slots)
        several_blocks += fewest > 1
    took = time.perf_counter() - began
    print(
        f"worst relative gap to the LP optimum {worst_gap:.2e}; {unmeetable} unmeetable goals; "
        f"{several_blocks} optimums needing several blocks; {no_prices} without prices; "
        f"{negative} scenarios with a negative optimum; {took:.1f} s in all, "
        f"{planning * 1000 / SCENARIOS:.2f} ms a plan"
    )
