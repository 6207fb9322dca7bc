from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.plan_steering_state import PlanSteeringState

T = TypeVar("T", bound="PlanSteering")


@_attrs_define
class PlanSteering:
    """
    Attributes:
        state (PlanSteeringState): applied: the charger keeps to the plan's limits; refused: it refused them (message
            says why) and charges by its own limits; unreachable: it is not connected, and gets them when it is.
        message (None | str):
        at (str):
    """

    state: PlanSteeringState
    message: None | str
    at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        state = self.state.value

        message: None | str
        message = self.message

        at = self.at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
                "message": message,
                "at": at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        state = PlanSteeringState(d.pop("state"))

        def _parse_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        message = _parse_message(d.pop("message"))

        at = d.pop("at")

        plan_steering = cls(
            state=state,
            message=message,
            at=at,
        )

        plan_steering.additional_properties = d
        return plan_steering

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
