"""A session's cost under a strategy: energy gained between looks, split by the surplus's
share, priced by the tariff over the time it was drawn; matched to its session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from energyhub.domain.planning.model import PriceSchedule, Tariff
from energyhub.domain.planning.prices import PricePeriod
from energyhub.domain.planning.slots import Slot
from energyhub.domain.planning.steering import schedule_for
from energyhub.domain.session_costs import (
    SessionLedger,
    close,
    cost_fields,
    count,
    matching,
    price_between,
)
from energyhub.domain.sessions import ChargingSession, Measurement, SessionStatus

T0 = datetime(2026, 10, 25, 0, 0, tzinfo=UTC)
UTCZ = ZoneInfo("UTC")


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


TARIFF = Tariff(
    "EUR",
    PriceSchedule((PricePeriod(at(0), at(2), 0.10), PricePeriod(at(2), at(4), 0.30))),
    PriceSchedule((PricePeriod(at(0), at(4), 0.05),)),
)


def look(ledger: SessionLedger | None, hours: float, kwh: float, **kw: object):  # type: ignore[no-untyped-def]
    args = {"plugged_in": True, "charger_kw": 10.0, "grid_kw": 10.0, "tariff": TARIFF, "tz": UTCZ}
    args.update(kw)
    return count(ledger, at=at(hours), session_kwh=kwh, **args)  # type: ignore[arg-type]


def test_grid_energy_costs_the_import_price_of_when_it_was_drawn() -> None:
    opened = look(None, 0, 0.0)
    assert opened.changed
    assert opened.ledger is not None
    drawn = schedule_for([Slot(at(1), at(3), 10.0, "grid", 0.2)], at(0))
    step = look(opened.ledger, 4, 20.0, drawn=drawn)
    assert step.ledger is not None
    # 10 kWh in the 0.10 hour, 10 kWh in the 0.30 hour
    assert step.ledger.cost == pytest.approx(4.0)
    assert (step.ledger.grid_kwh, step.ledger.surplus_kwh) == (20.0, 0.0)
    evenly = look(opened.ledger, 4, 20.0)  # no schedule: drawn evenly over the 4 hours
    assert evenly.ledger is not None
    assert evenly.ledger.cost == pytest.approx(4.0)


def test_the_surplus_share_is_priced_at_the_export_price() -> None:
    opened = look(None, 0, 0.0).ledger
    step = look(opened, 1, 10.0, grid_kw=2.5)  # the site imports 2.5 of the charger's 10 kW
    assert step.ledger is not None
    assert step.ledger.surplus_kwh == pytest.approx(7.5)
    assert step.ledger.cost == pytest.approx(2.5 * 0.10 + 7.5 * 0.05)
    exporting = look(opened, 1, 10.0, grid_kw=-3.0).ledger
    assert exporting is not None
    assert exporting.surplus_kwh == pytest.approx(10.0)
    unknown = look(opened, 1, 10.0, grid_kw=None).ledger
    assert unknown is not None
    assert unknown.grid_kwh == pytest.approx(10.0)


def test_small_gains_wait_and_a_new_session_or_an_unplug_closes_the_ledger() -> None:
    opened = look(None, 0, 5.0).ledger
    assert look(opened, 0.01, 5.02).changed is False
    restarted = look(opened, 1, 0.5)
    assert restarted.closed is not None
    assert restarted.closed.ended_at == at(1)
    assert restarted.ledger is not None
    assert restarted.ledger.energy_kwh == 0.5
    away = look(restarted.ledger, 2, 0.0, plugged_in=False)
    assert (away.ledger, away.changed) == (None, True)
    assert away.closed is not None
    assert look(None, 2, 0.0, plugged_in=False).closed is None
    assert close(None, at(3)) is None


def test_no_tariff_counts_energy_at_no_price_and_the_body_shows_no_cost() -> None:
    opened = look(None, 0, 0.0, tariff=None).ledger
    step = look(opened, 1, 5.0, tariff=None).ledger
    assert step is not None
    assert step.cost == 0.0
    assert cost_fields(step) == {"cost": None, "energyFromSurplus": {"value": 0.0, "unit": "kwh"}}
    assert cost_fields(None) == {"cost": None, "energyFromSurplus": None}
    assert price_between(TARIFF, UTCZ, at(5), at(6), export=False) == 0.0
    without_export = Tariff("EUR", TARIFF.import_prices)
    assert price_between(without_export, UTCZ, at(0), at(1), export=True) == 0.0


def test_ledgers_are_matched_to_the_session_they_lie_in_and_round_trip() -> None:
    first = SessionLedger(at(1), at(2), 4.0, 3.0, 1.0, 0.5, "EUR", at(2))
    second = SessionLedger(at(2.5), at(3), 2.0, 2.0, 0.0, 0.6, "EUR")
    other = SessionLedger(at(6), at(7), 1.0, 1.0, 0.0, 0.1, "EUR")
    session = ChargingSession(
        "ses_1", "c", SessionStatus.COMPLETED, at(1), at(4), 6.0, Measurement.METERED
    )
    found = matching([first, second, other], session)
    assert found is not None
    assert (found.grid_kwh, found.surplus_kwh, found.cost) == (5.0, 1.0, pytest.approx(1.1))
    assert cost_fields(found)["cost"] == {"value": 1.1, "currency": "EUR"}
    before = ChargingSession(
        "ses_0", "c", SessionStatus.COMPLETED, at(-3), at(-2), 6.0, Measurement.METERED
    )
    assert matching([first], before) is None
    assert SessionLedger.from_json(second.to_json()) == second
