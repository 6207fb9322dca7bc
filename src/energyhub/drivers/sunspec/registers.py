"""SunSpec register maps of the models this driver uses (1, 124, 802, 704; meters 201-204),
as data.

Offsets count registers from a model's `ID` register (so `L` is at 1 and the first point at
2), as in the SunSpec model definitions; a test checks them against pysunspec2's copies.
Only the points the driver reads or writes are listed. A model block is decoded here:
"not implemented" sentinels become None and scale factors are applied."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

SUNS_MARKER = (0x5375, 0x6E53)  # "SunS"
END_MODEL_ID = 0xFFFF
BASE_ADDRESSES = (40000, 0, 50000)  # where SunSpec devices put the marker, probed in order


class PointType(StrEnum):
    UINT16 = "uint16"
    INT16 = "int16"
    ENUM16 = "enum16"
    BITFIELD16 = "bitfield16"
    SUNSSF = "sunssf"
    UINT32 = "uint32"
    INT32 = "int32"
    STRING = "string"


# The value a device reports for a point it does not implement.
NOT_IMPLEMENTED: Mapping[PointType, int] = {
    PointType.UINT16: 0xFFFF,
    PointType.INT16: 0x8000,
    PointType.ENUM16: 0xFFFF,
    PointType.BITFIELD16: 0xFFFF,
    PointType.SUNSSF: 0x8000,
    PointType.UINT32: 0xFFFFFFFF,
    PointType.INT32: 0x80000000,
}
_SIGNED = {PointType.INT16: 16, PointType.SUNSSF: 16, PointType.INT32: 32}
_RANGES: Mapping[PointType, tuple[int, int]] = {
    PointType.UINT16: (0, 0xFFFE),
    PointType.INT16: (-0x7FFF, 0x7FFF),
    PointType.ENUM16: (0, 0xFFFE),
    PointType.BITFIELD16: (0, 0x7FFF),
    PointType.SUNSSF: (-10, 10),
    PointType.UINT32: (0, 0xFFFFFFFE),
    PointType.INT32: (-0x7FFFFFFF, 0x7FFFFFFF),
}


@dataclass(frozen=True, slots=True)
class Point:
    name: str
    offset: int
    type: PointType
    size: int = 1
    sf: str | None = None  # the scale-factor point: value = raw * 10 ** sf
    writable: bool = False


@dataclass(frozen=True, slots=True)
class ModelMap:
    id: int
    name: str
    points: Mapping[str, Point]

    @property
    def length(self) -> int:
        """The least `L` a device's model must declare to hold every point used here."""
        return max(p.offset + p.size for p in self.points.values()) - 2


def _model(model_id: int, name: str, points: Sequence[Point]) -> ModelMap:
    return ModelMap(model_id, name, {p.name: p for p in points})


U16, I16, E16, B16, SF = (
    PointType.UINT16,
    PointType.INT16,
    PointType.ENUM16,
    PointType.BITFIELD16,
    PointType.SUNSSF,
)
RW = True

COMMON = _model(
    1,
    "common",
    [
        Point("Mn", 2, PointType.STRING, 16),
        Point("Md", 18, PointType.STRING, 16),
        Point("Vr", 42, PointType.STRING, 8),
        Point("SN", 50, PointType.STRING, 16),
    ],
)

STORAGE = _model(
    124,
    "storage_basic",
    [
        Point("WChaMax", 2, U16, sf="WChaMax_SF", writable=RW),
        Point("StorCtl_Mod", 5, B16, writable=RW),
        Point("MinRsvPct", 7, U16, sf="MinRsvPct_SF", writable=RW),
        Point("ChaState", 8, U16, sf="ChaState_SF"),
        Point("ChaSt", 11, E16),
        Point("OutWRte", 12, I16, sf="InOutWRte_SF", writable=RW),
        Point("InWRte", 13, I16, sf="InOutWRte_SF", writable=RW),
        Point("InOutWRte_RvrtTms", 15, U16, writable=RW),
        Point("ChaGriSet", 17, E16, writable=RW),
        Point("WChaMax_SF", 18, SF),
        Point("MinRsvPct_SF", 21, SF),
        Point("ChaState_SF", 22, SF),
        Point("InOutWRte_SF", 25, SF),
    ],
)

BATTERY = _model(
    802,
    "battery",
    [
        Point("WHRtg", 3, U16, sf="WHRtg_SF"),
        Point("WChaRteMax", 4, U16, sf="WChaDisChaMax_SF"),
        Point("WDisChaRteMax", 5, U16, sf="WChaDisChaMax_SF"),
        Point("SocRsvMax", 9, U16, sf="SoC_SF", writable=RW),
        Point("SoCRsvMin", 10, U16, sf="SoC_SF", writable=RW),
        Point("SoC", 11, U16, sf="SoC_SF"),
        Point("ChaSt", 16, E16),
        Point("W", 47, I16, sf="W_SF"),
        Point("WHRtg_SF", 53, SF),
        Point("WChaDisChaMax_SF", 54, SF),
        Point("SoC_SF", 56, SF),
        Point("W_SF", 63, SF),
    ],
)

DER_CONTROLS = _model(
    704,
    "DERCtlAC",
    [
        Point("WSetEna", 22, E16, writable=RW),
        Point("WSetMod", 23, E16, writable=RW),
        Point("WSet", 24, PointType.INT32, 2, sf="WSet_SF", writable=RW),
        Point("WSetRvrt", 26, PointType.INT32, 2, sf="WSet_SF", writable=RW),
        Point("WSetEnaRvrt", 30, E16, writable=RW),
        Point("WSetRvrtTms", 31, PointType.UINT32, 2, writable=RW),
        Point("WSet_SF", 55, SF),
    ],
)


def _meter(model_id: int, name: str) -> ModelMap:
    """Models 201-204 share one layout; only the total real power is read."""
    return _model(model_id, name, [Point("W", 18, I16, sf="W_SF"), Point("W_SF", 22, SF)])


METERS = (
    _meter(201, "ac_meter_single_phase"),
    _meter(202, "ac_meter_split_phase"),
    _meter(203, "ac_meter_three_phase_wye"),
    _meter(204, "ac_meter_three_phase_delta"),
)
METER_MODEL_IDS = tuple(m.id for m in METERS)

MODELS: Mapping[int, ModelMap] = {
    m.id: m for m in (COMMON, STORAGE, BATTERY, DER_CONTROLS, *METERS)
}


def decode(point: Point, registers: Sequence[int]) -> int | None:
    """A point's raw integer (two's complement applied), or None when not implemented."""
    raw = 0
    for register in registers[: point.size]:
        raw = (raw << 16) | (register & 0xFFFF)
    if raw == NOT_IMPLEMENTED.get(point.type):
        return None
    bits = _SIGNED.get(point.type)
    if bits is not None and raw >= 1 << (bits - 1):
        raw -= 1 << bits
    return raw


def encode(point: Point, raw: int) -> list[int]:
    """A raw integer as the point's registers, clamped into the type's range (the
    not-implemented sentinel is never written)."""
    low, high = _RANGES[point.type]
    raw = min(max(raw, low), high)
    if raw < 0:
        raw += 1 << (16 * point.size)
    return [(raw >> (16 * (point.size - 1 - i))) & 0xFFFF for i in range(point.size)]


def decode_text(point: Point, registers: Sequence[int]) -> str:
    data = b"".join(r.to_bytes(2, "big") for r in registers[: point.size])
    return data.split(b"\0", 1)[0].decode("utf-8", "replace").strip()


@dataclass(frozen=True, slots=True)
class ModelBlock:
    """One model as read from a device: its registers from `ID` on, at `address`."""

    model: ModelMap
    address: int
    registers: tuple[int, ...]

    def _regs(self, point: Point) -> Sequence[int]:
        return self.registers[point.offset : point.offset + point.size]

    def point(self, name: str) -> Point:
        return self.model.points[name]

    def raw(self, name: str) -> int | None:
        return decode(self.point(name), self._regs(self.point(name)))

    def text(self, name: str) -> str:
        return decode_text(self.point(name), self._regs(self.point(name)))

    def scale(self, name: str) -> int | None:
        """The point's scale-factor exponent (0 without one); None when it is missing."""
        sf = self.point(name).sf
        return 0 if sf is None else self.raw(sf)

    def implemented(self, name: str) -> bool:
        return self.raw(name) is not None and self.scale(name) is not None

    def value(self, name: str) -> float | None:
        """The point in its unit (scale factor applied), or None when not implemented."""
        raw, sf = self.raw(name), self.scale(name)
        if raw is None or sf is None:
            return None
        return float(raw) if sf == 0 else raw * 10.0**sf

    def to_raw(self, name: str, value: float) -> int:
        """The raw register value for `value` in the point's unit."""
        sf = self.scale(name)
        if sf is None:
            raise ValueError(f"{self.model.name}.{name} has no usable scale factor")
        return round(value / 10.0**sf)

    def address_of(self, name: str) -> int:
        return self.address + self.point(name).offset
