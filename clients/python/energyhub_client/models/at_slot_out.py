from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.at_slot_out_parameters import AtSlotOutParameters


T = TypeVar("T", bound="AtSlotOut")


@_attrs_define
class AtSlotOut:
    """
    Attributes:
        at (str):
        duration (str):
        command (str):
        parameters (AtSlotOutParameters):
    """

    at: str
    duration: str
    command: str
    parameters: AtSlotOutParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        duration = self.duration

        command = self.command

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "duration": duration,
                "command": command,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.at_slot_out_parameters import AtSlotOutParameters  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        duration = d.pop("duration")

        command = d.pop("command")

        parameters = AtSlotOutParameters.from_dict(d.pop("parameters"))

        at_slot_out = cls(
            at=at,
            duration=duration,
            command=command,
            parameters=parameters,
        )

        at_slot_out.additional_properties = d
        return at_slot_out

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
