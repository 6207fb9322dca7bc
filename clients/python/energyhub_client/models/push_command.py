from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.push_command_parameters import PushCommandParameters


T = TypeVar("T", bound="PushCommand")


@_attrs_define
class PushCommand:
    """
    Attributes:
        command (str): A mode of `commands`.
        parameters (PushCommandParameters | Unset):
    """

    command: str
    parameters: PushCommandParameters | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        command = self.command

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "command": command,
            }
        )
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.push_command_parameters import PushCommandParameters  # noqa: PLC0415

        d = dict(src_dict)
        command = d.pop("command")

        _parameters = d.pop("parameters", UNSET)
        parameters: PushCommandParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = PushCommandParameters.from_dict(_parameters)

        push_command = cls(
            command=command,
            parameters=parameters,
        )

        return push_command
