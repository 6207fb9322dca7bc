from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.reading_in import ReadingIn


T = TypeVar("T", bound="AddSiteReadingsBody")


@_attrs_define
class AddSiteReadingsBody:
    """
    Attributes:
        readings (list[ReadingIn]):
    """

    readings: list[ReadingIn]

    def to_dict(self) -> dict[str, Any]:
        readings = []
        for readings_item_data in self.readings:
            readings_item = readings_item_data.to_dict()
            readings.append(readings_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "readings": readings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reading_in import ReadingIn  # noqa: PLC0415

        d = dict(src_dict)
        readings = []
        _readings = d.pop("readings")
        for readings_item_data in _readings:
            readings_item = ReadingIn.from_dict(readings_item_data)

            readings.append(readings_item)

        add_site_readings_body = cls(
            readings=readings,
        )

        return add_site_readings_body
