"""The composition root: the one place that builds the engine, the services, the drivers and
the app from Settings."""

from __future__ import annotations

import copy
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp

from energyhub.adapters import secret_keys as key_source
from energyhub.adapters.host_lookup import DnsHostLookup
from energyhub.adapters.prometheus import CONTENT_TYPE as METRICS_CONTENT_TYPE
from energyhub.adapters.prometheus import PrometheusMetrics
from energyhub.adapters.secrets import CredentialCipher
from energyhub.adapters.webhook_client import WebhookClient
from energyhub.api.app import create_app, with_gateway
from energyhub.api.deps import ApiServices
from energyhub.api.head_guard import bounded_head_protocol
from energyhub.api.observe import RequestObserver
from energyhub.api.operations import operations_router
from energyhub.api.ratelimit import RateLimiter
from energyhub.api.read_cache import DeviceReadCache
from energyhub.api.signalled_answers import answering_after_signals
from energyhub.config import Settings
from energyhub.domain.accounts import Environment
from energyhub.domain.actions import RetryPolicy
from energyhub.domain.clock import Clock, SystemClock
from energyhub.domain.devices import Device
from energyhub.domain.driver_names import DriverName
from energyhub.domain.events import EventDelays
from energyhub.domain.sessions import ChargingSession
from energyhub.drivers.ocpp.auth import ProofKeys
from energyhub.drivers.ocpp.central_system import CentralSystem, OcppSettings
from energyhub.drivers.ocpp.commissioning import OcppChargers
from energyhub.drivers.ocpp.driver import OcppDriver
from energyhub.drivers.sandbox.command_log import SandboxCommandLog
from energyhub.drivers.sandbox.driver import SandboxDriver
from energyhub.drivers.sandbox.history import sandbox_history
from energyhub.drivers.sandbox.sessions import SandboxCharger, sessions_between
from energyhub.drivers.sandbox.vendors import SandboxVendorConnector
from energyhub.drivers.sunspec import SunspecDriver
from energyhub.drivers.sunspec.meter import SunspecMeterReader
from energyhub.persistence.engine import create_engine, current_revision, migrate, newest_revision
from energyhub.persistence.ocpp import SqlChargePointStore
from energyhub.persistence.retention import SqlHistoryPruner
from energyhub.persistence.sunspec import SqlSunspecEndpoints
from energyhub.persistence.uow import SqlUnitOfWorkFactory
from energyhub.ports.devices import (
    ChargerSteering,
    DeviceDriver,
    SessionSource,
    SimulatedSteering,
    VendorConnector,
)
from energyhub.ports.signals import Signals, Topic
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.changes import DeviceChangeFeed
from energyhub.services.commissioning import Commissioning
from energyhub.services.devices import DeviceService
from energyhub.services.dispatch import Dispatcher
from energyhub.services.history import HistoryService
from energyhub.services.link_flow import LinkFlow
from energyhub.services.linking import LinkingService
from energyhub.services.live_vendors import OcppVendorConnector, SunspecVendorConnector
from energyhub.services.members import MemberService
from energyhub.services.metrics import MeteredDriver
from energyhub.services.outbox import Outbox
from energyhub.services.polling import StatePolling
from energyhub.services.retention import Retention
from energyhub.services.sandbox import SandboxService
from energyhub.services.schedules import SchedulePlanner, ScheduleService
from energyhub.services.sessions import SessionService
from energyhub.services.site_meters import SiteMeters
from energyhub.services.strategies import StrategyService
from energyhub.services.strategy_runner import RunnerSettings, StrategyRunner
from energyhub.services.webhook_sender import WebhookSender
from energyhub.services.webhooks import WebhookService
from energyhub.web.dashboard import DashboardServices, dashboard_app
from energyhub.web.routes import link_app, static_files
from energyhub.workers.dispatcher import DispatcherWorker
from energyhub.workers.loop import DueWorkLoop
from energyhub.workers.retention import RetentionWorker
from energyhub.workers.scheduler import SchedulerWorker
from energyhub.workers.state_poller import StatePollerWorker
from energyhub.workers.strategy_loop import StrategyWorker
from energyhub.workers.wakeups import CrossProcessWakeups, Wake
from energyhub.workers.webhook_sender import WebhookSenderWorker

if TYPE_CHECKING:  # asyncpg loads only for PostgreSQL
    from energyhub.persistence.asyncpg_push import AsyncpgPushUnitOfWorkFactory

# With PostgreSQL other processes change devices and add work, and say so on the channel
# between processes (LISTEN/NOTIFY). While it is down, cached reads live briefly and the
# workers look for work this often; while it is up, these safety bounds hold instead.
SHARED_DATABASE_READ_CACHE_S = 1.0
SHARED_MAX_SLEEP_S = 0.5
SIGNALLED_READ_CACHE_S = 300.0  # bounds a change whose writer died before its signal
SIGNALLED_MAX_SLEEP_S = 30.0
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
    push_uow: AsyncpgPushUnitOfWorkFactory | None = None  # PostgreSQL's push hot path
    webhook_sender: WebhookSender = field(kw_only=True)
    webhook_worker: WebhookSenderWorker = field(kw_only=True)
    webhook_client: WebhookClient = field(kw_only=True)
    scheduler: SchedulerWorker = field(kw_only=True)
    ocpp: CentralSystem = field(kw_only=True)  # live chargers' websocket route and state
    commissioning: Commissioning = field(kw_only=True)  # live chargers (OCPP), batteries (SunSpec)
    state_poller: StatePollerWorker = field(kw_only=True)  # refreshes live devices
    site_meters: SiteMeters = field(kw_only=True)  # sites' SunSpec grid meters
    strategy_worker: StrategyWorker = field(kw_only=True)  # plans and steers strategies
    members: MemberService = field(kw_only=True)  # the dashboard's people
    history: HistoryService = field(kw_only=True)  # devices' last 24 h (the dashboard)
    cipher: CredentialCipher = field(kw_only=True)  # ENERGYHUB_SECRET_KEY's MultiFernet
    metrics: PrometheusMetrics = field(kw_only=True)  # this container's own registry
    signals: Signals | None = field(default=None, kw_only=True)  # between processes (PG)
    retention: RetentionWorker = field(kw_only=True)  # prunes history past its days

    def start_signals(self) -> None:
        if self.signals is not None:
            self.signals.start()

    def start_workers(self) -> None:
        """The background loops every process may run (`serve` and `worker`): due actions,
        webhook deliveries, schedules and the live devices' state."""
        self.start_signals()
        self.worker.start()
        self.webhook_worker.start()
        if self.settings.schedules:
            self.scheduler.start()
        self.state_poller.start()
        self.retention.start()
        self.strategy_worker.start()

    async def stop_workers(self) -> None:
        await self.worker.stop()
        await self.webhook_worker.stop()
        await self.scheduler.stop()
        await self.state_poller.stop()
        await self.retention.stop()
        await self.strategy_worker.stop()

    async def aclose(self) -> None:
        await self.ocpp.stop()
        await self.stop_workers()
        if self.signals is not None:
            await self.signals.stop()
        await self.webhook_client.aclose()
        await self.rate_limiter.aclose()
        await self.services.accounts.usage.flush()  # the keys' last uses noted but not written
        if self.push_uow is not None:
            await self.push_uow.close()
        await self.engine.dispose()


async def build_container(
    settings: Settings, clock: Clock | None = None, *, run_migrations: bool = True
) -> Container:
    clock = clock or SystemClock()
    engine = create_engine(settings.database_url)
    if run_migrations:
        await migrate(engine)
    uow = SqlUnitOfWorkFactory(engine)
    push_uow = None
    if not settings.is_sqlite:
        from energyhub.persistence.asyncpg_push import AsyncpgPushUnitOfWorkFactory

        push_uow = AsyncpgPushUnitOfWorkFactory(settings.database_url)
    changes = DeviceChangeFeed()
    read_cache = DeviceReadCache(None if settings.is_sqlite else SHARED_DATABASE_READ_CACHE_S)
    changes.subscribe(read_cache.invalidate)
    signals, wakeups = None, None
    if not settings.is_sqlite:
        from energyhub.adapters.pg_signals import PgSignals

        signals = PgSignals(settings.database_url, reconnect_s=settings.signals_reconnect_s)
        read_cache.follow(signals, SIGNALLED_READ_CACHE_S, SHARED_DATABASE_READ_CACHE_S)
        changes.subscribe(lambda device_id: signals.publish(Topic.DEVICE, device_id))
        wakeups = CrossProcessWakeups(signals, SHARED_MAX_SLEEP_S, SIGNALLED_MAX_SLEEP_S)
    drivers: dict[str, DeviceDriver] = {
        DriverName.SANDBOX: SandboxDriver(
            settings.sandbox_completion_delay_s,
            None
            if settings.sandbox_command_log_dir is None
            else SandboxCommandLog(settings.sandbox_command_log_dir),
        )
    }
    credential_keys = secret_keys(settings)  # stored credentials, signing secrets, proofs
    proofs = ProofKeys.of(credential_keys)
    metrics = PrometheusMetrics()
    ocpp_store = SqlChargePointStore(engine)
    ocpp = CentralSystem(
        ocpp_store,
        clock,
        OcppSettings().config(),
        changes.publish,
        proofs,
        on_connected=metrics.ocpp_connected,
    )
    drivers[DriverName.OCPP] = OcppDriver(ocpp)
    if signals is not None:  # several processes: a command reaches a charger held by another
        from energyhub.drivers.ocpp.routing import routed_driver
        from energyhub.persistence.charger_owners import SqlChargerOwners

        drivers[DriverName.OCPP] = routed_driver(
            ocpp, ocpp_store, SqlChargerOwners(engine), signals, clock
        )
    sunspec_driver = SunspecDriver(SqlSunspecEndpoints(engine).get)
    drivers[DriverName.SUNSPEC] = sunspec_driver
    steering = {n: d for n, d in drivers.items() if isinstance(d, ChargerSteering)}
    simulated = {n: d for n, d in drivers.items() if isinstance(d, SimulatedSteering)}
    for name, driver in list(drivers.items()):
        drivers[name] = MeteredDriver(name, driver, metrics)
    accounts = AccountService(uow, clock, settings.key_cache_ttl_s)
    if signals is not None:
        accounts.follow(signals)  # revocations and version moves reach every process
    devices = DeviceService(uow, drivers, clock, changes)
    outbox = Outbox(
        clock,
        EventDelays(
            sandbox_push=timedelta(seconds=settings.sandbox_push_event_delay_s),
            sandbox_link=timedelta(seconds=settings.sandbox_link_event_delay_s),
            live=timedelta(seconds=settings.live_event_delay_s),
        ),
    )
    dispatcher = Dispatcher(
        uow,
        drivers,
        clock,
        changes,
        RetryPolicy.from_seconds(settings.deferral_retry_s),
        settings.immediate_retry_backoff_s,
        outbox,
    )
    dispatcher.metrics = metrics
    worker = DispatcherWorker(
        dispatcher, clock, SINGLE_PROCESS_MAX_SLEEP_S if settings.is_sqlite else SHARED_MAX_SLEEP_S
    )
    webhook_client = WebhookClient(clock, private_urls=settings.private_webhook_urls)
    cipher = CredentialCipher(credential_keys)
    webhook_sender = WebhookSender(
        uow,
        webhook_client,
        clock,
        cipher=cipher,
        retry_schedule=settings.webhook_retry_schedule_s,
    )
    webhook_sender.metrics = metrics
    webhook_worker = WebhookSenderWorker(
        webhook_sender,
        clock,
        SINGLE_PROCESS_MAX_SLEEP_S if settings.is_sqlite else SHARED_MAX_SLEEP_S,
    )
    wake_sender = _wake_everywhere(webhook_worker, wakeups)
    outbox.subscribe(wake_sender)
    wake_dispatcher = _wake_everywhere(worker, wakeups)
    actions = ActionService(uow, drivers, clock, changes, dispatcher, wake_dispatcher, push_uow)
    planner = SchedulePlanner(uow, clock, actions, changes)
    scheduler = SchedulerWorker(
        planner, clock, SINGLE_PROCESS_MAX_SLEEP_S if settings.is_sqlite else SHARED_MAX_SLEEP_S
    )
    strategies = StrategyService(uow, clock, changes)
    site_meters = SiteMeters(uow, clock, SunspecMeterReader(), strategies)
    state_poller = StatePollerWorker(
        StatePolling(uow, devices, drivers, clock), clock, SINGLE_PROCESS_MAX_SLEEP_S, site_meters
    )
    strategy_worker = StrategyWorker(
        StrategyRunner(
            uow,
            clock,
            drivers,
            steering,
            simulated,
            changes,
            RunnerSettings(
                replan_interval_s=settings.replan_interval_s,
                surplus_start_delay_s=settings.surplus_start_delay_s,
                surplus_stop_delay_s=settings.surplus_stop_delay_s,
            ),
        ),
        clock,
        settings.strategy_tick_s,
    )
    session_sources: dict[str, SessionSource] = {DriverName.SANDBOX: _sandbox_sessions}
    chargers = OcppChargers(proofs)  # a charger before it connects, its password's hash
    commissioning = Commissioning(uow, clock, outbox, devices, chargers, chargers, sunspec_driver)
    linking = LinkingService(
        uow,
        clock,
        outbox,
        cipher,
        devices,
        vendor_connectors(commissioning, ocpp_store, chargers, sunspec_driver),
    )
    services = ApiServices(
        settings=settings,
        clock=clock,
        accounts=accounts,
        devices=devices,
        sandbox=SandboxService(uow, devices, clock, outbox, linking),
        linking=linking,
        read_cache=read_cache,
        webhooks=WebhookService(
            uow,
            clock,
            cipher,
            wake_sender,
            private_urls=settings.private_webhook_urls,
            max_endpoints=settings.webhook_max_endpoints,
            lookup=DnsHostLookup(),
        ),
        actions=actions,
        sessions=SessionService(uow, clock, session_sources),
        schedules=ScheduleService(
            uow, clock, actions, changes, planner, _wake_everywhere(scheduler, wakeups)
        ),
        strategies=strategies,
    )
    rate_limiter = RateLimiter(
        settings.redis_url,
        {
            Environment.SANDBOX: settings.rate_limit_sandbox,
            Environment.LIVE: settings.rate_limit_live,
        },
    )
    return Container(
        settings,
        clock,
        engine,
        uow,
        services,
        rate_limiter,
        dispatcher,
        worker,
        drivers,
        push_uow,
        webhook_sender=webhook_sender,
        webhook_worker=webhook_worker,
        webhook_client=webhook_client,
        scheduler=scheduler,
        ocpp=ocpp,
        commissioning=commissioning,
        state_poller=state_poller,
        site_meters=site_meters,
        strategy_worker=strategy_worker,
        members=MemberService(uow, clock),
        history=HistoryService(uow, clock, {DriverName.SANDBOX: sandbox_history}),
        cipher=cipher,
        metrics=metrics,
        signals=signals,
        retention=RetentionWorker(
            Retention(SqlHistoryPruner(engine), clock, settings.retention_days, metrics=metrics),
            clock,
        ),
    )


def _wake_everywhere(loop: DueWorkLoop, wakeups: CrossProcessWakeups | None) -> Wake:
    """What wakes `loop`: here only on SQLite, in every process on PostgreSQL."""
    return loop.wake if wakeups is None else wakeups.wake_for(loop)


def vendor_connectors(
    commissioning: Commissioning,
    ocpp_store: SqlChargePointStore,
    passwords: OcppChargers,
    sunspec_probe: SunspecDriver,
) -> dict[str, VendorConnector]:
    """The Link UI's connectors by vendor driver (a vendor whose driver has none would be
    shown as coming soon)."""
    return {
        DriverName.SANDBOX: SandboxVendorConnector(),
        DriverName.OCPP: OcppVendorConnector(commissioning, ocpp_store, passwords),
        DriverName.SUNSPEC: SunspecVendorConnector(commissioning, sunspec_probe),
    }


def _sandbox_sessions(
    device: Device, start: datetime, end: datetime, now: datetime
) -> list[ChargingSession]:
    """The sandbox simulator's session history of a charger (the sandbox driver's)."""
    return sessions_between(SandboxCharger.of(device), start, end, now)


def freeze_startup_heap() -> None:
    """Takes what a process built to start (modules, the app, the container: ~150,000
    objects) out of the cyclic garbage collector's full passes. Each such pass walked them
    all, ~120 ms of a serving process stopped every few seconds under load (p99 of cached
    reads 80-100 ms with Redis, 6 ms once frozen). Objects freed by their reference count
    are freed as before; only cycles among the frozen ones would stay."""
    gc.collect()
    gc.freeze()


def build_app(
    container: Container,
    *,
    serving: bool = False,
    workers: bool = True,
    main_address: str | None = None,
    freeze_heap: bool = False,
) -> ASGIApp:
    """The app. When `serving`, its lifespan runs the background workers (unless not
    `workers`: `serve --no-workers`) and closes the container at shutdown (before uvicorn
    re-raises a captured Ctrl-C); with `freeze_heap` too (a process of its own, not a
    test's), it ends its start with `freeze_startup_heap`. `main_address` is where the
    sandbox listener sends live keys."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if serving:
            container.start_signals()
            if workers:
                container.start_workers()
            container.ocpp.start()
            if freeze_heap:
                freeze_startup_heap()
        try:
            yield
        finally:
            await container.ocpp.stop()
            await container.stop_workers()
            if serving:
                await container.aclose()

    app = create_app(container.services, lifespan)
    services = container.services
    flow = LinkFlow(container.uow, services.clock, services.linking, services.devices)
    app.mount("/link", link_app(flow, services.settings))
    dashboard = DashboardServices(
        members=container.members,
        accounts=services.accounts,
        webhooks=services.webhooks,
        devices=services.devices,
        actions=services.actions,
        history=container.history,
        clock=services.clock,
        sandbox=services.sandbox,
        schedules=services.schedules,
        sessions=services.sessions,
        linking=services.linking,
        strategies=services.strategies,
    )
    app.mount("/dashboard", dashboard_app(dashboard, services.settings))

    @app.get("/dashboard", include_in_schema=False)
    async def dashboard_root() -> RedirectResponse:
        return RedirectResponse("/dashboard/")  # a path, never built from the client's Host

    app.mount("/static", static_files(), name="static")
    settings = container.settings
    app.include_router(
        operations_router(
            lambda: current_revision(container.engine),
            newest_revision(),
            container.metrics.render,
            METRICS_CONTENT_TYPE,
            settings.metrics_token,
        )
    )
    # live chargers (OCPP-J) are answered ahead of the HTTP middleware
    observer = RequestObserver(container.metrics, settings.access_log)
    served: ASGIApp = with_gateway(
        app, container.services, container.rate_limiter, observer, main_address
    )
    if container.signals is not None:
        served = answering_after_signals(served, container.signals)
    return container.ocpp.front(served)  # it counts its connections itself


def secret_key_file(settings: Settings) -> Path:
    """Where a generated credential key lives for these settings."""
    return key_source.secret_key_file(settings.sqlite_path(), settings.data_dir)


def secret_keys(settings: Settings) -> list[str]:
    """ENERGYHUB_SECRET_KEY's keys, or the generated one (made on the first call)."""
    return key_source.secret_keys(
        settings.secret_key, secret_key_file(settings), shared_database=not settings.is_sqlite
    )


async def serve_http(config: uvicorn.Config, settings: Settings) -> None:
    """Serve `config` until stopped; with ENERGYHUB_SANDBOX_PORT also on that port of the
    same host: one server, one app, one lifespan (the gateway tells the listeners apart by
    the port a request arrived at)."""
    server = uvicorn.Server(config)
    if settings.sandbox_port is None:
        await server.serve()
        return
    sandbox = copy.copy(config)
    sandbox.port = settings.sandbox_port
    await server.serve(sockets=[config.bind_socket(), sandbox.bind_socket()])


def server_config(
    app: ASGIApp, settings: Settings, *, host: str, port: int, log_config: dict[str, Any]
) -> uvicorn.Config:
    """uvicorn's settings for `energyhub serve`: bounded request heads (size and time) and
    the websocket keepalive live chargers need."""
    from energyhub.drivers.ocpp.central_system import OcppSettings
    from energyhub.drivers.ocpp.keepalive import server_options

    ocpp = OcppSettings()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        loop="uvloop",
        http=bounded_head_protocol(settings.head_timeout_s),
        log_level=settings.log_level.lower(),
        access_log=False,
        log_config=log_config,
        **server_options(ocpp.ping_s, max_message_bytes=ocpp.max_message_bytes),
    )
