from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.links import Links
    from ..models.quantity import Quantity


T = TypeVar("T", bound="Vehicle")


@_attrs_define
class Vehicle:
    """
    Attributes:
        id (str):
        vendor (None | str):
        model (None | str):
        vin (None | str):
        battery_capacity (None | Quantity):
        state_of_charge (float | None):
        charger_id (None | str):
        links (Links):
    """

    id: str
    vendor: None | str
    model: None | str
    vin: None | str
    battery_capacity: None | Quantity
    state_of_charge: float | None
    charger_id: None | str
    links: Links
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.quantity import Quantity  # noqa: PLC0415

        id = self.id

        vendor: None | str
        vendor = self.vendor

        model: None | str
        model = self.model

        vin: None | str
        vin = self.vin

        battery_capacity: dict[str, Any] | None
        if isinstance(self.battery_capacity, Quantity):
            battery_capacity = self.battery_capacity.to_dict()
        else:
            battery_capacity = self.battery_capacity

        state_of_charge: float | None
        state_of_charge = self.state_of_charge

        charger_id: None | str
        charger_id = self.charger_id

        links = self.links.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "vendor": vendor,
                "model": model,
                "vin": vin,
                "batteryCapacity": battery_capacity,
                "stateOfCharge": state_of_charge,
                "chargerId": charger_id,
                "links": links,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.links import Links  # noqa: PLC0415
        from ..models.quantity import Quantity  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_vendor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vendor = _parse_vendor(d.pop("vendor"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        def _parse_vin(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vin = _parse_vin(d.pop("vin"))

        def _parse_battery_capacity(data: object) -> None | Quantity:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                battery_capacity_type_0 = Quantity.from_dict(data)

                return battery_capacity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Quantity, data)

        battery_capacity = _parse_battery_capacity(d.pop("batteryCapacity"))

        def _parse_state_of_charge(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        state_of_charge = _parse_state_of_charge(d.pop("stateOfCharge"))

        def _parse_charger_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        charger_id = _parse_charger_id(d.pop("chargerId"))

        links = Links.from_dict(d.pop("links"))

        vehicle = cls(
            id=id,
            vendor=vendor,
            model=model,
            vin=vin,
            battery_capacity=battery_capacity,
            state_of_charge=state_of_charge,
            charger_id=charger_id,
            links=links,
        )

        vehicle.additional_properties = d
        return vehicle

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
