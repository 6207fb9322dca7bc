"""The SunSpec driver's register tables against pysunspec2's model definitions, the raw
value codec, and the mapping tables' completeness and fallbacks."""

from __future__ import annotations

import pytest
import sunspec2.device as sunspec_device  # type: ignore[import-untyped]

from energyhub.domain.capabilities import BATTERY_MODES
from energyhub.drivers.sunspec.mapping import (
    CHARGE_STATUS,
    DER_MODES,
    DER_SIGNATURES,
    MODBUS_EXCEPTIONS,
    STORAGE_MODES,
    STORAGE_SIGNATURES,
    UNKNOWN,
    modbus_failure,
)
from energyhub.drivers.sunspec.registers import MODELS, Point, PointType, decode, encode


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_points_match_the_sunspec_definitions(model_id: int) -> None:
    reference = sunspec_device.Model(model_id=model_id)
    for name, point in MODELS[model_id].points.items():
        defined = reference.points[name]
        assert point.offset == defined.offset, name
        assert point.size == defined.len, name
        assert point.type.value == defined.pdef["type"], name
        assert point.sf == defined.pdef.get("sf"), name
        assert point.writable == (defined.pdef.get("access") == "RW"), name
    assert MODELS[model_id].length <= len(reference.get_mb()) // 2 - 2


@pytest.mark.parametrize(
    ("kind", "size", "raw", "registers"),
    [
        (PointType.UINT16, 1, 5000, [5000]),
        (PointType.INT16, 1, -2000, [0xF830]),
        (PointType.SUNSSF, 1, -2, [0xFFFE]),
        (PointType.INT32, 2, -4000, [0xFFFF, 0xF060]),
        (PointType.UINT32, 2, 300, [0, 300]),
    ],
)
def test_raw_values_round_trip(kind: PointType, size: int, raw: int, registers: list[int]) -> None:
    point = Point("X", 2, kind, size)
    assert encode(point, raw) == registers
    assert decode(point, registers) == raw


@pytest.mark.parametrize(
    ("kind", "size", "registers"),
    [
        (PointType.UINT16, 1, [0xFFFF]),
        (PointType.INT16, 1, [0x8000]),
        (PointType.ENUM16, 1, [0xFFFF]),
        (PointType.SUNSSF, 1, [0x8000]),
        (PointType.INT32, 2, [0x8000, 0]),
        (PointType.UINT32, 2, [0xFFFF, 0xFFFF]),
    ],
)
def test_not_implemented_reads_as_none(kind: PointType, size: int, registers: list[int]) -> None:
    assert decode(Point("X", 2, kind, size), registers) is None


def test_encode_clamps_and_never_writes_the_not_implemented_value() -> None:
    assert encode(Point("X", 2, PointType.INT16), -40000) == [0x8001]
    assert encode(Point("X", 2, PointType.UINT16), 70000) == [0xFFFE]
    assert encode(Point("X", 2, PointType.UINT16), -5) == [0]


def test_every_mode_has_its_own_register_signature() -> None:
    assert sorted(STORAGE_SIGNATURES.values()) == sorted(STORAGE_MODES)
    assert sorted(DER_SIGNATURES.values()) == sorted(DER_MODES)
    assert set(STORAGE_MODES) == set(BATTERY_MODES)
    assert set(DER_MODES) <= set(BATTERY_MODES)
    assert [m for m, s in STORAGE_MODES.items() if not s.held] == ["auto.balance"]
    assert [m for m, s in DER_MODES.items() if not s.held] == ["auto.balance"]


def test_status_and_exception_tables_fall_back() -> None:
    assert set(CHARGE_STATUS) == set(range(1, 8))
    assert set(CHARGE_STATUS.values()) == {"idle", "charging", "discharging"}
    assert CHARGE_STATUS.get(99, UNKNOWN) == UNKNOWN
    assert modbus_failure(6) == ("DEVICE_BUSY", True)
    assert modbus_failure(11) == ("DEVICE_OFFLINE", True)
    assert modbus_failure(8) == ("DEVICE_REJECTED", False)
    assert 8 not in MODBUS_EXCEPTIONS
