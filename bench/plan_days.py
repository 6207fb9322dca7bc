"""Three real-looking days as the planner plans and explains them (Europe/Berlin): a
November weekday on day-ahead hourly prices, a sunny May Sunday with negative 15-minute
prices and a solar forecast, and the October night the clocks go back with a goal that
cannot be met. Not a measurement: a look at the plans and their sentences.

Run: `.venv/bin/python bench/plan_days.py`
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from energyhub.domain.planning import (
    ChargerLimits,
    Goal,
    LoadPeriod,
    Plan,
    PricePeriod,
    PriceSchedule,
    Site,
    Tariff,
    TimeOfUsePeriod,
    plan_charging,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOVEMBER = [0.262, 0.251, 0.244, 0.239, 0.241, 0.256, 0.301, 0.352, 0.371, 0.338, 0.312, 0.298]
NOVEMBER += [0.291, 0.296, 0.309, 0.334, 0.371, 0.412, 0.431, 0.398, 0.352, 0.318, 0.295, 0.276]


def hourly(day: datetime, prices: list[float]) -> tuple[PricePeriod, ...]:
    return tuple(
        PricePeriod(day + timedelta(hours=h), day + timedelta(hours=h + 1), p)
        for h, p in enumerate(prices)
    )


def show(title: str, plan: Plan) -> None:
    print(f"## {title}\n{plan.explanation}")
    for s in plan.slots:
        start, end = s.start.astimezone(BERLIN), s.end.astimezone(BERLIN)
        print(f"  {start:%a %H:%M}-{end:%H:%M} {s.power_kw:5.2f} kW {s.source:7} {s.price:.4f}")
    print(f"  {plan.expected_energy_kwh:.1f} kWh, {plan.expected_cost:.2f} {plan.currency}\n")


def main() -> None:
    day = datetime(2026, 11, 25, 23, 0, tzinfo=UTC)  # Thursday 00:00 in Berlin
    evening = [0.30] * 17 + [0.41, 0.43, 0.39, 0.35, 0.32, 0.29, 0.27]
    tariff = Tariff(
        "EUR", PriceSchedule(hourly(day - timedelta(hours=24), evening) + hourly(day, NOVEMBER))
    )
    show(
        "Wed 25 Nov 2026, 18:30: day-ahead hourly prices, 30 kWh by 07:00, 11 kW, 16 kW site",
        plan_charging(
            now=datetime(2026, 11, 25, 17, 30, tzinfo=UTC),
            site=Site(BERLIN, 16.0, tariff),
            charger=ChargerLimits(11.0, 1.4),
            goal=Goal(30.0, datetime(2026, 11, 26, 6, 0, tzinfo=UTC)),
        ),
    )
    morning = datetime(2026, 5, 10, 5, 0, tzinfo=UTC)  # 07:00 in Berlin
    prices, forecast = [], []
    for i in range(13 * 4):
        start, end = morning + timedelta(minutes=15 * i), morning + timedelta(minutes=15 * (i + 1))
        hour = 7 + i / 4
        prices.append(
            PricePeriod(start, end, round(0.22 - 0.30 * max(0.0, 1 - abs(hour - 13.5) / 3), 4))
        )
        forecast.append(
            LoadPeriod(start, end, round(0.4 - 6.0 * max(0.0, 1 - abs(hour - 13) / 5), 3))
        )
    show(
        "Sun 10 May 2026, 07:00: 15-minute prices below zero at noon, 6 kW of sun, 25 kWh by 18:00",
        plan_charging(
            now=morning,
            site=Site(BERLIN, None, Tariff("EUR", PriceSchedule(tuple(prices))), tuple(forecast)),
            charger=ChargerLimits(11.0, 1.4),
            goal=Goal(25.0, datetime(2026, 5, 10, 16, 0, tzinfo=UTC)),
        ),
    )
    periods = (
        TimeOfUsePeriod("00:00", "06:00", 0.12),
        TimeOfUsePeriod("06:00", "22:00", 0.34),
        TimeOfUsePeriod("22:00", "24:00", 0.20),
    )
    show(
        "Sat 24 Oct 2026, 22:00 (clocks go back at 03:00): time of use, 80 kWh by 06:00, 7.4 kW",
        plan_charging(
            now=datetime(2026, 10, 24, 20, 0, tzinfo=UTC),
            site=Site(BERLIN, None, Tariff("EUR", PriceSchedule((), periods))),
            charger=ChargerLimits(7.4, 1.4),
            goal=Goal(80.0, datetime(2026, 10, 25, 5, 0, tzinfo=UTC)),
        ),
    )


if __name__ == "__main__":
    main()
