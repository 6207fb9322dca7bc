from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.power_in import PowerIn


T = TypeVar("T", bound="ReadingIn")


@_attrs_define
class ReadingIn:
    """
    Attributes:
        at (datetime.datetime): When the meter read it; at most 5 minutes ahead.
        grid_power (PowerIn):
    """

    at: datetime.datetime
    grid_power: PowerIn

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        grid_power = self.grid_power.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "gridPower": grid_power,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.power_in import PowerIn  # noqa: PLC0415

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        grid_power = PowerIn.from_dict(d.pop("gridPower"))

        reading_in = cls(
            at=at,
            grid_power=grid_power,
        )

        return reading_in
