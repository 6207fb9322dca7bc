from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.time_slot_out_parameters import TimeSlotOutParameters


T = TypeVar("T", bound="TimeSlotOut")


@_attrs_define
class TimeSlotOut:
    """
    Attributes:
        time (str):
        duration (str):
        command (str):
        parameters (TimeSlotOutParameters):
    """

    time: str
    duration: str
    command: str
    parameters: TimeSlotOutParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        time = self.time

        duration = self.duration

        command = self.command

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "time": time,
                "duration": duration,
                "command": command,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.time_slot_out_parameters import TimeSlotOutParameters  # noqa: PLC0415

        d = dict(src_dict)
        time = d.pop("time")

        duration = d.pop("duration")

        command = d.pop("command")

        parameters = TimeSlotOutParameters.from_dict(d.pop("parameters"))

        time_slot_out = cls(
            time=time,
            duration=duration,
            command=command,
            parameters=parameters,
        )

        time_slot_out.additional_properties = d
        return time_slot_out

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
