from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Sync")


@_attrs_define
class Sync:
    """
    Attributes:
        available (bool):
        last_pulled_at (None | str):
    """

    available: bool
    last_pulled_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        available = self.available

        last_pulled_at: None | str
        last_pulled_at = self.last_pulled_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "available": available,
                "lastPulledAt": last_pulled_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        available = d.pop("available")

        def _parse_last_pulled_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_pulled_at = _parse_last_pulled_at(d.pop("lastPulledAt"))

        sync = cls(
            available=available,
            last_pulled_at=last_pulled_at,
        )

        sync.additional_properties = d
        return sync

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
