"""The SunSpec Modbus TCP driver for batteries (models 1, 124 or 802/704).

Each call opens one connection, bounded by a timeout well below the dispatcher's 30 s lease,
and calls to one device wait for each other. A held mode (charge, discharge, idle, ...)
carries a reversion timeout; every read renews it while the registers still hold what the
service wrote, so the battery keeps the mode while the service talks to it and falls back
to its own mode when the service stops."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from energyhub.domain.clock import ensure_utc
from energyhub.domain.devices import Device
from energyhub.domain.errors import DeviceBusy, DeviceRejected
from energyhub.domain.readings import (
    CommandReceipt,
    CommandRequest,
    DeviceReading,
    DriverError,
    refuse_if_unlinked,
    unlinked_reading,
)
from energyhub.drivers.sunspec.client import (
    ModbusLink,
    Write,
    bounded_link,
    find_base,
    read_block,
    walk_models,
    write_points,
)
from energyhub.drivers.sunspec.controls import (
    HOLD_ROLES,
    PlannedWrite,
    capabilities_for,
    control_for,
    current_mode,
    setting_write,
    still_written,
)
from energyhub.drivers.sunspec.mapping import LEVEL_SOURCES, Blocks, battery_state, first_value
from energyhub.drivers.sunspec.registers import MODELS, ModelBlock
from energyhub.ports.sunspec import ModelLocation, SunspecDiscovery, SunspecEndpoint

log = logging.getLogger(__name__)

DEFAULT_REVERSION_S = 300  # five state polls: a held mode outlives a missed poll or two
CALL_TIMEOUT_S = 5.0
COMPLETION_DELAY_S = 1.0  # the service reads the battery back this long after a command

EndpointLookup = Callable[[str], Awaitable[SunspecEndpoint | None]]


class SunspecDriver:
    instant = False  # talks to hardware: called outside transactions

    def __init__(
        self,
        endpoints: EndpointLookup,
        *,
        reversion_s: int = DEFAULT_REVERSION_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
        completion_delay_s: float = COMPLETION_DELAY_S,
    ) -> None:
        self._lookup = endpoints
        self._reversion_s = reversion_s
        self._timeout_s = call_timeout_s
        self._completion_delay_s = completion_delay_s
        self._endpoints: dict[str, SunspecEndpoint] = {}  # commissioning does not change
        self._locks: dict[tuple[str, int, int], asyncio.Lock] = {}

    # --- commissioning ----------------------------------------------------------------------
    async def discover(self, host: str, port: int, unit_id: int) -> SunspecDiscovery:
        """The models at an address and what they allow; DriverError when it is no battery."""
        async with self._session(host, port, unit_id) as link:
            base = await find_base(link)
            models = await walk_models(link, base)
            blocks = {i: await read_block(link, m) for i, m in _usable(models).items()}
        where = f"SunSpec device {host}:{port} unit {unit_id}"
        if 1 not in blocks:
            raise DriverError(
                DeviceRejected.code, f"{where} has no common model (1).", retryable=False
            )
        if first_value(blocks, LEVEL_SOURCES) is None:
            raise DriverError(
                DeviceRejected.code,
                f"{where} is not a battery: no state of charge in model 124 or 802 "
                f"(models found: {', '.join(str(m.id) for m in models)}).",
                retryable=False,
            )
        capabilities, settings = capabilities_for(control_for(set(blocks)), blocks)
        common = blocks[1]
        return SunspecDiscovery(
            host=host,
            port=port,
            unit_id=unit_id,
            base_address=base,
            models=models,
            manufacturer=common.text("Mn"),
            model=common.text("Md"),
            serial=common.text("SN"),
            version=common.text("Vr"),
            capabilities=capabilities,
            settings=settings,
        )

    # --- DeviceDriver -----------------------------------------------------------------------
    async def read(self, device: Device, now: datetime) -> DeviceReading:
        """The battery's state; renews a held mode. Unreachable: the stored state, marked
        unavailable (a read never raises, so a completion can always be recorded). A revoked
        link (`disconnected_at`): the stored state, unavailable, the battery left alone."""
        unlinked = unlinked_reading(device, now)
        if unlinked is not None:
            return unlinked
        try:
            endpoint = await self._endpoint(device)
            control = control_for(set(_usable(endpoint.models)))
            async with self._session(endpoint.host, endpoint.port, endpoint.unit_id) as link:
                blocks = await _read_blocks(link, endpoint, (124, 802, 704))
                await self._renew(link, device, blocks, now)
        except DriverError as error:
            log.warning("reading SunSpec battery %s failed: %s", device.id, error.message)
            return DeviceReading(state=device.state, available=False, pulled_at=now)
        state = battery_state(blocks, current_mode(control, blocks))
        return DeviceReading(state=state, pulled_at=now)

    async def send_command(
        self, device: Device, request: CommandRequest, now: datetime
    ) -> CommandReceipt:
        endpoint = await self._endpoint(device)
        control = control_for(set(_usable(endpoint.models)))
        if control is None or request.command not in device.capabilities.commands:
            raise DriverError(
                DeviceRejected.code,
                f"This battery has no storage control for {request.command!r}.",
                retryable=False,
            )
        async with self._session(endpoint.host, endpoint.port, endpoint.unit_id) as link:
            blocks = await _read_blocks(link, endpoint, control.models)
            writes = control.plan(
                request.command, request.parameters, blocks, device.settings, self._reversion_s
            )
            await write_points(link, blocks, [_as_write(w) for w in writes])
        written = {f"{w.model_id}.{w.point}": w.raw for w in writes}
        return CommandReceipt(
            {"protocol": "sunspec", "written": written},
            self._completion_delay_s,
            driver_state={
                "command": request.command,
                "parameters": dict(request.parameters),
                "at": ensure_utc(now).isoformat(),
                "held": control.held(request.command),
                "writes": [w.to_json() for w in writes],
            },
        )

    async def write_settings(
        self, device: Device, values: Mapping[str, float | bool], now: datetime
    ) -> None:
        endpoint = await self._endpoint(device)
        async with self._session(endpoint.host, endpoint.port, endpoint.unit_id) as link:
            blocks = await _read_blocks(link, endpoint, (124, 802))
            writes = []
            for key, value in values.items():
                write = None if isinstance(value, bool) else setting_write(key, value, blocks)
                if write is None:
                    raise DriverError(
                        DeviceRejected.code,
                        f"This battery has no register for the setting {key!r}.",
                        retryable=False,
                    )
                writes.append(_as_write(write))
            await write_points(link, blocks, writes)

    # --- internals --------------------------------------------------------------------------
    async def _renew(self, link: ModbusLink, device: Device, blocks: Blocks, now: datetime) -> None:
        """Rewrites the held mode's timer and setpoints, restarting the reversion timeout,
        while the registers still hold what the service wrote (a command sent since by
        another call, or the battery's fallback, is left alone)."""
        sim = device.sim or {}
        if not sim.get("held") or not sim.get("writes"):
            return
        written_at = ensure_utc(datetime.fromisoformat(str(sim["at"])))
        if now - written_at < timedelta(seconds=self._reversion_s / 3):
            return
        writes = [PlannedWrite.from_json(w) for w in sim["writes"]]
        if not still_written(writes, blocks):
            return
        await write_points(link, blocks, [_as_write(w) for w in writes if w.role in HOLD_ROLES])

    async def _endpoint(self, device: Device) -> SunspecEndpoint:
        """Where the battery is; refused (CREDENTIALS_INVALID) while its link is revoked."""
        refuse_if_unlinked(device)
        found = self._endpoints.get(device.id) or await self._lookup(device.id)
        if found is None:
            raise DriverError(
                DeviceRejected.code,
                f"Battery {device.id} has no SunSpec commissioning: run add-sunspec.",
                retryable=False,
            )
        self._endpoints[device.id] = found
        return found

    @asynccontextmanager
    async def _session(self, host: str, port: int, unit_id: int) -> AsyncIterator[ModbusLink]:
        """One connection at a time per device; waiting for it and the call itself each
        bounded by the call timeout."""
        lock = self._locks.setdefault((host, port, unit_id), asyncio.Lock())
        try:
            async with asyncio.timeout(self._timeout_s):
                await lock.acquire()
        except TimeoutError:
            raise DriverError(
                DeviceBusy.code, "Another call to this battery is still running.", retryable=True
            ) from None
        try:
            what = f"SunSpec device {host}:{port} unit {unit_id}"
            async with bounded_link(host, port, unit_id, self._timeout_s, what) as link:
                yield link
        finally:
            lock.release()


def _usable(models: tuple[ModelLocation, ...]) -> dict[int, ModelLocation]:
    """The first instance of each model the driver knows, by id (one long enough to hold the
    points it uses: an older, shorter revision is left out)."""
    seen: dict[int, ModelLocation] = {}
    for m in models:
        if m.id in MODELS and m.id not in seen and m.length >= MODELS[m.id].length:
            seen[m.id] = m
    return seen


async def _read_blocks(
    link: ModbusLink, endpoint: SunspecEndpoint, wanted: tuple[int, ...]
) -> dict[int, ModelBlock]:
    blocks: dict[int, ModelBlock] = {}
    usable = _usable(endpoint.models)
    for model_id in wanted:
        location = usable.get(model_id)
        if location is not None:
            blocks[model_id] = await read_block(link, location)
    return blocks


def _as_write(planned: PlannedWrite) -> Write:
    return Write(planned.model_id, planned.point, planned.raw)
