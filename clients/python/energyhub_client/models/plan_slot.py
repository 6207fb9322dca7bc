from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.plan_slot_source import PlanSlotSource

if TYPE_CHECKING:
    from ..models.power_out import PowerOut


T = TypeVar("T", bound="PlanSlot")


@_attrs_define
class PlanSlot:
    """
    Attributes:
        start (str):
        end (str):
        power (PowerOut):
        source (PlanSlotSource):
        price (float | None): Per kWh; null when the site has no tariff.
    """

    start: str
    end: str
    power: PowerOut
    source: PlanSlotSource
    price: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        start = self.start

        end = self.end

        power = self.power.to_dict()

        source = self.source.value

        price: float | None
        price = self.price

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "start": start,
                "end": end,
                "power": power,
                "source": source,
                "price": price,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.power_out import PowerOut  # noqa: PLC0415

        d = dict(src_dict)
        start = d.pop("start")

        end = d.pop("end")

        power = PowerOut.from_dict(d.pop("power"))

        source = PlanSlotSource(d.pop("source"))

        def _parse_price(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        price = _parse_price(d.pop("price"))

        plan_slot = cls(
            start=start,
            end=end,
            power=power,
            source=source,
            price=price,
        )

        plan_slot.additional_properties = d
        return plan_slot

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
