from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SimulateResetBody")


@_attrs_define
class SimulateResetBody:
    """End the hold: the device follows its time pattern again.

    Attributes:
        reset (bool):
    """

    reset: bool

    def to_dict(self) -> dict[str, Any]:
        reset = self.reset

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "reset": reset,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reset = d.pop("reset")

        simulate_reset_body = cls(
            reset=reset,
        )

        return simulate_reset_body
