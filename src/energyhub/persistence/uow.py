"""A unit of work over one SQL transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Self

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from energyhub.domain.accounts import Environment
from energyhub.domain.actions import Action
from energyhub.domain.devices import Device
from energyhub.domain.pushes import PushPlan
from energyhub.persistence.accounts import SqlAccountRepository
from energyhub.persistence.action_steps import SqlActionStepRepository
from energyhub.persistence.actions import SqlActionRepository, cancelled_values, cut_values
from energyhub.persistence.devices import SqlDeviceRepository, device_change_values
from energyhub.persistence.events import SqlEventRepository
from energyhub.persistence.linking import SqlLinkingRepository
from energyhub.persistence.members import SqlMemberRepository, SqlSampleRepository
from energyhub.persistence.ocpp import SqlChargePointRepository
from energyhub.persistence.polling import SqlPollingRepository
from energyhub.persistence.schedules import SqlScheduleRepository
from energyhub.persistence.sessions import SqlSessionRepository
from energyhub.persistence.site_meters import SqlSiteMeterRepository
from energyhub.persistence.sites import SqlSiteRepository
from energyhub.persistence.strategy_runs import SqlStrategyRunRepository
from energyhub.persistence.sunspec import SqlSunspecRepository
from energyhub.persistence.webhooks import SqlWebhookRepository


class SqlUnitOfWork:
    """Opens a connection and a transaction on enter; commits on a clean exit, else rolls back."""

    accounts: SqlAccountRepository
    devices: SqlDeviceRepository
    actions: SqlActionRepository
    steps: SqlActionStepRepository
    events: SqlEventRepository
    webhooks: SqlWebhookRepository
    sessions: SqlSessionRepository
    schedules: SqlScheduleRepository
    linking: SqlLinkingRepository
    sunspec: SqlSunspecRepository
    charge_points: SqlChargePointRepository
    polling: SqlPollingRepository
    members: SqlMemberRepository
    samples: SqlSampleRepository
    sites: SqlSiteRepository
    strategy_runs: SqlStrategyRunRepository
    site_meters: SqlSiteMeterRepository

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._connection: AsyncConnection | None = None
        self._after_commit: list[Callable[[], None]] = []

    async def __aenter__(self) -> Self:
        self._connection = await self._engine.connect()
        await self._connection.begin()
        self.accounts = SqlAccountRepository(self._connection)
        self.devices = SqlDeviceRepository(self._connection)
        self.actions = SqlActionRepository(self._connection)
        self.steps = SqlActionStepRepository(self._connection)
        self.events = SqlEventRepository(self._connection)
        self.webhooks = SqlWebhookRepository(self._connection)
        self.sessions = SqlSessionRepository(self._connection)
        self.schedules = SqlScheduleRepository(self._connection)
        self.linking = SqlLinkingRepository(self._connection)
        self.sunspec = SqlSunspecRepository(self._connection)
        self.charge_points = SqlChargePointRepository(self._connection)
        self.polling = SqlPollingRepository(self._connection)
        self.members = SqlMemberRepository(self._connection)
        self.samples = SqlSampleRepository(self._connection)
        self.sites = SqlSiteRepository(self._connection)
        self.strategy_runs = SqlStrategyRunRepository(self._connection)
        self.site_meters = SqlSiteMeterRepository(self._connection)
        return self

    async def device_for_push(
        self, account_id: str, environment: Environment, device_id: str, now: datetime
    ) -> tuple[Device, Sequence[Action]] | None:
        device = await self.devices.get_device(account_id, environment, device_id, lock=True)
        if device is None:
            return None
        return device, await self.actions.in_play(device_id, now)

    async def add_action(self, plan: PushPlan) -> None:
        for cancelled in plan.cancelled:
            await self.actions.update(cancelled.id, **cancelled_values(cancelled))
        for cut in plan.cut:
            await self.actions.update(cut.id, **cut_values(cut))
        await self.actions.add(plan.action)
        await self.devices.update_device(plan.action.device_id, **device_change_values(plan.device))

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            if exc_type is None:
                await connection.commit()
            else:
                await connection.rollback()
        finally:
            await connection.close()
        if exc_type is None:
            for callback in self._after_commit:
                callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Runs `callback` once the transaction has committed (not if it rolls back)."""
        self._after_commit.append(callback)


class SqlUnitOfWorkFactory:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # PostgreSQL in autocommit: BEGIN and COMMIT become no-ops in the driver, so one
        # statement is one round trip. SQLite sends no BEGIN before a read anyway, and
        # switching its mode on every checkout would cost two hops to its thread.
        self._single_reads = (
            engine.execution_options(isolation_level="AUTOCOMMIT")
            if engine.dialect.name == "postgresql"
            else engine
        )

    def __call__(self) -> SqlUnitOfWork:
        return SqlUnitOfWork(self.engine)

    def single_read(self) -> SqlUnitOfWork:
        """A unit of work for one statement that writes nothing, outside any transaction
        (the statement has its own snapshot): a worker's next-due poll in one round trip
        instead of three (BEGIN, the statement, COMMIT) on PostgreSQL."""
        return SqlUnitOfWork(self._single_reads)
