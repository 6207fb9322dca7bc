from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.power_in_unit import PowerInUnit

T = TypeVar("T", bound="PowerIn")


@_attrs_define
class PowerIn:
    """
    Attributes:
        value (float):
        unit (PowerInUnit):
    """

    value: float
    unit: PowerInUnit

    def to_dict(self) -> dict[str, Any]:
        value = self.value

        unit = self.unit.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "value": value,
                "unit": unit,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        unit = PowerInUnit(d.pop("unit"))

        power_in = cls(
            value=value,
            unit=unit,
        )

        return power_in
