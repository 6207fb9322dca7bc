"""The composition root: the one place that builds the engine, the services, the drivers and
the app from Settings."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine

from energyhub.api.app import create_app
from energyhub.api.deps import ApiServices
from energyhub.api.ratelimit import RateLimiter
from energyhub.api.read_cache import DeviceReadCache
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.clock import Clock, SystemClock
from energyhub.drivers.sandbox.driver import SandboxDriver
from energyhub.persistence.engine import create_engine, migrate
from energyhub.persistence.uow import SqlUnitOfWorkFactory
from energyhub.services.accounts import AccountService
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.devices import DeviceService
from energyhub.services.ports import DeviceDriver
from energyhub.services.sandbox import SANDBOX_DRIVER, SandboxService

# With PostgreSQL other processes may change a device, so cached reads live briefly.
SHARED_DATABASE_READ_CACHE_S = 1.0


@dataclass
class Container:
    settings: Settings
    clock: Clock
    engine: AsyncEngine
    uow: SqlUnitOfWorkFactory
    services: ApiServices
    rate_limiter: RateLimiter

    async def aclose(self) -> None:
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
    drivers: dict[str, DeviceDriver] = {SANDBOX_DRIVER: SandboxDriver()}
    accounts = AccountService(uow, clock, settings.key_cache_ttl_s)
    devices = DeviceService(uow, drivers, clock, changes)
    services = ApiServices(
        settings=settings,
        clock=clock,
        accounts=accounts,
        devices=devices,
        sandbox=SandboxService(uow, devices, clock),
        read_cache=read_cache,
    )
    rate_limiter = RateLimiter(
        settings.redis_url,
        {
            Environment.SANDBOX: settings.rate_limit_sandbox,
            Environment.LIVE: settings.rate_limit_live,
        },
    )
    return Container(settings, clock, engine, uow, services, rate_limiter)


def build_app(container: Container) -> FastAPI:
    return create_app(container.services, container.rate_limiter)
