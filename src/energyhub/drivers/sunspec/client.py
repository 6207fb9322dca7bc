"""Modbus TCP sessions to SunSpec devices (pymodbus): model discovery from the `SunS` marker,
model blocks read whole, points written in contiguous runs. Every protocol failure leaves
this module as a `DriverError` with a spec code, through `mapping.MODBUS_EXCEPTIONS`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from energyhub.domain.errors import DeviceOffline, DeviceRejected, DeviceTimeout
from energyhub.domain.readings import DriverError
from energyhub.drivers.sunspec.mapping import modbus_failure
from energyhub.drivers.sunspec.registers import (
    BASE_ADDRESSES,
    END_MODEL_ID,
    MODELS,
    SUNS_MARKER,
    ModelBlock,
    encode,
)
from energyhub.ports.sunspec import ModelLocation

if TYPE_CHECKING:  # pymodbus loads with the first SunSpec call (~2 MB a service may not need)
    from pymodbus.client import AsyncModbusTcpClient
    from pymodbus.pdu import ModbusPDU

MAX_READ = 120  # registers per request (Modbus allows 125)
MAX_MODELS = 64  # a walk that finds no end marker stops here
REQUEST_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class Write:
    """A raw value for one point of one model."""

    model_id: int
    point: str
    raw: int


class ModbusLink:
    """One open connection to one unit; reads and writes holding registers."""

    def __init__(self, client: AsyncModbusTcpClient, unit_id: int, where: str) -> None:
        self._client = client
        self._unit_id = unit_id
        self.where = where

    async def read(self, address: int, count: int) -> list[int]:
        registers: list[int] = []
        while count > 0:
            size = min(count, MAX_READ)
            response = await self._call(
                self._client.read_holding_registers(address, count=size, device_id=self._unit_id)
            )
            registers.extend(response.registers)
            address, count = address + size, count - size
        return registers

    async def write(self, address: int, values: Sequence[int]) -> None:
        await self._call(
            self._client.write_registers(address, list(values), device_id=self._unit_id)
        )

    async def _call(self, request: Awaitable[ModbusPDU]) -> ModbusPDU:
        from pymodbus.exceptions import ConnectionException, ModbusException, ModbusIOException
        from pymodbus.pdu import ExceptionResponse

        try:
            response = await request
        except (ConnectionException, OSError) as lost:
            raise DriverError(
                DeviceOffline.code, f"{self.where} dropped the connection: {lost}", retryable=True
            ) from None
        except ModbusIOException as silent:
            raise DriverError(
                DeviceTimeout.code, f"{self.where} did not answer: {silent}", retryable=True
            ) from None
        except ModbusException as bad:
            raise DriverError(
                DeviceRejected.code, f"{self.where}: Modbus error {bad}", retryable=False
            ) from None
        if isinstance(response, ExceptionResponse) or response.isError():
            code = int(getattr(response, "exception_code", 0))
            error, retryable = modbus_failure(code)
            raise DriverError(
                error, f"{self.where} answered with Modbus exception {code}", retryable=retryable
            )
        return response


@asynccontextmanager
async def open_link(host: str, port: int, unit_id: int) -> AsyncIterator[ModbusLink]:
    """A connection for one call; closed on the way out, whatever happened."""
    from pymodbus.client import AsyncModbusTcpClient
    from pymodbus.exceptions import ModbusException

    where = f"SunSpec device {host}:{port} unit {unit_id}"
    client = AsyncModbusTcpClient(
        host, port=port, timeout=REQUEST_TIMEOUT_S, retries=0, reconnect_delay=0
    )
    try:
        try:
            connected = await client.connect()
        except (OSError, ModbusException):
            connected = False
        if not connected:
            raise DriverError(
                DeviceOffline.code,
                f"{where} is not reachable: check that it is powered and on the network.",
                retryable=True,
            )
        yield ModbusLink(client, unit_id, where)
    finally:
        client.close()


@asynccontextmanager
async def bounded_link(
    host: str, port: int, unit_id: int, timeout_s: float, what: str
) -> AsyncIterator[ModbusLink]:
    """`open_link` with the whole call bounded: past `timeout_s` it is DEVICE_TIMEOUT
    (retryable), naming the device as `what`."""
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            async with open_link(host, port, unit_id) as link:
                yield link
    except TimeoutError:
        if not deadline.expired():
            raise
        raise DriverError(
            DeviceTimeout.code, f"{what} did not answer within {timeout_s:g} s.", retryable=True
        ) from None


async def find_base(link: ModbusLink) -> int:
    """Where the `SunS` marker is: 40000, 0 or 50000 (in that order)."""
    for base in BASE_ADDRESSES:
        try:
            marker = await link.read(base, 2)
        except DriverError as error:
            if error.code == DeviceRejected.code:  # no registers there: try the next base
                continue
            raise
        if tuple(marker) == SUNS_MARKER:
            return base
    raise DriverError(
        DeviceRejected.code,
        f"{link.where} has no SunSpec marker (SunS) at "
        + ", ".join(str(b) for b in BASE_ADDRESSES)
        + ": is SunSpec Modbus enabled on the device?",
        retryable=False,
    )


async def walk_models(link: ModbusLink, base: int) -> tuple[ModelLocation, ...]:
    """Every model from the marker to the end marker (ID 0xFFFF)."""
    found: list[ModelLocation] = []
    address = base + 2
    for _ in range(MAX_MODELS):
        model_id, length = await link.read(address, 2)
        if model_id == END_MODEL_ID or (model_id == 0 and length == 0):
            return tuple(found)
        found.append(ModelLocation(model_id, address, length))
        address += 2 + length
    raise DriverError(
        DeviceRejected.code,
        f"{link.where}: no end marker after {MAX_MODELS} SunSpec models",
        retryable=False,
    )


async def read_block(
    link: ModbusLink, location: ModelLocation, what: str = "battery"
) -> ModelBlock:
    """One model whole, checked to still be the model commissioned at that address (`what`
    names the thing to commission again when it is not)."""
    model = MODELS[location.id]
    registers = await link.read(location.address, 2 + location.length)
    if registers[0] != location.id or registers[1] < model.length:
        raise DriverError(
            DeviceRejected.code,
            f"{link.where}: model {location.id} is no longer at {location.address} "
            f"(firmware update?): commission the {what} again.",
            retryable=False,
        )
    return ModelBlock(model, location.address, tuple(registers))


async def write_points(
    link: ModbusLink, blocks: Mapping[int, ModelBlock], writes: Sequence[Write]
) -> None:
    """Writes in the given order; neighbouring points of one model go in one request."""
    runs: list[tuple[int, list[int]]] = []
    for write in writes:
        block = blocks[write.model_id]
        address = block.address_of(write.point)
        values = encode(block.point(write.point), write.raw)
        if runs and runs[-1][0] + len(runs[-1][1]) == address:
            runs[-1][1].extend(values)
        else:
            runs.append((address, values))
    for address, values in runs:
        await link.write(address, values)
