from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.charging_goal import ChargingGoal
    from ..models.meta import Meta


T = TypeVar("T", bound="EnvelopeUnionChargingGoalNoneType")


@_attrs_define
class EnvelopeUnionChargingGoalNoneType:
    """
    Attributes:
        success (bool):
        data (ChargingGoal | None):
        meta (Meta):
    """

    success: bool
    data: ChargingGoal | None
    meta: Meta
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415

        success = self.success

        data: dict[str, Any] | None
        if isinstance(self.data, ChargingGoal):
            data = self.data.to_dict()
        else:
            data = self.data

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
        from ..models.charging_goal import ChargingGoal  # noqa: PLC0415
        from ..models.meta import Meta  # noqa: PLC0415

        d = dict(src_dict)
        success = d.pop("success")

        def _parse_data(data: object) -> ChargingGoal | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = ChargingGoal.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChargingGoal | None, data)

        data = _parse_data(d.pop("data"))

        meta = Meta.from_dict(d.pop("meta"))

        envelope_union_charging_goal_none_type = cls(
            success=success,
            data=data,
            meta=meta,
        )

        envelope_union_charging_goal_none_type.additional_properties = d
        return envelope_union_charging_goal_none_type

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
