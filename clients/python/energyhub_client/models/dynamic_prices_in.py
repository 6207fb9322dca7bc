from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.price_period_in import PricePeriodIn


T = TypeVar("T", bound="DynamicPricesIn")


@_attrs_define
class DynamicPricesIn:
    """Dynamic prices (e.g. day-ahead, 15 or 60 minutes), UTC, none overlapping another.

    Attributes:
        prices (list[PricePeriodIn]):
    """

    prices: list[PricePeriodIn]

    def to_dict(self) -> dict[str, Any]:
        prices = []
        for prices_item_data in self.prices:
            prices_item = prices_item_data.to_dict()
            prices.append(prices_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "prices": prices,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.price_period_in import PricePeriodIn  # noqa: PLC0415

        d = dict(src_dict)
        prices = []
        _prices = d.pop("prices")
        for prices_item_data in _prices:
            prices_item = PricePeriodIn.from_dict(prices_item_data)

            prices.append(prices_item)

        dynamic_prices_in = cls(
            prices=prices,
        )

        return dynamic_prices_in
