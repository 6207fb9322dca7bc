"""A SunSpec battery for tests: a real pymodbus TCP server on 127.0.0.1 (ephemeral port)
holding a SunSpec register map built from pysunspec2's model definitions, so the driver's
own register tables are checked against an independent copy. It records every write that
arrives and can play the battery's firmware (change a register), go silent, or refuse."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import sunspec2.device as sunspec_device  # type: ignore[import-untyped]
from pymodbus.constants import ExcCodes
from pymodbus.server import ModbusTcpServer
from pymodbus.simulator import DataType, SimData, SimDevice

SUNS = [0x5375, 0x6E53]
END = [0xFFFF, 0]
WRITE_CODES = (6, 16)

# raw register values (scale factors are points too); anything not named is "not implemented"
COMMON = {"Mn": "Volta Energy", "Md": "ModBat 10", "SN": "VB-0001", "Vr": "1.2.3"}
STORAGE_124 = {
    "WChaMax": 5000,
    "WChaMax_SF": 0,
    "WChaGra": 100,
    "WDisChaGra": 100,
    "WChaDisChaGra_SF": 0,
    "StorCtl_Mod": 0,
    "MinRsvPct": 100,  # 10.0 %
    "MinRsvPct_SF": -1,
    "ChaState": 735,  # 73.5 %
    "ChaState_SF": -1,
    "ChaSt": 6,  # HOLDING
    "OutWRte": 10000,  # 100.00 %
    "InWRte": 10000,
    "InOutWRte_WinTms": 0,
    "InOutWRte_RvrtTms": 0,
    "InOutWRte_RmpTms": 0,
    "ChaGriSet": 0,
    "InOutWRte_SF": -2,
}
BATTERY_802 = {
    "AHRtg": 280,
    "WHRtg": 1350,  # 13.5 kWh
    "WChaRteMax": 5000,
    "WDisChaRteMax": 4000,
    "SocRsvMax": 950,  # 95.0 %
    "SoCRsvMin": 50,  # 5.0 %
    "SoC": 736,  # 73.6 %
    "ChaSt": 6,
    "LocRemCtl": 0,
    "AlmRst": 0,
    "Typ": 4,
    "State": 3,
    "Evt1": 0,
    "Evt2": 0,
    "EvtVnd1": 0,
    "EvtVnd2": 0,
    "V": 520,
    "A": 0,
    "W": 0,
    "SetOp": 1,
    "SetInvState": 3,
    "AHRtg_SF": 0,
    "WHRtg_SF": 1,
    "WChaDisChaMax_SF": 0,
    "SoC_SF": -1,
    "V_SF": 0,
    "CellV_SF": -3,
    "A_SF": -1,
    "AMax_SF": 0,
    "W_SF": 0,
}
DER_704 = {
    "WSetEna": 0,
    "WSetMod": 1,
    "WSet": 0,
    "WSetRvrt": 0,
    "WSetEnaRvrt": 0,
    "WSetRvrtTms": 0,
    "WSet_SF": 0,
}

Layout = list[tuple[int, Mapping[str, Any]]]
STORAGE_LAYOUT: Layout = [(1, COMMON), (124, STORAGE_124), (802, BATTERY_802)]
DER_LAYOUT: Layout = [(1, COMMON), (802, BATTERY_802), (704, DER_704)]
# 124 alone, with neither a reserve register nor grid charging, nor a power measurement
BASIC_124 = {k: v for k, v in STORAGE_124.items() if k not in ("MinRsvPct", "ChaGriSet")}
BASIC_LAYOUT: Layout = [(1, COMMON), (124, BASIC_124)]

# grid meters (models 201-204): W positive while the site imports, scaled by W_SF
METER_COMMON = {"Mn": "Gridwise", "Md": "GM-3", "SN": "GW-0042", "Vr": "2.0"}


def meter(model_id: int, watts_raw: int, w_sf: int) -> tuple[int, Mapping[str, Any]]:
    """A meter model with its total real power (`W`, raw) and scale factor (`W_SF`)."""
    return (model_id, {"W": watts_raw, "W_SF": w_sf, "Hz": 5000, "Hz_SF": -2})


METER_LAYOUT: Layout = [(1, METER_COMMON), meter(203, 25000, -1)]  # +2.5 kW: importing


def model_registers(model_id: int, raw: Mapping[str, Any]) -> list[int]:
    """One model's registers from pysunspec2's definition, with `raw` point values."""
    model = sunspec_device.Model(model_id=model_id)
    model.ID.value, model.L.value = model_id, len(model.get_mb()) // 2 - 2
    for name, value in raw.items():
        getattr(model, name).value = value
    data = model.get_mb()
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


@dataclass
class _Point:
    address: int
    size: int
    signed: bool


@dataclass
class SunspecPeer:
    layout: Layout
    base: int = 40000
    unit_id: int = 1
    port: int = 0
    writes: list[tuple[int, list[int]]] = field(default_factory=list)
    reads: int = 0
    refuse_with: ExcCodes | None = None  # answer every request with this exception
    silent: bool = False  # take requests and never answer
    _server: ModbusTcpServer | None = None
    _points: dict[tuple[int, str], _Point] = field(default_factory=dict)
    _read_seen: asyncio.Event | None = None
    _release: asyncio.Event | None = None

    def __post_init__(self) -> None:
        registers = list(SUNS)
        address = self.base + 2
        for model_id, raw in self.layout:
            block = model_registers(model_id, raw)
            model = sunspec_device.Model(model_id=model_id)
            for name, point in model.points.items():
                kind = point.pdef["type"]
                self._points[(model_id, name)] = _Point(
                    address + point.offset, point.len, kind.startswith("int") or kind == "sunssf"
                )
            registers.extend(block)
            address += len(block)
        self.registers = registers + END

    @property
    def models(self) -> list[int]:
        return [model_id for model_id, _ in self.layout]

    async def start(self) -> SunspecPeer:
        self._read_seen = asyncio.Event()
        self._release = asyncio.Event()
        device = SimDevice(
            id=self.unit_id,
            simdata=[SimData(self.base, values=self.registers, datatype=DataType.REGISTERS)],
            action=self._on_access,
        )
        self._server = ModbusTcpServer(device, address=("127.0.0.1", self.port))
        await self._server.serve_forever(background=True)
        listener = self._server.transport
        assert isinstance(listener, asyncio.Server)
        self.port = listener.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._release is not None:
            self._release.set()
        if self._server is not None:
            await self._server.shutdown()  # type: ignore[no-untyped-call]
            self._server = None

    async def __aenter__(self) -> SunspecPeer:
        return await self.start()

    async def __aexit__(self, *_: object) -> None:
        await self.stop()

    async def _on_access(
        self,
        function_code: int,
        _start: int,
        address: int,
        _count: int,
        _registers: list[int],
        values: list[int] | list[bool] | None,
    ) -> ExcCodes | None:
        if self.silent and self._release is not None:
            await self._release.wait()
        if self.refuse_with is not None:
            return self.refuse_with
        if function_code in WRITE_CODES and values is not None:
            self.writes.append((address, [int(v) for v in values]))
        elif function_code == 3:
            self.reads += 1
            if self._read_seen is not None:
                self._read_seen.set()
        return None

    def watch_reads(self) -> asyncio.Event:
        """An event set by the next read request from a client."""
        assert self._read_seen is not None
        self._read_seen.clear()
        return self._read_seen

    # --- registers as the battery sees them --------------------------------------------------
    def address(self, model_id: int, point: str) -> int:
        return self._points[(model_id, point)].address

    async def raw(self, model_id: int, point: str) -> int:
        """A point's raw value in the server's store now (two's complement applied)."""
        assert self._server is not None
        p = self._points[(model_id, point)]
        regs = await self._server.async_getValues(self.unit_id, 3, p.address, p.size)
        value = 0
        for r in regs:
            value = (value << 16) | int(r)
        if p.signed and value >= 1 << (16 * p.size - 1):
            value -= 1 << (16 * p.size)
        return value

    async def set(self, model_id: int, point: str, raw: int) -> None:
        """The battery's firmware changes a register (not counted as a client write)."""
        assert self._server is not None
        p = self._points[(model_id, point)]
        value = raw + (1 << (16 * p.size)) if raw < 0 else raw
        regs = [(value >> (16 * (p.size - 1 - i))) & 0xFFFF for i in range(p.size)]
        before = len(self.writes)
        await self._server.async_setValues(self.unit_id, 16, p.address, regs)
        del self.writes[before:]

    def written(self, model_id: int, point: str) -> list[int]:
        """Every raw value clients wrote to this point, in order."""
        p = self._points[(model_id, point)]
        found = []
        for address, values in self.writes:
            offset = p.address - address
            if offset >= 0 and offset + p.size <= len(values):
                value = 0
                for r in values[offset : offset + p.size]:
                    value = (value << 16) | r
                if p.signed and value >= 1 << (16 * p.size - 1):
                    value -= 1 << (16 * p.size)
                found.append(value)
        return found

    def write_order(self) -> list[int]:
        """The start address of each write request, in order."""
        return [address for address, _ in self.writes]


@contextmanager
def peer_in_thread(layout: Layout, **options: Any) -> Iterator[SunspecPeer]:
    """A peer served from its own thread and event loop (for code that runs its own loop,
    such as the CLI)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    peer = SunspecPeer(layout, **options)

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(peer.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(5), "the SunSpec peer did not start"
    try:
        yield peer
    finally:
        asyncio.run_coroutine_threadsafe(peer.stop(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
