"""The charging planner: from a site's prices, limits and forecast, a charger's limits and
a goal, the cheapest plan with the fewest charging blocks, and why, in one sentence.

Choices:
- Negative prices are used first, but only for the energy the goal needs: the planner does
  not know how much more the car could take, and an unasked-for full battery is not a
  saving the user chose. Without a goal, the cheapest third of the day is used anyway.
- A goal that cannot be met takes every usable period before the ready-by time.
- Re-planning is memoryless: the same prices and the energy still needed at a later `now`
  give the rest of the same plan (or one of equal cost)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from energyhub.domain.clock import ensure_utc
from energyhub.domain.planning import explanation
from energyhub.domain.planning.blocks import Window, allocate
from energyhub.domain.planning.intervals import Interval, build_intervals
from energyhub.domain.planning.model import (
    ChargerLimits,
    Goal,
    Plan,
    PlanStatus,
    Site,
    Tariff,
)
from energyhub.domain.planning.prepared import PreparedPrices, export_over, import_over
from energyhub.domain.planning.prices import PricePeriod, Timeline
from energyhub.domain.planning.slots import Slot, Source, append_merged, slots_for

DAY = timedelta(hours=24)
NO_GOAL_SHARE = DAY / 3
DONE_KWH = 0.001


def plan_charging(
    *,
    now: datetime,
    site: Site,
    charger: ChargerLimits,
    goal: Goal | None,
    prices: PreparedPrices | None = None,
) -> Plan:
    """The plan for one charger from `now` on. `prices`: the site's tariff expanded once
    for many plans (`prepare_prices`); the same plan as without, only cheaper to make."""
    now = ensure_utc(now)
    tz = site.timezone
    if goal is not None and goal.energy_kwh <= DONE_KWH:
        text = explanation.for_goal(
            [],
            now=now,
            tz=tz,
            currency="",
            needed=0.0,
            planned=0.0,
            ready_by=ensure_utc(goal.ready_by),
        )
        currency = site.tariff.currency if site.tariff else None
        return Plan(PlanStatus.DONE, (), 0.0, 0.0, currency, text)
    if site.tariff is None:
        return _charge_now(now, site, charger, goal, "No tariff is set", prices)
    if goal is None:
        return _cheapest_third(now, site, charger, site.tariff, prices)
    ready_by = ensure_utc(goal.ready_by)
    if ready_by <= now:
        return _charge_now(
            now,
            site,
            charger,
            goal,
            f"The ready-by time {explanation.clock(ready_by, tz)} has passed",
            prices,
        )
    shared = (
        prices if prices is not None and prices.covers(site.tariff, tz, now, ready_by) else None
    )
    periods = None if shared is not None else import_over(site.tariff, tz, now, ready_by, None)
    if not (periods if shared is None else shared.import_prices.any_over(now, ready_by)):
        return _charge_now(
            now,
            site,
            charger,
            goal,
            f"No prices are known before {explanation.clock(ready_by, tz)}",
            prices,
        )
    window = _shared_window(shared, site, charger, now, ready_by)
    if window is None:
        window = Window.of(_intervals(periods or [], now, ready_by, site, charger, prices))
    intervals = window.intervals
    allocation = allocate(window, goal.energy_kwh, charger.minimum_kw)
    slots = slots_for(intervals, allocation)
    planned = sum(allocation.energy)
    text = explanation.for_goal(
        slots,
        now=now,
        tz=tz,
        currency=site.tariff.currency,
        needed=goal.energy_kwh,
        planned=planned,
        ready_by=ready_by,
    )
    return _plan(
        _status(slots, now),
        slots,
        intervals,
        allocation.energy,
        site.tariff.currency,
        text,
        max(0.0, goal.energy_kwh - planned),
    )


def _intervals(
    prices: Sequence[PricePeriod],
    start: datetime,
    end: datetime,
    site: Site,
    charger: ChargerLimits,
    prepared: PreparedPrices | None,
) -> list[Interval]:
    tariff = site.tariff
    export = None
    export_periods = (
        None if tariff is None else export_over(tariff, site.timezone, start, end, prepared)
    )
    if export_periods is not None:
        export = Timeline([(p.start, p.end, p.price) for p in export_periods])
    load = None
    if site.forecast:
        load = Timeline(
            [(ensure_utc(p.start), ensure_utc(p.end), p.power_kw) for p in site.forecast]
        )
    return build_intervals(
        prices,
        export=export,
        load=load,
        ceiling_kw=charger.ceiling_kw,
        minimum_kw=charger.minimum_kw,
        grid_limit_kw=site.grid_limit_kw,
    )


def _shared_window(
    prepared: PreparedPrices | None,
    site: Site,
    charger: ChargerLimits,
    start: datetime,
    end: datetime,
    part: tuple[str, Callable[[list[Interval]], Window]] | None = None,
) -> Window | None:
    """The intervals over [start, end) from prices prepared for many plans, built once per
    site and charger limits; None where the preparation does not cover the window."""
    if prepared is None or site.tariff is None:
        return None
    if not prepared.covers(site.tariff, site.timezone, start, end):
        return None
    whole = prepared
    return whole.window(
        site,
        charger,
        start,
        end,
        lambda: _intervals(
            whole.import_prices.over(whole.start, whole.end),
            whole.start,
            whole.end,
            site,
            charger,
            whole,
        ),
        part,
    )


def _status(slots: Sequence[Slot], now: datetime) -> PlanStatus:
    if slots and slots[0].start <= now:
        return PlanStatus.CHARGING
    return PlanStatus.WAITING


def _plan(
    status: PlanStatus,
    slots: Sequence[Slot],
    intervals: Sequence[Interval],
    energy: Sequence[float],
    currency: str | None,
    text: str,
    shortfall: float = 0.0,
) -> Plan:
    costs: list[float] = []
    surpluses: list[float] = []
    for iv, e in zip(intervals, energy, strict=True):
        if e:  # most are empty; Interval.cost and Interval.surplus_energy, inline
            tier1_kw = iv.tier1_kw
            first = min(e, tier1_kw * iv.hours)
            costs.append(first * iv.tier1_price + (e - first) * iv.import_price)
            surpluses.append(0.0 if tier1_kw <= 0 else first * iv.surplus_kw / tier1_kw)
    cost = sum(costs, 0.0)
    surplus = sum(surpluses, 0.0)
    return Plan(status, tuple(slots), sum(energy), cost, currency, text, shortfall, surplus)


def _charge_now(
    now: datetime,
    site: Site,
    charger: ChargerLimits,
    goal: Goal | None,
    reason: str,
    prepared: PreparedPrices | None,
) -> Plan:
    """Full power from now (within the site limit) until the goal's energy is in, or for
    the next 24 hours without a goal; priced by the tariff where it is known."""
    end = now + DAY
    tariff = site.tariff
    known = import_over(tariff, site.timezone, now, end, prepared) if tariff else []
    intervals = _intervals(_fill_gaps(known, now, end), now, end, site, charger, prepared)
    needed = goal.energy_kwh if goal is not None else None
    left = needed if needed is not None else float("inf")
    energy: list[float] = []
    slots: list[Slot] = []
    for interval in intervals:
        take = min(interval.capacity_kwh, left)
        energy.append(take)
        left -= take
        if take > 0:
            power = interval.capacity_kw
            source: Source = "surplus" if interval.surplus_kw >= power else "grid"
            finish = min(interval.start + timedelta(hours=take / power), interval.end)
            append_merged(
                slots, Slot(interval.start, finish, power, source, interval.cost(take) / take)
            )
    text = explanation.for_charge_now(reason, needed=needed)
    shortfall = max(0.0, left) if needed is not None else 0.0
    currency = site.tariff.currency if site.tariff else None
    return _plan(PlanStatus.CHARGING, slots, intervals, energy, currency, text, shortfall)


def _fill_gaps(prices: Sequence[PricePeriod], start: datetime, end: datetime) -> list[PricePeriod]:
    """The periods, with price 0 wherever none is known, covering [start, end)."""
    filled: list[PricePeriod] = []
    cursor = start
    for period in prices:
        if period.start > cursor:
            filled.append(PricePeriod(cursor, period.start, 0.0))
        filled.append(period)
        cursor = period.end
    if cursor < end:
        filled.append(PricePeriod(cursor, end, 0.0))
    return filled


def _cheapest_third(
    now: datetime,
    site: Site,
    charger: ChargerLimits,
    tariff: Tariff,
    prepared: PreparedPrices | None,
) -> Plan:
    """No goal: full power in the cheapest periods that together make a third of the next
    24 hours (whole periods; the last one may take the share past 8 hours). Among periods
    of equal price, one next to a period already chosen goes first, then the earliest."""
    end = now + DAY

    def chosen() -> list[PricePeriod]:
        return _cheapest_share(import_over(tariff, site.timezone, now, end, prepared))

    def keep_chosen(whole: list[Interval]) -> Window:
        # each interval lies in one import period: keep those in the chosen ones
        spans = [(p.start, p.end) for p in chosen()]
        return Window.of([iv for iv in whole if _within(iv.start, spans)])

    window = _shared_window(prepared, site, charger, now, end, ("no goal", keep_chosen))
    if window is None:
        window = Window.of(_intervals(chosen(), now, end, site, charger, prepared))
    intervals = window.intervals
    allocation = allocate(window, float("inf"), charger.minimum_kw)
    slots = slots_for(intervals, allocation)
    text = explanation.for_no_goal(slots, now=now, tz=site.timezone, currency=tariff.currency)
    return _plan(PlanStatus.NO_GOAL, slots, intervals, allocation.energy, tariff.currency, text)


def _cheapest_share(periods: Sequence[PricePeriod]) -> list[PricePeriod]:
    """The cheapest periods that together make a third of the day, in time order: price by
    price, and among periods of one price the next to a chosen one first, then the
    earliest."""
    by_price: dict[float, list[PricePeriod]] = {}
    for period in periods:  # in time order
        by_price.setdefault(period.price, []).append(period)
    chosen: list[PricePeriod] = []
    edges: set[datetime] = set()
    hours = timedelta()
    for price in sorted(by_price):
        candidates = by_price[price]
        while candidates and hours < NO_GOAL_SHARE:
            pick = next(
                (p for p in candidates if p.start in edges or p.end in edges), candidates[0]
            )
            candidates.remove(pick)
            chosen.append(pick)
            edges.update((pick.start, pick.end))
            hours += pick.end - pick.start
    chosen.sort(key=lambda p: p.start)
    return chosen


def _within(instant: datetime, spans: Sequence[tuple[datetime, datetime]]) -> bool:
    """Whether `instant` lies in one of the time-ordered spans."""
    index = bisect_right(spans, (instant, _LATEST)) - 1
    return index >= 0 and spans[index][0] <= instant < spans[index][1]


_LATEST = datetime.max.replace(tzinfo=UTC)
