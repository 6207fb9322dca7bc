"""Strategy runs in SQL: one row per charger a strategy runs on, written only by the
strategy runner."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, delete, select, tuple_
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from energyhub.domain.accounts import Environment
from energyhub.domain.devices import Device
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.session_costs import SessionLedger
from energyhub.domain.strategy_runs import StrategyRun
from energyhub.persistence.devices import DEVICE_COLUMNS, device_from_row
from energyhub.persistence.sites import site_from_row
from energyhub.persistence.tables import devices, session_costs, sites, strategy_runs
from energyhub.persistence.types import aware
from energyhub.ports.storage import StoredSite

_RUN_COLUMNS = [c.label(f"run_{c.name}") for c in strategy_runs.c]


class SqlStrategyRunRepository:
    def __init__(self, connection: AsyncConnection) -> None:
        self._c = connection

    async def running(self) -> list[tuple[Device, StrategyRun | None]]:
        """Every charger whose last completed push started a strategy, with its run."""
        query = (  # capabilities as text, parsed once per distinct document
            select(*DEVICE_COLUMNS, *_RUN_COLUMNS)
            .select_from(
                devices.outerjoin(strategy_runs, strategy_runs.c.device_id == devices.c.id)
            )
            .where(devices.c.mode_command.in_(STRATEGIES))
            .order_by(devices.c.pk)
        )
        rows = (await self._c.execute(query)).mappings().all()
        return [(device_from_row(row), _run(row)) for row in rows]

    async def ended(self) -> list[StrategyRun]:
        """Runs whose charger's strategy has ended (another command completed since)."""
        query = (
            select(*_RUN_COLUMNS)
            .select_from(strategy_runs.join(devices, devices.c.id == strategy_runs.c.device_id))
            .where(devices.c.mode_command.is_(None) | devices.c.mode_command.not_in(STRATEGIES))
        )
        rows = (await self._c.execute(query)).mappings().all()
        return [run for row in rows if (run := _run(row)) is not None]

    async def get(self, device_id: str) -> StrategyRun | None:
        query = select(*_RUN_COLUMNS).where(strategy_runs.c.device_id == device_id)
        row = (await self._c.execute(query)).mappings().first()
        return None if row is None else _run(row)

    async def sites_of(
        self, owners: Sequence[tuple[str, Environment, str]]
    ) -> dict[tuple[str, Environment, str], StoredSite]:
        """The sites of these (account, environment, user) owners that have one."""
        if not owners:
            return {}
        keys = [(a, e.value, u) for a, e, u in set(owners)]
        found: dict[tuple[str, Environment, str], StoredSite] = {}
        for start in range(0, len(keys), 500):
            query = select(sites).where(
                tuple_(sites.c.account_id, sites.c.environment, sites.c.user_id).in_(
                    keys[start : start + 500]
                )
            )
            for row in (await self._c.execute(query)).all():
                site = site_from_row(row)
                found[(site.account_id, site.environment, site.user_id)] = site
        return found

    async def save(self, run: StrategyRun) -> None:
        insert = postgresql_insert if self._c.dialect.name == "postgresql" else sqlite_insert
        values = _values(run)
        await self._c.execute(
            insert(strategy_runs)
            .values(device_id=run.device_id, **values)
            .on_conflict_do_update(index_elements=["device_id"], set_=values)
        )

    async def save_many(self, runs: Sequence[StrategyRun]) -> None:
        """`save` for many runs, in one statement executed for each."""
        if not runs:
            return
        insert = postgresql_insert if self._c.dialect.name == "postgresql" else sqlite_insert
        statement = insert(strategy_runs)
        statement = statement.on_conflict_do_update(
            index_elements=["device_id"],
            set_={name: statement.excluded[name] for name in _VALUE_COLUMNS},
        )
        await self._c.execute(
            statement, [{"device_id": run.device_id, **_values(run)} for run in runs]
        )

    async def save_ledgers(self, ledgers: Sequence[tuple[str, SessionLedger | None]]) -> None:
        """Only the open session's ledger of each run, when nothing else of it changed; in
        one statement executed for each."""
        if not ledgers:
            return
        statement = (
            strategy_runs.update()
            .where(strategy_runs.c.device_id == bindparam("row_id"))
            .values(ledger=bindparam("v_ledger", type_=strategy_runs.c.ledger.type))
        )
        await self._c.execute(
            statement,
            [
                {"row_id": device_id, "v_ledger": None if ledger is None else ledger.to_json()}
                for device_id, ledger in ledgers
            ],
        )

    async def keep_costs(self, device_id: str, ledgers: Sequence[SessionLedger]) -> None:
        """Closed ledgers, kept for the sessions they lie in."""
        rows = [
            {
                "device_id": device_id,
                "started_at": ledger.started_at,
                "ended_at": ledger.ended_at or ledger.updated_at,
                "grid_kwh": ledger.grid_kwh,
                "surplus_kwh": ledger.surplus_kwh,
                "cost": ledger.cost,
                "currency": ledger.currency,
            }
            for ledger in ledgers
        ]
        if rows:
            await self._c.execute(session_costs.insert(), rows)

    async def costs_of(self, device_id: str, since: datetime) -> list[SessionLedger]:
        """The device's ledgers (closed, then the open one) from `since` on, oldest first."""
        query = (
            select(session_costs)
            .where(session_costs.c.device_id == device_id, session_costs.c.ended_at >= since)
            .order_by(session_costs.c.started_at)
        )
        found = [
            SessionLedger(
                aware(row.started_at),
                aware(row.ended_at),
                0.0,
                row.grid_kwh,
                row.surplus_kwh,
                row.cost,
                row.currency,
                aware(row.ended_at),
            )
            for row in (await self._c.execute(query)).all()
        ]
        run = await self.get(device_id)
        if run is not None and run.ledger is not None:
            found.append(run.ledger)
        return found

    async def remove(self, device_ids: Sequence[str]) -> None:
        if device_ids:
            await self._c.execute(
                delete(strategy_runs).where(and_(strategy_runs.c.device_id.in_(list(device_ids))))
            )


_VALUE_COLUMNS = (
    "strategy",
    "inputs",
    "plan",
    "schedule",
    "steering",
    "next_plan_at",
    "updated_at",
    "ledger",
)


def _values(run: StrategyRun) -> dict[str, Any]:
    return {
        "strategy": run.strategy,
        "inputs": run.inputs,
        "plan": run.plan,
        "schedule": None if run.schedule is None else run.schedule.to_json(),
        "steering": run.steering,
        "next_plan_at": run.next_plan_at,
        "updated_at": run.updated_at,
        "ledger": None if run.ledger is None else run.ledger.to_json(),
    }


def _run(row: Any) -> StrategyRun | None:
    if row["run_device_id"] is None:
        return None
    schedule = row["run_schedule"]
    return StrategyRun(
        device_id=row["run_device_id"],
        strategy=row["run_strategy"],
        inputs=row["run_inputs"],
        plan=row["run_plan"],
        schedule=None if schedule is None else ChargingSchedule.from_json(schedule),
        steering=row["run_steering"],
        next_plan_at=aware(row["run_next_plan_at"]),
        updated_at=aware(row["run_updated_at"]),
        ledger=None if row["run_ledger"] is None else SessionLedger.from_json(row["run_ledger"]),
    )
