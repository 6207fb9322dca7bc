"""The OCPP central system inside the service: the websocket route `/ocpp/{chargePointId}`
on the same server, HTTP Basic auth at the handshake (security profile 1), one connection
per charge point (a new one replaces the old), offline detection after missed heartbeats,
and what the chargers report written to the database in batches."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from energyhub.domain.clock import Clock
from energyhub.domain.sessions import ChargingSession, EndReason
from energyhub.drivers.ocpp import mapping
from energyhub.drivers.ocpp.auth import ProofKeys, basic_credentials, with_proof
from energyhub.drivers.ocpp.credentials import CredentialChecker, CredentialPolicy, Verdict
from energyhub.drivers.ocpp.reconcile import resume
from energyhub.drivers.ocpp.station import Station
from energyhub.ports.ocpp import ChargePointRecord, ChargePointStore

if TYPE_CHECKING:
    from energyhub.drivers.ocpp.link import WebSocketConnection

log = logging.getLogger(__name__)

OCPP_PATH = "/ocpp/{charge_point_id}"
_OCPP_PATH = re.compile(r"^/ocpp/(?P<charge_point_id>[^/\x00]+)$")  # OCPP_PATH; no NUL (PostgreSQL)
REPLACED = 4000  # close code: a newer connection of the same charge point took over
SILENT = 4001  # close code: missed heartbeats


@dataclass(frozen=True, slots=True)
class OcppConfig:
    heartbeat_s: int = 60  # the interval BootNotification hands out
    missed_heartbeats: float = 2.5  # silent this many intervals: offline
    response_timeout_s: float = 10.0  # each call; a command makes at most two
    id_tag: str = "energyhub"  # the idTag of remote starts
    flush_s: float = 0.25  # reports are written at most this late, in one transaction
    # a transaction open while the connector reads Available / Preparing this long is lost
    # (longer than a reconnecting charger takes to deliver its queued stop)
    lost_transaction_s: float = 300.0
    # a handshake waits this long for its charger's record (a storm on SQLite queues them on
    # one connection); past it the charger is told to come back (503, Retry-After)
    lookup_timeout_s: float = 10.0
    busy_retry_after_s: int = 10
    # once this many connections have ended since the last time, a full garbage collection
    # frees them (0: left to Python's collector); see `collect_closed`
    collect_after_closed: int = 100
    credentials: CredentialPolicy = field(default_factory=CredentialPolicy)  # handshakes

    @property
    def offline_after(self) -> timedelta:
        return timedelta(seconds=self.heartbeat_s * self.missed_heartbeats)


class OcppSettings(BaseSettings):
    """`ENERGYHUB_OCPP_*` (docs/hardware.md)."""

    model_config = SettingsConfigDict(env_prefix="ENERGYHUB_OCPP_", extra="ignore")

    heartbeat_s: int = 60
    missed_heartbeats: float = 2.5
    response_timeout_s: float = 10.0
    id_tag: str = "energyhub"
    # the server pings every charger this often, and closes one whose pong does not come
    # within it; each frame a charger sends (a pong too) counts as a sign of life
    ping_s: float = Field(default=20.0, gt=0)
    # a verified handshake password is remembered this long per charge point (no scrypt)
    auth_cache_s: float = Field(default=300.0, ge=0)
    # failed handshakes per charge point id (a source address: 10 times as many) within
    # the window, after which the next are refused with 429 without checking
    auth_failures: int = Field(default=5, ge=1)
    auth_failure_window_s: float = Field(default=60.0, gt=0)
    auth_threads: int = Field(default=0, ge=0)  # scrypt runs at once; 0: one per core
    collect_after_closed: int = Field(
        default=100,
        ge=0,
        description="Once this many charger connections have ended, a full garbage "
        "collection frees them at once (each ends in reference cycles that Python's collector "
        "otherwise keeps until long after: a fleet reconnecting would hold two generations of "
        "connections). 0: leave them to Python's collector.",
    )
    max_message_bytes: int = Field(
        default=1024 * 1024,
        ge=4096,
        description="The largest WebSocket message a charger may send; a larger one closes "
        "its connection with code 1009 (message too big). OCPP messages are a few KB.",
    )

    def config(self) -> OcppConfig:
        return OcppConfig(
            heartbeat_s=self.heartbeat_s,
            missed_heartbeats=self.missed_heartbeats,
            response_timeout_s=self.response_timeout_s,
            id_tag=self.id_tag,
            collect_after_closed=self.collect_after_closed,
            credentials=CredentialPolicy(
                cache_s=self.auth_cache_s,
                failures=self.auth_failures,
                window_s=self.auth_failure_window_s,
                threads=self.auth_threads,
            ),
        )


class ConnectionOwners(Protocol):
    """Who holds each charger's connection among processes (`routing.OcppRouting`)."""

    async def claim(self, station: Station) -> int | None: ...

    async def release(self, station: Station, generation: int | None) -> None: ...

    def start(self) -> None: ...

    async def stop(self) -> None: ...


class CentralSystem:
    owners: ConnectionOwners | None = None  # set when several processes share the database

    def __init__(
        self,
        store: ChargePointStore,
        clock: Clock,
        config: OcppConfig | None = None,
        on_device_changed: Callable[[str], None] | None = None,
        proofs: ProofKeys | None = None,
        on_connected: Callable[[int], None] | None = None,
    ) -> None:
        self.config = config or OcppConfig()
        self._store = store
        self._clock = clock
        self._on_device_changed = on_device_changed or (lambda _id: None)
        self._on_connected = on_connected or (lambda _delta: None)  # +1 accepted, -1 ended
        self.credentials = CredentialChecker(clock, self.config.credentials, proofs)
        self._stations: dict[str, Station] = {}  # by charge point id
        self._by_device: dict[str, Station] = {}
        self._dirty_records: dict[str, Station] = {}
        self._dirty_devices: dict[str, Station] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()  # replaced on every report: `wait_ready` wakes
        self._runner: asyncio.Task[None] | None = None
        self._flush_lock = asyncio.Lock()
        self._closed_since_collect = 0  # connections ended since the last `collect_closed`
        # the `ocpp` package logs every frame at INFO: far too much for a fleet
        logging.getLogger("ocpp").setLevel(max(logging.WARNING, logging.getLogger("ocpp").level))

    # --- lookups -----------------------------------------------------------------------------
    def station_for_device(self, device_id: str) -> Station | None:
        return self._by_device.get(device_id)

    def station(self, charge_point_id: str) -> Station | None:
        return self._stations.get(charge_point_id)

    async def wait_ready(self, charge_point_id: str) -> Station:
        """Once the charger is connected and its declaration is known (tests and tools
        bound the wait with `asyncio.timeout`)."""
        while True:
            progress = self._progress
            station = self._stations.get(charge_point_id)
            if station is not None and station.online and station.ready.is_set():
                return station
            await progress.wait()

    async def wait_offline(self, charge_point_id: str) -> None:
        """Once the charger has no connection (bounded by the caller, as `wait_ready`)."""
        while True:
            progress = self._progress
            station = self._stations.get(charge_point_id)
            if station is None or not station.online:
                return
            await progress.wait()

    # --- the websocket route ------------------------------------------------------------------
    def front(self, app: ASGIApp) -> ASGIApp:
        """`app` with the OCPP websockets answered before it: a charger's connection lives
        for days, and going through the HTTP middleware would keep one coroutine frame per
        middleware layer alive per charger (~10 KB each; none of them applies to OCPP)."""

        async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "websocket":
                params = _ocpp_path_params(scope["path"])
                if params is not None:
                    scope["path_params"] = params
                    await self.endpoint(WebSocket(scope, receive, send))
                    return
            await app(scope, receive, send)

        return asgi

    async def endpoint(self, websocket: WebSocket) -> None:
        charge_point_id = str(websocket.path_params["charge_point_id"])
        try:
            async with asyncio.timeout(self.config.lookup_timeout_s):
                record = await self._store.by_charge_point_id(charge_point_id)
        except TimeoutError:
            wait = self.config.busy_retry_after_s
            await _deny(
                websocket,
                503,
                f"The service is busy with other chargers: retry in {wait} s.",
                {"retry-after": str(wait)},
            )
            return
        if record is None:
            await _deny(websocket, 404, "Unknown charge point: commission it first.")
            return
        if not await self._authenticated(websocket, charge_point_id, record.password_hash):
            return
        offered = list(websocket.scope.get("subprotocols") or [])
        protocol = next((p for p in mapping.SUBPROTOCOLS if p in offered), None)
        if protocol is None:
            await _deny(websocket, 400, "Offer the subprotocol ocpp1.6 or ocpp2.0.1.")
            return
        await websocket.accept(subprotocol=protocol)
        websocket.scope["headers"] = []  # read: a connection lives for days, they need not
        self._on_connected(1)
        try:
            from energyhub.drivers.ocpp.link import WebSocketConnection  # `ocpp`: on first use

            station = self._station(record)
            generation = None if self.owners is None else await self.owners.claim(station)
            connection = WebSocketConnection(websocket, station.seen)
            link = self._link(protocol, station, connection)
            previous = station.link
            station.attach(link)
            if previous is not None:
                await previous.close(REPLACED, "replaced by a newer connection")
            self.changed(station)
            if station.ready.is_set():  # known from before (else once it has booted)
                self.spawn(resume(station, link), "ocpp-resume")
            try:
                await link.start()
            except (WebSocketDisconnect, ConnectionError, RuntimeError, OSError):
                pass
            finally:
                link.closed.set()
                self._closed_since_collect += 1
                self.collect_closed()  # now, before the fleet that dropped has reconnected
                if station.detach(link):
                    log.info("%s disconnected", charge_point_id)
                if self.owners is not None:
                    await self.owners.release(station, generation)
        finally:
            self._on_connected(-1)

    async def _authenticated(self, websocket: WebSocket, charge_point_id: str, stored: str) -> bool:
        """HTTP Basic with the charge point id as the user; a refusal is answered here."""
        # a Headers of its own: `websocket.headers` would be kept for the connection's life
        credentials = basic_credentials(Headers(scope=websocket.scope).get("authorization"))
        outcome = None
        if credentials is not None and credentials[0] == charge_point_id:
            client = websocket.scope.get("client")
            address = str(client[0]) if client else None
            outcome = await self.credentials.check(charge_point_id, credentials[1], stored, address)
            if outcome.verdict is Verdict.ACCEPTED:
                if outcome.proof is not None:
                    await self._add_proof(charge_point_id, stored, outcome.proof)
                return True
        if outcome is not None and outcome.verdict is Verdict.THROTTLED:
            wait = outcome.retry_after_s
            await _deny(
                websocket,
                429,
                f"Too many failed handshakes for this charge point or address: retry in {wait} s "
                "with the commissioned password.",
                {"retry-after": str(wait)},
            )
            return False
        await _deny(
            websocket,
            401,
            "Wrong or missing password (HTTP Basic, user = charge point id).",
            {"www-authenticate": 'Basic realm="energyhub-ocpp"'},
        )
        return False

    async def _add_proof(self, charge_point_id: str, stored: str, proof: str) -> None:
        """A password that passed scrypt gets its proof beside its hash: from then on its
        handshakes cost no scrypt, in any process."""
        try:
            await self._store.replace_password_hash(
                charge_point_id, stored, with_proof(stored, proof)
            )
        except Exception:  # the charger is in; its next handshake tries again
            log.exception("could not store the password proof of %s", charge_point_id)

    def _station(self, record: ChargePointRecord) -> Station:
        station = self._stations.get(record.charge_point_id)
        if station is None:
            station = Station(record, self._clock, self, id_tag=self.config.id_tag)
            self._stations[record.charge_point_id] = station
            self._by_device[record.device_id] = station
        else:
            station.record.password_hash = record.password_hash
        return station

    def _link(self, protocol: str, station: Station, connection: WebSocketConnection) -> Any:
        kind = _link_class(protocol)
        return kind(
            station,
            connection,
            self._clock,
            heartbeat_s=self.config.heartbeat_s,
            response_timeout_s=self.config.response_timeout_s,
            id_tag=self.config.id_tag,
        )

    # --- liveness -----------------------------------------------------------------------------
    def check_liveness(self, now: datetime) -> list[str]:
        """Closes the connections of chargers silent for longer than the missed heartbeats
        allow; they read as `offline` until they connect again. Returns their ids."""
        silent = []
        for station in list(self._stations.values()):
            link = station.link
            seen = station.record.last_seen_at
            if link is None or seen is None or now - seen <= self.config.offline_after:
                continue
            silent.append(station.record.charge_point_id)
            station.detach(link)
            self.spawn(link.close(SILENT, "missed heartbeats"), "ocpp-close-silent")
        return silent

    async def close_lost_transactions(self, now: datetime) -> list[str]:
        """Closes the transactions chargers no longer run (`Station.lost_transaction`):
        `endReason` unknown, ended when last heard of. Returns the charge point ids."""
        after = timedelta(seconds=self.config.lost_transaction_s)
        lost = [s for s in self._stations.values() if s.lost_transaction(now, after)]
        for station in lost:
            await station.close_lost(EndReason.UNKNOWN)
        return [station.record.charge_point_id for station in lost]

    def collect_closed(self) -> bool:
        """A full garbage collection once `collect_after_closed` connections have ended since
        the last one. An ended connection (its uvicorn protocol and transport, websocket,
        link and handshake) is held in reference cycles, by then in the collector's oldest
        generation, which Python scans only once it has grown by a quarter: a fleet that
        drops and reconnects would connect again beside the whole of its old connections
        (~20 MB at 1,000 chargers, kept by the allocator afterwards). Returns whether it
        collected."""
        threshold = self.config.collect_after_closed
        if threshold <= 0 or self._closed_since_collect < threshold:
            return False
        self._closed_since_collect = 0
        gc.collect()
        return True

    # --- StationEvents: what stations report ---------------------------------------------------
    def changed(self, station: Station, *, device: bool = True) -> None:
        self._dirty_records[station.record.charge_point_id] = station
        if device:
            self._dirty_devices[station.device_id] = station
        self._wake.set()
        self._progress.set()
        self._progress = asyncio.Event()

    async def persist(self, station: Station, session: ChargingSession | None) -> None:
        """Now, before the charger hears back: a transaction's start or stop."""
        now = self._clock.now()
        self._dirty_records.pop(station.record.charge_point_id, None)
        self._dirty_devices.pop(station.device_id, None)
        await self._store.save(
            [station.record],
            [(station.device_id, self._device_changes(station, now))],
            [] if session is None else [session],
            now,
        )
        self._on_device_changed(station.device_id)

    async def settings(
        self, station: Station, reported: Mapping[str, float | bool]
    ) -> dict[str, Any]:
        settings = await self._store.merge_settings(station.device_id, reported, self._clock.now())
        if reported:
            self._on_device_changed(station.device_id)
        return settings

    def spawn(self, work: Awaitable[None], name: str) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _device_changes(self, station: Station, now: datetime) -> dict[str, Any]:
        changes: dict[str, Any] = {
            "state": station.state(station.record.control.get("command")),
            "available": station.online,
            "last_pulled_at": now,
            "updated_at": now,
        }
        meta, station.device_meta = station.device_meta, {}
        if meta.get("vendor"):
            changes["vendor"] = str(meta["vendor"])[:100]
        if meta.get("model"):
            changes["model"] = str(meta["model"])[:200]
        if "capabilities" in meta:
            changes["capabilities"] = meta["capabilities"].to_json()
        return changes

    async def flush(self) -> None:
        """Writes what changed since the last flush, in one transaction."""
        async with self._flush_lock:
            records, self._dirty_records = self._dirty_records, {}
            devices, self._dirty_devices = self._dirty_devices, {}
            if not records and not devices:
                return
            now = self._clock.now()
            changes = [(d, self._device_changes(s, now)) for d, s in devices.items()]
            sessions = [
                s.session_of(s.record.transaction)
                for s in devices.values()
                if s.record.transaction is not None
            ]
            try:
                await self._store.save([s.record for s in records.values()], changes, sessions, now)
            except Exception:
                log.exception("storing OCPP reports failed; retrying with the next flush")
                for key, station in records.items():
                    self._dirty_records.setdefault(key, station)
                for key, station in devices.items():
                    self._dirty_devices.setdefault(key, station)
                return
        for device_id in devices:
            self._on_device_changed(device_id)

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="ocpp-central-system")
            if self.owners is not None:
                self.owners.start()

    async def _run(self) -> None:
        check_every = max(0.05, min(5.0, self.config.heartbeat_s / 4))
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), check_every)
                await asyncio.sleep(self.config.flush_s)  # coalesce a burst of reports
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                self.check_liveness(self._clock.now())
                await self.close_lost_transactions(self._clock.now())
                await self.flush()
            except Exception:
                log.exception("OCPP central system step failed")

    async def stop(self) -> None:
        """Closes every connection and writes what is pending."""
        if self._runner is not None:
            self._runner.cancel()
            await asyncio.gather(self._runner, return_exceptions=True)
            self._runner = None
        for station in list(self._stations.values()):
            link = station.link
            if link is not None:
                station.detach(link)
                await link.close(1001, "service stopping")
        if self.owners is not None:
            await self.owners.stop()
        await self.credentials.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await self.flush()
        except Exception:
            log.exception("final OCPP flush failed")


def _link_class(protocol: str) -> type[Any]:
    """The version's link class. The `ocpp` package (and jsonschema) load with the first
    charger, not with the service: ~7 MB a service without chargers does not need."""
    from ocpp import messages as ocpp_messages  # type: ignore[import-untyped]

    # Frames are small: validating them inline costs less than the `ocpp` package's
    # default hop to a thread pool, whose threads' malloc arenas cost ~1 MB a charger.
    ocpp_messages.ASYNC_VALIDATION = False
    if protocol == mapping.OCPP16:
        from energyhub.drivers.ocpp.v16 import V16Link

        return V16Link
    from energyhub.drivers.ocpp.v201 import V201Link

    return V201Link


async def _deny(
    websocket: WebSocket, status: int, message: str, headers: dict[str, str] | None = None
) -> None:
    """Refuses the handshake with an HTTP status (websocket denial response)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(
            Response(message, status_code=status, headers=headers, media_type="text/plain")
        )
    else:
        await websocket.close(1008, message)


def _ocpp_path_params(path: str) -> dict[str, str] | None:
    """The charge point id of an OCPP websocket's path (the match itself is not kept for the
    connection's life)."""
    match = _OCPP_PATH.match(path)
    return None if match is None else match.groupdict()
