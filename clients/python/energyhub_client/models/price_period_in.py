from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PricePeriodIn")


@_attrs_define
class PricePeriodIn:
    """
    Attributes:
        start (datetime.datetime):
        end (datetime.datetime): After start.
        price (float): Per kWh.
    """

    start: datetime.datetime
    end: datetime.datetime
    price: float

    def to_dict(self) -> dict[str, Any]:
        start = self.start.isoformat()

        end = self.end.isoformat()

        price = self.price

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "start": start,
                "end": end,
                "price": price,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        start = datetime.datetime.fromisoformat(d.pop("start"))

        end = datetime.datetime.fromisoformat(d.pop("end"))

        price = d.pop("price")

        price_period_in = cls(
            start=start,
            end=end,
            price=price,
        )

        return price_period_in
