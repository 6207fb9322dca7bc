from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.skipped_occurrence_details_type_0 import SkippedOccurrenceDetailsType0


T = TypeVar("T", bound="SkippedOccurrence")


@_attrs_define
class SkippedOccurrence:
    """An occurrence that could not be placed as an action; the schedule carried on.

    Attributes:
        slot (int): Index of the slot in `slots`.
        start (str):
        end (str):
        error_code (str):
        error_message (str):
        details (None | SkippedOccurrenceDetailsType0):
    """

    slot: int
    start: str
    end: str
    error_code: str
    error_message: str
    details: None | SkippedOccurrenceDetailsType0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.skipped_occurrence_details_type_0 import SkippedOccurrenceDetailsType0  # noqa: PLC0415

        slot = self.slot

        start = self.start

        end = self.end

        error_code = self.error_code

        error_message = self.error_message

        details: dict[str, Any] | None
        if isinstance(self.details, SkippedOccurrenceDetailsType0):
            details = self.details.to_dict()
        else:
            details = self.details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "slot": slot,
                "start": start,
                "end": end,
                "errorCode": error_code,
                "errorMessage": error_message,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.skipped_occurrence_details_type_0 import SkippedOccurrenceDetailsType0  # noqa: PLC0415

        d = dict(src_dict)
        slot = d.pop("slot")

        start = d.pop("start")

        end = d.pop("end")

        error_code = d.pop("errorCode")

        error_message = d.pop("errorMessage")

        def _parse_details(data: object) -> None | SkippedOccurrenceDetailsType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                details_type_0 = SkippedOccurrenceDetailsType0.from_dict(data)

                return details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SkippedOccurrenceDetailsType0, data)

        details = _parse_details(d.pop("details"))

        skipped_occurrence = cls(
            slot=slot,
            start=start,
            end=end,
            error_code=error_code,
            error_message=error_message,
            details=details,
        )

        skipped_occurrence.additional_properties = d
        return skipped_occurrence

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
