"""Command routing between processes: any process commands any live charger.

The process that accepts a charger's websocket claims it in the database (its name on the
channel between processes and a generation one higher than any before: `ChargerOwners`) and
tells the others (`owner` signal). A command, settings write, steer or release for a
charger held elsewhere goes as a `route` signal to its holder, runs there, and the answer
(or the `DriverError`'s code, message and retry hint) comes back as a `routed` signal.

- Fencing: a routed request names the generation the caller found; the holder runs it only
  while it holds that generation. A process that learns a newer connection was claimed
  elsewhere (the `owner` signal, or its lease renewal no longer returning the charger)
  closes its own connection to it at once, so a stale holder never acts.
- Leases: a holder renews the lease of all its chargers every `renew_s` (one statement)
  while its channel is up; a claim whose lease ran out (`lease_s`) is nobody's, so the
  chargers of a process that died are released within `lease_s` + `renew_s`.
- Never sent twice because of routing: each request has an id, a holder runs an id at most
  once, and a caller that hears no answer within the command deadline reports
  `DEVICE_TIMEOUT` (retryable) without sending again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from energyhub.domain.clock import Clock
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceOffline, DeviceRejected, DeviceTimeout
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import (
    CommandReceipt,
    CommandRequest,
    DeviceReading,
    DriverError,
    VehicleReading,
    refuse_if_unlinked,
)
from energyhub.drivers.ocpp.central_system import REPLACED, CentralSystem
from energyhub.drivers.ocpp.driver import COMMAND_DEADLINE_S, OcppDriver
from energyhub.drivers.ocpp.station import Station
from energyhub.ports.charger_owners import ChargerOwner, ChargerOwners
from energyhub.ports.ocpp import ChargePointStore
from energyhub.ports.signals import Signals, Topic

log = logging.getLogger(__name__)

LEASE_S = 20.0  # a holder that stopped renewing holds nothing after this
RENEW_S = 5.0
HOLDER_MARGIN_S = 1.0  # the holder gives up this much before the caller stops waiting
MAX_PAYLOAD = 7_000  # bytes; PostgreSQL refuses a notification of 8,000 or more
REMEMBERED = 10_000  # request ids a holder remembers having run
HOLDER_CHECK_S = 0.5  # how often a caller looks whether the holder still listens
READ_DEADLINE_S = 5.0  # a read answers from the holder's memory
MOVED = "moved"  # the holder no longer holds the generation asked for (nothing was sent)


def _offline(message: str) -> DriverError:
    return DriverError(DeviceOffline.code, message, retryable=True)


NOT_CONNECTED = "The charger is not connected to the service: retry when it is online."


class OcppRouting:
    """This process's side of routing: its claims and leases, the requests it runs for
    others and the answers it waits for."""

    def __init__(
        self,
        central: CentralSystem,
        local: OcppDriver,
        store: ChargePointStore,
        owners: ChargerOwners,
        signals: Signals,
        clock: Clock,
        *,
        lease_s: float = LEASE_S,
        renew_s: float = RENEW_S,
    ) -> None:
        self._central = central
        self._local = local
        self._store = store
        self._owners = owners
        self._signals = signals
        self._clock = clock
        self._lease = timedelta(seconds=lease_s)
        self._renew_s = renew_s
        self._known_for = timedelta(seconds=renew_s)
        # device id -> its holder elsewhere, and until when that is trusted without a look-up
        self._known: dict[str, tuple[ChargerOwner, datetime]] = {}
        self._held: dict[str, int] = {}  # charge point id -> the generation held here
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}  # by request id
        self._ran: OrderedDict[str, None] = OrderedDict()  # request ids run here
        self._tasks: set[asyncio.Task[None]] = set()
        self._renewer: asyncio.Task[None] | None = None
        self.executed = 0  # requests run here for other processes (tests, bench)
        signals.subscribe(Topic.ROUTE, self._request_heard)
        signals.subscribe(Topic.ROUTED, self._answer_heard)
        signals.subscribe(Topic.OWNER, self._owner_heard)

    @property
    def name(self) -> str:
        return self._signals.name

    def holds(self, station: Station) -> bool:
        return station.online and station.record.charge_point_id in self._held

    def generation(self, charge_point_id: str) -> int | None:
        """The generation of the charger's connection held here (None: not held here)."""
        return self._held.get(charge_point_id)

    # --- the central system's hooks --------------------------------------------------------
    async def claim(self, station: Station) -> int | None:
        """A connection was accepted: this process holds the charger (None: the claim could
        not be stored; the charger is commanded from here only)."""
        cp_id = station.record.charge_point_id
        try:
            generation = await self._owners.claim(cp_id, self.name, self._until())
        except Exception:
            log.exception("routing: cannot claim %s; only this process can command it", cp_id)
            return None
        self._held[cp_id] = generation
        self._signals.publish(Topic.OWNER, f"{cp_id} {generation} {self.name} {station.device_id}")
        return generation

    async def release(self, station: Station, generation: int | None) -> None:
        """The connection of `generation` ended."""
        cp_id = station.record.charge_point_id
        if generation is None or self._held.get(cp_id) != generation:
            return
        del self._held[cp_id]
        try:
            await self._owners.release(cp_id, self.name, generation)
        except Exception:
            log.warning("routing: cannot release %s; its lease runs out", cp_id)

    def start(self) -> None:
        if self._renewer is None:
            self._renewer = asyncio.create_task(self._renew_loop(), name="ocpp-routing-leases")

    async def stop(self) -> None:
        tasks = [t for t in (self._renewer, *self._tasks) if t is not None]
        self._renewer = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._held:
            self._held.clear()
            with contextlib.suppress(Exception):
                await self._owners.release_all(self.name)

    # --- the caller's side ------------------------------------------------------------------
    async def call(
        self,
        device: Device,
        op: str,
        args: dict[str, Any],
        *,
        deadline_s: float = COMMAND_DEADLINE_S,
        retry_moved: bool = True,
    ) -> dict[str, Any]:
        """Runs `op` on the process holding the device's charger; its result."""
        owner = await self._owner_of(device.id, fresh=not retry_moved)
        if owner is None or owner.process == self.name:
            raise _offline(NOT_CONNECTED)
        if not self._signals.hears(owner.process):  # it died: its lease runs out soon
            raise _offline(NOT_CONNECTED)
        if not self._signals.up:
            raise _offline(
                "The charger is connected to another process of the service, which this one "
                "cannot reach now: retry in a few seconds."
            )
        request_id = secrets.token_hex(8)
        body = json.dumps(
            {
                "id": request_id,
                "from": self.name,
                "gen": owner.generation,
                "device": device.id,
                "op": op,
                "args": args,
                "deadline": deadline_s - HOLDER_MARGIN_S,
            },
            separators=(",", ":"),
        )
        if len(body.encode()) > MAX_PAYLOAD:
            raise DriverError(
                DeviceRejected.code,
                "The command is too large to pass to the process holding the charger "
                f"({MAX_PAYLOAD} bytes at most): send fewer periods or parameters.",
                retryable=False,
            )
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = answer
        try:
            self._signals.publish(Topic.ROUTE, f"{owner.process} {body}")
            reply = await self._answer(answer, owner.process, deadline_s)
        finally:
            self._waiting.pop(request_id, None)
        error = reply.get("error")
        if error is None:
            result: dict[str, Any] = reply.get("result") or {}
            return result
        if error["code"] == MOVED and retry_moved:  # nothing was sent: ask the new holder
            return await self.call(device, op, args, deadline_s=deadline_s, retry_moved=False)
        if error["code"] == MOVED:
            raise _offline(NOT_CONNECTED)
        raise DriverError(
            str(error["code"]),
            str(error["message"]),
            retryable=bool(error["retryable"]),
            details=dict(error.get("details") or {}),
        )

    async def _answer(
        self, answer: asyncio.Future[dict[str, Any]], owner: str, deadline_s: float
    ) -> dict[str, Any]:
        """The holder's answer; DEVICE_TIMEOUT when none comes within `deadline_s` or the
        holder stops listening first (it died: whether the charger got the command is
        unknown, so it is not sent again)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + deadline_s
        while True:
            left = deadline - loop.time()
            if left <= 0:
                break
            done, _ = await asyncio.wait([answer], timeout=min(left, HOLDER_CHECK_S))
            if done:
                return answer.result()
            if not self._signals.hears(owner):
                raise DriverError(
                    DeviceTimeout.code,
                    "The process holding the charger stopped before the charger confirmed: "
                    "read the device before retrying.",
                    retryable=True,
                )
        raise DriverError(
            DeviceTimeout.code, "The charger did not confirm in time.", retryable=True
        )

    async def _owner_of(self, device_id: str, *, fresh: bool) -> ChargerOwner | None:
        """The device's holder: as its `owner` signal or the last look-up said, for up to
        `renew_s` (a holder that died drops out of the channel at once; one that moved
        answers `moved`), else from the database."""
        now = self._clock.now()
        known = None if fresh else self._known.get(device_id)
        if known is not None and now < known[1] and self._signals.hears(known[0].process):
            return known[0]
        owner = await self._owners.owner_of(device_id, now)
        if owner is None:
            self._known.pop(device_id, None)
        else:
            self._known[device_id] = (owner, now + self._known_for)
        return owner

    def _answer_heard(self, payload: str) -> None:
        to, _, body = payload.partition(" ")
        if to != self.name:
            return
        reply = json.loads(body)
        waiting = self._waiting.get(str(reply.get("id")))
        if waiting is not None and not waiting.done():
            waiting.set_result(reply)

    # --- the holder's side ------------------------------------------------------------------
    def _request_heard(self, payload: str) -> None:
        to, _, body = payload.partition(" ")
        if to != self.name:
            return
        request = json.loads(body)
        request_id = str(request["id"])
        if request_id in self._ran:  # at most once, whatever the channel repeats
            return
        self._ran[request_id] = None
        while len(self._ran) > REMEMBERED:
            self._ran.popitem(last=False)
        self._spawn(self._run(request))

    async def _run(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"id": request["id"]}
        try:
            async with asyncio.timeout(float(request.get("deadline") or COMMAND_DEADLINE_S)):
                reply["result"] = await self._execute(request)
        except TimeoutError:
            reply["error"] = _error_body(
                DriverError(
                    DeviceTimeout.code, "The charger did not confirm in time.", retryable=True
                )
            )
        except DriverError as error:
            reply["error"] = _error_body(error)
        except Exception:
            log.exception("routing: a routed %s failed", request.get("op"))
            reply["error"] = _error_body(
                DriverError(
                    DeviceTimeout.code,
                    "The process holding the charger failed while sending: the outcome is "
                    "unknown; read the device before retrying.",
                    retryable=True,
                )
            )
        body = json.dumps(reply, separators=(",", ":"), default=str)
        if len(body.encode()) > MAX_PAYLOAD:  # PostgreSQL would refuse the whole batch
            too_large = DriverError(
                DeviceRejected.code,
                "The charger's answer is too large to pass between processes.",
                retryable=False,
            )
            body = json.dumps({"id": request["id"], "error": _error_body(too_large)})
        self._signals.publish(Topic.ROUTED, f"{request['from']} {body}")

    async def _execute(self, request: dict[str, Any]) -> dict[str, Any]:
        station = self._central.station_for_device(str(request["device"]))
        if (
            station is None
            or not station.online
            or self._held.get(station.record.charge_point_id) != request["gen"]
        ):
            raise DriverError(MOVED, "The charger moved.", retryable=True)
        device = await self._store.device(station.device_id)
        if device is None:
            raise _offline(NOT_CONNECTED)
        op, args, now = request["op"], request["args"], self._clock.now()
        if op == "read":
            reading = await self._local.read(device, now)
            soc = None if reading.vehicle is None else reading.vehicle.state_of_charge
            return {"state": reading.state, "available": reading.available, "soc": soc}
        self.executed += 1
        if op == "command":
            receipt = await self._local.send_command(
                device,
                CommandRequest(args["command"], dict(args["parameters"]), None, args.get("action")),
                now,
            )
            return {
                "result": receipt.result,
                "completesAfter": receipt.completes_after,
                "driverState": receipt.driver_state,
            }
        if op == "settings":
            await self._local.write_settings(device, args["values"], now)
        elif op == "steer":
            await self._local.steer(device, ChargingSchedule.from_json(args["schedule"]), now)
        elif op == "release":
            await self._local.release(device, now)
        else:
            raise DriverError(
                DeviceRejected.code, f"Unknown routed operation {op!r}.", retryable=False
            )
        return {}

    # --- fencing and leases -----------------------------------------------------------------
    def _owner_heard(self, payload: str) -> None:
        parts = payload.split(" ")
        if len(parts) != 4:  # malformed, or from a process of another version
            log.warning("routing: a malformed owner signal %r", payload)
            return
        cp_id, generation, process, device_id = parts
        known = self._known.get(device_id)
        if known is None or known[0].generation < int(generation):
            owner = ChargerOwner(cp_id, process, int(generation))
            self._known[device_id] = (owner, self._clock.now() + self._known_for)
        held = self._held.get(cp_id)
        if held is not None and held < int(generation):
            self._fence(cp_id)

    def _fence(self, cp_id: str) -> None:
        """A newer connection of the charger was claimed elsewhere: this one must not act."""
        self._held.pop(cp_id, None)
        station = self._central.station(cp_id)
        link = None if station is None else station.link
        if station is not None and link is not None:
            log.info("routing: %s is held by another process now; closing here", cp_id)
            station.detach(link)
            self._spawn(link.close(REPLACED, "connected to another process"))

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self._renew_s)
            if not self._signals.up:
                continue  # unreachable: the leases run out and callers see DEVICE_OFFLINE
            before = dict(self._held)
            try:
                kept = await self._owners.renew(self.name, self._until())
            except Exception as error:
                log.warning("routing: cannot renew the leases (%s)", error)
                continue
            for cp_id, generation in before.items():
                if kept.get(cp_id) != generation and self._held.get(cp_id) == generation:
                    self._fence(cp_id)

    def _until(self) -> datetime:
        return self._clock.now() + self._lease

    def _spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _error_body(error: DriverError) -> dict[str, Any]:
    return {
        "code": error.code,
        "message": error.message,
        "retryable": error.retryable,
        "details": error.details,
    }


class RoutedOcppDriver:
    """The OCPP driver of a process among several: local when this process holds the
    charger's connection, routed to its holder otherwise. Steering stays with the holder
    (`can_steer`): every process runs the strategy runner for the chargers it holds."""

    instant = False

    def __init__(self, local: OcppDriver, routing: OcppRouting, central: CentralSystem) -> None:
        self._local = local
        self._routing = routing
        self._central = central

    def _here(self, device: Device) -> bool:
        station = self._central.station_for_device(device.id)
        return station is not None and station.online

    async def read(self, device: Device, now: datetime) -> DeviceReading:
        """The holder's reading (a charger held elsewhere is not offline)."""
        if self._here(device) or device.disconnected_at is not None:
            return await self._local.read(device, now)
        try:
            found = await self._routing.call(device, "read", {}, deadline_s=READ_DEADLINE_S)
        except DriverError:
            return await self._local.read(device, now)
        soc = found.get("soc")
        return DeviceReading(
            state=dict(found["state"]),
            available=bool(found["available"]),
            vehicle=None if soc is None else VehicleReading(None, None, None, None, soc),
            pulled_at=now,
        )

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        if self._here(device):
            return await self._local.send_command(device, request, now)
        refuse_if_unlinked(device)
        args = {
            "command": request.command,
            "parameters": dict(request.parameters),
            "action": request.action_id,
        }
        result = await self._routing.call(device, "command", args)
        return CommandReceipt(
            dict(result["result"]),
            float(result.get("completesAfter") or 0.0),
            driver_state=result.get("driverState"),
        )

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        await self._either(
            device,
            lambda: self._local.write_settings(device, values, now),
            "settings",
            {"values": dict(values)},
        )

    def can_steer(self, device: Device) -> bool:
        return self._local.can_steer(device)

    async def steer(self, device: Device, schedule: ChargingSchedule, now: datetime) -> None:
        await self._either(
            device,
            lambda: self._local.steer(device, schedule, now),
            "steer",
            {"schedule": schedule.to_json()},
        )

    async def release(self, device: Device, now: datetime) -> None:
        await self._either(device, lambda: self._local.release(device, now), "release", {})

    async def _either(
        self,
        device: Device,
        local: Callable[[], Awaitable[None]],
        op: str,
        args: dict[str, Any],
    ) -> None:
        if self._here(device):
            await local()
            return
        refuse_if_unlinked(device)
        await self._routing.call(device, op, args)


def routed_driver(
    central: CentralSystem,
    store: ChargePointStore,
    owners: ChargerOwners,
    signals: Signals,
    clock: Clock,
) -> RoutedOcppDriver:
    """The OCPP driver of a process sharing its database with others; the central system
    claims and releases the chargers it accepts."""
    local = OcppDriver(central)
    routing = OcppRouting(central, local, store, owners, signals, clock)
    central.owners = routing
    return RoutedOcppDriver(local, routing, central)
