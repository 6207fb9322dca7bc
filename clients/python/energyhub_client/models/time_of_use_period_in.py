from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="TimeOfUsePeriodIn")


@_attrs_define
class TimeOfUsePeriodIn:
    """
    Attributes:
        from_ (str):
        to (str): At or before `from`: the period runs over midnight. 24:00 is midnight.
        price (float): Per kWh.
    """

    from_: str
    to: str
    price: float

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        price = self.price

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
                "price": price,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        price = d.pop("price")

        time_of_use_period_in = cls(
            from_=from_,
            to=to,
            price=price,
        )

        return time_of_use_period_in
