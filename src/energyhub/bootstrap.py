"""The composition root: the one place that builds the engine, the services, the drivers and
the app from Settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import ASGIApp

from energyhub.api.app import create_app, with_gateway
from energyhub.api.deps import ApiServices
from energyhub.api.ratelimit import RateLimiter
from energyhub.api.read_cache import DeviceReadCache
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.actions import RetryPolicy
from energyhub.domain.clock import Clock, SystemClock
from energyhub.drivers.sandbox.driver import SandboxDriver
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.uow import SqlUnitOfWorkFactory
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import DeviceService
from energyhub.services.dispatch import Dispatcher
from energyhub.services.ports import DeviceDriver
from energyhub.services.sandbox import SANDBOX_DRIVER, SandboxService
from energyhub.workers.dispatcher import DispatcherWorker

# With PostgreSQL other processes may change a device, so cached reads live briefly, and
# the dispatcher looks for work they added at least this often.
SHARED_DATABASE_READ_CACHE_S = 1.0
SHARED_MAX_SLEEP_S = 0.5
SINGLE_PROCESS_MAX_SLEEP_S = 60.0


@dataclass
class Container:
    settings: Settings
    clock: Clock
    engine: AsyncEngine
    uow: SqlUnitOfWorkFactory
    services: ApiServices
    rate_limiter: RateLimiter
    dispatcher: Dispatcher
    worker: DispatcherWorker
    drivers: dict[str, DeviceDriver]  # by a device's `driver` column; shared by all services

    async def aclose(self) -> None:
        await self.worker.stop()
        await self.rate_limiter.aclose()
        await self.engine.dispose()


async def build_container(
    settings: Settings, clock: Clock | None = None, *, run_migrations: bool = True
) -> Container:
    clock = clock or SystemClock()
    engine = create_engine(settings.database_url)
    if run_migrations:
        await migrate(engine)
    uow = SqlUnitOfWorkFactory(engine)
    changes = DeviceChangeFeed()
    read_cache = DeviceReadCache(None if settings.is_sqlite else SHARED_DATABASE_READ_CACHE_S)
    changes.subscribe(read_cache.invalidate)
    drivers: dict[str, DeviceDriver] = {
        SANDBOX_DRIVER: SandboxDriver(settings.sandbox_completion_delay_s)
    }
    accounts = AccountService(uow, clock, settings.key_cache_ttl_s)
    devices = DeviceService(uow, drivers, clock, changes)
    dispatcher = Dispatcher(
        uow,
        drivers,
        clock,
        changes,
        RetryPolicy.from_seconds(settings.deferral_retry_s),
        settings.immediate_retry_backoff_s,
    )
    worker = DispatcherWorker(
        dispatcher, clock, SINGLE_PROCESS_MAX_SLEEP_S if settings.is_sqlite else SHARED_MAX_SLEEP_S
    )
    services = ApiServices(
        settings=settings,
        clock=clock,
        accounts=accounts,
        devices=devices,
        sandbox=SandboxService(uow, devices, clock),
        read_cache=read_cache,
        actions=ActionService(uow, drivers, clock, changes, dispatcher, worker.wake),
    )
    rate_limiter = RateLimiter(
        settings.redis_url,
        {
            Environment.SANDBOX: settings.rate_limit_sandbox,
            Environment.LIVE: settings.rate_limit_live,
        },
    )
    return Container(
        settings, clock, engine, uow, services, rate_limiter, dispatcher, worker, drivers
    )


def build_app(container: Container, *, serving: bool = False) -> ASGIApp:
    """The app. When `serving`, its lifespan runs the background workers and closes the
    container at shutdown (before uvicorn re-raises a captured Ctrl-C)."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if serving:
            container.worker.start()
        try:
            yield
        finally:
            await container.worker.stop()
            if serving:
                await container.aclose()

    app = create_app(container.services, lifespan)
    return with_gateway(app, container.services, container.rate_limiter)
