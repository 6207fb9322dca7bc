"""Strategies at fleet scale, in one process: re-planning every charger after a price update,
and the surplus controller over a fleet fed a reading every 10 s.

1. Re-planning: 10,000 chargers over 500 sites (20 each) sharing 5 dynamic tariffs (three
   hourly, two at 15 minutes, each with some negative hours), as after the day-ahead
   auction: `now` is 13:00 UTC and the prices run to the end of the next day. Each charger
   has a ceiling (3.7 to 22 kW), its site an import limit (or none) and, on one site in
   five, a solar and house-load forecast with an export tariff; nine goals in ten ask for 5
   to 60 kWh by 06:00-09:00 the next morning, the rest have no goal (the cheapest third of
   the day). Every charger is planned once with `plan_charging`. When the planner offers
   `prepare_prices` (prices expanded once per tariff and horizon, shared by every plan),
   the bench uses it and counts its cost in the total; otherwise each plan expands its own
   prices (the older API). Target: the 10,000 plans in under 2 s.
2. Surplus loop: 1,000 `SurplusController`s, one reading each every 10 s for an hour of
   simulated time (a noisy solar curve that crosses the chargers' minimums, so the start
   and stop delays and phase switching run). CPU % of a core = CPU time / simulated time.
   Target: under 10 %.

Run: `.venv/bin/python bench/strategies.py [--chargers 10000] [--sites 500] [--rounds 3]
[--surplus-chargers 1000] [--surplus-minutes 60] [--profile]`. Prints the median of the
rounds in CPU time of the process (a shared machine disturbs it less than the wall time,
printed too); exits 0 whether the targets pass or miss.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain import planning
from energyhub.domain.planning import (
    ChargerLimits,
    Goal,
    LoadPeriod,
    PricePeriod,
    PriceSchedule,
    Site,
    Tariff,
    plan_charging,
)
from energyhub.domain.planning.surplus import SurplusController, SurplusSettings, surplus_kw

BERLIN = ZoneInfo("Europe/Berlin")
DAY_AHEAD = datetime(2026, 11, 25, tzinfo=UTC)  # prices for today and tomorrow
UPDATE_AT = DAY_AHEAD + timedelta(hours=13)  # the auction's results arrive
HORIZON = timedelta(hours=24)  # the longest a plan looks ahead (no goal: the next 24 h)
CEILINGS = (3.7, 7.4, 11.0, 11.0, 22.0)
GRID_LIMITS = (None, 17.0, 24.0, 35.0, 43.0)


@dataclass(frozen=True, slots=True)
class Charger:
    site: int
    limits: ChargerLimits
    goal: Goal | None


def _day_curve(hour: float, rng: random.Random, negative: bool) -> float:
    """A day-ahead price (EUR/kWh): cheap at night, a midday dip, evening peak."""
    night = 0.18 + 0.06 * math.cos(math.pi * (hour - 3) / 12)
    midday = -0.12 * math.exp(-(((hour - 13) / 2.5) ** 2))
    evening = 0.10 * math.exp(-(((hour - 19) / 2.0) ** 2))
    price = night + midday + evening + rng.gauss(0, 0.015)
    if negative and 11.5 <= hour < 14.5:
        price -= 0.12
    return round(price, 4)


def tariffs() -> list[Tariff]:
    """Three hourly and two 15-minute dynamic tariffs over two days, some negative hours."""
    made = []
    for index, minutes in enumerate((60, 60, 60, 15, 15)):
        rng = random.Random(index)
        step = timedelta(minutes=minutes)
        periods = []
        at = DAY_AHEAD
        while at < DAY_AHEAD + timedelta(days=2):
            hour = (at - DAY_AHEAD).total_seconds() / 3600 % 24
            periods.append(PricePeriod(at, at + step, _day_curve(hour, rng, index % 2 == 0)))
            at += step
        export = PriceSchedule(
            periods=(PricePeriod(DAY_AHEAD, DAY_AHEAD + timedelta(days=2), 0.08),)
        )
        made.append(Tariff("EUR", PriceSchedule(periods=tuple(periods)), export))
    return made


def forecast(rng: random.Random) -> tuple[LoadPeriod, ...]:
    """An hourly site forecast: house load, and solar around noon (negative: export)."""
    peak = rng.uniform(4, 12)
    periods = []
    for h in range(48):
        hour = h % 24
        solar = max(0.0, peak * math.sin(math.pi * (hour - 7) / 10)) if 7 <= hour < 17 else 0.0
        load = 0.4 + (1.5 if 17 <= hour < 22 else 0.0)
        start = DAY_AHEAD + timedelta(hours=h)
        periods.append(LoadPeriod(start, start + timedelta(hours=1), round(load - solar, 3)))
    return tuple(periods)


def fleet(chargers: int, sites: int) -> tuple[list[Site], list[Charger]]:
    rng = random.Random(14)
    with_export = tariffs()
    import_only = [Tariff(t.currency, t.import_prices) for t in with_export]
    made_sites = []
    for index in range(sites):
        solar = (index // 5) % 5 == 0  # one site in five, on every tariff
        shared = with_export if solar else import_only
        made_sites.append(
            Site(
                BERLIN,
                grid_limit_kw=GRID_LIMITS[index % len(GRID_LIMITS)],
                tariff=shared[index % len(shared)],
                forecast=forecast(rng) if solar else (),
            )
        )
    made = []
    for index in range(chargers):
        goal = None
        if rng.random() < 0.9:
            ready = DAY_AHEAD + timedelta(days=1, hours=5, minutes=15 * rng.randrange(13))
            goal = Goal(round(rng.uniform(5, 60), 1), ready)
        made.append(Charger(index % sites, ChargerLimits(rng.choice(CEILINGS)), goal))
    return made_sites, made


def replan(sites: list[Site], chargers: list[Charger]) -> tuple[float, float, str]:
    """Plans every charger once; returns the wall and CPU seconds it took and which API
    it used."""
    prepare: Callable[..., object] | None = getattr(planning, "prepare_prices", None)
    began, cpu = time.perf_counter(), time.process_time()
    if prepare is None:
        for c in chargers:
            plan_charging(now=UPDATE_AT, site=sites[c.site], charger=c.limits, goal=c.goal)
        how = "per plan (no prepare_prices)"
        return time.perf_counter() - began, time.process_time() - cpu, how
    prepared: dict[int, Any] = {}
    for site in sites:
        tariff = site.tariff
        if tariff is not None and id(tariff) not in prepared:
            prepared[id(tariff)] = prepare(tariff, site.timezone, UPDATE_AT, UPDATE_AT + HORIZON)
    for c in chargers:
        site = sites[c.site]
        shared = prepared[id(site.tariff)] if site.tariff else None
        plan_charging(now=UPDATE_AT, site=site, charger=c.limits, goal=c.goal, prices=shared)
    how = f"shared per tariff ({len(prepared)} expansions)"
    return time.perf_counter() - began, time.process_time() - cpu, how


def surplus_loop(chargers: int, minutes: int) -> tuple[float, float, int]:
    """CPU seconds for `chargers` controllers fed a reading every 10 s for `minutes`;
    returns (cpu seconds, simulated seconds, limit changes sent)."""
    rng = random.Random(7)
    controllers = []
    for index in range(chargers):
        phases = (1, 3) if index % 3 == 0 else (3,)
        mode = "surplus_first" if index % 4 == 0 else "surplus_only"
        settings = SurplusSettings(ceiling_kw=rng.choice(CEILINGS), phases=phases)
        controllers.append(SurplusController(settings, mode=mode))  # type: ignore[arg-type]
    peaks = [rng.uniform(2, 10) for _ in range(chargers)]
    drawn = [0.0] * chargers
    start = DAY_AHEAD + timedelta(hours=11)
    steps = minutes * 6
    noise = [rng.gauss(0, 1.2) for _ in range(997)]
    changes = 0
    began = time.process_time()
    for step in range(steps):
        at = start + timedelta(seconds=10 * step)
        shade = 0.5 + 0.5 * math.sin(step / 40)  # clouds passing
        for index, controller in enumerate(controllers):
            export = peaks[index] * shade + noise[(step * 31 + index) % 997]
            grid = drawn[index] + 0.5 - export  # house load 0.5 kW
            decision = controller.step(at, surplus_kw(grid, drawn[index]))
            if decision.changed:
                changes += 1
                drawn[index] = decision.limit_kw
    return time.process_time() - began, steps * 10.0, changes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chargers", type=int, default=10_000)
    parser.add_argument("--sites", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--surplus-chargers", type=int, default=1_000)
    parser.add_argument("--surplus-minutes", type=int, default=60)
    parser.add_argument("--profile", action="store_true", help="cProfile one re-planning round")
    args = parser.parse_args()

    sites, chargers = fleet(args.chargers, args.sites)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(replan, sites, chargers)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    hourly = [c for c in chargers if sites[c.site].tariff is not None and c.site % 5 < 3]
    quarter = [c for c in chargers if c.site % 5 >= 3]
    print(f"re-planning {len(chargers)} chargers over {len(sites)} sites, 5 tariffs")
    walls: list[float] = []
    cpus: list[float] = []
    per_kind: dict[str, list[float]] = {"hourly": [], "15-minute": []}
    how = ""
    for _ in range(args.rounds):
        wall, cpu, how = replan(sites, chargers)
        walls.append(wall)
        cpus.append(cpu)
        for name, group in (("hourly", hourly), ("15-minute", quarter)):
            per_kind[name].append(replan(sites, group)[1] / len(group))
    total, wall = statistics.median(cpus), statistics.median(walls)
    print(f"  prices: {how}")
    for name, values in per_kind.items():
        print(f"  {name:9} prices: {statistics.median(values) * 1000:.3f} ms CPU per plan")
    verdict = "PASS" if total < 2.0 else "MISS"
    print(
        f"  total {total:.3f} s CPU (rounds: {', '.join(f'{t:.3f}' for t in cpus)}; "
        f"wall {wall:.3f} s), {len(chargers) / total:,.0f} plans/s  [{verdict}: < 2 s]"
    )
    cpu, simulated, changes = surplus_loop(args.surplus_chargers, args.surplus_minutes)
    share = cpu / simulated * 100
    verdict = "PASS" if share < 10 else "MISS"
    print(
        f"surplus loop: {args.surplus_chargers} chargers, a reading each every 10 s for "
        f"{simulated / 60:.0f} min: {cpu:.2f} s CPU, {share:.2f} % of a core, "
        f"{changes} limit changes  [{verdict}: < 10 %]"
    )


if __name__ == "__main__":
    main()
