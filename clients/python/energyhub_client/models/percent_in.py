from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="PercentIn")


@_attrs_define
class PercentIn:
    """
    Attributes:
        value (float):
        unit (Literal['percent']):
    """

    value: float
    unit: Literal["percent"]

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

        unit = cast(Literal["percent"], d.pop("unit"))
        if unit != "percent":
            raise ValueError(f"unit must match const 'percent', got '{unit}'")

        percent_in = cls(
            value=value,
            unit=unit,
        )

        return percent_in
