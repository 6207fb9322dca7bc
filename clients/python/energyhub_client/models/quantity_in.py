from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="QuantityIn")


@_attrs_define
class QuantityIn:
    """
    Attributes:
        value (float):
        unit (str):
    """

    value: float
    unit: str

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

        unit = d.pop("unit")

        quantity_in = cls(
            value=value,
            unit=unit,
        )

        return quantity_in
