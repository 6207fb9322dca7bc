"""The strategy runner's batched writes (one statement for all chargers of a look), on
SQLite and PostgreSQL: `save_many` inserts new runs and replaces every column of existing
ones, `save_ledgers` changes only the ledger, and a run read back equals what was saved."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from energyhub.domain.planning.steering import constant_schedule
from energyhub.domain.session_costs import SessionLedger
from energyhub.domain.strategy_runs import StrategyRun
from tests.support import Api

AT = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _run(device_id: str, strategy: str, limit_kw: float, minutes: int) -> StrategyRun:
    at = AT + timedelta(minutes=minutes)
    return StrategyRun(
        device_id=device_id,
        strategy=strategy,
        inputs=f"inputs-{strategy}-{minutes}",
        plan={"status": "charging", "slots": [], "explanation": f"at {limit_kw} kW"},
        schedule=constant_schedule(limit_kw, at),
        steering={"state": "applied", "message": None, "at": at.isoformat()},
        next_plan_at=at + timedelta(minutes=15),
        updated_at=at,
        ledger=SessionLedger(at, at, 1.5, grid_kwh=1.0, surplus_kwh=0.5, cost=0.3, currency="EUR"),
    )


async def test_runs_saved_together_read_back_as_saved(api: Api) -> None:
    caller = await api.caller()
    first = (await api.sandbox_device(caller, "ev-charger", user_id="u1"))["id"]
    second = (await api.sandbox_device(caller, "ev-charger", user_id="u2"))["id"]
    async with api.container.uow() as tx:
        await tx.strategy_runs.save(_run(first, "auto.charge_tariff", 7.4, 0))

    # one existing run (every column replaced) and one new run, in one call
    changed = _run(first, "auto.charge_surplus_only", 3.2, 5)
    changed = replace(changed, steering=None, ledger=None)
    new = _run(second, "auto.charge_surplus_first", 11.0, 5)
    async with api.container.uow() as tx:
        await tx.strategy_runs.save_many([changed, new])
    async with api.container.uow() as tx:
        assert await tx.strategy_runs.get(first) == changed
        assert await tx.strategy_runs.get(second) == new

    # only the ledgers move on: the rest of each run stays as it was
    later = SessionLedger(AT, AT + timedelta(minutes=6), 2.0, grid_kwh=2.0, currency="EUR")
    async with api.container.uow() as tx:
        await tx.strategy_runs.save_ledgers([(first, later), (second, None)])
    async with api.container.uow() as tx:
        assert await tx.strategy_runs.get(first) == replace(changed, ledger=later)
        assert await tx.strategy_runs.get(second) == replace(new, ledger=None)

    async with api.container.uow() as tx:  # nothing to write: no statement, no error
        await tx.strategy_runs.save_many([])
        await tx.strategy_runs.save_ledgers([])
