from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.device_summary_type import DeviceSummaryType

T = TypeVar("T", bound="DeviceSummary")


@_attrs_define
class DeviceSummary:
    """
    Attributes:
        id (str):
        vendor (None | str):
        type_ (DeviceSummaryType):
        model (None | str):
        available (bool):
    """

    id: str
    vendor: None | str
    type_: DeviceSummaryType
    model: None | str
    available: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        vendor: None | str
        vendor = self.vendor

        type_ = self.type_.value

        model: None | str
        model = self.model

        available = self.available

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "vendor": vendor,
                "type": type_,
                "model": model,
                "available": available,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        def _parse_vendor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vendor = _parse_vendor(d.pop("vendor"))

        type_ = DeviceSummaryType(d.pop("type"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        available = d.pop("available")

        device_summary = cls(
            id=id,
            vendor=vendor,
            type_=type_,
            model=model,
            available=available,
        )

        device_summary.additional_properties = d
        return device_summary

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
