from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.command_spec_execution_item import CommandSpecExecutionItem

if TYPE_CHECKING:
    from ..models.command_spec_parameters import CommandSpecParameters


T = TypeVar("T", bound="CommandSpec")


@_attrs_define
class CommandSpec:
    """
    Attributes:
        parameters (CommandSpecParameters):
        execution (list[CommandSpecExecutionItem]):
    """

    parameters: CommandSpecParameters
    execution: list[CommandSpecExecutionItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        parameters = self.parameters.to_dict()

        execution = []
        for execution_item_data in self.execution:
            execution_item = execution_item_data.value
            execution.append(execution_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "parameters": parameters,
                "execution": execution,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.command_spec_parameters import CommandSpecParameters  # noqa: PLC0415

        d = dict(src_dict)
        parameters = CommandSpecParameters.from_dict(d.pop("parameters"))

        execution = []
        _execution = d.pop("execution")
        for execution_item_data in _execution:
            execution_item = CommandSpecExecutionItem(execution_item_data)

            execution.append(execution_item)

        command_spec = cls(
            parameters=parameters,
            execution=execution,
        )

        command_spec.additional_properties = d
        return command_spec

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
