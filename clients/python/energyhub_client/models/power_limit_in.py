from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.power_limit_in_unit import PowerLimitInUnit

T = TypeVar("T", bound="PowerLimitIn")


@_attrs_define
class PowerLimitIn:
    """
    Attributes:
        value (float):
        unit (PowerLimitInUnit):
    """

    value: float
    unit: PowerLimitInUnit

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

        unit = PowerLimitInUnit(d.pop("unit"))

        power_limit_in = cls(
            value=value,
            unit=unit,
        )

        return power_limit_in
