from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.time_of_use_period_in import TimeOfUsePeriodIn


T = TypeVar("T", bound="TimeOfUseIn")


@_attrs_define
class TimeOfUseIn:
    """The site's wall clock: periods that cover the day without gap or overlap.

    Attributes:
        time_of_use (list[TimeOfUsePeriodIn]):
    """

    time_of_use: list[TimeOfUsePeriodIn]

    def to_dict(self) -> dict[str, Any]:
        time_of_use = []
        for time_of_use_item_data in self.time_of_use:
            time_of_use_item = time_of_use_item_data.to_dict()
            time_of_use.append(time_of_use_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "timeOfUse": time_of_use,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.time_of_use_period_in import TimeOfUsePeriodIn  # noqa: PLC0415

        d = dict(src_dict)
        time_of_use = []
        _time_of_use = d.pop("timeOfUse")
        for time_of_use_item_data in _time_of_use:
            time_of_use_item = TimeOfUsePeriodIn.from_dict(time_of_use_item_data)

            time_of_use.append(time_of_use_item)

        time_of_use_in = cls(
            time_of_use=time_of_use,
        )

        return time_of_use_in
