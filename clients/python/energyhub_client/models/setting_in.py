from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SettingIn")


@_attrs_define
class SettingIn:
    """
    Attributes:
        value (bool | float):
        unit (None | str | Unset):
    """

    value: bool | float
    unit: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        value: bool | float
        value = self.value

        unit: None | str | Unset
        if isinstance(self.unit, Unset):
            unit = UNSET
        else:
            unit = self.unit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "value": value,
            }
        )
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_value(data: object) -> bool | float:
            return cast(bool | float, data)

        value = _parse_value(d.pop("value"))

        def _parse_unit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unit = _parse_unit(d.pop("unit", UNSET))

        setting_in = cls(
            value=value,
            unit=unit,
        )

        return setting_in
