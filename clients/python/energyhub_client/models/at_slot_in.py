from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.at_slot_in_parameters_type_0 import AtSlotInParametersType0


T = TypeVar("T", bound="AtSlotIn")


@_attrs_define
class AtSlotIn:
    """Fires once, at an absolute time.

    Attributes:
        duration (str): ISO 8601 duration of fixed length, over zero and at most P7D: PT30M, PT2H, P1D. A window's
            length for commands that allow `windowed`.
        command (str): A command of the device's `commands` map.
        at (datetime.datetime): ISO 8601 with offset or Z, between 1970-01-01 and 9998-12-31 (UTC).
        parameters (AtSlotInParametersType0 | None | Unset): Quantities, checked as a push's parameters.
    """

    duration: str
    command: str
    at: datetime.datetime
    parameters: AtSlotInParametersType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.at_slot_in_parameters_type_0 import AtSlotInParametersType0  # noqa: PLC0415

        duration = self.duration

        command = self.command

        at = self.at.isoformat()

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, AtSlotInParametersType0):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "duration": duration,
                "command": command,
                "at": at,
            }
        )
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.at_slot_in_parameters_type_0 import AtSlotInParametersType0  # noqa: PLC0415

        d = dict(src_dict)
        duration = d.pop("duration")

        command = d.pop("command")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_parameters(data: object) -> AtSlotInParametersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = AtSlotInParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AtSlotInParametersType0 | None | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        at_slot_in = cls(
            duration=duration,
            command=command,
            at=at,
            parameters=parameters,
        )

        return at_slot_in
