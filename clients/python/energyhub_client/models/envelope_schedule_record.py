from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.meta import Meta
    from ..models.schedule_record import ScheduleRecord


T = TypeVar("T", bound="EnvelopeScheduleRecord")


@_attrs_define
class EnvelopeScheduleRecord:
    """
    Attributes:
        success (bool):
        data (ScheduleRecord):
        meta (Meta):
    """

    success: bool
    data: ScheduleRecord
    meta: Meta
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        success = self.success

        data = self.data.to_dict()

        meta = self.meta.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "data": data,
                "meta": meta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.meta import Meta  # noqa: PLC0415
        from ..models.schedule_record import ScheduleRecord  # noqa: PLC0415

        d = dict(src_dict)
        success = d.pop("success")

        data = ScheduleRecord.from_dict(d.pop("data"))

        meta = Meta.from_dict(d.pop("meta"))

        envelope_schedule_record = cls(
            success=success,
            data=data,
            meta=meta,
        )

        envelope_schedule_record.additional_properties = d
        return envelope_schedule_record

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
