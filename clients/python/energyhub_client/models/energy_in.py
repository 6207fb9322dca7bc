from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="EnergyIn")


@_attrs_define
class EnergyIn:
    """
    Attributes:
        value (float):
        unit (Literal['kwh']):
    """

    value: float
    unit: Literal["kwh"]

    def to_dict(self) -> dict[str, Any]:
        value = self.value

        unit = self.unit

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

        unit = cast(Literal["kwh"], d.pop("unit"))
        if unit != "kwh":
            raise ValueError(f"unit must match const 'kwh', got '{unit}'")

        energy_in = cls(
            value=value,
            unit=unit,
        )

        return energy_in
