"""What a session charged under a strategy cost, and how much came from the site's surplus.

The strategy runner keeps one ledger per charger while a strategy runs: at each look it
takes the energy the session gained since the last one and splits it by the share of the
charger's draw the surplus covered then, priced at the mean price since the last one
(weighted by the schedule the charger followed) (surplus: the site's export plus the charger's own
draw). Grid energy costs the import price in force; surplus energy costs what exporting it
would have earned (the export price; 0 without an export tariff), as the plan counts it.
A ledger closes when the session does (the car is unplugged, the session's energy starts
again, or the strategy ends) and is then matched to the session it lies in."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from energyhub.domain.planning.model import Tariff
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.sessions import ChargingSession

WRITE_STEP_KWH = 0.05
"""Energy a ledger gathers before it is written again (the split is taken then)."""
MATCH_SLACK = timedelta(minutes=1)
_SAME_SESSION_DROP_KWH = 0.001


@dataclass(frozen=True, slots=True)
class SessionLedger:
    started_at: datetime
    updated_at: datetime
    energy_kwh: float
    """The session's energy when the ledger last counted."""
    grid_kwh: float = 0.0
    surplus_kwh: float = 0.0
    cost: float = 0.0
    currency: str | None = None
    ended_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "startedAt": self.started_at.isoformat(),
            "updatedAt": self.updated_at.isoformat(),
            "energyKwh": self.energy_kwh,
            "gridKwh": self.grid_kwh,
            "surplusKwh": self.surplus_kwh,
            "cost": self.cost,
            "currency": self.currency,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionLedger:
        return cls(
            datetime.fromisoformat(data["startedAt"]),
            datetime.fromisoformat(data["updatedAt"]),
            float(data["energyKwh"]),
            float(data.get("gridKwh", 0.0)),
            float(data.get("surplusKwh", 0.0)),
            float(data.get("cost", 0.0)),
            data.get("currency"),
        )


@dataclass(frozen=True, slots=True)
class LedgerStep:
    ledger: SessionLedger | None
    """The open ledger after this look (None: no session)."""
    closed: SessionLedger | None = None
    """A ledger this look closed, to keep with the sessions."""
    changed: bool = False
    """The open ledger changed enough to be written."""


def price_between(
    tariff: Tariff | None,
    tz: ZoneInfo,
    start: datetime,
    end: datetime,
    export: bool,
    drawn: ChargingSchedule | None = None,
) -> float:
    """The tariff's mean price per kWh over [start, end) (0 where no price is known),
    weighted by the energy the charger's schedule let it draw in each price period (by
    time where the schedule drew nothing): what the energy gained over that time cost."""
    if tariff is None:
        return 0.0
    schedule = tariff.export_prices if export else tariff.import_prices
    if schedule is None:
        return 0.0
    end = max(end, start + timedelta(seconds=1))
    periods = schedule.over(start, end, tz)
    if drawn is not None:
        weights = [drawn.energy_kwh(max(p.start, start), min(p.end, end)) for p in periods]
        if sum(weights) > 0:
            return sum(p.price * w for p, w in zip(periods, weights, strict=True)) / sum(weights)
    total = (end - start).total_seconds()
    return sum(p.price * (p.end - p.start).total_seconds() for p in periods) / total


def count(
    ledger: SessionLedger | None,
    *,
    at: datetime,
    plugged_in: bool,
    session_kwh: float,
    charger_kw: float,
    grid_kw: float | None,
    tariff: Tariff | None,
    tz: ZoneInfo,
    drawn: ChargingSchedule | None = None,
) -> LedgerStep:
    """One look at a charger under a strategy: the ledger after it."""
    if not plugged_in:
        return LedgerStep(None, close(ledger, at), ledger is not None)
    if ledger is None or session_kwh < ledger.energy_kwh - _SAME_SESSION_DROP_KWH:
        opened = SessionLedger(at, at, session_kwh, currency=tariff.currency if tariff else None)
        return LedgerStep(opened, close(ledger, at), True)
    gained = session_kwh - ledger.energy_kwh
    if gained < WRITE_STEP_KWH:
        return LedgerStep(ledger)
    share = 0.0
    if grid_kw is not None and charger_kw > 0:
        share = min(1.0, max(0.0, (charger_kw - grid_kw) / charger_kw))
    surplus, grid = gained * share, gained * (1 - share)
    since = ledger.updated_at
    cost = grid * price_between(tariff, tz, since, at, False, drawn) + surplus * price_between(
        tariff, tz, since, at, True, drawn
    )
    counted = replace(
        ledger,
        updated_at=at,
        energy_kwh=session_kwh,
        grid_kwh=ledger.grid_kwh + grid,
        surplus_kwh=ledger.surplus_kwh + surplus,
        cost=ledger.cost + cost,
        currency=ledger.currency or (tariff.currency if tariff else None),
    )
    return LedgerStep(counted, None, True)


def close(ledger: SessionLedger | None, at: datetime) -> SessionLedger | None:
    """The ledger as kept when its session or its strategy ends."""
    if ledger is None:
        return None
    return replace(ledger, ended_at=at)


def matching(ledgers: list[SessionLedger], session: ChargingSession) -> SessionLedger | None:
    """The ledgers that lie in a session, summed (None: the session ran no strategy)."""
    start = session.started_at - MATCH_SLACK
    end = session.ended_at
    found = [
        ledger
        for ledger in ledgers
        if ledger.started_at >= start and (end is None or ledger.started_at <= end)
    ]
    if not found:
        return None
    first = found[0]
    return replace(
        first,
        grid_kwh=sum(x.grid_kwh for x in found),
        surplus_kwh=sum(x.surplus_kwh for x in found),
        cost=sum(x.cost for x in found),
        currency=next((x.currency for x in found if x.currency), None),
    )


def cost_fields(ledger: SessionLedger | None) -> dict[str, Any]:
    """A session body's `cost` and `energyFromSurplus` (null without a strategy; the cost
    is null without a tariff)."""
    if ledger is None:
        return {"cost": None, "energyFromSurplus": None}
    return {
        "cost": None
        if ledger.currency is None
        else {"value": round(ledger.cost, 4), "currency": ledger.currency},
        "energyFromSurplus": {"value": round(ledger.surplus_kwh, 3), "unit": "kwh"},
    }
