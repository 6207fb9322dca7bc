from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.time_slot_in_parameters_type_0 import TimeSlotInParametersType0


T = TypeVar("T", bound="TimeSlotIn")


@_attrs_define
class TimeSlotIn:
    """Fires at a wall-clock time in the schedule's `timezone`, by its recurrence.

    Attributes:
        duration (str): ISO 8601 duration of fixed length, over zero and at most P7D: PT30M, PT2H, P1D. A window's
            length for commands that allow `windowed`.
        command (str): A command of the device's `commands` map.
        time (str): HH:mm
        parameters (None | TimeSlotInParametersType0 | Unset): Quantities, checked as a push's parameters.
    """

    duration: str
    command: str
    time: str
    parameters: None | TimeSlotInParametersType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.time_slot_in_parameters_type_0 import TimeSlotInParametersType0  # noqa: PLC0415

        duration = self.duration

        command = self.command

        time = self.time

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, TimeSlotInParametersType0):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "duration": duration,
                "command": command,
                "time": time,
            }
        )
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.time_slot_in_parameters_type_0 import TimeSlotInParametersType0  # noqa: PLC0415

        d = dict(src_dict)
        duration = d.pop("duration")

        command = d.pop("command")

        time = d.pop("time")

        def _parse_parameters(data: object) -> None | TimeSlotInParametersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = TimeSlotInParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TimeSlotInParametersType0 | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        time_slot_in = cls(
            duration=duration,
            command=command,
            time=time,
            parameters=parameters,
        )

        return time_slot_in
