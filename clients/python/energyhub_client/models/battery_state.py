from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.battery_state_status import BatteryStateStatus

T = TypeVar("T", bound="BatteryState")


@_attrs_define
class BatteryState:
    """
    Attributes:
        status (BatteryStateStatus):
        capacity (float): Usable capacity, kWh.
        level (float): State of charge, percent 0-100.
        charge_rate (float): kW; positive charging, negative discharging.
        discharge_limit (float): Lowest state of charge in normal use, percent.
        current_mode (str):
    """

    status: BatteryStateStatus
    capacity: float
    level: float
    charge_rate: float
    discharge_limit: float
    current_mode: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        capacity = self.capacity

        level = self.level

        charge_rate = self.charge_rate

        discharge_limit = self.discharge_limit

        current_mode = self.current_mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "capacity": capacity,
                "level": level,
                "chargeRate": charge_rate,
                "dischargeLimit": discharge_limit,
                "currentMode": current_mode,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = BatteryStateStatus(d.pop("status"))

        capacity = d.pop("capacity")

        level = d.pop("level")

        charge_rate = d.pop("chargeRate")

        discharge_limit = d.pop("dischargeLimit")

        current_mode = d.pop("currentMode")

        battery_state = cls(
            status=status,
            capacity=capacity,
            level=level,
            charge_rate=charge_rate,
            discharge_limit=discharge_limit,
            current_mode=current_mode,
        )

        battery_state.additional_properties = d
        return battery_state

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
