from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.power_out import PowerOut


T = TypeVar("T", bound="Reading")


@_attrs_define
class Reading:
    """
    Attributes:
        at (str):
        grid_power (PowerOut):
    """

    at: str
    grid_power: PowerOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        grid_power = self.grid_power.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "gridPower": grid_power,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.power_out import PowerOut  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        grid_power = PowerOut.from_dict(d.pop("gridPower"))

        reading = cls(
            at=at,
            grid_power=grid_power,
        )

        reading.additional_properties = d
        return reading

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
